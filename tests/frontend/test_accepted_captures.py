"""Programs PyTorch accepts that ``hopc.capture`` once refused (issue 10, items 10 and 11).

``hopc.capture`` accepts what ``hopc.compile`` accepts: each program is
captured on one input set and the module's outputs match eager's on every
set (``check_capture_outputs``); where ``hopc.compile`` runs it too, so does
``check_compile``.
"""

import pytest
import torch
import torch.utils._pytree as pytree
from frontend_harness import captured_run, check_compile, cloned
from torch.utils.checkpoint import checkpoint

import hopc
from hopc.ir.diagnostics import HopcError


@pytest.fixture(autouse=True)
def fresh_dynamo():
    torch._dynamo.reset()
    yield
    torch._dynamo.reset()


def check_capture_outputs(program, input_sets):
    """Captures on the first input set; the module's outputs match eager's leaves on each."""
    module = hopc.capture(program, cloned(input_sets[0]))
    for args in input_sets:
        expected = pytree.tree_leaves(program(*cloned(args)))
        actual, _, _ = captured_run(module, program, args)
        assert [type(v) for v in actual] == [type(v) for v in expected]
        torch.testing.assert_close(actual, expected)
    return module


# ------------------------------- item 10: hopc.capture accepts what hopc.compile does


class Config:
    """A user-defined object: its attributes are constants of the capture."""

    def __init__(self, scale, offset):
        self.scale = scale
        self.offset = offset


def scaled(x, config):
    return x * config.scale + config.offset


def test_capture_user_defined_object_argument():
    config = Config(2.5, torch.arange(3.0))
    check_capture_outputs(scaled, [(torch.randn(3), config), (torch.randn(3), config)])
    compiled = hopc.compile(scaled)
    for args in [(torch.randn(3), config), (torch.randn(3), Config(-1.0, torch.ones(3)))]:
        torch.testing.assert_close(compiled(*args), scaled(*args))


def test_capture_user_defined_object_returned_is_a_located_error():
    def program(x, config):
        return x * config.scale, config

    with pytest.raises(HopcError, match="cannot capture the program") as failure:
        hopc.capture(program, (torch.randn(3), Config(2.0, 0.0)))
    assert failure.value.location.file == __file__


def test_capture_python_numbers_among_the_outputs():
    def program(x):
        return [1, x.sin(), 2.0]

    check_capture_outputs(program, [(torch.randn(3),), (torch.randn(3),)])
    check_compile(program, [(torch.randn(3),), (torch.randn(5),)])


def shifted_cosine(y):
    return y.cos() + 1


def test_capture_nested_compile_region_applied_inside_the_program():
    def program(x):
        return torch.compiler.nested_compile_region(shifted_cosine)(x) * 2

    module = check_capture_outputs(program, [(torch.randn(3),), (torch.randn(3),)])
    assert "hop.invoke_subgraph" in str(module)
    check_compile(program, [(torch.randn(3),), (torch.randn(5),)])


# ------------------------------------------ item 11: checkpoint around cond, captured


def test_capture_checkpoint_around_cond():
    def program(x, kwarg_scale):
        def body(x, scale=None):
            return torch.cond(x.sum() > 0, lambda y: y.sin(), lambda y: y.cos(), (x,)) * scale
        return checkpoint(body, x, use_reentrant=False, scale=kwarg_scale) * 2

    module = check_capture_outputs(program, [(torch.ones(3), torch.randn(3)),
                                             (-torch.ones(3), torch.randn(3))])
    assert "hop.checkpoint" in str(module) and "hop.cond" in str(module)
    check_compile(program, [(torch.ones(3), torch.randn(3)), (-torch.ones(5), torch.randn(5))])
