"""Gradients through ``hop.while`` (Note [while backward] in ``hopc.passes.autograd.hops.while_loop``).

Each program is captured and differentiated once, then run at several trip
counts (the count is data: an input tensor). Gradients are compared with the
program written as a Python loop run eagerly, with PyTorch's own
``while_loop`` autograd, and with the interpreter oracle, in float64 with
tight tolerances.
"""

from __future__ import annotations

import math

import pytest
import torch
from autograd_harness import entry_values, mark_requires_grad
from torch._higher_order_ops.while_loop import while_loop
from torch.export import Dim
from torch.utils._python_dispatch import TorchDispatchMode
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, i64

import hopc
from hopc.backend.interpreter import run_module
from hopc.dialects import hop
from hopc.dialects.hop_module_structure import entry_signature
from hopc.dialects.verify import verify_module
from hopc.ir.diagnostics import HopcError
from hopc.passes.autograd import differentiate
from hopc.passes.autograd.hops.while_loop import CHECKPOINT_EVERY
from hopc.passes.pipeline import run_pipeline

TIGHT = {"rtol": 1e-12, "atol": 1e-12}


class Rnn(torch.nn.Module):
    """``h = tanh(h @ w + b)`` while ``i < n``: an integer counter and a float carried value."""

    def __init__(self):
        super().__init__()
        self.w = torch.nn.Parameter(torch.randn(4, 4, dtype=torch.float64) * 0.5)
        self.b = torch.nn.Parameter(torch.randn(4, dtype=torch.float64))

    def forward(self, h, n):
        i, h = while_loop(lambda i, h: i < n, lambda i, h: (i + 1, torch.tanh(h @ self.w + self.b)),
                          (torch.zeros((), dtype=torch.int64), h))
        return h, i

    def unrolled(self, parameters, h, n):
        for _ in range(int(n)):
            h = torch.tanh(h @ parameters["w"] + parameters["b"])
        return h, n


class Clocked(torch.nn.Module):
    """Three carried values: a float clock ``t`` that no parameter reaches (not differentiated),
    an integer counter, and ``h``, which reads the clock."""

    def __init__(self):
        super().__init__()
        self.w = torch.nn.Parameter(torch.randn(4, 4, dtype=torch.float64) * 0.5)

    def forward(self, h, n):
        def body(t, i, h):
            return t + 0.25, i + 1, torch.sin(h @ self.w) * torch.cos(t)

        t, i, h = while_loop(lambda t, i, h: i < n, body,
                             (torch.zeros((), dtype=torch.float64), torch.zeros((), dtype=torch.int64), h))
        return h * 2, t

    def unrolled(self, parameters, h, n):
        t = torch.zeros((), dtype=torch.float64)
        for _ in range(int(n)):
            t, h = t + 0.25, torch.sin(h @ parameters["w"]) * torch.cos(t)
        return h * 2, t


class Coupled(torch.nn.Module):
    """Two differentiated carried values that feed each other; only ``x`` is an output, so ``y``'s
    cotangent starts at zero. ``s`` is a loop-invariant parameter."""

    def __init__(self):
        super().__init__()
        self.s = torch.nn.Parameter(torch.tensor([0.9, -0.7, 0.4], dtype=torch.float64))

    def forward(self, x, y, n):
        _, x, y = while_loop(lambda i, x, y: i < n, lambda i, x, y: (i + 1, y.clone(), x * self.s + torch.sin(y)),
                             (torch.zeros((), dtype=torch.int64), x, y))
        return (x,)

    def unrolled(self, parameters, x, y, n):
        for _ in range(int(n)):
            x, y = y, x * parameters["s"] + torch.sin(y)
        return (x,)


# --------------------------------------------------------------------------- running


def differentiated(program, args, *, dynamic_shapes=None, every: int | None = None
                   ) -> tuple[ModuleOp, ModuleOp]:
    """(functional module, differentiated module); ``every`` sets ``hop.checkpoint_every``."""
    module = run_pipeline(hopc.capture(program, tuple(args), dynamic_shapes=dynamic_shapes))
    values = entry_values(program, args, module)
    mark_requires_grad(module, [i for i, v in enumerate(values) if v.is_floating_point()])
    if every is not None:
        for op in module.walk():
            if isinstance(op, hop.WhileOp):
                op.attributes[CHECKPOINT_EVERY] = IntegerAttr(every, i64)
    functional = module.clone()
    differentiate(module)
    verify_module(module)
    return functional, module


def ours(module: ModuleOp, values, cotangents) -> tuple[dict[int, torch.Tensor], list[torch.Tensor]]:
    """(gradients by argument, saved values): the forward and backward entries on the interpreter."""
    forward, backward = entry_signature(module, "forward"), entry_signature(module, "backward")
    results = run_module(module, [v.clone() for v in values], function="forward")
    saved = {k: results[i] for k, i in forward.saved_results.items()}
    arguments = [saved[role.target] if role.kind == "hop.saved"
                 else cotangents[forward.user_outputs.index(role.target)] for role in backward.arguments]
    gradients = run_module(module, arguments, function="backward")
    return {backward.gradient_results[i]: g for i, g in enumerate(gradients)}, list(saved.values())


def reference(outputs, leaves, cotangents) -> list[torch.Tensor | None]:
    used = [(o, c) for o, c in zip(outputs, cotangents) if c is not None and o.requires_grad]
    return list(torch.autograd.grad([o for o, _ in used], leaves, [c for _, c in used], allow_unused=True))


def check(program, functional: ModuleOp, module: ModuleOp, args, *, eager_while: bool = True) -> None:
    """Our gradients on ``args`` against the unrolled program, the oracle and (``eager_while``)
    PyTorch's ``while_loop`` autograd."""
    values = [v.detach().clone() for v in entry_values(program, args, functional)]
    forward = entry_signature(module, "forward")
    differentiable = sorted(forward.requires_grad)
    generator = torch.Generator().manual_seed(0)
    unrolled_outputs = program.unrolled(dict(program.named_parameters()), *args)
    cotangents = [torch.randn(o.shape, dtype=o.dtype, generator=generator) if o.is_floating_point()
                  else None for o in unrolled_outputs]
    got, _ = ours(module, values, cotangents)
    leaves = [v.clone().requires_grad_(i in differentiable) for i, v in enumerate(values)]
    differentiated_leaves = [leaves[i] for i in differentiable]
    signature = entry_signature(functional)
    by_name = {role.target: leaves[i] for i, role in enumerate(signature.arguments) if role.kind != "user"}
    inputs = tuple(leaves[i] for i in signature.user_inputs)
    references = {
        "unrolled": lambda: program.unrolled(by_name, *inputs),
        "oracle": lambda: [run_module(functional, leaves)[i] for i in forward.user_outputs],
    }
    if eager_while:
        references["eager while_loop"] = lambda: torch.func.functional_call(program, by_name, inputs)
    for name, run in references.items():
        expected = reference(list(run()), differentiated_leaves, cotangents)
        for index, want in zip(differentiable, expected, strict=True):
            if want is None:
                assert index not in got or torch.count_nonzero(got[index]) == 0, f"{name}: {index}"
                continue
            torch.testing.assert_close(got[index], want, **TIGHT,
                                       msg=lambda m, i=index, n=name: f"{n}, argument {i}: {m}")


# --------------------------------------------------------------------------- tests


@pytest.fixture(scope="module")
def rnn():
    torch.manual_seed(0)
    program = Rnn()
    h = torch.randn(3, 4, dtype=torch.float64)
    return program, h, differentiated(program, [h, torch.tensor(5)])


@pytest.mark.parametrize("trips", [0, 1, 7, 300])
def test_rnn_trip_counts(rnn, trips):
    # PyTorch's while_loop backward runs the body's backward once for a loop that ran no
    # iteration (it assumes loop_count >= 1): at 0 trips only the unrolled loop and the oracle agree.
    program, h, (functional, module) = rnn
    check(program, functional, module, [h, torch.tensor(trips)], eager_while=trips > 0)


@pytest.mark.parametrize("every", [1, 3, 50])
def test_checkpoint_every(every):
    torch.manual_seed(1)
    program, h = Rnn(), torch.randn(2, 4, dtype=torch.float64)
    functional, module = differentiated(program, [h, torch.tensor(5)], every=every)
    for trips in (0, 1, 7, 10):
        check(program, functional, module, [h, torch.tensor(trips)], eager_while=trips > 0)


def test_dynamic_batch():
    torch.manual_seed(2)
    program = Rnn()
    functional, module = differentiated(program, [torch.randn(3, 4, dtype=torch.float64), torch.tensor(5)],
                                        dynamic_shapes=({0: Dim("batch", min=2)}, None))
    for batch, trips in ((5, 9), (2, 1), (7, 0)):
        check(program, functional, module, [torch.randn(batch, 4, dtype=torch.float64), torch.tensor(trips)],
              eager_while=trips > 0)


def test_float_carried_value_not_differentiated():
    torch.manual_seed(3)
    program = Clocked()
    h = torch.randn(3, 4, dtype=torch.float64)
    functional, module = differentiated(program, [h, torch.tensor(4)])
    for trips in (0, 6, 23):
        check(program, functional, module, [h, torch.tensor(trips)], eager_while=trips > 0)


def test_carried_values_feeding_each_other():
    torch.manual_seed(4)
    program = Coupled()
    x, y = torch.randn(3, dtype=torch.float64), torch.randn(3, dtype=torch.float64)
    functional, module = differentiated(program, [x, y, torch.tensor(4)])
    for trips in (0, 1, 2, 11):
        check(program, functional, module, [x, y, torch.tensor(trips)], eager_while=trips > 0)


class _Rows(TorchDispatchMode):
    """Records the rows (dim 0) of every ``aten.repeat`` and ``aten.new_zeros`` result: the
    backward's buffers (the snapshots, then each segment's residuals)."""

    def __init__(self):
        super().__init__()
        self.rows: list[int] = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        result = func(*args, **(kwargs or {}))
        if func in (torch.ops.aten.repeat.default, torch.ops.aten.new_zeros.default):
            self.rows.append(result.size(0))
        return result


@pytest.mark.parametrize("trips", [100, 900])
def test_memory_is_sqrt_of_trip_count(rnn, trips):
    # The forward saves the initial carried values, w, b, n and the count, whatever the trip
    # count; the backward's buffers hold ceil(T/k) + k = 2 sqrt(T) rows of each carried value.
    program, h, (functional, module) = rnn
    values = [v.detach().clone() for v in entry_values(program, [h, torch.tensor(trips)], functional)]
    cotangents = [torch.ones(3, 4, dtype=torch.float64), None]
    with _Rows() as recorded:
        _, saved = ours(module, values, cotangents)
    rows = recorded.rows
    saved_bytes = sum(v.numel() * v.element_size() for v in saved)
    assert saved_bytes == 3 * 4 * 8 + 8 + 4 * 4 * 8 + 4 * 8 + 8
    root = math.isqrt(trips)
    # two carried values (i, h): sweep 1's [T/k] snapshots, then per segment one [k + 1] buffer
    # of h (Note [while backward]): the step's residuals are h entering it (for w's gradient) and
    # leaving it (tanh's output), rows i and i + 1; nothing else is stacked
    assert rows[:2] == [root, root]
    assert set(rows[2:]) == {root + 1} and len(rows[2:]) == root


class Nested(torch.nn.Module):
    """A loop in a loop's body: the inner loop's backward is built inside the outer body's joint."""

    def __init__(self):
        super().__init__()
        self.w = torch.nn.Parameter(torch.randn(3, 3, dtype=torch.float64) * 0.5)

    def forward(self, h, n, m):
        def outer(i, h):
            _, g = while_loop(lambda j, g: j < m, lambda j, g: (j + 1, torch.tanh(g @ self.w)),
                              (torch.zeros((), dtype=torch.int64), h))
            return i + 1, g * 0.9 + h.sin()

        return (while_loop(lambda i, h: i < n, outer, (torch.zeros((), dtype=torch.int64), h))[1],)

    def unrolled(self, parameters, h, n, m):
        for _ in range(int(n)):
            g = h
            for _ in range(int(m)):
                g = torch.tanh(g @ parameters["w"])
            h = g * 0.9 + h.sin()
        return (h,)


def test_nested_loops():
    torch.manual_seed(5)
    program, h = Nested(), torch.randn(2, 3, dtype=torch.float64)
    functional, module = differentiated(program, [h, torch.tensor(2), torch.tensor(3)])
    for outer, inner in ((0, 3), (2, 0), (3, 4)):
        check(program, functional, module, [h, torch.tensor(outer), torch.tensor(inner)], eager_while=False)


def test_random_body_is_an_error():
    # The backward reruns the body: a dropout mask would differ from the forward's.
    class Dropped(torch.nn.Module):
        def forward(self, h, n):
            return while_loop(lambda i, h: i < n,
                              lambda i, h: (i + 1, torch.nn.functional.dropout(h.sin(), 0.5, training=True)),
                              (torch.zeros((), dtype=torch.int64), h))[1]

    with pytest.raises(HopcError, match="draws random numbers"):
        differentiated(Dropped(), [torch.randn(3), torch.tensor(2)])


def test_checkpoint_every_must_be_positive():
    with pytest.raises(HopcError, match="'hop.checkpoint_every' must be an integer >= 1"):
        differentiated(Rnn(), [torch.randn(2, 4, dtype=torch.float64), torch.tensor(2)], every=0)


class _Counted(TorchDispatchMode):
    """Counts the calls of one ATen op."""

    def __init__(self, op):
        super().__init__()
        self.op, self.calls = op, 0

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.calls += func is self.op
        return func(*args, **(kwargs or {}))


def test_three_body_forwards_per_iteration(rnn):
    # Note [while backward]: the forward, sweep 1 (up to the last snapshot) and the segment's
    # recompute run the body's tanh; its backward reads the stacked tanh output instead.
    program, h, (functional, module) = rnn
    trips = 16
    values = [v.detach().clone() for v in entry_values(program, [h, torch.tensor(trips)], functional)]
    with _Counted(torch.ops.aten.tanh.default) as counted:
        ours(module, values, [torch.ones(3, 4, dtype=torch.float64), None])
    assert counted.calls == trips + (trips - 4) + trips  # k = 4: sweep 1 stops at the last snapshot


class Sparse(torch.nn.Module):
    """A body whose residual has a size of its own (the count of positive entries): each
    iteration's may differ, so the body's joint is used instead of stacked residuals."""

    def __init__(self):
        super().__init__()
        self.w = torch.nn.Parameter(torch.randn(4, dtype=torch.float64))

    def forward(self, h, n):
        def body(i, h):
            positive = h[h > 0]
            return i + 1, (h * self.w).sin() + (positive * positive).sum()

        return (while_loop(lambda i, h: i < n, body, (torch.zeros((), dtype=torch.int64), h))[1],)

    def unrolled(self, parameters, h, n):
        for _ in range(int(n)):
            positive = h[h > 0]
            h = (h * parameters["w"]).sin() + (positive * positive).sum()
        return (h,)


def test_body_with_a_size_of_its_own_uses_its_joint():
    torch.manual_seed(5)
    program = Sparse()
    h = torch.randn(4, dtype=torch.float64)
    functional, module = differentiated(program, [h, torch.tensor(3)])
    names = {op.sym_name.data for op in module.ops if isinstance(op, hop.SubgraphOp)}
    assert any(name.endswith("_body_joint") for name in names)
    assert not any(name.endswith("_body_backward") for name in names)
    for trips in (0, 1, 5):
        check(program, functional, module, [h, torch.tensor(trips)], eager_while=False)
