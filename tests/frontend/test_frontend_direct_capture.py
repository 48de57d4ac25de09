"""The direct route of ``hopc.capture`` (Note [direct capture]): who takes it, who gives up."""

import pytest
import torch
import torch.utils.checkpoint as checkpoint_utils
from frontend_corpus import CASES, wrap_body
from frontend_models import TransformerBlock
from torch._higher_order_ops.wrap import wrap

import hopc
from hopc.frontend import capture as capture_module
from hopc.frontend.direct_capture import direct_graph

_DIRECT = ["elementwise", "mutate_inputs", "out_variant", "mutate_buffers", "masked_assignment"]
"""Corpus programs with static sizes, no HOP and no data-dependent size."""


@pytest.fixture
def no_dynamo(monkeypatch):
    def fail(*args, **kwargs):
        raise AssertionError("the capture went through Dynamo")

    monkeypatch.setattr(capture_module, "dynamo_graph", fail)


@pytest.mark.parametrize("name", _DIRECT)
def test_static_programs_without_hops_skip_dynamo(name, no_dynamo):
    case = next(case for case in CASES if case.name == name)
    hopc.capture(case.make(), case.inputs[0])


@pytest.mark.parametrize("case", [c for c in CASES if c.name not in _DIRECT and
                                  c.dynamic_shapes is None], ids=lambda case: case.name)
def test_hops_and_unbacked_sizes_give_up(case):
    assert direct_graph(case.make(), case.inputs[0], {}) is None


def test_hop_entry_points_are_restored():
    direct_graph(wrap_body(), (torch.ones(2), torch.ones(2)), {})
    assert torch.equal(wrap(lambda a: a * 2, torch.ones(2)), torch.full((2,), 2.0))
    assert torch.equal(checkpoint_utils.checkpoint(torch.sin, torch.zeros(2), use_reentrant=False),
                       torch.zeros(2))


def test_direct_ops_are_located_at_user_lines(no_dynamo):
    module = hopc.capture(TransformerBlock(), (torch.randn(2, 5, 16),))
    locations = [op.location for op in module.walk() if op.name.startswith("aten.")]
    assert locations and all("frontend_models.py" in str(location) for location in locations)
