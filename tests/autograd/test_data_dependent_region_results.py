"""Region bodies whose results have data-dependent sizes, trained and run on every executor (issue 23).

A ``nested_compile_region`` (``hop.invoke_subgraph``), a ``checkpoint``
(``hop.checkpoint``) or a ``wrap`` (``hop.wrap``) whose body returns a tensor sized by its data (a
``nonzero``, a boolean-mask index, a slice by ``.item()``) was refused at
import ("results of @subgraph_0: result #0 has type [u2, s27], expected
[u1, s27]"): the size is fresh at each call, and each call's result names it
by a symbol of its own (Note [call result symbols] in
``hopc.dialects.hop_call_results``).
The autograd rules keep those names in the forward call and give residuals
their own (``hopc.passes.autograd.hops.outlining.call``).

Each program (the bodies in nested regions, or in checkpoints and a wrap) runs at three
sizes, under ``no_grad`` and in training, on every executor of ``EXECUTORS``,
against eager and against the reference interpreter; each nested region is
called twice, on inputs whose sizes differ.
"""

from __future__ import annotations

from functools import cache

import pytest
import torch
from torch._higher_order_ops.wrap import wrap
from torch.utils.checkpoint import checkpoint

import hopc
from hopc.backend.interpreter import run_module
from hopc.backend.runtime.executors import CPU_EXECUTORS
from hopc.dialects import hop
from hopc.dialects.hop_module_structure import entry_function
from hopc.dialects.verify import verify_module
from hopc.passes.autograd import differentiate

torch.manual_seed(0)
_WEIGHT = torch.randn(4, requires_grad=True)
_SHAPES = [(3, 4), (6, 4), (9, 4)]


def _positive_rows(x, w):
    """``nonzero``: the rows of ``x * w`` whose sum is positive."""
    rows = torch.nonzero((x * w).sum(1) > 0).squeeze(1)
    return (x * w).index_select(0, rows)


def _positive_entries(x, w):
    """A boolean-mask index: the positive entries of ``x * w``."""
    y = x * w
    return y[y > 0]


def _row_count(x) -> int:
    """As many rows as ``x`` has positive first entries, by ``.item()``."""
    count = (x[:, 0] > 0).sum().item()
    torch._check(count <= x.shape[0])
    return count


def _leading_rows(x, w):
    """A slice by ``.item()``."""
    return (x * w)[:_row_count(x)]


_BODIES = (_positive_rows, _positive_entries, _leading_rows)
"""The bodies: a ``nonzero``, a mask index, a size by ``.item()`` (whose slice trains as
eager's: Note [data-dependent derivatives] in ``hopc.passes.autograd.derivative_facts``)."""


def _in_nested_regions(bodies):
    """Each body as a ``nested_compile_region``, called twice, on inputs of different sizes."""
    regions = [torch.compiler.nested_compile_region(body) for body in bodies]

    def program(x):
        return sum(region(x, _WEIGHT).sin().sum() + region(-x[1:], _WEIGHT).pow(2).sum()
                   for region in regions)
    return program


def _in_checkpoints_and_wraps(bodies):
    """Each body in a ``checkpoint``; the mask index in a ``wrap`` (``hop.wrap``) as well."""
    def program(x):
        checkpointed = sum(checkpoint(body, x, _WEIGHT, use_reentrant=False).sin().sum() for body in bodies)
        return checkpointed + wrap(_positive_entries, -x[1:], _WEIGHT).pow(2).sum()
    return program


_PROGRAMS = {(wrapper.__name__[4:], grad): wrapper(_BODIES)
             for wrapper in (_in_nested_regions, _in_checkpoints_and_wraps) for grad in (True, False)}


def _outputs(run, grad: bool, x: torch.Tensor) -> list[torch.Tensor]:
    """The loss of ``run(x)`` and, when ``grad``, the weight's gradient."""
    with torch.set_grad_enabled(grad):
        loss = run(x)
        return [loss, *torch.autograd.grad(loss, _WEIGHT)] if grad else [loss]


def _compiled(program, executor: str):
    torch._dynamo.reset()
    return hopc.compile(program, dynamic=True, executor=executor)


@pytest.fixture(autouse=True)
def _data_dependent_capture():
    with torch._dynamo.config.patch(capture_scalar_outputs=True, capture_dynamic_output_shape_ops=True):
        yield
    torch._dynamo.reset()


@cache
def _expected(wrapper: str, grad: bool) -> list[tuple[torch.Tensor, list[torch.Tensor], list[torch.Tensor]]]:
    """Per input: the input, eager's outputs, the reference interpreter's."""
    program = _PROGRAMS[wrapper, grad]
    inputs = [torch.randn(*shape, generator=torch.Generator().manual_seed(size))
              for size, shape in enumerate(_SHAPES)]
    reference = _compiled(program, "interpreter")
    return [(x, _outputs(program, grad, x), _outputs(reference, grad, x)) for x in inputs]


@pytest.mark.parametrize("grad", [True, False], ids=["grad", "no_grad"])
@pytest.mark.parametrize("executor", sorted(CPU_EXECUTORS))
@pytest.mark.parametrize("wrapper", ["nested_regions", "checkpoints_and_wraps"])
def test_like_eager_and_the_interpreter(wrapper, executor, grad):
    expected = _expected(wrapper, grad)
    compiled = _compiled(_PROGRAMS[wrapper, grad], executor)
    for x, eager, interpreted in expected:
        mine = _outputs(compiled, grad, x)
        torch.testing.assert_close(interpreted, eager)
        torch.testing.assert_close(mine, eager)
        torch.testing.assert_close(mine, interpreted)



_TWO_CALLS = """
hop.symbol @s0 backed [2, oo]
hop.symbol @u0 unbacked [0, oo]
hop.subgraph @summed_positive_rows {
^bb0(%x: !hop.tensor<[s0, 4], f32>, %w: !hop.tensor<[4], f32>):
  %sum = aten.sum.dim_IntList(%x) {dim = [1 : i64]} : (!hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0], f32>
  %positive = aten.gt.Scalar(%sum) {other = 0 : i64} : (!hop.tensor<[s0], f32>) -> !hop.tensor<[s0], i1>
  %nonzero = aten.nonzero(%positive) : (!hop.tensor<[s0], i1>) -> !hop.tensor<[u0, 1], i64>
  %rows = aten.squeeze_copy.dim(%nonzero) {dim = 1 : i64} : (!hop.tensor<[u0, 1], i64>) -> !hop.tensor<[u0], i64>
  %scaled = aten.mul.Tensor(%x, %w) : (!hop.tensor<[s0, 4], f32>, !hop.tensor<[4], f32>) -> !hop.tensor<[s0, 4], f32>
  %picked = aten.index_select(%scaled, %rows) {dim = 0 : i64} : (!hop.tensor<[s0, 4], f32>, !hop.tensor<[u0], i64>) -> !hop.tensor<[u0, 4], f32>
  %total = aten.sum.dim_IntList(%picked) {dim = [0 : i64]} : (!hop.tensor<[u0, 4], f32>) -> !hop.tensor<[4], f32>
  hop.yield %total : !hop.tensor<[4], f32>
}
func.func @forward(%x: !hop.tensor<[s0, 4], f32>, %w: !hop.tensor<[4], f32> {hop.requires_grad}) -> !hop.tensor<[4], f32> {
  %a = hop.invoke_subgraph @summed_positive_rows(%x, %w) : (!hop.tensor<[s0, 4], f32>, !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
  %negated = aten.neg(%x) : (!hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32>
  %b = hop.invoke_subgraph @summed_positive_rows(%negated, %w) : (!hop.tensor<[s0, 4], f32>, !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
  %sum = aten.add.Tensor(%a, %b) : (!hop.tensor<[4], f32>, !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
  func.return %sum : !hop.tensor<[4], f32>
}
"""


def test_each_call_names_the_sizes_of_its_residuals():
    """A size that only a residual has (the rows a ``nonzero`` picks, saved for the derivative of
    ``index_select``) takes a fresh symbol at each forward call of the one forward subgraph: the
    two calls' differ, and the forward runs where the two calls pick different counts of rows
    (Note [call result symbols])."""
    module = hopc.parse(_TWO_CALLS)
    differentiate(module)
    verify_module(module)
    calls = [op for op in entry_function(module, "forward").walk() if isinstance(op, hop.InvokeSubgraphOp)]
    residual_sizes = [call.results[1].type.shape[0] for call in calls]
    assert len(calls) == 2 and calls[0].callee == calls[1].callee, [str(c) for c in calls]
    assert residual_sizes[0] != residual_sizes[1], residual_sizes
    x, w = torch.tensor([[1.0] * 4, [2.0] * 4, [-1.0] * 4]), torch.randn(4)  # 2 rows, then 1
    result = run_module(module, [x, w], function="forward")[0]
    torch.testing.assert_close(result, (x[:2] * w).sum(0) + (-x[2:] * w).sum(0))
