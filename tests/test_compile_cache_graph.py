"""The compile cache's slot of a Dynamo graph (Note [graph keys] in ``hopc.frontend.dynamo_graph_key``):
a hit captures nothing and runs as the miss did; whatever the capture reads changes the key; what a
hit could not rebuild is never stored under it."""

from __future__ import annotations

import pytest
import torch
from cache_programs import cache_counts

import hopc
from hopc.frontend import aten_lowering, dynamo_backend, dynamo_graph_key
from hopc.frontend.dynamo_graph_key import graph_key_text
from hopc.frontend.module_import import CONSTANT, EntryArgument

pytestmark = pytest.mark.usefixtures("fresh_dynamo")


def _program(source: str, lines_above: int = 0, **globals_: object):
    """The function ``f`` that ``source`` defines, its lines ``lines_above`` lines down a file."""
    namespace = {"torch": torch, **globals_}
    exec(compile("\n" * lines_above + source, "graph_key_program.py", "exec"), namespace)
    return namespace["f"]


SCALE = "def f(x):\n    return torch.sin(x) * torch.tensor([1.0, 2.0, 3.0])\n"
SINE = "def f(x):\n    return torch.sin(x) * 2.0\n"


def _train(function, x: torch.Tensor) -> list[torch.Tensor]:
    torch._dynamo.reset()
    x = x.clone().requires_grad_()
    y = hopc.compile(function)(x)
    y.sum().backward()
    return [y.detach(), x.grad]


def test_a_hit_runs_without_the_capture_as_the_miss(compile_cache_dir, monkeypatch):
    function, x = _program(SINE), torch.randn(4, 3)
    hits, misses = cache_counts()
    miss = _train(function, x)
    assert cache_counts() == (hits, misses + 1)
    assert len(list(compile_cache_dir.glob("*.hopc"))) == 2  # the captured module's entry and the graph's

    def not_run(*arguments):
        raise AssertionError("a hit by the graph does not capture it")

    monkeypatch.setattr(aten_lowering, "lower_to_aten", not_run)  # imported by graph_call past the key
    hit = _train(function, x)
    assert cache_counts() == (hits + 1, misses + 1)
    for from_hit, from_miss in zip(hit, miss, strict=True):
        assert torch.equal(from_hit, from_miss)
    x = x.clone().requires_grad_()
    expected = torch.sin(x) * 2.0
    expected.sum().backward()
    torch.testing.assert_close(hit[0], expected.detach())
    torch.testing.assert_close(hit[1], x.grad)


def _graph_keys(monkeypatch, function, *inputs: torch.Tensor, dynamic: bool | None = None) -> list[str | None]:
    """The key of each graph hopc compiles for ``function`` on ``inputs`` (None for a keyless one)."""
    keys: list[str | None] = []

    def recording(*arguments):
        slot = dynamo_graph_key.graph_cache_slot(*arguments)
        keys.append(None if slot is None else slot.key)
        return None

    monkeypatch.setattr(dynamo_backend, "graph_cache_slot", recording)
    torch._dynamo.reset()
    with torch.no_grad():
        hopc.compile(function, executor="interpreter", dynamic=dynamic)(*inputs)
    return keys


def test_what_the_capture_reads_is_in_the_key(compile_cache_dir, monkeypatch):
    x = torch.randn(4, 3)
    (key,) = _graph_keys(monkeypatch, _program(SCALE), x)
    assert _graph_keys(monkeypatch, _program(SCALE), x.clone()) == [key]
    changed = [
        _graph_keys(monkeypatch, _program(SCALE.replace("3.0", "4.0")), x),  # a constant's value
        _graph_keys(monkeypatch, _program(SCALE), x.double()),  # a dtype
        _graph_keys(monkeypatch, _program(SCALE), x.t().contiguous().t()),  # strides
        _graph_keys(monkeypatch, _program(SCALE, lines_above=1), x),  # a line number
        _graph_keys(monkeypatch, _program(SCALE.replace("sin", "cos")), x),  # an op
    ]
    with torch.enable_grad():  # grad mode, and an input that requires grad
        changed.append(_graph_keys(monkeypatch, _program(SCALE), x.clone().requires_grad_()))
    assert all(len(keys) == 1 for keys in changed)
    assert len({key, *(keys[0] for keys in changed)}) == len(changed) + 1


def test_the_frame_facts_are_in_the_key(compile_cache_dir, monkeypatch):
    """A dynamic size is one symbol in the graph whatever its value; the frame's facts (its size
    hint, a guard) differ, and so does the key (Note [frame facts in the key])."""
    function = _program("def f(x):\n    return x.sin() * x.shape[0]\n")
    keys = [_graph_keys(monkeypatch, function, torch.randn(size, 3), dynamic=True)[0] for size in (4, 4, 5)]
    assert keys[0] == keys[1] != keys[2]
    source = "def f(x):\n    return x.sin() * x.shape[0] if not GUARDED or x.shape[0] > 2 else x\n"
    unguarded, guarded = (_graph_keys(monkeypatch, _program(source, GUARDED=flag), torch.randn(4, 3), dynamic=True)[0]
                          for flag in (False, True))
    assert unguarded != guarded  # the one graph, the same lines; Dynamo guarded ``s0 > 2`` in one frame


def test_a_function_the_key_cannot_see_into_is_keyless(compile_cache_dir, monkeypatch):
    @torch._dynamo.allow_in_graph
    def users_own(x):
        return x * 2

    assert _graph_keys(monkeypatch, lambda x: users_own(x).sin(), torch.randn(3)) == [None]


def test_a_tensor_attribute_and_a_constant_argument_are_keyed_by_their_values():
    class Scaled(torch.nn.Module):
        def __init__(self, scale: torch.Tensor):
            super().__init__()
            self.scale = scale

        def forward(self, x):
            return x * self.scale

    def text(scale: list[float]) -> str:
        return graph_key_text(torch.fx.symbolic_trace(Scaled(torch.tensor(scale))), [])

    assert text([1.0, 2.0]) == text([1.0, 2.0]) != text([1.0, 3.0])

    def constant(value: list[float]) -> str:
        tensor = torch.tensor(value)
        return graph_key_text(torch.fx.symbolic_trace(lambda: 0), [EntryArgument(CONSTANT, "c", tensor, tensor)])

    assert constant([1.0]) == constant([1.0]) != constant([2.0])


@pytest.mark.parametrize("returns_a_view", [True, False])
def test_what_a_hit_could_not_rebuild_is_stored_only_by_the_captured_module(compile_cache_dir, returns_a_view):
    """A hit by the graph could not rebuild the output aliases the capture finds, nor the tensor
    constants its retrace makes: the frame compiles through the captured module's entry, and its
    output is still the input's view, or the constant's product."""
    source = "def f(x):\n    x.mul_(2)\n    return x.view(-1)\n" if returns_a_view else SCALE
    function = _program(source)
    hits, misses = cache_counts()
    for _ in range(2):
        torch._dynamo.reset()
        x = torch.ones(2, 3)
        with torch.no_grad():
            y = hopc.compile(function)(x)
        if returns_a_view:
            assert y._base is x and torch.equal(x, torch.full((2, 3), 2.0))
        else:
            torch.testing.assert_close(y, torch.sin(x) * torch.tensor([1.0, 2.0, 3.0]))
    assert cache_counts() == (hits + 1, misses + 1)
    assert len(list(compile_cache_dir.glob("*.hopc"))) == 1
