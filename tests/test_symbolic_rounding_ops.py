"""``math.floor``, ``math.ceil``, ``math.trunc`` (``int(f)``) and ``round`` on symbolic numbers.

``x[: math.floor(x.size(0) / 2)]`` was refused at import ("unsupported: the
call floor"); these are ``hop.sym_floor``, ``hop.sym_ceil``,
``hop.sym_trunc`` and ``hop.sym_round`` now (Note [rounding expressions] in
``hopc.ir.symbolic_rounding``). The expression language must compute exactly
what Python does (``round`` to even on a tie), and each program must agree
with eager on every executor that runs on the CPU, under ``no_grad`` and in
training, at several sizes, compiled once where ``aot_eager`` compiles once.
"""

from __future__ import annotations

import functools
import math

import pytest
import torch
from torch._dynamo.utils import counters
from xdsl.ir import Block

import hopc
from hopc.backend.runtime.executors import CPU_EXECUTORS
from hopc.dialects.hop_rounding import SYM_ROUNDING_OPS, SymCeilOp, SymFloorOp, SymRoundOp, SymTruncOp
from hopc.ir.diagnostics import HopcError
from hopc.ir.symbolic import evaluate, parse_expr
from hopc.ir.symbolic_print import print_expr
from hopc.ir.types import SymBoolType, SymFloatType, SymIntType


@pytest.fixture(autouse=True)
def _scalar_capture():
    with torch._dynamo.config.patch(capture_scalar_outputs=True):
        yield
    torch._dynamo.reset()


_VALUES = (2.5, 3.5, -2.5, -0.5, 0.5, 1.4999999999999998, 7.0, -7.3, 1e16 + 2.0)
"""Ties both ways (Python rounds them to even), negatives, a float next to a tie, a large one."""


@pytest.mark.parametrize("call", ["floor", "ceil", "trunc", "round"])
def test_the_language_rounds_as_python(call):
    python = {"floor": math.floor, "ceil": math.ceil, "trunc": math.trunc, "round": round}[call]
    expression = parse_expr(f"{call}(zuf0)")
    for value in _VALUES:
        assert evaluate(expression, {"zuf0": value}) == python(value), value
        assert parse_expr(f"{call}({value!r})") == python(value), value


@pytest.mark.parametrize("text", ["floor(s0 / 2)", "ceil(1.5*u0) + 1", "2*trunc(zuf0)",
                                  "round(s0 / 3) - Max(s0, 4)", "floor(-zuf0)"])
def test_printed_roundings_parse_back(text):
    expression = parse_expr(text)
    assert parse_expr(print_expr(expression)) == expression


def test_a_rounding_of_an_integer_is_the_integer():
    assert all(parse_expr(f"{call}(2*s0 + 1)") == parse_expr("2*s0 + 1")
               for call in ("floor", "ceil", "trunc", "round"))


def test_each_op_computes_the_python_function():
    functions = {SymFloorOp: math.floor, SymCeilOp: math.ceil, SymTruncOp: math.trunc, SymRoundOp: round}
    for op_class in SYM_ROUNDING_OPS:
        assert [op_class.OPERATOR(v) for v in _VALUES] == [functions[op_class](v) for v in _VALUES]


def test_the_builders_infer_an_integer():
    block = Block(arg_types=[SymFloatType("s0 / 2"), SymFloatType("2.5")])
    assert SymFloorOp(block.args[0]).result.type == SymIntType("floor(s0 / 2)")
    assert SymRoundOp(block.args[1]).result.type == SymIntType(2)
    assert SymCeilOp(block.args[1]).result.type == SymIntType(3)


def test_a_boolean_operand_is_refused():
    block = Block(arg_types=[SymBoolType("Gt(s0, 4)")])
    with pytest.raises(ValueError, match="'hop.sym_trunc' takes !hop.symint or !hop.symfloat"):
        SymTruncOp(block.args[0])


def test_pytorch_roundings_become_ours():
    """``FloorToInt`` and its kin, as Dynamo's sizes hold them (Note [torch expressions])."""
    import sympy
    import torch.utils._sympy.functions as torch_functions

    from hopc.torch_bridge.torch_symbolic import from_torch

    size, read = sympy.Symbol("s7", integer=True, positive=True), sympy.Symbol("zuf3", real=True)
    names = {size: "s0", read: "zuf0"}
    translated = [print_expr(from_torch(expression, names)) for expression in (
        torch_functions.FloorToInt(torch_functions.IntTrueDiv(size, 2)),
        torch_functions.CeilToInt(torch_functions.IntTrueDiv(size, 3)),
        torch_functions.TruncToInt(read), torch_functions.RoundToInt(read))]
    assert translated == ["floor(s0 / 2)", "ceil(s0 / 3)", "trunc(zuf0)", "round(zuf0)"]


def _floor_of_half(x, i):
    """Half the rows, rounded down: the idiom of the issue."""
    return x[: math.floor(x.shape[0] / 2)].sin().sum() * i.sum()


def _ceil_of_a_read_integer(x, i):
    k = i.item()
    torch._check(k >= 0)
    return (x.sum() * torch.ones(math.ceil(k * 1.5))).sum()


def _truncated_read_float(x, i):
    """``int(f)`` of a float item is ``math.trunc``; it sizes a tensor."""
    f = i.float().item() / 2
    return (x.cos().sum() * torch.ones(int(f))).sum() + x.sum() * int(f)


def _rounded_read_float(x, i):
    """``round(f)`` rounds a tie to even: 2.5 rows are 2, 3.5 are 4 (never 3, which the check
    holds on the value ``hop.sym_round`` computes)."""
    f = i.float().item() / 2
    torch._check(round(f) != 3)
    return x[: round(f)].sin().sum() + x.sum() * round(f)


def _floor_division_of_a_read_float(x, i):
    """``f // 2`` of a float is a float (Python's floor division); ``int`` of it an integer."""
    f = i.float().item()
    return x[: int(f // 2)].cos().sum()


_PROGRAMS = {"floor": _floor_of_half, "ceil": _ceil_of_a_read_integer, "trunc": _truncated_read_float,
             "round": _rounded_read_float, "float_floordiv": _floor_division_of_a_read_float}
_SIZES = ((5, 3), (6, 7), (9, 5), (4, 1))
"""(rows, integer read): odd and even rows; reads whose halves tie both ways (7/2, 5/2)."""


def _outputs(run, grad: bool, rows: int, read: int) -> list[torch.Tensor]:
    """The loss of ``run`` and, when ``grad``, the gradient of ``x``."""
    x = torch.linspace(-1.0, 1.0, rows * 3).reshape(rows, 3)
    with torch.set_grad_enabled(grad):
        x = x.clone().requires_grad_(grad)
        loss = run(x, torch.tensor(read))
        return [loss, *torch.autograd.grad(loss, x)] if grad else [loss]


@functools.cache
def _dynamo_traces_round() -> bool:
    """Whether this torch's Dynamo traces ``round`` of a float read at all (torch 2.11's fails,
    for aot_eager too: "type Proxy doesn't define __round__ method")."""
    torch._dynamo.reset()
    try:
        with torch._dynamo.config.patch(capture_scalar_outputs=True):
            torch.compile(_rounded_read_float, backend="eager", fullgraph=True)(torch.ones(4, 3),
                                                                                 torch.tensor(5))
    except Exception:
        return False
    finally:
        torch._dynamo.reset()
    return True


def _skip_where_torch_cannot_trace(name: str) -> None:
    if name == "round" and not _dynamo_traces_round():
        pytest.skip("this torch's Dynamo cannot trace round() of a float read (torch's, not hopc's)")


def _graphs_compiled(run, grad: bool) -> int:
    """How many graphs Dynamo compiles for ``run`` over ``_SIZES``."""
    torch._dynamo.reset()
    counters.clear()
    for rows, read in _SIZES:
        _outputs(run, grad, rows, read)
    return counters["stats"]["unique_graphs"]


@pytest.mark.parametrize("grad", [False, True], ids=["no_grad", "grad"])
@pytest.mark.parametrize("executor", CPU_EXECUTORS)
@pytest.mark.parametrize("name", _PROGRAMS)
def test_roundings_agree_with_eager(name, executor, grad):
    _skip_where_torch_cannot_trace(name)
    program = _PROGRAMS[name]
    compiled = hopc.compile(program, executor=executor, dynamic=True)
    for rows, read in _SIZES:
        for actual, wanted in zip(_outputs(compiled, grad, rows, read), _outputs(program, grad, rows, read),
                                  strict=True):
            torch.testing.assert_close(actual, wanted)


@pytest.mark.parametrize("name", _PROGRAMS)
def test_no_recompile_per_size_where_aot_eager_has_none(name):
    _skip_where_torch_cannot_trace(name)
    program = _PROGRAMS[name]
    reference = _graphs_compiled(torch.compile(program, backend="aot_eager", dynamic=True), True)
    assert _graphs_compiled(hopc.compile(program, dynamic=True), True) == reference


def test_round_with_digits_is_a_located_refusal():
    """``round(f, 1)`` is a float, no op: refused where the trace is."""
    def program(x, i):
        return x * round(i.float().item() / 3, 1)

    with pytest.raises(HopcError, match="round with digits") as raised:
        hopc.compile(program)(torch.randn(5), torch.tensor(7))
    assert raised.value.location is not None
