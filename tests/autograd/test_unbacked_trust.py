"""Training at values read from data where PyTorch's semantics branch on them.

A derivative traced with backed stand-ins for unbacked symbols, or with them
unbacked, could bake in one branch of a decision eager takes at run time: an
index that may be negative, a size that may be 0 or 1. Each program here runs,
in one process, the same compiled function at values on both sides of each
branch, on every executor that runs on the CPU, and gets eager's loss and
gradient or a located error where eager's semantics would differ from what the
trace assumed:

- ``select``, ``x[k]`` and slices at a ``k`` that may be negative, zero or
  past the end: eager's values (the derivatives are eager's ``*_backward``
  ops, which take ``k`` at run time);
- ``squeeze`` of a size read from data, which PyTorch keeps without asking
  whether it is 1: a located error where it is 1 (Note [squeezes of unbacked
  sizes] in ``hopc.fx_import.importer``);
- two sizes read from data added, which Dynamo asserts equal where eager would
  broadcast a size of 1: a located error;
- a trace that assumes such an equality that nothing checks is refused (Note
  [trace assertions] in ``hopc.torch_bridge.op_tracer``);
- a read that a user's ``torch._check(k == x.shape[0])`` equates with an
  input's size, which the trace replaces by that size, is still compared with
  it where it is read: a located error where it differs (Note [reads the
  trace learned about] in ``hopc.fx_import.shape_symbols``);
- a read that a broadcast equates with a constant (``ones(k) * arange(6)``), the
  same;
- a slice at a read size that Dynamo asserts equals an input's size
  (``(x * w)[:k] * w``) or a constant, which the trace replaces by it, is
  compared with it where sliced, in a ``nested_compile_region`` too: a located
  error where it differs, also where eager broadcasts a slice of one row (as
  ``torch.compile``, hopc runs what Dynamo captured, which assumed none);
- a region that broadcasts such a slice passed to it trains: the body its
  derivative is traced from first asserts what the caller asserted of the
  call's operands (Note [assertions a caller checks] in
  ``hopc.passes.autograd.hops.caller_assertions``), and two calls of one
  subgraph share that derivative only where both callers check it; a call whose
  caller does not is a located error.
"""

from __future__ import annotations

import pytest
import torch

import hopc
from hopc.backend.runtime.executors import CPU_EXECUTORS
from hopc.dialects import hop
from hopc.ir.diagnostics import HopcError
from hopc.ir.types import DTYPES, TensorType
from hopc.passes.autograd import differentiate
from hopc.torch_bridge.op_tracer import trace
from hopc.torch_bridge.torch_symbolic import SymbolFacts

_WEIGHTS = torch.arange(1.0, 25.0).reshape(6, 4) / 10


def _read(x: torch.Tensor) -> int:
    """The integer part of ``x[0, 0]``: any integer, negative too."""
    return x[0, 0].int().item()


def _with_read(value: int) -> torch.Tensor:
    """Random rows whose ``_read`` is ``value``."""
    x = torch.randn(6, 4)
    x[0, 0] = value + (0.3 if value >= 0 else -0.3)
    return x


def _select(x):
    k = _read(x)
    torch._check(k >= -6)
    torch._check(k <= 5)
    return (x * _WEIGHTS).select(0, k).sin().sum()


def _index(x):
    k = _read(x)
    torch._check(k >= -6)
    torch._check(k <= 5)
    return (x * _WEIGHTS)[k].sin().sum()


def _window(x):
    k = _read(x)
    return (x * _WEIGHTS)[k:k + 2].sin().sum()


def _tail(x):
    k = _read(x)
    return (x * _WEIGHTS)[k:].sin().sum() + (x * _WEIGHTS)[:k].cos().sum()


_INDEXINGS = {"select": _select, "index": _index, "window": _window, "tail": _tail}
_READS = [-6, -3, -1, 0, 1, 2, 5]
"""Negative (wrapping), zero, one, and the last row."""


def _outputs(run, grad: bool, *inputs: torch.Tensor) -> list[torch.Tensor]:
    """The loss of ``run(*inputs)`` and, when ``grad``, the gradients of the inputs."""
    with torch.set_grad_enabled(grad):
        inputs = [x.clone().requires_grad_(grad) for x in inputs]
        loss = run(*inputs)
        return [loss, *torch.autograd.grad(loss, inputs)] if grad else [loss]


@pytest.fixture(autouse=True)
def _scalar_capture():
    with torch._dynamo.config.patch(capture_scalar_outputs=True):
        yield
    torch._dynamo.reset()


def test_the_reads_are_the_values_asked_for():
    assert [_read(_with_read(value)) for value in _READS] == _READS


@pytest.mark.parametrize("executor", sorted(CPU_EXECUTORS))
@pytest.mark.parametrize("program", sorted(_INDEXINGS))
def test_indexing_at_a_read_value_trains_like_eager(program, executor):
    torch._dynamo.reset()
    compiled = hopc.compile(_INDEXINGS[program], dynamic=True, executor=executor)
    for value in _READS:
        x = _with_read(value)
        torch.testing.assert_close(_outputs(compiled, True, x), _outputs(_INDEXINGS[program], True, x))


def _narrow(x):
    k = _read(x)
    torch._check(k >= -6)
    torch._check(k <= 4)
    return (x * _WEIGHTS).narrow(0, k, 2).sin().sum()


def test_narrow_at_a_read_start_is_a_located_error():
    """``narrow`` wraps a negative start, a branch on ``k`` its capture cannot take: refused."""
    torch._dynamo.reset()
    compiled = hopc.compile(_narrow, dynamic=True, executor="aten")
    with pytest.raises(HopcError) as error:
        _outputs(compiled, True, _with_read(1))
    assert error.value.location is not None


def _rows(x: torch.Tensor) -> int:
    """How many rows of ``x`` have a positive first entry."""
    return (x[:, 0] > 0).sum().item()


def _with_rows(count: int, columns: int = 4) -> torch.Tensor:
    """Random rows, the first ``count`` with a positive first entry."""
    x = torch.randn(6, columns).abs() + 0.1
    x[count:, 0] *= -1
    return x


def _squeezed(x):
    rows = (x * _WEIGHTS)[:_rows(x)].squeeze(0)  # eager: [4] for one row, else [k, 4]
    return (rows.sum(0) * torch.arange(1.0, 5.0)).sin().sum()


_SQUEEZE_LINE = _squeezed.__code__.co_firstlineno + 1


@pytest.mark.parametrize("grad", [True, False], ids=["grad", "no_grad"])
@pytest.mark.parametrize("executor", sorted(CPU_EXECUTORS))
def test_squeeze_of_a_read_size_is_eager_or_a_located_error(executor, grad):
    torch._dynamo.reset()
    compiled = hopc.compile(_squeezed, dynamic=True, executor=executor)
    for count in (0, 2, 6):
        x = _with_rows(count)
        torch.testing.assert_close(_outputs(compiled, grad, x), _outputs(_squeezed, grad, x))
    with pytest.raises(HopcError, match=r"squeeze kept a size it assumed is not 1: Ne\(u[0-9]+, 1\)") as error:
        _outputs(compiled, grad, _with_rows(1))
    assert error.value.location is not None and error.value.location.line == _SQUEEZE_LINE


def _two_reads(x, y):
    return ((x * _WEIGHTS)[:_rows(x)] + (y * _WEIGHTS)[:_rows(y)]).sin().sum()


_ADD_LINE = _two_reads.__code__.co_firstlineno + 1


@pytest.mark.parametrize("grad", [True, False], ids=["grad", "no_grad"])
@pytest.mark.parametrize("executor", sorted(CPU_EXECUTORS))
def test_two_read_sizes_added_are_eager_or_a_located_error(executor, grad):
    """Eager broadcasts where one count is 1; the capture asserts the counts equal."""
    torch._dynamo.reset()
    compiled = hopc.compile(_two_reads, dynamic=True, executor=executor)
    for count in (0, 1, 3, 6):
        inputs = (_with_rows(count), _with_rows(count))
        torch.testing.assert_close(_outputs(compiled, grad, *inputs), _outputs(_two_reads, grad, *inputs))
    for counts in ((3, 1), (1, 3)):
        inputs = (_with_rows(counts[0]), _with_rows(counts[1]))
        _outputs(_two_reads, grad, *inputs)  # eager broadcasts
        with pytest.raises(HopcError, match=r"Runtime assertion failed for expression Eq\(u[0-9]+, u[0-9]+\)") \
                as error:
            _outputs(compiled, grad, *inputs)
        assert error.value.location is not None and error.value.location.line == _ADD_LINE


_UNBACKED = {"u0": SymbolFacts(lower=0, unbacked=True), "u1": SymbolFacts(lower=0, unbacked=True)}
_VECTORS = [TensorType(["u0"], DTYPES["float32"]), TensorType(["u1"], DTYPES["float32"])]


def test_a_trace_assuming_an_unchecked_assertion_is_refused():
    """``[u0] + [u1]`` is ``[u0]`` only under ``Eq(u0, u1)``, which eager does not assume."""
    with pytest.raises(HopcError, match=r"add: its trace assumes Eq\(u0, u1\) of values read from data"):
        trace(lambda a, b: a + b, _VECTORS, what="add", symbols=_UNBACKED)


def test_a_trace_may_use_an_assertion_its_caller_checks():
    def add(shapes, a, b):
        shapes.assume(a.size(0) == b.size(0))
        return a + b

    traced = trace(add, _VECTORS, what="add", symbols=_UNBACKED, pass_shapes=True)
    assert traced.result_types == [_VECTORS[0]]


_ADD = """
hop.symbol @s0 backed [2, oo] hint 6
hop.symbol @u0 unbacked [0, oo]
hop.symbol @u1 unbacked [0, oo]
func.func @forward(%x: !hop.tensor<[u0], f32> {hop.requires_grad}, %y: !hop.tensor<[u1], f32> {hop.requires_grad}) -> !hop.tensor<[], f32> {
  %m = hop.sym_size %x[0] : !hop.tensor<[u0], f32> -> !hop.symint<u0>
  %n = hop.sym_size %y[0] : !hop.tensor<[u1], f32> -> !hop.symint<u1>
  %equal = hop.sym_eq %m, %n : !hop.symint<u0>, !hop.symint<u1> -> !hop.symbool<Eq(u0, u1)>
  hop.assert %equal, "Eq(u0, u1)" : !hop.symbool<Eq(u0, u1)>
  %sum = aten.add.Tensor(%x, %y) : (!hop.tensor<[u0], f32>, !hop.tensor<[u1], f32>) -> !hop.tensor<[u0], f32>
  %total = aten.sum(%sum) : (!hop.tensor<[u0], f32>) -> !hop.tensor<[], f32>
  func.return %total : !hop.tensor<[], f32>
}
"""


def test_the_derivative_of_an_add_of_read_sizes_without_their_asserted_equality_is_refused():
    """Typed ``[u0]`` with no ``hop.assert`` that ``u1`` is ``u0``: its trace would assume it."""
    module = hopc.parse(_ADD.replace('  hop.assert %equal, "Eq(u0, u1)" : !hop.symbool<Eq(u0, u1)>\n', ""))
    with pytest.raises(HopcError, match=r"the derivative of aten.add.Tensor: .*Eq\(u0, u1\)") as error:
        differentiate(module)
    assert error.value.location is not None and error.value.location.line == 9


def _all_rows(x):
    k = _rows(x)
    torch._check(k == x.shape[0])
    return ((x * _WEIGHTS)[:k] * 2).sin().sum()


def _rows_times_weights(x):
    return ((x * _WEIGHTS)[:_rows(x)] * _WEIGHTS).sin().sum()  # Dynamo asserts the count is 6


_READ_LINE = _rows.__code__.co_firstlineno + 2
_SLICE_LINE = _rows_times_weights.__code__.co_firstlineno + 1


def test_eager_refuses_a_count_that_is_not_the_rows():
    for program in (_all_rows, _rows_times_weights, _rows_times_constant, _ones_times_constant, _region_slicing,
                    _region_of_a_slice, _region_of_a_slice_and_of_the_rows):
        with pytest.raises(RuntimeError):
            program(_with_rows(3))


def _check_is_eager_or_a_located_error(compiled, program, grad: bool, line: int, example=_with_rows,
                                       agreeing=(6,), refused=(1, 3)) -> None:
    """Eager's values at ``example(value)`` of each ``agreeing`` value, a located error at each
    ``refused`` one. By default where all 6 rows count, and where 1 or 3 do: eager raises at 3,
    and at 1 checks the count or broadcasts one row where the capture assumed the rows."""
    for value in agreeing:
        x = example(value)
        torch.testing.assert_close(_outputs(compiled, grad, x), _outputs(program, grad, x))
    for value in refused:
        with pytest.raises(HopcError, match=r"Runtime assertion failed for expression (Ge|Eq)\(u[0-9]+, ") \
                as error:
            _outputs(compiled, grad, example(value))
        assert error.value.location is not None and error.value.location.line == line


@pytest.mark.parametrize("grad", [True, False], ids=["grad", "no_grad"])
@pytest.mark.parametrize("executor", sorted(CPU_EXECUTORS))
def test_a_users_check_that_a_read_equals_a_size_is_checked(executor, grad):
    """The trace replaces the read by ``x.shape[0]``; the read is still compared with it, where read."""
    torch._dynamo.reset()
    compiled = hopc.compile(_all_rows, dynamic=True, executor=executor)
    _check_is_eager_or_a_located_error(compiled, _all_rows, grad, _READ_LINE)


@pytest.mark.parametrize("grad", [True, False], ids=["grad", "no_grad"])
@pytest.mark.parametrize("executor", sorted(CPU_EXECUTORS))
def test_a_slice_at_a_read_size_broadcast_as_the_rows_is_checked(executor, grad):
    """The trace replaces the slice's size by ``x.shape[0]``; the slice's size is still compared with it."""
    torch._dynamo.reset()
    compiled = hopc.compile(_rows_times_weights, dynamic=True, executor=executor)
    _check_is_eager_or_a_located_error(compiled, _rows_times_weights, grad, _SLICE_LINE)


def _rows_times_constant(x):
    return ((x * _WEIGHTS)[:_rows(x)] * torch.arange(24.0).reshape(6, 4)).sin().sum()  # asserts 6


@pytest.mark.parametrize("grad", [True, False], ids=["grad", "no_grad"])
@pytest.mark.parametrize("executor", sorted(CPU_EXECUTORS))
def test_a_slice_at_a_read_size_broadcast_as_a_constant_is_checked(executor, grad):
    """The trace replaces the slice's size by 6; the slice's size is still compared with 6."""
    torch._dynamo.reset()
    compiled = hopc.compile(_rows_times_constant, dynamic=True, executor=executor)
    _check_is_eager_or_a_located_error(compiled, _rows_times_constant, grad,
                                       _rows_times_constant.__code__.co_firstlineno + 1)


def _ones_times_constant(x):
    return (torch.ones(_rows(x)) * torch.arange(6.0) * x[:, 1]).sin().sum()  # asserts the count is 6


@pytest.mark.parametrize("executor", sorted(CPU_EXECUTORS))
def test_a_read_size_broadcast_as_a_constant_is_checked(executor):
    """The trace replaces the read by 6; the read is still compared with 6, where read."""
    torch._dynamo.reset()
    compiled = hopc.compile(_ones_times_constant, dynamic=True, executor=executor)
    _check_is_eager_or_a_located_error(compiled, _ones_times_constant, True, _READ_LINE)


def _slice_times_weights(x, weights):
    return ((x * weights)[:_rows(x)] * weights).sin().sum()


_slice_times_weights_region = torch.compiler.nested_compile_region(_slice_times_weights)


def _region_slicing(x):
    return _slice_times_weights_region(x, _WEIGHTS)


@pytest.mark.parametrize("grad", [True, False], ids=["grad", "no_grad"])
@pytest.mark.parametrize("executor", sorted(CPU_EXECUTORS))
def test_a_slice_at_a_read_size_in_a_region_is_checked(executor, grad):
    """Read, sliced and broadcast in a ``nested_compile_region``: checked in its body."""
    torch._dynamo.reset()
    compiled = hopc.compile(_region_slicing, dynamic=True, executor=executor)
    _check_is_eager_or_a_located_error(compiled, _region_slicing, grad,
                                       _slice_times_weights.__code__.co_firstlineno + 1)


def _times_weights(rows, weights):
    return (rows * weights).sin().sum()


_times_weights_region = torch.compiler.nested_compile_region(_times_weights)


def _region_of_a_slice(x):
    return _times_weights_region((x * _WEIGHTS)[:_rows(x)], _WEIGHTS)


def _region_of_a_read_slice(x):
    return _times_weights_region((x * _WEIGHTS)[:_read(x)], _WEIGHTS)


_REGION_CALLS = {
    "count": (_region_of_a_slice, _with_rows, (6,), (0, 1, 3)),
    "read": (_region_of_a_read_slice, _with_read, (6, 7), (-6, -5, -1, 0, 1, 3)),
}
"""A program, its example maker, the values where it runs as eager, and those where it is a located
error: a slice ``[:k]`` of all rows (6, or past the end: 7), of fewer (3, -1), of one (1, -5:
eager broadcasts it), of none (0, -6)."""


@pytest.mark.parametrize("grad", [True, False], ids=["grad", "no_grad"])
@pytest.mark.parametrize("executor", sorted(CPU_EXECUTORS))
@pytest.mark.parametrize("program", sorted(_REGION_CALLS))
def test_a_slice_at_a_read_size_that_a_region_broadcasts_is_eager_or_a_located_error(program, executor, grad):
    """Sliced by the caller, broadcast in the region's body: checked where the caller slices, and
    trained with the caller's assertion copied into the body (Note [assertions a caller checks])."""
    torch._dynamo.reset()
    function, example, agreeing, refused = _REGION_CALLS[program]
    compiled = hopc.compile(function, dynamic=True, executor=executor)
    _check_is_eager_or_a_located_error(compiled, function, grad, function.__code__.co_firstlineno + 1,
                                       example, agreeing, refused)


def _region_of_a_slice_and_of_the_rows(x):
    sliced = _times_weights_region((x * _WEIGHTS)[:_rows(x)], _WEIGHTS)  # Dynamo asserts the count is 6
    return sliced + _times_weights_region(x, _WEIGHTS)  # Dynamo reuses the region's graph


@pytest.mark.parametrize("executor", sorted(CPU_EXECUTORS))
def test_a_region_called_where_its_caller_checks_and_where_nothing_needs_it_trains(executor):
    """Only the first call's caller checks a count; hopc imports the region once per argument
    types, so the second call runs a subgraph that needs no assertion."""
    torch._dynamo.reset()
    compiled = hopc.compile(_region_of_a_slice_and_of_the_rows, dynamic=True, executor=executor)
    _check_is_eager_or_a_located_error(compiled, _region_of_a_slice_and_of_the_rows, True,
                                       _region_of_a_slice_and_of_the_rows.__code__.co_firstlineno + 1,
                                       refused=(0, 1, 3))


_TWO_CALLS = """
hop.symbol @s0 backed [2, oo] hint 6
hop.symbol @s1 backed [2, oo] hint 4
hop.symbol @u0 unbacked [-oo, oo]
hop.symbol @u1 unbacked [0, oo]
hop.symbol @u2 unbacked [0, oo]
hop.subgraph @region {
^bb0(%rows: !hop.tensor<[u1, s1], f32>, %w: !hop.tensor<[s0, s1], f32>):
  %product = aten.mul.Tensor(%rows, %w) : (!hop.tensor<[u1, s1], f32>, !hop.tensor<[s0, s1], f32>) -> !hop.tensor<[s0, s1], f32>
  %sum = aten.sum(%product) : (!hop.tensor<[s0, s1], f32>) -> !hop.tensor<[], f32>
  hop.yield %sum : !hop.tensor<[], f32>
}
func.func @forward(%x: !hop.tensor<[s0, s1], f32> {hop.requires_grad}, %w: !hop.tensor<[s0, s1], f32>, %count: !hop.tensor<[], i64>) -> !hop.tensor<[], f32> {
  %k = hop.item %count : !hop.tensor<[], i64> -> !hop.symint<u0>
  %rows_w = hop.sym_size %w[0] : !hop.tensor<[s0, s1], f32> -> !hop.symint<s0>
  %a = aten.slice_copy.Tensor(%x) {start = 0 : i64, end = #hop.expr<u0>} : (!hop.tensor<[s0, s1], f32>) -> !hop.tensor<[u1, s1], f32>
  %rows_a = hop.sym_size %a[0] : !hop.tensor<[u1, s1], f32> -> !hop.symint<u1>
  %a_fits = hop.sym_eq %rows_a, %rows_w : !hop.symint<u1>, !hop.symint<s0> -> !hop.symbool<Eq(u1, s0)>
  hop.assert %a_fits, "Eq(u1, s0)" : !hop.symbool<Eq(u1, s0)>
  %p = hop.invoke_subgraph @region(%a, %w) : (!hop.tensor<[u1, s1], f32>, !hop.tensor<[s0, s1], f32>) -> !hop.tensor<[], f32>
  %b = aten.slice_copy.Tensor(%x) {start = 0 : i64, end = #hop.expr<u0>} : (!hop.tensor<[s0, s1], f32>) -> !hop.tensor<[u2, s1], f32>
  %rows_b = hop.sym_size %b[0] : !hop.tensor<[u2, s1], f32> -> !hop.symint<u2>
  %b_fits = hop.sym_eq %rows_b, %rows_w : !hop.symint<u2>, !hop.symint<s0> -> !hop.symbool<Eq(u2, s0)>
  hop.assert %b_fits, "Eq(u2, s0)" : !hop.symbool<Eq(u2, s0)>
  %q = hop.invoke_subgraph @region(%b, %w) : (!hop.tensor<[u2, s1], f32>, !hop.tensor<[s0, s1], f32>) -> !hop.tensor<[], f32>
  %total = aten.add.Tensor(%p, %q) : (!hop.tensor<[], f32>, !hop.tensor<[], f32>) -> !hop.tensor<[], f32>
  func.return %total : !hop.tensor<[], f32>
}
"""
"""One subgraph called at two slices ``[u1]`` and ``[u2]`` that its body broadcasts, each caller
asserting its slice has the rows."""

_UNCHECKED = {"first": '  hop.assert %a_fits, "Eq(u1, s0)" : !hop.symbool<Eq(u1, s0)>\n',
              "second": '  hop.assert %b_fits, "Eq(u2, s0)" : !hop.symbool<Eq(u2, s0)>\n'}
_BODY_PRODUCT_LINE = next(number for number, line in enumerate(_TWO_CALLS.splitlines(), 1)
                          if "aten.mul.Tensor" in line)


def test_two_calls_whose_callers_check_the_same_assertion_share_one_derivative():
    """Each caller asserts its own slice's rows, the same condition in the body's symbols."""
    module = hopc.parse(_TWO_CALLS)
    differentiate(module)
    module.verify()
    forwards = [op for op in module.ops if isinstance(op, hop.SubgraphOp) and "forward" in op.sym_name.data]
    assert len(forwards) == 1
    checked = [op.condition.type.value for op in forwards[0].body.block.ops if isinstance(op, hop.AssertOp)]
    assert checked == ["Eq(u1, s0)"]
    callees = {op.callee.string_value() for op in module.walk() if isinstance(op, hop.InvokeSubgraphOp)}
    assert forwards[0].sym_name.data in callees and "region" not in callees


@pytest.mark.parametrize("unchecked", sorted(_UNCHECKED))
def test_a_call_whose_caller_does_not_check_the_assertion_is_a_located_error(unchecked):
    """The other call's derivative, which assumes its caller's assertion, is not shared with it."""
    module = hopc.parse(_TWO_CALLS.replace(_UNCHECKED[unchecked], ""))
    with pytest.raises(HopcError, match=r"the derivative of aten.mul.Tensor: its trace assumes Eq\(s0, u1\)") \
            as error:
        differentiate(module)
    assert error.value.location is not None and error.value.location.line == _BODY_PRODUCT_LINE
