"""Programs for the frontend tests: every HOP kind, nesting, mutation, symbolic shapes, models.

Each ``Case`` builds a fresh program and several input sets; the tests capture
(or compile) it and compare with eager PyTorch on every input set. Input sets
of a case without ``dynamic_shapes`` share their shapes and differ in values
(so that both branches of a ``cond`` run); dynamic cases vary the sizes too.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import torch
import torch.utils.checkpoint as checkpoint_utils
from frontend_models import Mlp, TransformerBlock
from torch._higher_order_ops.map import map as map_hop
from torch._higher_order_ops.scan import scan
from torch._higher_order_ops.while_loop import while_loop
from torch._higher_order_ops.wrap import wrap
from torch.export import Dim


@dataclass
class Case:
    name: str
    make: Callable[[], Callable]
    inputs: list[tuple]
    dynamic_shapes: object = None
    ops: list[str] = field(default_factory=list)
    """Op names the captured IR must contain."""


def _seeded(seed: int, *shapes: tuple[int, ...]) -> tuple[torch.Tensor, ...]:
    generator = torch.Generator().manual_seed(seed)
    return tuple(torch.randn(*shape, generator=generator) for shape in shapes)


def _sets(*shapes: tuple[int, ...], count: int = 3) -> list[tuple]:
    return [_seeded(seed, *shapes) for seed in range(count)]


# --------------------------------------------------------------------------- plain programs


def elementwise():
    def program(x, y):
        z = (x.sin() + y).relu() * 2
        return z, x.sum(dim=0)
    return program


# --------------------------------------------------------------------------- HOPs


def cond_on_tensor():
    def program(x):
        return torch.cond(x.sum() > 0, lambda x: x.sin(), lambda x: x.cos() + 1, (x,))
    return program


def cond_on_size():
    def program(x):
        return torch.cond(x.shape[0] > 4, lambda x: x * 2, lambda x: x - 1, (x,))
    return program


class CondWithClosures(torch.nn.Module):
    """Branches read a parameter, a closed-over tensor and a size."""

    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.linear = torch.nn.Linear(4, 4)
        self.offset = torch.arange(4.0)

    def forward(self, x):
        offset = self.offset

        def then_branch(x):
            return self.linear(x) + offset

        def else_branch(x):
            return x * x.shape[0] - offset

        return torch.cond(x.mean() > 0, then_branch, else_branch, (x,))


def cond_with_unbacked_results():
    """The branches produce different data-dependent sizes (Note [cond result symbols])."""
    def program(x):
        return torch.cond(x.sum() > 0, lambda x: x[x > 0] * 2, lambda x: x[x < 0], (x,))
    return program


def nested_cond():
    def program(x, y):
        def inner(x, y):
            return torch.cond(y.sum() > 0, lambda x, y: x + y, lambda x, y: x - y, (x, y))
        return torch.cond(x.sum() > 0, inner, lambda x, y: x * y, (x, y))
    return program


def while_with_additional():
    def program(x, w):
        def cond_fn(i, acc):
            return i < 4

        def body_fn(i, acc):
            return i + 1, acc * 0.5 + w

        _, result = while_loop(cond_fn, body_fn, (torch.tensor(0), x))
        return result
    return program


def scan_cumulative():
    def program(init, xs):
        def combine(carry, x):
            carry = carry + x
            return carry, carry.clone() * 2
        return scan(combine, init, xs)
    return program


def map_rows():
    def program(xs, w):
        return map_hop(lambda row, w: (row @ w).tanh(), xs, w)
    return program


def wrap_body():
    def program(x, y):
        return wrap(lambda a, b: a.sin() * b, x, y) + 1
    return program


class Checkpointed(torch.nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.block = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.GELU(),
                                         torch.nn.Linear(8, 4))

    def forward(self, x):
        return checkpoint_utils.checkpoint(self.block, x, use_reentrant=False) + x


@torch.compiler.nested_compile_region
def _shared_region(a, b):
    return (a @ b).relu() + 1


def invoke_subgraph_twice():
    def program(x, y, w):
        return _shared_region(x, w) + _shared_region(y, w)
    return program


@torch.compiler.nested_compile_region
def _sized_region(a, n):
    return a.reshape(-1).sin() * n


def invoke_subgraph_sizes():
    """Two calls of one region at different dynamic sizes: one subgraph, bound per call."""
    def program(x, y):
        return _sized_region(x, y.size(0)) + 1, _sized_region(y, x.size(0))
    return program


def nested_hops():
    """A while loop whose body holds a cond; a checkpoint holding a wrap; a map holding a cond."""
    def program(x, w):
        def body_fn(i, acc):
            step = torch.cond(acc.sum() > 0, lambda a: a * 0.5, lambda a: a + 1.0, (acc,))
            return i + 1, step
        _, looped = while_loop(lambda i, acc: i < 3, body_fn, (torch.tensor(0), x))
        inner = checkpoint_utils.checkpoint(lambda a: wrap(lambda b: b.cos() @ w, a), looped,
                                            use_reentrant=False)
        mapped = map_hop(lambda row: torch.cond(row.sum() > 0, lambda r: r.exp(),
                                                lambda r: -r, (row,)), inner)
        return mapped
    return program


def constants_in_bodies():
    """Tensors made from literals inside bodies, one level deep and two (Note [hoisted constants])."""
    def program(x):
        def body(i, acc):
            step = torch.cond(acc.sum() > 0, lambda a: a * torch.tensor([0.5, 0.25, 2.0]),
                              lambda a: a + torch.tensor(1.0), (acc,))
            return i + 1, step
        _, looped = while_loop(lambda i, acc: i < 3, body, (torch.tensor(0), x))
        return wrap(lambda a: a - torch.tensor(3.0), looped)
    return program


# --------------------------------------------------------------------------- mutation


def mutate_inputs():
    def program(x, y):
        x.add_(1)
        y[0].mul_(2)  # through a view
        return x * y
    return program


def out_variant():
    def program(a, b, c):
        torch.add(a, b, out=c)
        return c.sum()
    return program


class MutateBuffers(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("calls", torch.zeros(()))
        self.norm = torch.nn.BatchNorm1d(4)

    def forward(self, x):
        self.calls.add_(1)
        # Two equal calls: each updates the running statistics (Note [undeclared writes]).
        return self.norm(x) * self.calls + self.norm(x)


def masked_assignment():
    def program(x):
        x[x < 0] = 0.0
        return x + 1
    return program


# --------------------------------------------------------------------------- symbolic shapes


def dynamic_reshapes():
    def program(x):
        batch = x.shape[0]
        flat = x.reshape(-1, 4)
        doubled = x.new_zeros(batch * 2) + batch
        return flat.view(batch, -1).sum(1), doubled, flat[: batch] // 2
    return program


def unbacked_sizes():
    def program(x):
        positive = x[x > 0]
        count = (x > 0).sum().item()
        torch._check(count >= 0)
        return positive * 2, torch.ones(count + 1), x.nonzero()
    return program


# --------------------------------------------------------------------------- the corpus

_BATCH = Dim("batch", min=2, max=64)

CASES = [
    Case("elementwise", elementwise, _sets((3, 4), (3, 4)), ops=["aten.sin"]),
    Case("mlp", Mlp, [_seeded(s, (n, 8)) for s, n in ((0, 3), (1, 5), (2, 9))],
         ({0: _BATCH},), ops=["aten.linear", "aten.relu"]),
    Case("transformer_block", TransformerBlock,
         [_seeded(s, (2, n, 16)) for s, n in ((0, 5), (1, 7), (2, 3))],
         ({1: Dim("length", min=2, max=128)},),
         ops=["aten.layer_norm", "aten.scaled_dot_product_attention"]),
    Case("cond_on_tensor", cond_on_tensor, _sets((5,), count=4), ops=["hop.cond"]),
    Case("cond_on_size", cond_on_size, [_seeded(0, (3, 2)), _seeded(1, (6, 2))],
         ({0: _BATCH},), ops=["hop.cond", "!hop.symbool"]),
    Case("cond_with_closures", CondWithClosures, _sets((3, 4), count=4),
         ops=["hop.cond", "hop.parameter", "hop.constant"]),
    Case("cond_with_unbacked_results", cond_with_unbacked_results, _sets((6,), count=4),
         ops=["hop.cond", "unbacked"]),
    Case("nested_cond", nested_cond, _sets((4,), (4,), count=6), ops=["hop.cond"]),
    Case("while_with_additional", while_with_additional, _sets((3,), (3,)), ops=["hop.while"]),
    Case("scan_cumulative", scan_cumulative, _sets((4,), (5, 4)), ops=["hop.scan"]),
    Case("map_rows", map_rows, _sets((5, 3), (3, 3)), ops=["hop.map"]),
    Case("wrap_body", wrap_body, _sets((4,), (4,)), ops=["hop.wrap"]),
    Case("checkpointed", Checkpointed, _sets((2, 4)), ops=["hop.checkpoint"]),
    Case("invoke_subgraph_twice", invoke_subgraph_twice, _sets((2, 3), (2, 3), (3, 3)),
         ops=["hop.invoke_subgraph", "hop.subgraph"]),
    Case("invoke_subgraph_sizes", invoke_subgraph_sizes,
         [_seeded(0, (4, 3), (5, 3)), _seeded(1, (6, 3), (2, 3)), _seeded(2, (3, 3), (7, 3))],
         ({0: Dim("a")}, {0: Dim("b")}), ops=["hop.invoke_subgraph", "hop.subgraph"]),
    Case("nested_hops", nested_hops, _sets((2, 3), (3, 3), count=4),
         ops=["hop.while", "hop.cond", "hop.checkpoint", "hop.wrap", "hop.map"]),
    Case("constants_in_bodies", constants_in_bodies, _sets((3,), count=4),
         ops=["hop.constant", "hop.while", "hop.wrap"]),
    Case("mutate_inputs", mutate_inputs, _sets((2, 3), (2, 3)), ops=["aten.add_", "aten.select"]),
    Case("out_variant", out_variant, _sets((4,), (4,), (4,)), ops=["aten.add.out"]),
    Case("mutate_buffers", MutateBuffers, _sets((5, 4)), ops=["hop.buffer", "aten.batch_norm"]),
    Case("masked_assignment", masked_assignment, _sets((6,)), ops=["aten.index_put_"]),
    Case("dynamic_reshapes", dynamic_reshapes,
         [_seeded(0, (4, 2, 2)), _seeded(1, (7, 2, 2)), _seeded(2, (2, 2, 2))],
         ({0: _BATCH},), ops=["hop.symbol", "#hop.expr"]),
    Case("unbacked_sizes", unbacked_sizes, _sets((7,)), ops=["hop.item", "unbacked"]),
]


NOT_TRAINED_BY_DYNAMO = {
    "out_variant": "eager refuses out= on tensors that require grad",
    "dynamic_reshapes": "eager has no derivative of floor_divide",
    "nested_hops": "Dynamo cannot lift an unbacked size out of the checkpoint with requires-grad inputs",
    "constants_in_bodies": "Dynamo cannot lift an unbacked size out of the wrap with requires-grad inputs",
}
"""Corpus programs whose training step fails before any executor runs (with every executor);
their differentiated modules are checked by tests/backend/test_executors_corpus.py's
``test_differentiated_module_matches_interpreter``."""
