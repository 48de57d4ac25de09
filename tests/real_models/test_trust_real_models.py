"""transformers models trained under ``hopc.compile`` against eager (tiny configs, random weights).

The Llama case is issue 22's first: its bias-free q/k/v/o and MLP projections
are ``mm`` then ``_unsafe_view`` in the training forward, and the default
executor once wrote one projection over another through a buffer that
plan-memory thought free (Note [result storage] in
``hopc.dialects.aten_storage``): logits off by up to 6.6. T5 (its
``dropout_rate`` zero: ATen's dropout returns its input itself) trained
0.21 off in its loss from the first step. Nothing is downloaded.
"""

from __future__ import annotations

import copy

import pytest
import torch

import hopc

transformers = pytest.importorskip("transformers")


def _llama():
    config = transformers.LlamaConfig(vocab_size=64, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                                      num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=64)
    ids = torch.randint(0, 64, (2, 10))
    return transformers.LlamaForCausalLM(config), {"input_ids": ids, "labels": ids}


def _t5():
    config = transformers.T5Config(vocab_size=64, d_model=32, d_kv=8, d_ff=64, num_layers=2, num_heads=4,
                                   decoder_start_token_id=0, dropout_rate=0.0)
    inputs = {"input_ids": torch.randint(0, 64, (2, 10)), "labels": torch.randint(0, 64, (2, 6))}
    return transformers.T5ForConditionalGeneration(config), inputs


@pytest.fixture(autouse=True)
def fresh_dynamo():
    torch._dynamo.reset()
    yield
    torch._dynamo.reset()


@pytest.mark.parametrize("make", [_llama, _t5], ids=["llama", "t5"])
def test_adamw_steps_match_eager(make):
    """Losses at every step, the parameters after three AdamW steps, and a no_grad loss equal eager's."""
    torch.manual_seed(0)
    model, inputs = make()
    model.train()
    eager, mine = copy.deepcopy(model), copy.deepcopy(model)
    compiled = hopc.compile(mine)
    optimizers = [torch.optim.AdamW(m.parameters(), lr=1e-2) for m in (eager, mine)]
    for _ in range(3):
        losses = [run(**inputs).loss for run in (eager, compiled)]
        for loss, optimizer in zip(losses, optimizers):
            loss.backward()
            optimizer.step()
            optimizer.zero_grad()
        torch.testing.assert_close(losses[1], losses[0], rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(list(mine.parameters()), list(eager.parameters()), rtol=1e-4, atol=1e-5)
    with torch.no_grad():
        torch.testing.assert_close(compiled(**inputs).loss, eager(**inputs).loss, rtol=1e-5, atol=1e-5)
