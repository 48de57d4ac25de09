"""Compiled outputs have eager's strides (Note [output strides])."""

from __future__ import annotations

import torch

import hopc


def _transposed_products(x: torch.Tensor) -> tuple[torch.Tensor, ...]:
    return x.t() * 2, x + 1, (x.t() * 2).sum(0), x.t().contiguous() * 3


def test_outputs_have_eager_strides_at_every_size():
    compiled = hopc.compile(_transposed_products)
    with torch.no_grad():
        for rows in (3, 5, 7):  # the second size recompiles with a symbolic size
            x = torch.randn(rows, 4)
            for got, want in zip(compiled(x), _transposed_products(x), strict=True):
                assert got.stride() == want.stride()
                torch.testing.assert_close(got, want)


def test_a_view_that_works_on_eager_output_works_on_the_compiled_one():
    compiled = hopc.compile(lambda x: x.t() * 2)
    with torch.no_grad():
        x = torch.randn(3, 4)
        torch.testing.assert_close(compiled(x).t().view(-1), (x.t() * 2).t().view(-1))


def _expanded_mask(x):
    """A causal mask expanded over the batch, as transformers' mask builders return it."""
    n = x.shape[1]
    mask = torch.arange(n)[None, :] <= torch.arange(n)[:, None]
    return mask[None, None].expand(x.shape[0], 1, n, n), x * 2


def test_an_expanded_output_keeps_eager_s_zero_strides():
    """Regression: eager's stride-0 layout could not be copied into (``copy_`` refuses to write
    a tensor whose elements share memory), an internal error on Qwen2-MoE's sliding mask."""
    for executor in ("auto", "planned", "interpreter"):
        torch._dynamo.reset()
        compiled = hopc.compile(_expanded_mask, executor=executor)
        for length in (5, 7):
            x = torch.randn(2, length)
            (mask, _), (expected, _) = compiled(x), _expanded_mask(x)
            assert torch.equal(mask, expected) and mask.stride() == expected.stride()
