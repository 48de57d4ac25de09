"""Every registered pass preserves semantics: the interpreter agrees before and after.

Every ``// -----`` chunk of the lit tests that start with a pass
(``chunks_for_pass``: ``lit_tests/passes/<name>.mlir`` or a folder per pass)
runs in the reference interpreter before and after that pass, on the same
random inputs (laid out as ``{hop.strides}`` declares), for two sizes of every
shape symbol and with every 0-d boolean input (a predicate) both true and
false. Outputs as a caller sees them (copy-back results copied in), and
inputs (which in-place ops mutate), must be equal; a run that fails must fail
after the pass too. Random programs from ``symbolic_program_generator``
(nested regions, unbacked symbols) are checked the same way under canonicalize,
cse and dce and under all three in a row.
"""

from __future__ import annotations

import random

import pytest
import torch
from interpreter_outcomes import assert_same_outcome, run_outcome
from lit_chunks import chunks_for_pass
from program_generator_core import random_arguments, symbol_sizes
from symbolic_program_generator import generate_program
from xdsl.dialects.builtin import ModuleOp, StringAttr

from hopc.dialects.context import make_context
from hopc.dialects.hop_module_structure import declared_symbols, entry_function, entry_signature
from hopc.dialects.kernel import DEVICE_ATTRIBUTE
from hopc.dialects.parse import parse_module
from hopc.dialects.verify import verify_module
from hopc.ir.types import SymIntType
from hopc.passes import PASS_CLASSES, pass_class
from hopc.torch_bridge.torch_values import evaluate_dim

CLEANUPS = ("canonicalize", "cse", "dce")
"""The passes that random programs are run under."""

NOT_COMPARED = {
    "freeze": "binds the parameters, which leave the entry's arguments: tests/freeze/"
              "test_freeze_differential.py compares it with them bound",
}
"""Passes whose output takes other arguments than their input, and where they are compared."""

WITHIN_TOLERANCE = {
    "convert-hop-to-kernel": "a fused kernel may round a float expression in another order",
}
"""Passes whose outputs agree within float tolerance, not bit for bit, and why."""
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
    exact = name not in WITHIN_TOLERANCE
    assert_same_outcome(outputs_before, outputs_after, exact=exact)
    assert_same_outcome(inputs_before, inputs_after, exact=exact)


def _laid_out(module: ModuleOp, inputs: list[object], sizes: dict[str, int]) -> list[object]:
    """``inputs`` with each argument that declares ``{hop.strides}`` laid out so."""
    for index, strides in entry_signature(module).strides.items():
        tensor = inputs[index]
        assert isinstance(tensor, torch.Tensor)
        laid_out = torch.empty_strided(tensor.shape, [evaluate_dim(s, sizes) for s in strides],
                                       dtype=tensor.dtype)
        inputs[index] = laid_out.copy_(tensor)
    return inputs


def _unbacked_arguments(module: ModuleOp) -> dict[str, int]:
    """A value for each unbacked symbol the entry takes as a whole ``!hop.symint`` argument (a size
    read from data): 1, which every such symbol's range and every backed size (>= 2) admit."""
    unbacked = {op.symbol: op for op in declared_symbols(module).values() if op.kind.data == "unbacked"}
    return {str(type_.value): max(unbacked[str(type_.value)].value_range[0] or 0, 1)
            for type_ in entry_function(module).function_type.inputs.data
            if isinstance(type_, SymIntType) and str(type_.value) in unbacked}


def test_passes_not_compared_are_registered():
    assert set(NOT_COMPARED) | set(WITHIN_TOLERANCE) <= set(PASS_CLASSES)


@pytest.mark.parametrize(("name", "chunk"), [chunk for name in PASS_CLASSES if name not in NOT_COMPARED
                                              for chunk in chunks_for_pass(name)])
@pytest.mark.parametrize("size", [3, 5])
@pytest.mark.parametrize("predicate", [True, False])
def test_lit_chunk_is_preserved(name: str, chunk: str, size: int, predicate: bool):
    module = parse_module(chunk)
    device = module.attributes.get(DEVICE_ATTRIBUTE)
    if isinstance(device, StringAttr) and device.data == "cuda" and not torch.cuda.is_available():
        pytest.skip("a CUDA module, and no CUDA here")
    backed = [op for op in declared_symbols(module).values() if op.kind.data == "backed"]
    sizes = {op.symbol: max(size + index, op.value_range[0] or 0)
             for index, op in enumerate(backed)}
    sizes |= _unbacked_arguments(module)
    inputs = random_arguments(module, sizes, torch.Generator().manual_seed(size), predicate)
    _check_preserved(name, chunk, _laid_out(module, inputs, sizes))


@pytest.mark.parametrize("name", [*CLEANUPS, ",".join(CLEANUPS)])
@pytest.mark.parametrize("seed", range(20))
def test_random_program_is_preserved(name: str, seed: int):
    text = generate_program(random.Random(seed).randrange)
    module = parse_module(text)
    generator = torch.Generator().manual_seed(seed)
    inputs = random_arguments(module, symbol_sizes(module, generator), generator)
    _check_preserved(name, text, inputs)
