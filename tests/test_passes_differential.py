"""canonicalize, cse and dce preserve semantics: the interpreter agrees before and after.

Every ``// -----`` chunk of the passes' lit tests runs in the reference
interpreter before and after its pass, on the same random inputs, for two
sizes of every shape symbol and with every 0-d boolean input (a predicate) both
true and false. Outputs, and inputs (which in-place ops mutate), must be equal;
a run that fails must fail after the pass too. Random programs from
``symbolic_program_generator`` (nested regions, unbacked symbols) are checked
the same way under each pass and under all three in a row.
"""

from __future__ import annotations

import random

import pytest
import torch
from interpreter_outcomes import assert_same_outcome, run_outcome
from lit_chunks import pass_chunks
from program_generator_core import random_arguments, symbol_sizes
from symbolic_program_generator import generate_program
from xdsl.dialects.builtin import ModuleOp

from hopc.ir.context import make_context
from hopc.ir.module import declared_symbols
from hopc.ir.parse import parse_module
from hopc.ir.verify import verify_module
from hopc.passes import pass_class

PASSES = ("canonicalize", "cse", "dce")


def _after(names: str, text: str) -> ModuleOp:
    """The module of ``text`` after the comma-separated passes ``names``, verified."""
    module = parse_module(text)
    for name in names.split(","):
        pass_class(name)().apply(make_context(), module)
        verify_module(module)
    return module


def _check_preserved(name: str, text: str, inputs: list[object]) -> None:
    outputs_before, inputs_before = run_outcome(parse_module(text), inputs)
    outputs_after, inputs_after = run_outcome(_after(name, text), inputs)
    assert_same_outcome(outputs_before, outputs_after)
    assert_same_outcome(inputs_before, inputs_after)


@pytest.mark.parametrize(("name", "chunk"), pass_chunks(PASSES))
@pytest.mark.parametrize("size", [3, 5])
@pytest.mark.parametrize("predicate", [True, False])
def test_lit_chunk_is_preserved(name: str, chunk: str, size: int, predicate: bool):
    module = parse_module(chunk)
    backed = [op for op in declared_symbols(module).values() if op.kind.data == "backed"]
    sizes = {op.symbol: max(size + index, op.value_range[0] or 0)
             for index, op in enumerate(backed)}
    inputs = random_arguments(module, sizes, torch.Generator().manual_seed(size), predicate)
    _check_preserved(name, chunk, inputs)


@pytest.mark.parametrize("name", [*PASSES, ",".join(PASSES)])
@pytest.mark.parametrize("seed", range(20))
def test_random_program_is_preserved(name: str, seed: int):
    text = generate_program(random.Random(seed).randrange)
    module = parse_module(text)
    generator = torch.Generator().manual_seed(seed)
    inputs = random_arguments(module, symbol_sizes(module, generator), generator)
    _check_preserved(name, text, inputs)
