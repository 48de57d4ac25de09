"""``lift-symbols`` and ``verify-symbol-closed``: differential tests on the lit cases, and errors.

Each chunk of ``lit_tests/passes/lift-symbols.mlir`` runs on the reference
interpreter before and after the pass, on the same inputs, with several sizes
per symbol; the outputs must be identical. The checker must fail before the
pass exactly where the pass has something to lift, and pass after it.
"""

from __future__ import annotations

from io import StringIO
from pathlib import Path

import pytest
import torch
from symbolic_program_generator import random_arguments, symbol_sizes
from xdsl.dialects.builtin import ModuleOp
from xdsl.printer import Printer

from hopc.backend.interpreter import run_module
from hopc.dialects.context import make_context
from hopc.dialects.parse import parse_module
from hopc.dialects.verify import verify_module
from hopc.ir.diagnostics import HopcError
from hopc.passes.lift_symbols import LiftSymbolsPass
from hopc.passes.verify_isolated import VerifyIsolatedPass
from hopc.passes.verify_symbol_closed import VerifySymbolClosedPass

LIT_CASES = Path(__file__).parent.parent / "lit_tests" / "passes" / "lift-symbols.mlir"
CHUNKS = LIT_CASES.read_text().split("// -----")
CONTEXT = make_context()
INPUT_SETS = 4


def _printed(module: ModuleOp) -> str:
    stream = StringIO()
    Printer(stream=stream).print_op(module)
    return stream.getvalue()


def _lift(module: ModuleOp) -> None:
    LiftSymbolsPass().apply(CONTEXT, module)
    verify_module(module)


def _is_closed(module: ModuleOp) -> bool:
    """Symbol-closed, and still isolated (Note [isolated regions])."""
    try:
        VerifySymbolClosedPass().apply(CONTEXT, module)
        VerifyIsolatedPass().apply(CONTEXT, module)
    except HopcError:
        return False
    return True


def _copies(arguments: list[object]) -> list[object]:
    return [a.clone() if isinstance(a, torch.Tensor) else a for a in arguments]


def _assert_identical(before: list[object], after: list[object]) -> None:
    assert len(before) == len(after)
    for expected, actual in zip(before, after):
        assert torch.equal(expected, actual) if isinstance(expected, torch.Tensor) \
            else expected == actual


@pytest.mark.parametrize("chunk", CHUNKS, ids=[c.split("func.func @")[1].split("(")[0] for c in CHUNKS])
def test_lit_case_runs_the_same_after_lifting(chunk):
    original = parse_module(chunk, CONTEXT)
    lifted = parse_module(chunk, CONTEXT)
    _lift(lifted)
    generator = torch.Generator().manual_seed(0)
    for _ in range(INPUT_SETS):
        arguments = random_arguments(original, symbol_sizes(original, generator), generator)
        _assert_identical(run_module(original, _copies(arguments)),
                          run_module(lifted, _copies(arguments)))


@pytest.mark.parametrize("chunk", CHUNKS, ids=[c.split("func.func @")[1].split("(")[0] for c in CHUNKS])
def test_checker_fails_exactly_where_the_pass_lifts(chunk):
    module = parse_module(chunk, CONTEXT)
    before = _printed(module)
    was_closed = _is_closed(module)
    _lift(module)
    assert was_closed == (_printed(module) == before)
    assert _is_closed(module)


@pytest.mark.parametrize("chunk", CHUNKS, ids=[c.split("func.func @")[1].split("(")[0] for c in CHUNKS])
def test_lifting_twice_changes_nothing(chunk):
    module = parse_module(chunk, CONTEXT)
    _lift(module)
    once = _printed(module)
    _lift(module)
    assert _printed(module) == once


def test_a_symbol_no_entry_argument_binds_is_a_located_error():
    module = parse_module("""hop.symbol @s0 backed [1, oo]
func.func @f(%x: !hop.tensor<[4], f32>) -> !hop.tensor<[], f32> {
  %r = hop.wrap(%x) : (!hop.tensor<[4], f32>) -> !hop.tensor<[], f32> {
  ^bb0(%a: !hop.tensor<[4], f32>):
    %o = aten.ones() {size = [#hop.expr<2*s0>]} : () -> !hop.tensor<[2*s0], f32>
    %t = aten.sum(%o) : (!hop.tensor<[2*s0], f32>) -> !hop.tensor<[], f32>
    hop.yield %t : !hop.tensor<[], f32>
  }
  func.return %r : !hop.tensor<[], f32>
}""", CONTEXT, filename="in.mlir")
    with pytest.raises(HopcError) as error:
        _lift(module)
    assert error.value.format() == (
        "in.mlir:3:3: error: 'hop.wrap' op uses shape symbol 's0', which @f does not bind: no "
        "argument has it as a whole dimension or as !hop.symint<s0>, and no op before defines it")


def test_a_symbol_used_before_its_item_is_a_located_error():
    module = parse_module("""hop.symbol @u0 unbacked [0, oo]
func.func @f(%i: !hop.tensor<[], i64>) -> !hop.tensor<[], f32> {
  %r = hop.wrap(%i) : (!hop.tensor<[], i64>) -> !hop.tensor<[], f32> {
  ^bb0(%j: !hop.tensor<[], i64>):
    %o = aten.ones() {size = [#hop.expr<u0>]} : () -> !hop.tensor<[u0], f32>
    %t = aten.sum(%o) : (!hop.tensor<[u0], f32>) -> !hop.tensor<[], f32>
    hop.yield %t : !hop.tensor<[], f32>
  }
  %u = hop.item %i : !hop.tensor<[], i64> -> !hop.symint<u0>
  func.return %r : !hop.tensor<[], f32>
}""", CONTEXT, filename="in.mlir")
    with pytest.raises(HopcError, match="'hop.wrap' op uses shape symbol 'u0'"):
        _lift(module)


def test_a_subgraph_that_invokes_itself_is_a_located_error():
    module = parse_module("""hop.symbol @s0 backed [1, oo]
hop.subgraph @again {
^bb0(%a: !hop.tensor<[s0], f32>):
  %r = hop.invoke_subgraph @again(%a) : (!hop.tensor<[s0], f32>) -> !hop.tensor<[s0], f32>
  hop.yield %r : !hop.tensor<[s0], f32>
}
func.func @f(%x: !hop.tensor<[s0], f32>) -> !hop.tensor<[s0], f32> {
  func.return %x : !hop.tensor<[s0], f32>
}""", CONTEXT, filename="in.mlir")
    with pytest.raises(HopcError, match=r"in.mlir:2:1: error: 'hop.subgraph' op invokes itself"):
        _lift(module)
