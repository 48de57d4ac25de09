"""The planned executor agrees with the reference interpreter, value for value.

Every chunk of the passes' lit tests (and random programs with nested
regions and unbacked symbols) runs on the reference interpreter and on the
planned executor (Note [planned execution]), on the same inputs, for two sizes
and with every predicate both ways: outputs, and inputs that in-place ops
mutate, must be equal; a run that fails must fail on both.
"""

from __future__ import annotations

import random

import pytest
import torch
from lit_chunks import pass_chunks
from program_generator_core import random_arguments, symbol_sizes
from symbolic_program_generator import generate_program
from xdsl.dialects.builtin import ModuleOp

from hopc.backend.interpreter import InterpreterError
from hopc.backend.runtime.executors import EXECUTORS, executor_named
from hopc.dialects.hop_module_structure import declared_symbols, entry_function
from hopc.dialects.parse import parse_module
from hopc.ir.diagnostics import HopcError


def _run(executor: str, module: ModuleOp, inputs: list[object]) -> tuple[object, list[object]]:
    arguments = [v.clone() if isinstance(v, torch.Tensor) else v for v in inputs]
    torch.manual_seed(0)
    try:
        prepared = executor_named(executor).prepare(module, entry_function(module))
        return prepared(arguments), arguments
    except InterpreterError as error:
        return error, arguments


def _assert_same(reference: object, planned: object) -> None:
    if isinstance(reference, InterpreterError) or isinstance(planned, InterpreterError):
        assert type(reference) is type(planned), f"reference: {reference}\nplanned: {planned}"
        return
    assert len(reference) == len(planned)
    for old, new in zip(reference, planned, strict=True):
        if isinstance(old, torch.Tensor):
            torch.testing.assert_close(new, old, rtol=0, atol=0, equal_nan=True)
        else:
            assert new == old


def _check_agree(text: str, inputs: list[object]) -> None:
    module = parse_module(text)
    reference, reference_inputs = _run("interpreter", module, inputs)
    planned, planned_inputs = _run("planned", module, inputs)
    _assert_same(reference, planned)
    _assert_same(reference_inputs, planned_inputs)


@pytest.mark.parametrize(("name", "chunk"), pass_chunks(("canonicalize", "cse", "dce", "functionalize")))
@pytest.mark.parametrize("predicate", [True, False])
def test_lit_chunk_runs_the_same(name: str, chunk: str, predicate: bool):
    module = parse_module(chunk)
    backed = [op for op in declared_symbols(module).values() if op.kind.data == "backed"]
    sizes = {op.symbol: max(3 + index, op.value_range[0] or 0) for index, op in enumerate(backed)}
    _check_agree(chunk, random_arguments(module, sizes, torch.Generator().manual_seed(3), predicate))


@pytest.mark.parametrize("seed", range(30))
def test_random_program_runs_the_same(seed: int):
    text = generate_program(random.Random(seed).randrange)
    module = parse_module(text)
    generator = torch.Generator().manual_seed(seed)
    _check_agree(text, random_arguments(module, symbol_sizes(module, generator), generator))


def test_executors_are_named():
    assert set(EXECUTORS) >= {"interpreter", "planned"}
    with pytest.raises(HopcError, match="unknown executor 'fast'.*interpreter, planned"):
        executor_named("fast")
