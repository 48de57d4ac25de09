"""``flex_attention`` end to end: every executor agrees with eager and the reference interpreter.

A score_mod reading a captured bias table through the head index, a block
mask of a causal or sliding-window mask_mod (Note [flex attention
semantics]), at two sequence lengths: outputs under ``torch.no_grad()``, and
in grad mode the outputs and the bias table's gradient (PyTorch refuses a
CPU ``flex_attention`` whose query, key or value requires grad, in eager and
under Dynamo alike). The gradients of query, key and value go through the
``autograd`` pass directly (``check_gradients``), against the interpreter
oracle and against eager's math (``math_attention`` under plain autograd), with
and without grouped-query attention. A batch and length that vary between calls
(symbolic sizes) and a call without a block mask agree with eager too. What is
out of scope is refused, located.
"""

from __future__ import annotations

import os
import sys
import warnings

os.environ.setdefault("TRITON_INTERPRET", "1")  # before Triton is imported: kernels run on CPU tensors

import pytest
import torch
from torch._higher_order_ops.flex_attention import math_attention
from torch.nn.attention.flex_attention import create_block_mask, flex_attention

import hopc
from hopc.backend.interpreter import run_module
from hopc.backend.runtime.executors import CPU_EXECUTORS
from hopc.ir.diagnostics import HopcError

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "autograd"))
from autograd_harness import check_gradients, differentiated, entry_values

EXECUTOR_NAMES = sorted(CPU_EXECUTORS)
BATCH, HEADS, HEAD_SIZE = 2, 2, 4


@pytest.fixture(autouse=True)
def fresh_dynamo():
    torch._dynamo.reset()
    warnings.filterwarnings("ignore", message="flex_attention called without torch.compile")
    yield
    torch._dynamo.reset()


def causal(b, h, q_idx, kv_idx):
    return q_idx >= kv_idx


def sliding_window(b, h, q_idx, kv_idx):
    return (q_idx >= kv_idx) & (q_idx - kv_idx <= 3)


class BiasedAttention(torch.nn.Module):
    """flex_attention with a learned per-head bias of the distance, under a block mask."""

    def __init__(self, mask_mod, length: int, enable_gqa: bool = False):
        super().__init__()
        self.enable_gqa = enable_gqa
        self.bias = torch.nn.Parameter(torch.randn(HEADS, generator=torch.Generator().manual_seed(3)))
        self.mask_mod = mask_mod
        self.block_mask = create_block_mask(mask_mod, None, None, length, length, device="cpu")

    def score_mod(self, score, b, h, q_idx, kv_idx):
        return score + self.bias[h] * (q_idx - kv_idx)

    def forward(self, q, k, v):
        return flex_attention(q, k, v, score_mod=self.score_mod, block_mask=self.block_mask, enable_gqa=self.enable_gqa)

    def eager_math(self, q, k, v):
        """Eager's math itself, which plain autograd differentiates (CPU flex_attention cannot)."""
        return math_attention(q, k, v, self.score_mod, (self.mask_mod,), HEAD_SIZE ** -0.5, {})[0]


def _inputs(length: int, key_heads: int = HEADS) -> list[torch.Tensor]:
    generator = torch.Generator().manual_seed(length)
    return [torch.randn(BATCH, heads, length, HEAD_SIZE, generator=generator) for heads in (HEADS, key_heads, key_heads)]


def _outputs_and_gradient(model: BiasedAttention, executor: str | None, inputs: list[torch.Tensor],
                          grad: bool) -> list[torch.Tensor]:
    run = model if executor is None else hopc.compile(model, executor=executor, fullgraph=True)
    if not grad:
        with torch.no_grad():
            return [run(*inputs)]
    model.bias.grad = None
    output = run(*inputs)
    (gradient,) = torch.autograd.grad(output, [model.bias], torch.ones_like(output))
    return [output.detach(), gradient]


@pytest.mark.parametrize("grad", [False, True], ids=["no_grad", "grad"])
@pytest.mark.parametrize(("mask_mod", "length"), [(causal, 8), (sliding_window, 12)],
                         ids=["causal-8", "sliding_window-12"])
def test_every_executor_agrees_with_eager_and_the_interpreter(mask_mod, length, grad):
    model = BiasedAttention(mask_mod, length)
    inputs = _inputs(length)
    eager = _outputs_and_gradient(model, None, inputs, grad)
    oracle = _outputs_and_gradient(model, "interpreter", inputs, grad)
    for want, got in zip(eager, oracle, strict=True):
        torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-5)
    for executor in (name for name in EXECUTOR_NAMES if name != "interpreter"):
        torch._dynamo.reset()
        for want, got in zip(oracle, _outputs_and_gradient(model, executor, inputs, grad), strict=True):
            torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-5, msg=lambda m, e=executor: f"{e}: {m}")


class VaryingAttention(torch.nn.Module):
    """BiasedAttention's score_mod under a block mask that each call passes (its length varies),
    or under none (every score kept)."""

    def __init__(self, masked: bool):
        super().__init__()
        self.bias = torch.nn.Parameter(torch.randn(HEADS, generator=torch.Generator().manual_seed(3)))
        self.masked = masked

    def score_mod(self, score, b, h, q_idx, kv_idx):
        return score + self.bias[h] * (q_idx - kv_idx) + b

    def forward(self, q, k, v, block_mask):
        return flex_attention(q, k, v, score_mod=self.score_mod, block_mask=block_mask if self.masked else None)


VARYING_SIZES = ((2, 8), (3, 12), (4, 16))
"""(batch, length) of each call: both vary."""


def _varying_calls(model: VaryingAttention, executor: str | None, grad: bool) -> tuple[list[list[torch.Tensor]], int]:
    """The outputs (and bias gradient) of each call of ``VARYING_SIZES``, and how many graphs
    Dynamo compiled for them (``executor`` "aot_eager": PyTorch's own backend)."""
    torch._dynamo.reset()
    torch._dynamo.utils.counters.clear()
    if executor is None:
        run = model
    elif executor == "aot_eager":
        run = torch.compile(model, backend="aot_eager", fullgraph=True)
    else:
        run = hopc.compile(model, executor=executor, fullgraph=True)
    results = []
    for batch, length in VARYING_SIZES:
        generator = torch.Generator().manual_seed(length)
        inputs = [torch.randn(batch, HEADS, length, HEAD_SIZE, generator=generator) for _ in range(3)]
        mask = create_block_mask(sliding_window, None, None, length, length, device="cpu")
        model.bias.grad = None
        with torch.set_grad_enabled(grad):
            output = run(*inputs, mask)
        results.append([output.detach(), *torch.autograd.grad(output, [model.bias], torch.ones_like(output))]
                       if grad else [output])
    return results, torch._dynamo.utils.counters["stats"]["unique_graphs"]


@pytest.mark.parametrize(("masked", "grad"), [(True, True), (False, False)],
                         ids=["block_mask-grad", "no_block_mask-no_grad"])
def test_sizes_that_vary_between_calls_agree_with_eager(masked, grad):
    """Every executor agrees with eager and the interpreter at each of three batches and
    lengths, and compiles no more graphs than ``aot_eager`` (Note [flex attention sizes]);
    without a block mask every score is kept (Note [flex attention block tables]). Two of
    the four combinations, each of which takes seconds per executor."""
    model = VaryingAttention(masked)
    eager, _ = _varying_calls(model, None, grad)
    _, aot_eager_graphs = _varying_calls(model, "aot_eager", grad)
    oracle, graphs = _varying_calls(model, "interpreter", grad)
    assert 0 < graphs <= aot_eager_graphs
    for want_call, got_call in zip(eager, oracle, strict=True):
        for want, got in zip(want_call, got_call, strict=True):
            torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-5)
    for executor in (name for name in EXECUTOR_NAMES if name != "interpreter"):
        results, graphs = _varying_calls(model, executor, grad)
        assert 0 < graphs <= aot_eager_graphs, executor
        for want_call, got_call in zip(oracle, results, strict=True):
            for want, got in zip(want_call, got_call, strict=True):
                torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-5, msg=lambda m, e=executor: f"{e}: {m}")


def test_a_call_without_block_mask_is_plain_attention():
    """No block mask keeps every score: plain attention where no score_mod changes them."""
    inputs = _inputs(8)
    with torch.no_grad():
        got = hopc.compile(lambda q, k, v: flex_attention(q, k, v), executor="aten", fullgraph=True)(*inputs)
    torch.testing.assert_close(got, torch.nn.functional.scaled_dot_product_attention(*inputs),
                               rtol=1e-5, atol=1e-5)


def test_a_block_mask_made_inside_the_program_agrees_with_eager():
    """``create_block_mask`` in the program, at its lengths (Note [flex attention block tables])."""
    def program(q, k, v):
        mask = create_block_mask(sliding_window, None, None, q.size(2), k.size(2), device="cpu")
        return flex_attention(q, k, v, block_mask=mask)

    compiled = hopc.compile(program, executor="aten", fullgraph=True)
    for length in (8, 12, 16):
        with torch.no_grad():
            torch.testing.assert_close(compiled(*_inputs(length)), program(*_inputs(length)), rtol=1e-5, atol=1e-5)


def test_the_mask_and_the_bias_change_the_output():
    """The agreement above is not that of a plain attention: both bodies matter."""
    model = BiasedAttention(causal, 8)
    inputs = _inputs(8)
    with torch.no_grad():
        compiled = hopc.compile(model, executor="aten", fullgraph=True)(*inputs)
        plain = torch.nn.functional.scaled_dot_product_attention(*inputs, is_causal=True)
        model.bias.zero_()
        torch._dynamo.reset()
        unbiased = hopc.compile(model, executor="aten", fullgraph=True)(*inputs)
    torch.testing.assert_close(unbiased, plain, rtol=1e-5, atol=1e-5)
    assert not torch.allclose(compiled, plain, atol=1e-3)


def test_frozen_weights_agree_with_eager():
    model = BiasedAttention(sliding_window, 12)
    inputs = _inputs(12)
    with torch.no_grad():
        want = model(*inputs)
        got = hopc.compile(model, executor="aten", freeze=True, fullgraph=True)(*inputs)
    torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-5)


def test_grouped_query_attention_agrees_with_eager():
    model = BiasedAttention(causal, 8, enable_gqa=True)
    inputs = _inputs(8, key_heads=1)
    with torch.no_grad():
        want = model(*inputs)
        for executor in ("interpreter", "aten"):
            torch._dynamo.reset()
            torch.testing.assert_close(hopc.compile(model, executor=executor, fullgraph=True)(*inputs), want,
                                       rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("key_heads", [HEADS, 1], ids=["heads", "grouped"])
def test_query_key_value_and_bias_gradients_are_eager_maths(key_heads):
    """The autograd pass's gradients equal the oracle's (``check_gradients``), and the oracle,
    the reference interpreter under plain autograd, equals eager's math under plain autograd."""
    model = BiasedAttention(causal, 8, enable_gqa=key_heads != HEADS)
    inputs = _inputs(8, key_heads)
    check_gradients(model, inputs, eager=False)
    functional, _, values = differentiated(model, inputs)
    leaves = [v.detach().clone().requires_grad_(v.is_floating_point()) for v in values]
    (oracle,) = run_module(functional, leaves)
    math_leaves = [x.detach().clone().requires_grad_() for x in inputs]
    math = model.eager_math(*math_leaves)
    cotangent = torch.randn(math.shape, generator=torch.Generator().manual_seed(5))
    bias_index = next(i for i, v in enumerate(entry_values(model, inputs, functional)) if v is model.bias)
    ours = torch.autograd.grad(oracle, [*leaves[:3], leaves[bias_index]], cotangent)
    eager = torch.autograd.grad(math, [*math_leaves, model.bias], cotangent)
    for got, want in zip(ours, eager, strict=True):
        torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-5)


# --------------------------------------------------------------------------- refusals


def test_reading_the_logsumexp_is_refused_at_the_users_line():
    mask = create_block_mask(causal, None, None, 8, 8, device="cpu")

    def with_lse(q, k, v):
        output, lse = flex_attention(q, k, v, block_mask=mask, return_lse=True)
        return output, lse

    with pytest.raises(HopcError, match=r"test_flex_attention.py:\d+:\d+: .*logsumexp") as error:
        hopc.compile(with_lse, executor="interpreter", fullgraph=True)(*_inputs(8))
    assert "return_lse" in str(error.value)


def test_a_constant_made_in_the_mask_mod_is_refused():
    def constant_in_mask(b, h, q_idx, kv_idx):
        return (q_idx >= kv_idx) & torch.tensor([True, False])[h]

    mask = create_block_mask(constant_in_mask, None, None, 8, 8, device="cpu")

    def program(q, k, v):
        return flex_attention(q, k, v, block_mask=mask)

    with pytest.raises(HopcError, match="tensor constant made inside flex_attention's mask_mod"):
        hopc.compile(program, executor="interpreter", fullgraph=True)(*_inputs(8))


def test_a_constant_made_in_the_score_mod_becomes_a_buffer():
    mask = create_block_mask(causal, None, None, 8, 8, device="cpu")

    def scaled_per_head(score, b, h, q_idx, kv_idx):
        return score * torch.tensor([1.0, 2.0])[h]

    def program(q, k, v):
        return flex_attention(q, k, v, score_mod=scaled_per_head, block_mask=mask)

    inputs = _inputs(8)
    with torch.no_grad():
        torch.testing.assert_close(hopc.compile(program, executor="aten", fullgraph=True)(*inputs),
                                   program(*inputs), rtol=1e-5, atol=1e-5)


def test_key_and_value_lengths_that_differ_are_refused():
    """Eager raises; the guard that key and value share their length, installed in the frame
    at the first calls (Note [flex attention sizes]), sends this call to a recompile, not to
    the compiled code, and the recompile refuses it at the user's line."""
    def program(q, k, v, mask):
        return flex_attention(q, k, v, block_mask=mask, scale=0.5)

    compiled = hopc.compile(program, executor="aten", dynamic=True, fullgraph=True)
    masks = {length: create_block_mask(causal, None, None, length, length, device="cpu") for length in (8, 12)}
    for length, mask in masks.items():
        with torch.no_grad():
            torch.testing.assert_close(compiled(*_inputs(length), mask), program(*_inputs(length), mask),
                                       rtol=1e-5, atol=1e-5)
    query, key, value = _inputs(12)
    with pytest.raises(Exception):  # noqa: B017 (eager's own message)
        program(query, key, value[:, :, :10], masks[12])
    with pytest.raises(HopcError, match=r"test_flex_attention.py:\d+:\d+: error: unsupported: flex_attention whose "
                                        r"value has size 10 in dim 2 and whose key 12 \(eager's math needs them equal\)"):
        compiled(query, key, value[:, :, :10], masks[12])
