"""Executable entries (Note [executable entries] in ``hopc.compile_cache``): a Dynamo graph's slot keeps
the compiled call, and a hit makes it again without the IR, running as the miss did; what has no
recipe keeps the module entry alone; an entry that does not load is a warned miss."""

from __future__ import annotations

import contextlib
import json
import subprocess
import sys

import pytest
import torch

import hopc
from hopc import compile_cache
from hopc.backend.runtime.executors import CPU_EXECUTORS
from hopc.backend.runtime.located_failures import InterpreterError
from hopc.compile_cache import CALL_SUFFIX, COUNTS, CompileCacheWarning

pytestmark = pytest.mark.usefixtures("fresh_dynamo")


class Branches(torch.nn.Module):
    """A linear layer, then ``torch.cond`` on the sum: sin or cos."""

    def __init__(self):
        super().__init__()
        self.linear = torch.nn.Linear(4, 4)

    def forward(self, x):
        y = self.linear(x)
        return torch.cond(y.sum() > 0, torch.sin, torch.cos, (y,)) * 2.0


class Steps(torch.nn.Module):
    """``while_loop``: three steps of ``h = tanh(h @ w)``."""

    def __init__(self):
        super().__init__()
        self.w = torch.nn.Parameter(torch.randn(4, 4) / 2)

    def forward(self, x):
        def body(i, h):
            return i + 1, torch.tanh(h @ self.w)

        from torch._higher_order_ops.while_loop import while_loop

        return while_loop(lambda i, h: i < 3, body, (torch.zeros((), dtype=torch.int64), x))[1]


class Normalized(torch.nn.Module):
    """A linear layer and BatchNorm in training mode (running statistics changed in place)."""

    def __init__(self):
        super().__init__()
        self.linear, self.norm = torch.nn.Linear(4, 4), torch.nn.BatchNorm1d(4)

    def forward(self, x):
        return self.norm(self.linear(x)).relu()


class Halves(torch.nn.Module):
    """A linear layer split in two halves (``split``'s list unpacks as its op's results), gated."""

    def __init__(self):
        super().__init__()
        self.linear = torch.nn.Linear(4, 4)

    def forward(self, x):
        a, b = self.linear(x).split(2, dim=1)
        return a * b.sigmoid()


class Rows(torch.nn.Module):
    """``scan`` over the rows: ``h = tanh(h + x_t @ w)``, every step stacked."""

    def __init__(self):
        super().__init__()
        self.w = torch.nn.Parameter(torch.randn(4, 4) / 2)

    def forward(self, xs):
        from torch._higher_order_ops.scan import scan

        def combine(carry, x):
            h = torch.tanh(carry + x @ self.w)
            return h, h.clone()

        return scan(combine, torch.zeros_like(xs[0]), xs)[1]


def reference_rows(model: Rows, xs: torch.Tensor) -> torch.Tensor:
    h, steps = torch.zeros_like(xs[0]), []
    for x in xs:
        h = torch.tanh(h + x @ model.w)
        steps.append(h)
    return torch.stack(steps)


def reference_branches(model: Branches, x: torch.Tensor) -> torch.Tensor:
    """``Branches`` with Python control flow (the reference for a HOP program)."""
    y = model.linear(x)
    return (torch.sin(y) if y.sum() > 0 else torch.cos(y)) * 2.0


def reference_steps(model: Steps, x: torch.Tensor) -> torch.Tensor:
    h = x
    for _ in range(3):
        h = torch.tanh(h @ model.w)
    return h


PROGRAMS = {"cond": (Branches, reference_branches), "while": (Steps, reference_steps),
            "batch_norm": (Normalized, None), "split": (Halves, None),
            "scan": (Rows, reference_rows)}
"""Each program's model, and its reference where it has HOPs (eager runs the others)."""


def _run(model: torch.nn.Module, x: torch.Tensor, grad: bool, compiled: bool, executor: str) -> list[torch.Tensor]:
    """The output (and in grad mode the gradients of its sum) of ``model`` on ``x``."""
    torch._dynamo.reset()
    model.zero_grad()
    run = hopc.compile(model, executor=executor) if compiled else model
    with contextlib.nullcontext() if grad else torch.no_grad():
        y = run(x)
    if not grad:
        return [y]
    y.sum().backward()
    return [y.detach(), *(parameter.grad for parameter in model.parameters())]


@pytest.mark.parametrize("executor", CPU_EXECUTORS)
@pytest.mark.parametrize("grad", [True, False], ids=["grad", "no_grad"])
@pytest.mark.parametrize("program", sorted(PROGRAMS))
def test_a_call_hit_runs_as_the_miss_and_the_reference(compile_cache_dir, monkeypatch, program, grad, executor):
    """Miss, then hit, in one process as two would: the hit makes the call from its executable
    entry where the executor's code has recipes (no parse: the module entry is not read), and
    both equal the reference, bit for bit with each other; BatchNorm's running statistics too."""
    model_class, reference = PROGRAMS[program]
    torch.manual_seed(0)
    model, x = model_class(), torch.randn(6, 4)
    state = {name: value.clone() for name, value in model.state_dict().items()}
    miss = _run(model, x, grad, True, executor)
    after_miss = {name: value.clone() for name, value in model.state_dict().items()}
    stored = sorted(compile_cache_dir.glob(f"*{CALL_SUFFIX}"))
    if executor in ("aten", "auto"):
        assert len(stored) == 1
    else:  # the interpreters run no generated code; Triton's launchers have no recipe
        assert not stored
    model.load_state_dict(state)
    hits = COUNTS.hits
    if stored:
        monkeypatch.setattr(compile_cache, "parse_cached", _not_called)
    hit = _run(model, x, grad, True, executor)
    assert COUNTS.hits == hits + 1
    for from_hit, from_miss in zip(hit, miss, strict=True):
        assert torch.equal(from_hit, from_miss)
    assert all(torch.equal(model.state_dict()[name], value) for name, value in after_miss.items())
    model.load_state_dict(state)
    expected = _run(model, x, grad, False, executor) if reference is None else _reference(model, x, grad, reference)
    for got, want in zip(hit, expected, strict=True):
        torch.testing.assert_close(got, want)


def _reference(model, x, grad, reference) -> list[torch.Tensor]:
    model.zero_grad()
    with contextlib.nullcontext() if grad else torch.no_grad():
        y = reference(model, x)
    if not grad:
        return [y]
    y.sum().backward()
    return [y.detach(), *(parameter.grad for parameter in model.parameters())]


def _not_called(*arguments):
    raise AssertionError("a hit on an executable entry reads no module entry")


def test_a_corrupt_call_entry_is_a_warned_miss_then_the_module_entry_hits(compile_cache_dir):
    torch.manual_seed(0)
    model, x = Branches(), torch.randn(6, 4)
    miss = _run(model, x, True, True, "auto")
    (entry,) = compile_cache_dir.glob(f"*{CALL_SUFFIX}")
    text = entry.read_text()
    entry.write_text(text.replace('"source"', '"sauce"', 1))
    hits = COUNTS.hits
    with pytest.warns(CompileCacheWarning, match="header or checksum does not match"):
        hit = _run(model, x, True, True, "auto")
    assert COUNTS.hits == hits + 1  # the module entry's
    for from_hit, from_miss in zip(hit, miss, strict=True):
        assert torch.equal(from_hit, from_miss)


def test_a_call_entry_that_makes_no_call_is_a_warned_miss(compile_cache_dir):
    """A whole entry (its checksum right) whose record this hopc cannot make a call of."""
    from hopc.compile_cache import CALL_HEADER, _entry_text

    torch.manual_seed(0)
    model, x = Branches(), torch.randn(6, 4)
    miss = _run(model, x, False, True, "auto")
    (entry,) = compile_cache_dir.glob(f"*{CALL_SUFFIX}")
    header, _, body = entry.read_text().partition("\n\n")
    record = json.loads(body)
    record["entry"]["namespace"] = {name: {"named": ["torch", "no_such_function"]}
                                    for name in record["entry"]["namespace"]}
    key = header.split("\n")[1].removeprefix("key ")
    entry.write_text(_entry_text(CALL_HEADER, key, [], json.dumps(record)))
    with pytest.warns(CompileCacheWarning, match="does not make a call"):
        hit = _run(model, x, False, True, "auto")
    assert torch.equal(hit[0], miss[0])


def test_a_loaded_call_fails_located_as_the_generated_one():
    """A stored call's failure names the op and the user's line as the call generated in this
    process does (``relocate_at_lines``'s table against the IR's ops)."""
    from hopc.backend.runtime.module_call import ModuleCall
    from hopc.backend.runtime.stored_call import call_from_record, call_record
    from hopc.driver import CompileOptions, Frame, compile_captured

    module = hopc.capture(lambda a, b: torch.mm(a, b).sin(), (torch.randn(2, 3), torch.randn(3, 4)))
    compiled = compile_captured(module, CompileOptions(), Frame("a test", check_grad=False))
    assert isinstance(compiled, ModuleCall)
    loaded = call_from_record(json.loads(json.dumps(call_record(compiled, "cpu"))), ())
    failures = []
    for call in (compiled, loaded):
        with pytest.raises(InterpreterError) as raised:
            call(torch.randn(2, 5), torch.randn(3, 4))
        failures.append((raised.value.message, raised.value.location))
    assert failures[0] == failures[1]
    assert "'aten.mm' op failed" in failures[0][0] and failures[0][1] is not None


SECOND_PROCESS = """
import json, sys, torch, torch._dynamo
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 2))
x = torch.randn(3, 4)
import hopc
y = hopc.compile(model)(x)
y.sum().backward()
from hopc.compile_cache import COUNTS
print(json.dumps({"counts": [COUNTS.hits, COUNTS.misses], "xdsl": "xdsl" in sys.modules,
                  "values": [y.tolist(), model[0].weight.grad.tolist()]}))
"""


def test_a_second_process_trains_from_the_call_entry_without_importing_xdsl(compile_cache_dir):
    """What a user's second process does: its first training step hits the executable entry and
    imports no xDSL at all, with the first process's values and gradients."""
    processes = [subprocess.run([sys.executable, "-c", SECOND_PROCESS], capture_output=True, text=True, check=True)
                 for _ in range(2)]
    first, second = (json.loads(process.stdout.splitlines()[-1]) for process in processes)
    assert first["counts"] == [0, 1] and first["xdsl"]
    assert second["counts"] == [1, 0] and not second["xdsl"]
    assert second["values"] == first["values"]


class Grouped(torch.nn.Module):
    """Rows in groups of four through a linear layer and back: sizes symbolic, the stages guard
    the divisions (Note [replayed guards]) and the output's strides are restored (symbolic)."""

    def __init__(self):
        super().__init__()
        self.linear = torch.nn.Linear(16, 16)

    def forward(self, x):
        return torch.tanh(self.linear(x.reshape(x.shape[0] // 4, -1))).reshape(x.shape) + x


def test_a_call_with_symbolic_sizes_guards_and_restrides_as_the_miss(compile_cache_dir):
    torch.manual_seed(0)
    model = Grouped()
    runs = []
    for rows in (8, 8, 12):  # a miss, a hit (a second process's), the hit's program at a new size
        if len(runs) < 2:
            torch._dynamo.reset()
            compiled = hopc.compile(model, dynamic=True)
        x = torch.randn(rows, 4, requires_grad=True)
        hits = COUNTS.hits
        y = compiled(x)
        y.sum().backward()
        runs.append((COUNTS.hits - hits, y, x))
        expected_x = x.detach().clone().requires_grad_()
        expected = model(expected_x)
        expected.sum().backward()
        torch.testing.assert_close(y, expected)
        assert y.stride() == expected.stride()
        torch.testing.assert_close(x.grad, expected_x.grad)
    assert [hit for hit, _, _ in runs] == [0, 1, 0]
    assert len(list(compile_cache_dir.glob(f"*{CALL_SUFFIX}"))) == 1  # 12 rows compiled nothing new
