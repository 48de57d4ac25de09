"""GPT-2 (transformers, a tiny config, random weights) trained under ``hopc.compile``: eager's bits.

bench/real_models.py times this model's training step against eager (issue 23). Its
``Conv1D`` projections are ``addmm`` over views of 3-d activations, its attention splits
and merges heads through transposes, and its backward writes the merged heads into
reused buffers (Note [copying views into buffers] in ``hopc.backend.host.lowerings.aten``):
every loss and every gradient here equals eager's to the bit. Nothing is downloaded.
"""

from __future__ import annotations

import copy

import pytest
import torch
from torch._dynamo.utils import counters

import hopc

transformers = pytest.importorskip("transformers")


@pytest.fixture(autouse=True)
def fresh_dynamo():
    torch._dynamo.reset()
    yield
    torch._dynamo.reset()


def _gpt2() -> tuple[torch.nn.Module, dict[str, torch.Tensor]]:
    """bench/real_models.py's GPT-2, smaller: its loss named, as the bench names it (an unnamed
    loss makes transformers log a warning that Dynamo breaks the graph at)."""
    config = transformers.GPT2Config(vocab_size=64, n_embd=32, n_layer=2, n_head=4, n_positions=32,
                                     resid_pdrop=0.0, embd_pdrop=0.0, attn_pdrop=0.0)
    model = transformers.GPT2LMHeadModel(config)
    model.loss_type = "ForCausalLM"
    ids = torch.randint(0, 64, (2, 12))
    return model.train(), {"input_ids": ids, "labels": ids}


def test_adamw_steps_give_eager_losses_and_gradients_to_the_bit():
    torch.manual_seed(0)
    counters.clear()
    model, inputs = _gpt2()
    eager, mine = copy.deepcopy(model), copy.deepcopy(model)
    compiled = hopc.compile(mine)
    optimizers = [torch.optim.AdamW(m.parameters(), lr=1e-2) for m in (eager, mine)]
    for _ in range(2):
        losses = [run(**inputs).loss for run in (eager, compiled)]
        for loss in losses:
            loss.backward()
        assert torch.equal(losses[1], losses[0])
        for expected, got in zip(eager.parameters(), mine.parameters(), strict=True):
            assert torch.equal(got.grad, expected.grad)
        for optimizer in optimizers:
            optimizer.step()
            optimizer.zero_grad()
    assert counters["stats"]["unique_graphs"] == 1  # the whole step is one frame: one forward, one backward
