"""ATen factories and ``expand`` on symbolic sizes: typed by the op tracer, never fixed (issue 23).

The op tracer called an overload outside any fake mode and without the Python
dispatcher, so a factory on a symbolic size (``arange(end=s0)``, ``ones([s0, 3])``)
ran PyTorch's real kernel: ``arange`` turned its end into the hint (a guard
``Eq(s0, 5)``), and ``ones``, ``full``, ``empty`` and ``expand_copy`` refused a
symbolic size. Inside a Dynamo frame the ``arange`` was typed ``[5]``, and
``check_no_symbol_fixed`` let it through: it read the symbol's own expression,
which already reads through the guard's replacement. Now the overload runs on
the trace's fake mode with the Python dispatcher (Note [factories in the trace]
in ``hopc.torch_bridge.op_result_types``), and a frame's trace that fixes a
symbol is refused (Note [frame guards] in ``hopc.torch_bridge.op_tracer``).

Programs that make factories and expansions of their input's sizes run at
three sizes, in training and under ``no_grad``, on every executor, against
eager and the reference interpreter, each compiled once for every size. A
factory that a backward recomputes inside a fusion group's span was lowered
with a ``hop.sym_size`` of a value the group's launch defines after it
(Note [values that move] in ``hopc.dialects.symbol_scope``).
"""

from __future__ import annotations

from functools import cache

import pytest
import torch
from torch._dynamo.utils import counters
from torch.utils.checkpoint import checkpoint
from xdsl.dialects.builtin import ArrayAttr, FloatAttr, IntegerAttr, f64, i64

import hopc
from hopc.backend.runtime.executors import EXECUTORS
from hopc.dialects.aten_schema import lookup
from hopc.ir.diagnostics import HopcError, Location
from hopc.ir.types import DTYPES, ExprAttr, TensorType
from hopc.torch_bridge.op_result_types import OpTracer
from hopc.torch_bridge.torch_symbolic import SymbolFacts

torch.manual_seed(0)
_WEIGHT = torch.randn(1, requires_grad=True)
_SIZES = [3, 5, 8]
_CPU_EXECUTORS = sorted(name for name in EXECUTORS if name != "cuda")
"""Every executor that runs CPU tensors (``cuda`` runs CUDA tensors only)."""

HERE = Location("model.py", 7, 3)


def _positions(x):
    """``arange`` of a size, scaled and added, and one of a size's expression."""
    n = x.shape[0]
    rows = torch.arange(n, dtype=x.dtype).unsqueeze(1) * 2 + x * _WEIGHT
    return rows.sin().sum() + (torch.arange(1, 2 * n + 1, 3) * x.sum()).sum() * _WEIGHT


def _filled(x):
    """``ones``, ``zeros``, ``full``, ``empty`` filled, and ``new_ones`` of sizes."""
    n, m = x.shape
    y = x * _WEIGHT + torch.ones(n, m) * 2 + torch.zeros(n, m) + torch.full((n, 1), 2.0) * torch.empty(n, m).fill_(3.0)
    return y.sin().sum() + x.new_ones(2 * n).sum() * _WEIGHT


def _expanded(x):
    """A row and a column expanded to the input's sizes."""
    n, m = x.shape
    y = x * _WEIGHT
    return (y[:1].expand(n, m) * y + y.sum(1, keepdim=True).expand(-1, m)).sin().sum()


def _recomputed(x):
    """A factory that the backward recomputes between the first and last op of a fusion
    group: its launch takes its size from a value that does not move (Note [values that
    move] in ``hopc.dialects.symbol_scope``)."""
    n, m = x.shape
    return (x * _WEIGHT + torch.ones(n, m) * 2).sin().sum()


def _checkpointed(x):
    """Factories of sizes and an expansion in a checkpoint (``hop.checkpoint``), whose backward
    recomputes them."""
    return checkpoint(lambda x: _positions(x) + _filled(x) + _expanded(x), x, use_reentrant=False)


_PROGRAMS = {program.__name__[1:]: program
             for program in (_positions, _filled, _expanded, _recomputed, _checkpointed)}


def _inputs() -> list[torch.Tensor]:
    return [torch.randn(size, 4, generator=torch.Generator().manual_seed(size)) for size in _SIZES]


def _outputs(run, grad: bool, x: torch.Tensor) -> list[torch.Tensor]:
    """The loss of ``run(x)`` and, when ``grad``, the weight's gradient."""
    with torch.set_grad_enabled(grad):
        loss = run(x)
        return [loss, *torch.autograd.grad(loss, _WEIGHT)] if grad else [loss]


def _compiled_calls(program, executor: str, grad: bool) -> tuple[list[list[torch.Tensor]], int]:
    """The outputs of the compiled program at each size, and how many graphs it compiled."""
    torch._dynamo.reset()
    counters.clear()
    compiled = hopc.compile(program, dynamic=True, executor=executor)
    outputs = [_outputs(compiled, grad, x) for x in _inputs()]
    return outputs, counters["stats"]["unique_graphs"]


@cache
def _expected(name: str, grad: bool) -> tuple[list[list[torch.Tensor]], list[list[torch.Tensor]]]:
    """Per size: eager's outputs, and the reference interpreter's."""
    program = _PROGRAMS[name]
    eager = [_outputs(program, grad, x) for x in _inputs()]
    interpreted, graphs = _compiled_calls(program, "interpreter", grad)
    assert graphs == 1, f"the interpreter's compile of {name} specialized a size: {graphs} graphs"
    return eager, interpreted


@pytest.mark.parametrize("grad", [True, False], ids=["grad", "no_grad"])
@pytest.mark.parametrize("executor", _CPU_EXECUTORS)
@pytest.mark.parametrize("name", sorted(_PROGRAMS))
def test_like_eager_and_the_interpreter_at_every_size_from_one_graph(name, executor, grad):
    eager, interpreted = _expected(name, grad)
    mine, graphs = _compiled_calls(_PROGRAMS[name], executor, grad)
    assert graphs == 1, f"{executor} compiled {graphs} graphs for {len(_SIZES)} sizes"
    for size, want, reference, got in zip(_SIZES, eager, interpreted, mine, strict=True):
        torch.testing.assert_close(reference, want, msg=lambda m, s=size: f"interpreter, size {s}: {m}")
        torch.testing.assert_close(got, want, msg=lambda m, s=size: f"{executor}, size {s}: {m}")


# --------------------------------------------------------------------------- the op form


def _tensor(*shape):
    return TensorType(shape, DTYPES["float32"])


def _sizes(*dims):
    return ArrayAttr([IntegerAttr(d, i64) if isinstance(d, int) else ExprAttr(d) for d in dims])


_FACTORIES = {
    "arange": ("aten.arange", [], {"end": ExprAttr("s0")}, ["s0"]),
    "arange_start_step": ("aten.arange.start_step", [],
                          {"start": ExprAttr("s0"), "end": ExprAttr("3*s0 + 1"), "step": IntegerAttr(3, i64)},
                          ["2*s0 // 3 + 1"]),
    "ones": ("aten.ones", [], {"size": _sizes("s0", 3)}, ["s0", 3]),
    "zeros": ("aten.zeros", [], {"size": _sizes("s0", "s1")}, ["s0", "s1"]),
    "full": ("aten.full", [], {"size": _sizes("s0 + s1"), "fill_value": FloatAttr(2.0, f64)}, ["s0 + s1"]),
    "empty": ("aten.empty.memory_format", [], {"size": _sizes("2*s0")}, ["2*s0"]),
    "new_zeros": ("aten.new_zeros", [[_tensor("s0")]], {"size": _sizes("s1", 0)}, ["s1", 0]),
    "expand_copy": ("aten.expand_copy", [[_tensor(1, 4)]], {"size": _sizes("s0", 4)}, ["s0", 4]),
}
"""Per case: the op, its operand types, its properties, and the sizes of its result."""


@pytest.mark.parametrize("case", sorted(_FACTORIES))
def test_a_factory_on_symbolic_sizes_is_typed_by_its_symbols_without_a_guard(case):
    """Outside a frame a guard is an error (Note [trace guards]), so a typed result is one
    that holds for every value of the symbols."""
    name, operands, properties, sizes = _FACTORIES[case]
    facts = {"s0": SymbolFacts(hint=5), "s1": SymbolFacts(hint=7)}
    [result] = OpTracer().result_types(lookup(name), operands, properties, symbols=facts)
    assert list(result.shape) == sizes


def test_a_factory_whose_sizes_need_a_fact_is_a_located_refusal():
    """``ones([s0 - 5])`` holds only where ``s0 >= 5``: a guard, which outside a frame is refused."""
    with pytest.raises(HopcError, match=r"aten.ones: .*guard on shape symbols \(s0 - 5 >= 0\)") as error:
        OpTracer().result_types(lookup("aten.ones"), [], {"size": _sizes("s0 - 5")},
                                symbols={"s0": SymbolFacts(hint=8)}, location=HERE)
    assert error.value.location == HERE


# --------------------------------------------------------------------------- in a Dynamo frame


def _in_a_frame(trace):
    """Calls ``trace(symbol, hint)`` inside a Dynamo backend compile, ``symbol`` the frame's
    symbol for the first size of a ``[n, 4]`` input (compiled at ``n = 5``); returns what it
    returned and the frame's guards after it."""
    seen = {}

    def backend(graph_module, example_inputs):
        [size] = [node.meta["example_value"].shape[0] for node in graph_module.graph.nodes
                  if node.op == "placeholder" and isinstance(node.meta.get("example_value"), torch.Tensor)]
        shape_env = torch._guards.TracingContext.get().fake_mode.shape_env
        guards_before = len(shape_env.guards)
        try:
            seen["result"] = trace(str(size.node.expr), size.node.hint)
        except HopcError as error:
            seen["result"] = error
        seen["guards"] = [str(guard.expr) for guard in shape_env.guards[guards_before:]]
        return graph_module.forward

    torch._dynamo.reset()
    torch.compile(lambda x: x * 2, backend=backend, dynamic=True)(torch.randn(5, 4))
    torch._dynamo.reset()
    return seen["result"], seen["guards"]


def test_in_a_frame_arange_of_a_symbol_keeps_the_symbol_and_guards_nothing():
    """The silent specialization of issue 23: typed ``[5]`` under a guard ``Eq(s, 5)``."""
    result, guards = _in_a_frame(lambda symbol, hint: (symbol, OpTracer().result_types(
        lookup("aten.arange"), [], {"end": ExprAttr(symbol)}, symbols={symbol: SymbolFacts(hint=hint)})))
    symbol, types = result
    assert types == [TensorType([symbol], DTYPES["int64"])]
    assert guards == []


def test_in_a_frame_a_trace_that_fixes_a_symbol_is_a_located_refusal():
    """``view_copy([s, 4], [20])`` guards ``4*s == 20``, which fixes ``s`` to 5: the frame would
    check it, but the module keeps ``s``, so the trace is refused (``check_no_symbol_fixed``)."""
    result, _ = _in_a_frame(lambda symbol, hint: OpTracer().result_types(
        lookup("aten.view_copy"), [[_tensor(symbol, 4)]], {"size": _sizes(4 * hint)},
        symbols={symbol: SymbolFacts(hint=hint)}, location=HERE))
    assert isinstance(result, HopcError), result
    assert "its trace guards that s" in str(result) and " is 5 " in str(result), str(result)
    assert result.location == HERE
