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
