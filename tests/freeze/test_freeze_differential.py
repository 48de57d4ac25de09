"""``--freeze`` preserves semantics: the interpreter agrees before and after.

Every ``// -----`` chunk of ``lit_tests/passes/freeze`` (but the invalid
ones) runs before and after the pass on the same random inputs, with every
predicate input true and false, and with folded constants unlimited and
limited to 16 bytes; globals take the values they carry. Random programs of
``symbolic_program_generator`` (nested regions, loops, unbacked symbols) run
the same way, after the pipeline, with each argument of static type made a
parameter, so their predicates, counters and loop bounds fold.
"""

from __future__ import annotations

import os
import random
import sys
from pathlib import Path

import pytest
import torch

from hopc.dialects.hop import BufferOp, ConstantOp, ParameterOp
from hopc.dialects.hop_module_structure import entry_function, entry_signature
from hopc.dialects.parse import parse_module
from hopc.ir.types import TensorType
from hopc.passes.pipeline import run_pipeline
from hopc.torch_bridge.tensor_constants import global_value

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from freeze_harness import as_parameters, run_frozen_and_not  # after tests/ is on the path
from interpreter_outcomes import assert_same_outcome
from program_generator_core import random_arguments, symbol_sizes
from symbolic_program_generator import generate_program

LIT = Path(__file__).resolve().parents[2] / "lit_tests" / "passes" / "freeze"


def _chunks() -> list:
    return [pytest.param(chunk, id=f"{path.stem}-{index}")
            for path in sorted(LIT.glob("*.mlir")) if path.stem != "invalid"
            for index, chunk in enumerate(path.read_text().split("// -----"))]


def _with_global_values(module, arguments: list[object]) -> list[object]:
    declared = {op.symbol: op for op in module.ops if isinstance(op, ParameterOp | BufferOp | ConstantOp)}
    for index, (_, name) in entry_signature(module).globals_by_argument.items():
        value = global_value(declared[name]) if name in declared else None
        if value is not None:
            arguments[index] = value
    return arguments


@pytest.mark.parametrize("chunk", _chunks())
@pytest.mark.parametrize("predicate", [True, False])
@pytest.mark.parametrize("limit", [None, 16])
def test_lit_chunk_is_preserved(chunk: str, predicate: bool, limit: int | None):
    module = parse_module(chunk)
    generator = torch.Generator().manual_seed(0)
    arguments = _with_global_values(module, random_arguments(module, symbol_sizes(module, generator),
                                                             generator, predicate))
    options = {} if limit is None else {"max_constant_bytes": limit}
    (before, inputs_before), (after, inputs_after), _ = run_frozen_and_not(module, arguments, **options)
    # bit for bit, but where freeze decomposes a composite (Note [prepared layouts]: a GEMM on
    # a transposed copy of a weight sums in another order); linear is the one the chunks use
    assert_same_outcome(before, after, exact="aten.linear" not in chunk)


@pytest.mark.parametrize("seed", range(16))
def test_random_program_with_parameters_is_preserved(seed: int):
    module = run_pipeline(parse_module(generate_program(random.Random(seed).randrange)))
    generator = torch.Generator().manual_seed(seed)
    arguments = random_arguments(module, symbol_sizes(module, generator), generator)
    signature = entry_signature(module)
    changed = set(signature.copy_back.values())
    static = {i: arguments[i] for i, t in enumerate(signature.function.function_type.inputs.data)
              if isinstance(t, TensorType) and all(isinstance(d, int) for d in t.shape)}
    as_parameters(module, static)
    (before, _), (after, _), frozen = run_frozen_and_not(module, arguments)
    assert_same_outcome(before, after)
    assert len(entry_function(frozen).args) == len(arguments) - len(static.keys() - changed)
