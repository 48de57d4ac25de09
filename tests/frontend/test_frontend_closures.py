"""HOP bodies that close over outer tensors capture as isolated regions (Note [isolated regions]).

PyTorch passes a subgraph's free tensors to the HOP as inputs, a closed-over
buffer or input that the body changes in place included, so ``hopc.capture``
needs no pass of its own to make them operands: every module it returns
verifies, each region reads only its block arguments, and the closed-over
values are operands of the HOP. The captured module and ``hopc.compile``
agree with eager, mutation of the closed-over tensors included.
"""

from __future__ import annotations

import pytest
import torch
import torch.utils.checkpoint as checkpoint_utils
from frontend_harness import check_capture, check_compile
from torch._higher_order_ops.while_loop import while_loop
from torch._higher_order_ops.wrap import wrap

from hopc.dialects.hop_interface import hop_interface
from hopc.passes.verify_isolated import verify_isolated


def cond_over_outer(x, y):
    z = y * 2
    return torch.cond(x.sum() > 0, lambda a: a + z, lambda a: a - y, (x,))


def while_over_outer(x, y):
    w = y.cos()
    return while_loop(lambda i, a: i < 3, lambda i, a: (i + 1, a * w + y), (torch.tensor(0), x))


def checkpoint_over_outer(x, y):
    z = y.sin()
    return checkpoint_utils.checkpoint(lambda a: a * z + y, x, use_reentrant=False)


def cond_in_wrap_over_outer(x, y):
    """The cond's branches read ``z`` from two levels up."""
    z = y.sin()
    return wrap(lambda a: torch.cond(a.sum() > 0, lambda b: b + z, lambda b: b - z, (a,)), x)


def wrap_changes_closed_over_input(x, y):
    def body(a):
        y.add_(a)
        return a * 2
    return wrap(body, x)


class WrapChangesClosedOverBuffer(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("total", torch.zeros(4))

    def forward(self, x):
        def body(a):
            self.total.mul_(2)
            self.total.add_(a)
            return a + self.total
        return wrap(body, x)


class CheckpointChangesClosedOverBuffer(WrapChangesClosedOverBuffer):
    def forward(self, x):
        def body(a):
            self.total.add_(a)
            return a * self.total
        return checkpoint_utils.checkpoint(body, x, use_reentrant=False)


def _sets(count: int, *shapes: tuple[int, ...]) -> list[tuple]:
    generator = torch.Generator().manual_seed(0)
    return [tuple(torch.randn(*shape, generator=generator) for shape in shapes) for _ in range(count)]


CLOSURES = [cond_over_outer, while_over_outer, checkpoint_over_outer, cond_in_wrap_over_outer,
            wrap_changes_closed_over_input]
MUTATING_MODULES = [WrapChangesClosedOverBuffer, CheckpointChangesClosedOverBuffer]


@pytest.mark.parametrize("program", CLOSURES, ids=lambda p: p.__name__)
def test_closures_capture_as_isolated_regions(program):
    module = check_capture(program, _sets(2, (4,), (4,)))
    verify_isolated(module)
    hops = [op for op in module.walk() if hop_interface(op) is not None]
    assert hops and all(len(op.operands) > 1 for op in hops)  # the closed-over values too


@pytest.mark.parametrize("program", MUTATING_MODULES, ids=lambda p: p.__name__)
def test_a_closed_over_buffer_changed_in_place_is_an_operand(program):
    module = check_capture(program(), _sets(2, (4,)))
    verify_isolated(module)
    hop_op = next(op for op in module.walk() if hop_interface(op) is not None)
    assert "total" in [operand.name_hint for operand in hop_op.operands]
    check_compile(program(), _sets(3, (4,)))
