"""Gradients through ``torch.cond`` (the rule in passes/autograd/hops/cond.py), against eager and the oracle.

Each program runs both ways (predicate true and false) from one capture.
``eager=False`` marks programs whose eager backward PyTorch's own cond
cannot run; the interpreter oracle still checks them.
"""

from __future__ import annotations

import pytest
import torch
from autograd_harness import check_gradients
from torch.export import Dim

import hopc
from hopc.backend.interpreter import run_module
from hopc.dialects import hop
from hopc.dialects.hop_module_structure import entry_function, entry_signature
from hopc.passes.autograd import differentiate
from hopc.passes.pipeline import run_pipeline

TIGHT = {"rtol": 1e-10, "atol": 1e-12}
MODES = ("save", "recompute")


def _both_ways(program, make_args, *, dynamic_shapes=None, eager=True, modes=MODES, **tolerances):
    """Captures on the first inputs, then checks the gradients with the predicate true and false,
    in each backward mode of ``modes`` (Note [cond backward modes]; None: the pass's choice).
    Returns the module of the last mode."""
    module = None
    for mode in modes:
        torch.manual_seed(0)
        for sign in (1.0, -1.0):
            module = check_gradients(program, make_args(1.0), dynamic_shapes=dynamic_shapes,
                                     run_args=make_args(sign), eager=eager, cond_backward=mode, **tolerances)
    return module


def _forward_conds(module) -> list[hop.CondOp]:
    return [op for op in entry_function(module, "forward").walk() if isinstance(op, hop.CondOp)]


def test_dynamic_batch_float64():
    def program(x, w):
        return torch.cond(x.sum() > 0, lambda x, w: (x * w).sin(), lambda x, w: x.cos() + w, (x, w))

    batch = Dim("batch", min=2)
    _both_ways(program, lambda s: [s * torch.rand(5 + int(s < 0), 4, dtype=torch.float64),
                                   torch.randn(4, dtype=torch.float64)],
               dynamic_shapes=({0: batch}, None), **TIGHT)


def test_residuals_of_different_shapes_are_flattened_into_one_slot():
    # The then branch saves cos(x @ w) [n, 3], the else branch its row sums [n, 1]: one flat slot.
    def program(x, w):
        return torch.cond(x.sum() > 0, lambda x, w: (x @ w).sin(),
                          lambda x, w: x.cos().sum(1, keepdim=True) * w.sum(0), (x, w))

    module = _both_ways(program, lambda s: [s * torch.rand(6, 4, dtype=torch.float64),
                                            torch.randn(4, 3, dtype=torch.float64)],
                        dynamic_shapes=({0: Dim("n", min=2)}, None), modes=("save",), **TIGHT)
    (cond,) = _forward_conds(module)
    assert any(op.name == "aten.view_copy" for op in cond.then_region.block.ops)


def test_residuals_of_one_type_share_a_slot():
    def program(x, w):
        return torch.cond(x.sum() > 0, lambda x, w: (x @ w).sin(), lambda x, w: (x @ w).cos(), (x, w))

    module = _both_ways(program, lambda s: [s * torch.rand(5, 4, dtype=torch.float64),
                                            torch.randn(4, 3, dtype=torch.float64)], modes=("save",), **TIGHT)
    (cond,) = _forward_conds(module)
    assert len(cond.results) == 2  # the output, and one slot for both branches' [5, 3] residual


def test_sizes_defined_in_a_branch():
    # The then branch saves a [u] tensor of the positive entries: the slot's size is fresh.
    def program(x):
        return torch.cond(x.sum() > 0, lambda x: (x[x > 0] ** 2).sum() * x, lambda x: x.exp(), (x,))

    _both_ways(program, lambda s: [s * (torch.rand(8, dtype=torch.float64) - 0.3)], **TIGHT)


def test_branches_yield_different_data_dependent_sizes():
    def program(x):
        return torch.cond(x.sum() > 0, lambda x: x[x > 0].sin(), lambda x: x[x < 0] * 2.0, (x,))

    # The result's size is fresh, each branch's its own: only the save mode relates them.
    _both_ways(program, lambda s: [s * (torch.rand(8, dtype=torch.float64) - 0.3)], modes=(None,), **TIGHT)


def test_size_read_from_data_in_a_branch():
    def program(x):
        return torch.cond(x.sum() > 0, lambda x: x * x[x > 0].shape[0], lambda x: x.sin(), (x,))

    _both_ways(program, lambda s: [s * (torch.rand(8, dtype=torch.float64) - 0.3)], **TIGHT)


def test_predicate_on_a_size():
    def program(x):
        return torch.cond(x.shape[0] > 4, lambda x: x.tanh() * 2, lambda x: x.exp(), (x,))

    torch.manual_seed(0)
    for size in (3, 7):
        check_gradients(program, [torch.randn(5, 2)], dynamic_shapes=({0: Dim("n", min=2)},),
                        run_args=[torch.randn(size, 2)])


def test_nested_conds():
    # PyTorch's cond backward fails on this program (a stride assertion in _merge_output).
    def program(x, y):
        def outer_then(x, y):
            return torch.cond(y.sum() > 0, lambda x, y: (x @ y).tanh(), lambda x, y: x * y.sum(), (x, y))

        return torch.cond(x.sum() > 0, outer_then, lambda x, y: (x - y.sum()).exp(), (x, y))

    torch.manual_seed(0)
    for mode in MODES:
        for a in (1.0, -1.0):
            for b in (1.0, -1.0):
                check_gradients(program, [torch.randn(3, 3), torch.randn(3, 3)],
                                run_args=[a * torch.rand(3, 3), b * torch.rand(3, 3)], eager=False,
                                cond_backward=mode)


def test_mixed_requires_grad_and_an_integer_output():
    # PyTorch's cond backward rejects integer outputs ("outs_to_grad length != tangents length").
    def program(x, k):
        mask = (x > 0).to(x.dtype)  # a floating operand that carries no gradient
        return torch.cond(x.sum() > 0, lambda x, m, k: (x * m + k.to(x.dtype).sum(), k + 1),
                          lambda x, m, k: (x.sin() * 2, k - 1), (x, mask, k))

    _both_ways(program, lambda s: [s * torch.rand(4, dtype=torch.float64), torch.arange(3)],
               eager=False, **TIGHT)


def test_branch_not_depending_on_an_operand():
    def program(x, w):
        return torch.cond(x.sum() > 0, lambda x, w: w * 2, lambda x, w: x.sin() + w, (x, w))

    _both_ways(program, lambda s: [s * torch.rand(4, dtype=torch.float64),
                                   torch.randn(4, dtype=torch.float64)], **TIGHT)


def test_a_result_without_a_cotangent():
    # Only a is used: w reaches no result with a cotangent, so it gets no gradient at all.
    def program(x, w):
        a, _ = torch.cond(x.sum() > 0, lambda x, w: (x.sin(), (x @ w).exp()),
                          lambda x, w: (x.cos(), (x @ w).tanh()), (x, w))
        return a * 2

    module = _both_ways(program, lambda s: [s * torch.rand(3, 4, dtype=torch.float64),
                                            torch.randn(4, 5, dtype=torch.float64)], **TIGHT)
    assert list(entry_signature(module, "backward").gradient_results.values()) == [0]


def test_branch_returning_a_copy_of_its_operand():
    def program(x):
        return torch.cond(x.sum() > 0, lambda x: x.clone(), lambda x: x.sin(), (x,))

    _both_ways(program, lambda s: [s * torch.rand(4, dtype=torch.float64)], **TIGHT)


def test_cond_in_a_scan_step():
    from torch._higher_order_ops.scan import scan

    def program(init, xs):
        def step(carry, x):
            new = torch.cond(x.sum() > 0, lambda c, x: (c * x).sin(), lambda c, x: c + x.exp(), (carry, x))
            return new, new * 2

        return scan(step, init, xs)

    _both_ways(program, lambda s: [torch.rand(4, dtype=torch.float64),
                                   s * torch.rand(5, 4, dtype=torch.float64)], **TIGHT)


def test_in_place_ops_on_a_clone_in_a_branch():
    def then_branch(x):
        y = x.clone()
        y.mul_(x)
        y.add_(1.0)
        return y

    def program(x):
        return torch.cond(x.sum() > 0, then_branch, lambda x: x.cos(), (x,))

    _both_ways(program, lambda s: [s * torch.rand(5, dtype=torch.float64)], **TIGHT)


class Gate(torch.nn.Module):
    """Two linear paths chosen by the sign of the input's mean."""

    def __init__(self):
        super().__init__()
        self.up = torch.nn.Linear(4, 6)
        self.down = torch.nn.Linear(4, 6)

    def forward(self, x):
        return torch.cond(x.mean() > 0, lambda x: torch.relu(self.up(x)), lambda x: self.down(x).tanh(), (x,))


@pytest.mark.parametrize("dynamic", [False, True], ids=["static", "dynamic"])
def test_module_parameters(dynamic):
    module = Gate().double()
    shapes = ({0: Dim("batch", min=2)},) if dynamic else None
    _both_ways(module, lambda s: [s * torch.rand(3 + 2 * dynamic * int(s < 0), 4, dtype=torch.float64)],
               dynamic_shapes=shapes, **TIGHT)


BRANCH_UPDATES_A_BUFFER = """
builtin.module {
  hop.buffer @seen : !hop.tensor<[4], f64>
  func.func @forward(%x: !hop.tensor<[4], f64> {hop.requires_grad},
                     %seen: !hop.tensor<[4], f64> {hop.buffer = @seen}) -> !hop.tensor<[4], f64> {
    %s = aten.sum(%x) : (!hop.tensor<[4], f64>) -> !hop.tensor<[], f64>
    %p = aten.gt.Scalar(%s) {other = 0 : i64} : (!hop.tensor<[], f64>) -> !hop.tensor<[], i1>
    %r = hop.cond %p(%x, %seen) : !hop.tensor<[], i1>, (!hop.tensor<[4], f64>, !hop.tensor<[4], f64>)
        -> !hop.tensor<[4], f64> then {
    ^bb0(%a: !hop.tensor<[4], f64>, %b: !hop.tensor<[4], f64>):
      %t = aten.tanh(%a) : (!hop.tensor<[4], f64>) -> !hop.tensor<[4], f64>
      %0 = aten.add_.Tensor(%b, %t) : (!hop.tensor<[4], f64>, !hop.tensor<[4], f64>) -> !hop.tensor<[4], f64>
      %y = aten.mul.Tensor(%t, %b) : (!hop.tensor<[4], f64>, !hop.tensor<[4], f64>) -> !hop.tensor<[4], f64>
      hop.yield %y : !hop.tensor<[4], f64>
    } else {
    ^bb0(%a: !hop.tensor<[4], f64>, %b: !hop.tensor<[4], f64>):
      %e = aten.exp(%a) : (!hop.tensor<[4], f64>) -> !hop.tensor<[4], f64>
      hop.yield %e : !hop.tensor<[4], f64>
    }
    func.return %r : !hop.tensor<[4], f64>
  }
}
"""


@pytest.mark.parametrize("sign", [1.0, -1.0], ids=["then", "else"])
def test_branch_updates_a_buffer(sign):
    # Dynamo refuses a cond branch that changes its operand, so the program is IR:
    # after functionalize the buffer's new value is one more result of the cond.
    module = run_pipeline(hopc.parse(BRANCH_UPDATES_A_BUFFER))
    functional = module.clone()
    differentiate(module)
    x, seen = sign * torch.rand(4, dtype=torch.float64), torch.randn(4, dtype=torch.float64)
    forward, backward = entry_signature(module, "forward"), entry_signature(module, "backward")
    results = run_module(module, [x, seen.clone()], function="forward")
    tangent = torch.randn(4, dtype=torch.float64)
    saved = {k: results[i] for k, i in forward.saved_results.items()}
    (gradient,) = run_module(module, [saved[role.target] if role.kind == "hop.saved" else tangent
                                      for role in backward.arguments], function="backward")
    leaf = x.clone().requires_grad_()
    output, new_seen = run_module(functional, [leaf, seen.clone()])
    torch.testing.assert_close(results[1], new_seen)
    (want,) = torch.autograd.grad(output, leaf, tangent)
    torch.testing.assert_close(gradient, want, **TIGHT)


def test_the_pass_recomputes_a_branch_that_would_save_its_own_values():
    # Note [cond backward modes]: tanh's output is the then branch's own value, so by size the
    # cond recomputes; the forward cond keeps its one result and the backward reruns the mm.
    def program(x, w):
        return torch.cond(x.sum() > 0, lambda x, w: (x @ w).tanh(), lambda x, w: x @ w, (x, w))

    module = _both_ways(program, lambda s: [s * torch.rand(3, 4, dtype=torch.float64),
                                            torch.randn(4, 5, dtype=torch.float64)], modes=(None,), **TIGHT)
    (cond,) = _forward_conds(module)
    assert len(cond.results) == 1
    (backward,) = [op for op in entry_function(module, "backward").walk() if isinstance(op, hop.CondOp)]
    assert any(op.name == "aten.mm" for op in backward.then_region.block.ops)


def test_the_pass_saves_when_the_branches_keep_only_their_operands():
    def program(x, w):
        return torch.cond(x.sum() > 0, lambda x, w: x * w, lambda x, w: x.sin() + w, (x, w))

    module = _both_ways(program, lambda s: [s * torch.rand(4, dtype=torch.float64),
                                            torch.randn(4, dtype=torch.float64)], modes=(None,), **TIGHT)
    (backward,) = [op for op in entry_function(module, "backward").walk() if isinstance(op, hop.CondOp)]
    # The product is not rerun: every product in the backward branch is one of its gradients,
    # which read the tangent. (A rerun product carries the forward's hop.seq_nr too, Note
    # [sequence numbers], so the attribute no longer tells the two apart.)
    tangent = backward.then_region.block.args[-1]
    assert all(tangent in op.operands for op in backward.then_region.block.ops if op.name == "aten.mul.Tensor")
