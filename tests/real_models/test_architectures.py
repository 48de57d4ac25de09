"""Eight transformers architectures trained and generating under ``hopc.compile`` against eager.

Tiny configs, random weights, nothing downloaded (``real_model_harness``).
The kinds: decoders with rotary embeddings and grouped-query attention
(Qwen2, Phi3 with its fused projections, GPT-NeoX with partial rotary and
parallel residuals), sliding-window attention (Mistral, window 4 under
sequences of 8), learned positions (OPT), an encoder-decoder (BART), a vision
transformer (ViT) and a mixture of experts (Qwen2-MoE). Each is trained three
AdamW steps against eager at a fixed size, and those that generate give
eager's greedy tokens with a compiled ``forward``; one of each kind is
trained again with gradient checkpointing on, and with a new size every step
(compiling no more often than aot_eager). A frame Dynamo gives up to eager
fails the test (it would compare eager with eager).
"""

from __future__ import annotations

import pytest
import torch
from real_model_harness import (
    BATCH,
    ROUNDING_THROUGH_ADAMW,
    SEQUENCE,
    VOCABULARY,
    Architecture,
    assert_same_training,
    compiles,
    greedy_tokens,
    seq2seq_inputs,
    token_inputs,
    train_side_by_side,
)

import hopc

transformers = pytest.importorskip("transformers")

pytestmark = pytest.mark.filterwarnings("error::hopc.EagerFallbackWarning")  # compiled, not eager's values


def _decoder(config_class: str, model_class: str, **config: object) -> torch.nn.Module:
    settings = {"vocab_size": VOCABULARY, "hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": 1,
                "num_attention_heads": 4, "num_key_value_heads": 2, "max_position_embeddings": 64,
                "bos_token_id": 1, "eos_token_id": 2, "pad_token_id": 0, **config}
    return getattr(transformers, model_class)(getattr(transformers, config_class)(**settings))


def _opt() -> torch.nn.Module:
    config = transformers.OPTConfig(vocab_size=VOCABULARY, hidden_size=32, ffn_dim=64, num_hidden_layers=1,
                                    num_attention_heads=4, max_position_embeddings=64, word_embed_proj_dim=32,
                                    dropout=0.0, attention_dropout=0.0, pad_token_id=1, bos_token_id=2,
                                    eos_token_id=2)
    return transformers.OPTForCausalLM(config)


def _bart() -> torch.nn.Module:
    config = transformers.BartConfig(vocab_size=VOCABULARY, d_model=32, encoder_layers=1, decoder_layers=1,
                                     encoder_attention_heads=4, decoder_attention_heads=4, encoder_ffn_dim=64,
                                     decoder_ffn_dim=64, max_position_embeddings=64, dropout=0.0,
                                     attention_dropout=0.0, activation_dropout=0.0, pad_token_id=1,
                                     bos_token_id=0, eos_token_id=2, decoder_start_token_id=2,
                                     forced_eos_token_id=None)
    return transformers.BartForConditionalGeneration(config)


IMAGE_CLASSES = 5


def _vit() -> torch.nn.Module:
    config = transformers.ViTConfig(hidden_size=32, num_hidden_layers=1, num_attention_heads=4,
                                    intermediate_size=64, image_size=16, patch_size=4, num_labels=IMAGE_CLASSES,
                                    hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0)
    return transformers.ViTForImageClassification(config)


def _image_inputs(batch: int, sequence: int) -> dict[str, torch.Tensor]:
    """16x16 RGB images (16 patches of 4x4; ``sequence`` is unused) and their class labels."""
    return {"pixel_values": torch.randn(batch, 3, 16, 16), "labels": torch.randint(0, IMAGE_CLASSES, (batch,))}


ARCHITECTURES = [
    Architecture("qwen2", lambda: _decoder("Qwen2Config", "Qwen2ForCausalLM"), token_inputs,
                 checkpointing_tolerance=ROUNDING_THROUGH_ADAMW),
    Architecture("mistral-sliding-window", lambda: _decoder("MistralConfig", "MistralForCausalLM", sliding_window=4),
                 token_inputs),
    Architecture("phi3", lambda: _decoder("Phi3Config", "Phi3ForCausalLM"), token_inputs),
    Architecture("gpt-neox", lambda: _decoder("GPTNeoXConfig", "GPTNeoXForCausalLM", rotary_pct=0.5,
                                              attention_dropout=0.0, hidden_dropout=0.0), token_inputs),
    Architecture("opt", _opt, token_inputs),
    Architecture("bart", _bart, seq2seq_inputs),
    Architecture("vit", _vit, _image_inputs, generates=False, changing="batch"),
    # Experts as batched matmuls: the default, grouped_mm, is transformers' own custom operator.
    Architecture("qwen2-moe", lambda: _decoder("Qwen2MoeConfig", "Qwen2MoeForCausalLM", num_experts=4,
                                               num_experts_per_tok=2, moe_intermediate_size=32,
                                               shared_expert_intermediate_size=32,
                                               experts_implementation="batched_mm"),
                 token_inputs, tolerance=ROUNDING_THROUGH_ADAMW, checkpointing_tolerance=ROUNDING_THROUGH_ADAMW),
]


ONE_OF_EACH_KIND = [a for a in ARCHITECTURES if a.name in {"qwen2", "mistral-sliding-window", "bart", "vit", "qwen2-moe"}]
"""Rotary embeddings with grouped-query attention, a sliding window, an encoder-decoder, a vision
transformer and experts: the checkpointed and changing-size runs, which cost most, run on these."""


@pytest.fixture(autouse=True)
def fresh_dynamo():
    torch._dynamo.reset()
    yield
    torch._dynamo.reset()


def _input_sets(architecture: Architecture, sizes: list[tuple[int, int]]) -> list[dict[str, torch.Tensor]]:
    torch.manual_seed(1)
    return [architecture.inputs(batch, sequence) for batch, sequence in sizes]


@pytest.mark.parametrize("architecture", ARCHITECTURES, ids=str)
def test_adamw_steps_match_eager(architecture):
    """Three AdamW steps at one size: every loss and every final parameter equal eager's."""
    sets = _input_sets(architecture, [(BATCH, SEQUENCE)] * 3)
    assert_same_training(architecture, *train_side_by_side(architecture, hopc.compile, sets), architecture.tolerance)


@pytest.mark.parametrize("architecture", ONE_OF_EACH_KIND, ids=str)
def test_gradient_checkpointing_matches_eager(architecture):
    """The same three steps with the model's gradient checkpointing on (non-reentrant, ``hop.checkpoint``)."""
    sets = _input_sets(architecture, [(BATCH, SEQUENCE)] * 3)
    outcome = train_side_by_side(architecture, hopc.compile, sets, checkpointing=True)
    assert_same_training(architecture, *outcome, architecture.checkpointing_tolerance)


@pytest.mark.parametrize("architecture", [a for a in ARCHITECTURES if a.generates], ids=str)
def test_generate_with_compiled_forward_gives_eager_tokens(architecture):
    """``generate()`` over a compiled ``forward`` (a new cache length every token) picks eager's tokens."""
    torch.manual_seed(0)
    model = architecture.make().eval()
    prompt = torch.randint(3, VOCABULARY, (BATCH, SEQUENCE))
    expected = greedy_tokens(model, prompt)
    model.forward = hopc.compile(model.forward)
    torch.testing.assert_close(greedy_tokens(model, prompt), expected, rtol=0, atol=0)


@pytest.mark.parametrize("architecture", ONE_OF_EACH_KIND, ids=str)
def test_a_new_size_every_step_matches_eager_and_compiles_no_more_than_aot_eager(architecture):
    """Three AdamW steps, each at a new sequence length (batch size for ViT): eager's losses and
    parameters, from no more compiled graphs than ``torch.compile(backend="aot_eager")`` compiles."""
    sets = _input_sets(architecture, architecture.changing_sizes())
    aot_eager = compiles(lambda: train_side_by_side(
        architecture, lambda model: torch.compile(model, backend="aot_eager"), sets))
    torch._dynamo.reset()
    outcome = []
    mine = compiles(lambda: outcome.extend(train_side_by_side(architecture, hopc.compile, sets)))
    assert_same_training(architecture, *outcome, architecture.tolerance)
    assert 0 < mine <= aot_eager
