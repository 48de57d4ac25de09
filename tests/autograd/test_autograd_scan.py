"""Gradients through ``hop.scan`` and ``hop.map`` (Note [scan backward]), against eager and the oracle."""

from __future__ import annotations

import pytest
import torch
from autograd_harness import check_gradients
from torch._higher_order_ops.map import map as map_hop
from torch._higher_order_ops.scan import scan
from torch.export import Dim

import hopc
from hopc.backend.interpreter import run_module
from hopc.dialects.hop_module_structure import entry_signature
from hopc.dialects.verify import verify_module
from hopc.ir.diagnostics import HopcError
from hopc.passes.autograd import differentiate


def _ops(module, name: str) -> list:
    return [op for op in module.walk() if op.name == name]


class Rnn(torch.nn.Module):
    """h <- tanh(h @ w_h + x @ w_x + b) over the steps; the outputs are each step's h summed."""

    def __init__(self, width: int = 4, hidden: int = 5):
        super().__init__()
        self.w_x = torch.nn.Parameter(torch.randn(width, hidden) / 2)
        self.w_h = torch.nn.Parameter(torch.randn(hidden, hidden) / 2)
        self.b = torch.nn.Parameter(torch.randn(hidden))

    def forward(self, h0, xs):
        def step(h, x):
            h = torch.tanh(h @ self.w_h + x @ self.w_x + self.b)
            return h, h.sum(-1)

        return scan(step, h0, xs)


def test_cumulative_sum():
    def program(init, xs):
        return scan(lambda c, x: (c + x, c.clone()), init, xs)

    check_gradients(program, [torch.randn(3), torch.randn(5, 3)])


def test_cumulative_product_with_nonlinear_outputs():
    def program(init, xs):
        def step(c, x):
            c = c * x
            return c, c.sin()

        return scan(step, init, xs)

    check_gradients(program, [torch.randn(3), torch.randn(6, 3)])


def test_rnn_with_parameters_saves_stacked_residuals_and_scans_in_reverse():
    torch.manual_seed(0)
    module = check_gradients(Rnn(), [torch.randn(2, 5), torch.randn(7, 2, 4)])
    forward, backward = _ops(module, "hop.scan")
    assert not forward.is_reverse and backward.is_reverse
    assert len(forward.results) > 2  # the per-step residuals, stacked


def test_rnn_dynamic_length_and_batch():
    torch.manual_seed(0)
    steps, batch = Dim("steps", min=2), Dim("batch", min=2)
    check_gradients(Rnn(), [torch.randn(2, 5), torch.randn(7, 2, 4)],
                    dynamic_shapes=({0: batch}, {0: steps, 1: batch}),
                    run_args=[torch.randn(3, 5), torch.randn(11, 3, 4)])


def test_float64_tight_tolerance():
    torch.manual_seed(0)
    check_gradients(Rnn().double(), [torch.randn(2, 5, dtype=torch.float64),
                                     torch.randn(9, 2, 4, dtype=torch.float64)], rtol=1e-10, atol=1e-12)


def test_reverse_scan():
    def program(init, xs, w):
        return scan(lambda c, x: ((c * w + x).tanh(), c * x), init, xs, reverse=True)

    check_gradients(program, [torch.randn(3), torch.randn(5, 3), torch.randn(3)])


def test_only_the_final_carry_has_a_cotangent():
    def program(init, xs):
        final, _ = scan(lambda c, x: (c * x.cos(), c.clone()), init, xs)
        return final

    check_gradients(program, [torch.randn(3), torch.randn(4, 3)])


class Mixed(torch.nn.Module):
    """The carry starts from zeros (not requiring grad, made active by the body); a float buffer
    and an integer scanned operand take no gradient."""

    def __init__(self):
        super().__init__()
        self.w = torch.nn.Parameter(torch.randn(3))
        self.register_buffer("scale", torch.randn(3))

    def forward(self, xs, counts):
        def step(c, xk):
            x, k = xk
            c = c * self.scale + (x * self.w).sin() * k
            return c, c * k

        return scan(step, torch.zeros(3), (xs, counts))


def test_mixed_requires_grad():
    torch.manual_seed(0)
    module = check_gradients(Mixed(), [torch.randn(5, 3), torch.randint(0, 3, (5, 3))])
    assert len(_ops(module, "hop.scan")) == 2


def test_map_rows_times_matrix():
    def program(xs, w):
        return map_hop(lambda row, w: (row @ w).tanh(), xs, w)

    module = check_gradients(program, [torch.randn(5, 3), torch.randn(3, 2)])
    # The gradient of w accumulates over the rows: the backward is a scan with a carry.
    assert [op.name for op in module.walk() if op.name in ("hop.map", "hop.scan")] == ["hop.map", "hop.scan"]


def test_map_without_invariant_gradients_is_a_map():
    def program(xs, ys):
        return map_hop(lambda xy: xy[0].sin() * xy[1], (xs, ys))

    module = check_gradients(program, [torch.randn(4, 3), torch.randn(4, 3)],
                             dynamic_shapes=({0: Dim("n", min=2)}, {0: Dim("n", min=2)}),
                             run_args=[torch.randn(7, 3), torch.randn(7, 3)])
    assert [op.name for op in module.walk() if op.name in ("hop.map", "hop.scan")] == ["hop.map", "hop.map"]


def test_map_inside_scan():
    def program(init, xs, w):
        def step(c, x):
            rows = map_hop(lambda row, c: (row * c).tanh(), x, c)
            return c + rows.sum(0) * w, rows

        return scan(step, init, xs)

    check_gradients(program, [torch.randn(3), torch.randn(4, 2, 3), torch.randn(3)])


# The step takes a carry that requires no grad (made active by the body), a float invariant that
# requires none and an integer carry (a counter), and yields an integer per-step output. PyTorch's
# scan cannot differentiate integer carries and outputs, so the IR is checked against the oracle
# alone; the frontend never emits `hop.scan reverse` (it flips the operands), so it is checked here.
MIXED_IR = """
builtin.module {
  func.func @forward(%init: !hop.tensor<[3], f32>, %xs: !hop.tensor<[5, 3], f32> {hop.requires_grad},
                     %w: !hop.tensor<[3], f32> {hop.requires_grad}, %scale: !hop.tensor<[3], f32>,
                     %k: !hop.tensor<[], i64>)
      -> (!hop.tensor<[3], f32>, !hop.tensor<[5], i64>, !hop.tensor<[5, 3], f32>, !hop.tensor<[], i64>) {
    %kk, %c, %i, %ys = hop.scan REVERSE init(%k, %init) xs(%xs) additional(%w, %scale) : (!hop.tensor<[], i64>, !hop.tensor<[3], f32>), (!hop.tensor<[5, 3], f32>), (!hop.tensor<[3], f32>, !hop.tensor<[3], f32>) -> !hop.tensor<[], i64>, !hop.tensor<[3], f32>, !hop.tensor<[5], i64>, !hop.tensor<[5, 3], f32> {
    ^bb0(%k0: !hop.tensor<[], i64>, %c0: !hop.tensor<[3], f32>, %x: !hop.tensor<[3], f32>, %w0: !hop.tensor<[3], f32>, %s0: !hop.tensor<[3], f32>):
      %m = aten.mul.Tensor(%x, %w0) : (!hop.tensor<[3], f32>, !hop.tensor<[3], f32>) -> !hop.tensor<[3], f32>
      %sin = aten.sin(%m) : (!hop.tensor<[3], f32>) -> !hop.tensor<[3], f32>
      %kf = aten._to_copy(%k0) {dtype = f32} : (!hop.tensor<[], i64>) -> !hop.tensor<[], f32>
      %cs = aten.mul.Tensor(%c0, %s0) : (!hop.tensor<[3], f32>, !hop.tensor<[3], f32>) -> !hop.tensor<[3], f32>
      %ck = aten.mul.Tensor(%cs, %kf) : (!hop.tensor<[3], f32>, !hop.tensor<[], f32>) -> !hop.tensor<[3], f32>
      %next = aten.add.Tensor(%ck, %sin) : (!hop.tensor<[3], f32>, !hop.tensor<[3], f32>) -> !hop.tensor<[3], f32>
      %arg = aten.argmax(%next) : (!hop.tensor<[3], f32>) -> !hop.tensor<[], i64>
      %y = aten.mul.Tensor(%next, %c0) : (!hop.tensor<[3], f32>, !hop.tensor<[3], f32>) -> !hop.tensor<[3], f32>
      %k1 = aten.add.Scalar(%k0) {other = 1 : i64} : (!hop.tensor<[], i64>) -> !hop.tensor<[], i64>
      hop.yield %k1, %next, %arg, %y : !hop.tensor<[], i64>, !hop.tensor<[3], f32>, !hop.tensor<[], i64>, !hop.tensor<[3], f32>
    }
    func.return %c, %i, %ys, %kk : !hop.tensor<[3], f32>, !hop.tensor<[5], i64>, !hop.tensor<[5, 3], f32>, !hop.tensor<[], i64>
  }
}
"""


def _check_against_oracle(module, values: list[torch.Tensor], seed: int = 0) -> dict[int, torch.Tensor]:
    """Differentiates the functional ``module`` and checks the gradients of its
    ``{hop.requires_grad}`` arguments on ``values`` against the interpreter oracle."""
    functional = module.clone()
    differentiate(module)
    verify_module(module)
    forward, backward = entry_signature(module, "forward"), entry_signature(module, "backward")
    results = run_module(module, [v.clone() for v in values], function="forward")
    generator = torch.Generator().manual_seed(seed)
    cotangents = [torch.randn(r.shape, generator=generator) if r.is_floating_point() else None
                  for r in results[:len(forward.user_outputs)]]
    saved = {k: results[i] for k, i in forward.saved_results.items()}
    gradients = run_module(module, [saved[role.target] if role.kind == "hop.saved" else cotangents[role.target]
                                    for role in backward.arguments], function="backward")
    ours = {backward.gradient_results[i]: g for i, g in enumerate(gradients)}

    differentiable = sorted(forward.requires_grad)
    leaves = [v.clone().requires_grad_(i in differentiable) for i, v in enumerate(values)]
    outputs = run_module(functional, leaves)
    for output, result in zip(outputs, results):
        torch.testing.assert_close(result, output, rtol=0, atol=0)
    used = [(o, c) for o, c in zip(outputs, cotangents) if c is not None and o.requires_grad]
    expected = torch.autograd.grad([o for o, _ in used], [leaves[i] for i in differentiable],
                                   [c for _, c in used], allow_unused=True)
    for index, want in zip(differentiable, expected):
        got = ours.get(index)
        torch.testing.assert_close(got, torch.zeros_like(values[index]) if want is None else want)
    return ours


@pytest.mark.parametrize("reverse", [False, True])
def test_integer_per_step_output_and_mixed_requires_grad_against_the_oracle(reverse):
    module = hopc.parse(MIXED_IR.replace("REVERSE ", "reverse " if reverse else ""))
    values = [torch.randn(3), torch.randn(5, 3), torch.randn(3), torch.randn(3), torch.tensor(1)]
    assert sorted(_check_against_oracle(module, values)) == [1, 2]
    assert [op.is_reverse for op in _ops(module, "hop.scan")] == [reverse, not reverse]


RNN_IR = """
builtin.module {
  hop.symbol @s0 backed [0, oo] hint 5
  func.func @forward(%h0: !hop.tensor<[4], f32> {hop.requires_grad}, %xs: !hop.tensor<[s0, 4], f32> {hop.requires_grad},
                     %w: !hop.tensor<[4], f32> {hop.requires_grad}) -> (!hop.tensor<[4], f32>, !hop.tensor<[s0, 4], f32>) {
    %h, %ys = hop.scan init(%h0) xs(%xs) additional(%w) : (!hop.tensor<[4], f32>), (!hop.tensor<[s0, 4], f32>), (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>, !hop.tensor<[s0, 4], f32> {
    ^bb0(%c: !hop.tensor<[4], f32>, %x: !hop.tensor<[4], f32>, %v: !hop.tensor<[4], f32>):
      %m = aten.mul.Tensor(%c, %v) : (!hop.tensor<[4], f32>, !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
      %a = aten.add.Tensor(%m, %x) : (!hop.tensor<[4], f32>, !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
      %t = aten.tanh(%a) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
      %y = aten.exp(%t) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
      hop.yield %t, %y : !hop.tensor<[4], f32>, !hop.tensor<[4], f32>
    }
    func.return %h, %ys : !hop.tensor<[4], f32>, !hop.tensor<[s0, 4], f32>
  }
}
"""


@pytest.mark.parametrize("steps", [0, 1, 7])
def test_zero_one_and_several_steps(steps):
    # No step: the initial carry's gradient is its cotangent, w's is zero, xs's is empty.
    _check_against_oracle(hopc.parse(RNN_IR), [torch.randn(4), torch.randn(steps, 4), torch.randn(4)])


UNBACKED_IR = """
builtin.module {
  hop.symbol @u1 unbacked [0, oo]
  func.func @forward(%h0: !hop.tensor<[], f32> {hop.requires_grad}, %xs: !hop.tensor<[5, 3], f32> {hop.requires_grad}) -> !hop.tensor<[], f32> {
    %h = hop.scan init(%h0) xs(%xs) additional() : (!hop.tensor<[], f32>), (!hop.tensor<[5, 3], f32>), () -> !hop.tensor<[], f32> {
    ^bb0(%c: !hop.tensor<[], f32>, %x: !hop.tensor<[3], f32>):
      %nz = aten.nonzero(%x) : (!hop.tensor<[3], f32>) -> !hop.tensor<[u1, 1], i64>
      %idx = aten.squeeze_copy.dim(%nz) {dim = 1 : i64} : (!hop.tensor<[u1, 1], i64>) -> !hop.tensor<[u1], i64>
      %sel = aten.index_select(%x, %idx) {dim = 0 : i64} : (!hop.tensor<[3], f32>, !hop.tensor<[u1], i64>) -> !hop.tensor<[u1], f32>
      %s = aten.sum(%sel) : (!hop.tensor<[u1], f32>) -> !hop.tensor<[], f32>
      %n = aten.mul.Tensor(%c, %s) : (!hop.tensor<[], f32>, !hop.tensor<[], f32>) -> !hop.tensor<[], f32>
      hop.yield %n : !hop.tensor<[], f32>
    }
    func.return %h : !hop.tensor<[], f32>
  }
}
"""


def test_a_residual_whose_size_a_step_defines_is_a_located_error():
    module = hopc.parse(UNBACKED_IR)
    with pytest.raises(HopcError, match="u1 the step defines") as failure:
        differentiate(module)
    assert failure.value.location.line == 5
