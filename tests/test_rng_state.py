"""hop.get_rng_state / hop.set_rng_state replay random ops (Note [replaying random ops])."""

from __future__ import annotations

import pytest
import torch
from xdsl.dialects.builtin import ModuleOp
from xdsl.traits import MemoryEffectKind, get_effects

from hopc.backend.runtime.executors import CPU_EXECUTORS, executor_named
from hopc.dialects.context import make_context
from hopc.dialects.hop import GetRngStateOp, RngStateType, SetRngStateOp
from hopc.dialects.hop_module_structure import entry_function
from hopc.dialects.parse import parse_module
from hopc.passes import pass_class

T = "!hop.tensor<[64], f32>"

REPLAY = f"""
func.func @replay(%p: {T}) -> ({T}, {T}, {T}, {T}) {{
  %state = hop.get_rng_state : !hop.rng_state
  %u = aten.rand() {{size = [64]}} : () -> {T}
  %mask = aten.bernoulli.p(%p) {{p = 0.5 : f64}} : ({T}) -> {T}
  hop.set_rng_state %state
  %u_again = aten.rand() {{size = [64]}} : () -> {T}
  %mask_again = aten.bernoulli.p(%p) {{p = 0.5 : f64}} : ({T}) -> {T}
  func.return %u, %mask, %u_again, %mask_again : {T}, {T}, {T}, {T}
}}
"""

RECOMPUTE = f"""
func.func @recompute(%state: !hop.rng_state, %x: {T}) -> {T} {{
  %r = hop.checkpoint(%state, %x) : (!hop.rng_state, {T}) -> {T} {{
  ^bb0(%s: !hop.rng_state, %y: {T}):
    hop.set_rng_state %s
    %dropped = aten.dropout(%y) {{p = 0.5 : f64, train = true}} : ({T}) -> {T}
    hop.yield %dropped : {T}
  }}
  func.return %r : {T}
}}
"""


def _run(executor: str, module: ModuleOp, args: list[object]) -> list[object]:
    return executor_named(executor).prepare(module, entry_function(module))(args)


def _ops(module: ModuleOp) -> list[str]:
    return [op.name for op in module.walk() if op.name.startswith(("aten.", "hop."))]


@pytest.mark.parametrize("executor", sorted(CPU_EXECUTORS))
def test_draws_after_set_repeat_the_draws_after_get(executor):
    torch.manual_seed(0)
    u, mask, u_again, mask_again = _run(executor, parse_module(REPLAY), [torch.full([64], 0.5)])
    assert torch.equal(u, u_again) and torch.equal(mask, mask_again)
    assert not torch.equal(u, torch.rand(64))  # the generator moved on after the second draws


@pytest.mark.parametrize("executor", sorted(CPU_EXECUTORS))
def test_draws_are_eagers(executor):
    torch.manual_seed(1)
    p = torch.full([64], 0.5)
    eager = [torch.rand(64), torch.bernoulli(p, 0.5)]
    torch.manual_seed(1)
    assert all(map(torch.equal, _run(executor, parse_module(REPLAY), [p])[:2], eager))


def test_without_the_set_the_draws_differ():
    module = parse_module(REPLAY)
    for op in [op for op in module.walk() if isinstance(op, SetRngStateOp)]:
        op.detach()
        op.erase()
    u, _, u_again, _ = _run("interpreter", module, [torch.full([64], 0.5)])
    assert not torch.equal(u, u_again)


@pytest.mark.parametrize("executor", sorted(CPU_EXECUTORS))
def test_a_recomputed_region_drops_what_the_forward_dropped(executor):
    x = torch.ones(64)
    state = torch.get_rng_state()
    forward = torch.dropout(x, 0.5, True)
    recomputed, = _run(executor, parse_module(RECOMPUTE), [state, x])
    assert torch.equal(recomputed, forward)


GET_STATE = """
func.func @get() -> !hop.rng_state {
  %s = hop.get_rng_state : !hop.rng_state
  func.return %s : !hop.rng_state
}
"""

SET_STATE = """
func.func @set(%s: !hop.rng_state) {
  hop.set_rng_state %s
  func.return
}
"""

CPU_STATE_BYTES = 5056
"""The Mersenne Twister state of ``torch.get_rng_state()``."""


@pytest.fixture
def two_fake_cuda_devices(monkeypatch) -> list[torch.Tensor]:
    """CUDA initialized with two devices whose generator states are fakes; the states that
    ``torch.cuda.set_rng_state_all`` is given are appended to the returned list."""
    device_states = [torch.arange(16, dtype=torch.uint8), torch.arange(16, 32, dtype=torch.uint8)]
    restored: list[torch.Tensor] = []
    monkeypatch.setattr(torch.cuda, "is_initialized", lambda: True)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: len(device_states))
    monkeypatch.setattr(torch.cuda, "get_rng_state_all", lambda: [s.clone() for s in device_states])
    monkeypatch.setattr(torch.cuda, "set_rng_state_all", restored.extend)
    return restored


@pytest.mark.parametrize("executor", sorted(CPU_EXECUTORS))
def test_a_state_without_cuda_is_the_cpu_generators(executor, monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_initialized", lambda: False)
    state, = _run(executor, parse_module(GET_STATE), [])
    assert state.dtype == torch.uint8 and state.shape == (CPU_STATE_BYTES,)
    assert torch.equal(state, torch.get_rng_state())
    torch.rand(1)
    assert not torch.equal(state, torch.get_rng_state())  # a copy, not the live state


@pytest.mark.parametrize("executor", sorted(CPU_EXECUTORS))
def test_a_state_with_cuda_is_the_cpu_generators_then_each_devices(executor, two_fake_cuda_devices):
    state, = _run(executor, parse_module(GET_STATE), [])
    devices = torch.cuda.get_rng_state_all()
    assert torch.equal(state, torch.cat([torch.get_rng_state(), *devices]))
    torch.rand(1)
    _run(executor, parse_module(SET_STATE), [state])
    assert torch.equal(torch.get_rng_state(), state[:CPU_STATE_BYTES])
    assert len(two_fake_cuda_devices) == 2 and all(map(torch.equal, two_fake_cuda_devices, devices))


@pytest.mark.parametrize("executor", sorted(CPU_EXECUTORS))
def test_a_cpu_state_set_with_cuda_leaves_the_devices(executor, two_fake_cuda_devices):
    state = torch.get_rng_state()
    torch.rand(1)
    _run(executor, parse_module(SET_STATE), [state])
    assert torch.equal(torch.get_rng_state(), state) and two_fake_cuda_devices == []


@pytest.mark.parametrize("executor", sorted(CPU_EXECUTORS))
def test_a_state_set_is_the_state_read_here(executor):
    """With or without CUDA in this process: what the generators are after a set is what was read."""
    state, = _run(executor, parse_module(GET_STATE), [])
    torch.rand(1)
    if torch.cuda.is_initialized():
        torch.rand(1, device="cuda")
    _run(executor, parse_module(SET_STATE), [state])
    state_again, = _run(executor, parse_module(GET_STATE), [])
    assert torch.equal(state_again, state)


@pytest.mark.parametrize("passes", [["cse"], ["dce"], ["canonicalize", "cse", "dce"]])
def test_passes_keep_both_draws_and_the_set(passes):
    module = parse_module(REPLAY)
    for name in passes:
        pass_class(name)().apply(make_context(), module)
    assert _ops(module) == _ops(parse_module(REPLAY))
    torch.manual_seed(0)
    u, mask, u_again, mask_again = _run("planned", module, [torch.full([64], 0.5)])
    assert torch.equal(u, u_again) and torch.equal(mask, mask_again)


def test_cse_keeps_reads_apart_across_a_draw():
    module = parse_module(f"""
func.func @f() -> (!hop.rng_state, !hop.rng_state, {T}) {{
  %before = hop.get_rng_state : !hop.rng_state
  %u = aten.rand() {{size = [64]}} : () -> {T}
  %after = hop.get_rng_state : !hop.rng_state
  func.return %before, %after, %u : !hop.rng_state, !hop.rng_state, {T}
}}""")
    pass_class("cse")().apply(make_context(), module)
    assert _ops(module).count("hop.get_rng_state") == 2


def test_ops_are_built_typed():
    get = GetRngStateOp()
    set_ = SetRngStateOp(get.state)
    get.verify()
    set_.verify()
    assert get.state.type == RngStateType() and set_.state is get.state


def test_get_reads_and_set_writes():
    get = GetRngStateOp()
    assert {e.kind for e in get_effects(get)} == {MemoryEffectKind.READ}
    assert {e.kind for e in get_effects(SetRngStateOp(get.state))} == {MemoryEffectKind.WRITE}
