"""``while_loop`` with a pytree of int carries (PyTorch's ``fx_while_pytree_int_carry``) in grad mode.

Dynamo's fake run of the loop fails in PyTorch's own ``while_loop`` autograd
kernel, as eager does: hopc refuses it with a located error saying what to
change (Note [int carries in grad mode]); under ``no_grad`` it compiles.
"""

from __future__ import annotations

import pathlib

import pytest
import torch
import torch.utils._pytree as pytree
from torch._higher_order_ops.while_loop import while_loop

import hopc
from hopc.ir.diagnostics import HopcError


def _cond(shapes, const_int_dict, x):
    a, b = shapes
    c1, c2, c3 = const_int_dict["int_carry"]
    return c1 * c2 * c3 < a * b


def _body(shapes, const_int_dict, x):
    a, b = shapes
    c1, c2, c3 = const_int_dict["int_carry"]
    return [a + 1, b + 1], {"int_carry": (c1 + 1, c2 + 1, c3 + 1)}, x + 1


def pytree_int_carry(x):
    """PyTorch's ``PytreeIntCarry`` (test/functorch/test_control_flow.py)."""
    carry = ([x.shape[0], x.shape[1]], {"int_carry": (2, 2, 3)}, x.sin())
    out_shapes, out_it, out_x = while_loop(_cond, _body, carry)  # the refusal's line
    out_inc = pytree.tree_map(lambda v: v + 1, out_it)
    out_add = pytree.tree_map(lambda v: v + out_x, out_it)
    return out_shapes, out_inc, out_add, out_x


def _python_loop(x):
    """``pytree_int_carry`` with a Python loop: the reference."""
    shapes, it, out_x = [x.shape[0], x.shape[1]], {"int_carry": (2, 2, 3)}, x.sin()
    while _cond(shapes, it, out_x):
        shapes, it, out_x = _body(shapes, it, out_x)
    return shapes, pytree.tree_map(lambda v: v + 1, it), pytree.tree_map(lambda v: v + out_x, it), out_x


@pytest.fixture(autouse=True)
def fresh_dynamo():
    torch._dynamo.reset()
    yield
    torch._dynamo.reset()


def test_grad_mode_is_a_located_error_saying_what_to_change():
    with pytest.raises(HopcError, match="while_loop carrying Python ints in grad mode.*carry the ints as "
                                        "tensors") as caught:
        hopc.compile(pytree_int_carry)(torch.randn(4, 5, requires_grad=True))
    location = caught.value.location
    assert location.file == __file__
    assert "# the refusal's line" in pathlib.Path(__file__).read_text().splitlines()[location.line - 1]


def test_no_grad_compiles_like_the_python_loop():
    x = torch.randn(4, 5, requires_grad=True)  # 2 * 2 * 3 < 4 * 5: the body runs once
    assert _python_loop(x)[0] == [5, 6]
    with torch.no_grad():
        torch.testing.assert_close(hopc.compile(pytree_int_carry)(x), _python_loop(x))
