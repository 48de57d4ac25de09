"""Symbolic floats through ``hopc.compile`` and ``hopc.capture`` (Note [float expressions]).

Each compiled program runs at several sizes or values against eager; the
number of graphs hopc compiles shows that one module served every size after
the first recompilation (Dynamo's automatic dynamic shapes), not a recompile
per size.
"""

import math

import pytest
import torch
from frontend_harness import check_compile
from torch.export import Dim

import hopc
from hopc.backend.interpreter import run_module


@pytest.fixture(autouse=True)
def fresh_dynamo():
    torch._dynamo.reset()
    yield
    torch._dynamo.reset()


def scaled(x):
    return x / math.sqrt(x.size(-1))


def test_division_by_sqrt_of_a_size(backend_calls):
    check_compile(scaled, [(torch.randn(3, n),) for n in (4, 5, 6, 9)])
    assert len(backend_calls) == 2  # static first, then one dynamic module for 5, 6 and 9


def test_hand_written_attention(backend_calls):
    def attention(q, k, v):
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
        return scores.softmax(dim=-1) @ v

    sizes = [(5, 8), (7, 16), (9, 4), (6, 12)]  # (sequence length, head dimension)
    check_compile(attention, [tuple(torch.randn(2, 3, length, head) for _ in range(3))
                              for length, head in sizes])
    assert len(backend_calls) == 2


def test_float_item_scales_a_tensor(backend_calls):
    def program(x, y):
        return x * y.sum().item()

    check_compile(program, [(torch.randn(4), torch.randn(4)) for _ in range(3)])
    assert len(backend_calls) == 1  # the value is data, read at run time


@pytest.mark.parametrize("use_cond", [True, False], ids=["torch.cond", "python-if"])
def test_bool_item_chooses_a_branch(use_cond):
    def program(x, y):
        positive = (y.sum() > 0).item()
        if use_cond:
            return torch.cond(positive, lambda x: x + 1, lambda x: x - 1, (x,))
        return x + 1 if positive else x - 1

    signs = [1.0, -1.0, 1.0, -1.0]
    check_compile(program, [(torch.randn(4), torch.full((4,), sign)) for sign in signs])


def test_true_division_and_powers_of_sizes(backend_calls):
    def program(x):
        return x * (x.size(0) / 2) + x.size(0) ** 0.5 - x.size(1) / x.size(0) + x.size(0) ** 2

    check_compile(program, [(torch.randn(n, n + 1),) for n in (3, 4, 5, 7)])
    assert len(backend_calls) == 2


def test_capture_with_a_dynamic_size_runs_at_every_size():
    module = hopc.capture(scaled, (torch.randn(3, 5),), dynamic_shapes=({1: Dim("n")},))
    assert "hop.sym_sqrt" in str(module)
    for n in (2, 5, 8, 13):
        x = torch.randn(3, n)
        assert torch.equal(run_module(module, [x])[0], scaled(x))


def test_sqrt_of_a_size_inside_a_branch(backend_calls):
    """lift-symbols passes the size into the branch, which computes the float there."""
    def program(x):
        return torch.cond(x.sum() > 0, lambda x: x / math.sqrt(x.size(0)), lambda x: x * 2, (x,))

    check_compile(program, [(sign * torch.rand(n),) for n in (3, 4, 5) for sign in (1, -1)])
    assert len(backend_calls) == 2


def test_in_place_update_by_float_expressions():
    """functionalize rebuilds the in-place ops, inferring types with float arguments."""
    def by_size(x):
        x.add_(math.sqrt(x.size(-1)))
        return x

    def by_item(x, y):
        x.mul_(y.sum().item())
        return x

    check_compile(by_size, [(torch.randn(2, n),) for n in (3, 4, 5)])
    check_compile(by_item, [(torch.randn(n), torch.randn(n)) for n in (3, 4, 5)])
