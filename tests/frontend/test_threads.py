"""Compiled programs called from several threads at once (Note [concurrent calls] in
``hopc.backend.runtime.module_call``): each call's values are its own, and calls that
change a buffer give the results of some serial order of the calls, as eager does."""

from __future__ import annotations

import pathlib
import sys
import threading
from collections.abc import Callable

import pytest
import torch
from torch.fx.experimental.proxy_tensor import make_fx

import hopc
from hopc.frontend.compile_session import TORCH_HAS_COMPILE_SESSIONS, compile_session
from hopc.passes.autograd import derivatives

EXECUTORS = ["auto", "aten", "planned", "interpreter", "triton"]
THREADS = 2


@pytest.fixture(autouse=True)
def fresh_dynamo_and_frequent_switches():
    """Dynamo afresh; threads switched every microsecond, so that an interleaving a call is not
    safe against happens within a few hundred calls."""
    torch._dynamo.reset()
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    yield
    sys.setswitchinterval(interval)
    torch._dynamo.reset()


def _in_threads(work: Callable[[int], None]) -> None:
    """Runs ``work(thread)`` in ``THREADS`` threads started together; re-raises the first failure."""
    failures: list[BaseException] = []
    start = threading.Barrier(THREADS)

    def run(thread: int) -> None:
        try:
            start.wait()
            work(thread)
        except BaseException as failure:  # re-raised in the test's thread
            failures.append(failure)

    threads = [threading.Thread(target=run, args=(thread,)) for thread in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if failures:
        raise failures[0]


class Counter(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("count", torch.zeros(()))

    def forward(self, x):
        self.count.add_(1)
        return x + self.count


@pytest.mark.parametrize("grad", [False, True], ids=["no_grad", "grad"])
@pytest.mark.parametrize("executor", EXECUTORS)
def test_buffer_updates_from_two_threads_are_all_kept(executor, grad):
    """Functionalized, ``count.add_(1)`` reads ``count`` and copies ``count + 1`` back at the end
    of the call: unserialized, two threads lost about a fifth of 4,000 updates."""
    calls = 300 if executor in ("interpreter", "triton") else 1000
    counter = Counter()
    compiled = hopc.compile(counter, executor=executor)
    x = torch.ones(4, requires_grad=grad)
    with torch.set_grad_enabled(grad):
        compiled(x)  # compiles before the threads start
    counter.count.zero_()

    def work(thread: int) -> None:
        with torch.set_grad_enabled(grad):
            for _ in range(calls):
                compiled(x)

    _in_threads(work)
    assert counter.count.item() == THREADS * calls


class Chain(torch.nn.Module):
    """Pointwise ops between matmuls: launches writing planned buffers, some reused in place."""

    def __init__(self):
        super().__init__()
        self.first = torch.nn.Parameter(torch.randn(16, 16))
        self.second = torch.nn.Parameter(torch.randn(16, 16))

    def forward(self, x):
        h = torch.relu(x @ self.first) * 2 + 1
        h = torch.sigmoid(h @ self.second) - x
        return (h * h).sum(-1)


@pytest.mark.parametrize("executor", EXECUTORS)
def test_each_thread_gets_its_own_result(executor):
    """Grad mode is per thread, so the threads call in grad mode and recompile, one while the
    other calls (Note [compile session across threads] in ``hopc.frontend.compile_session``)."""
    torch.manual_seed(0)
    chain = Chain()
    compiled = hopc.compile(chain, executor=executor)
    inputs = [torch.randn(8, 16) * (thread + 1) for thread in range(THREADS)]
    with torch.no_grad():
        expected = [chain(x) for x in inputs]
        compiled(inputs[0])
        wrong: list[int] = []

        def work(thread: int) -> None:
            for _ in range(30):
                if not torch.allclose(compiled(inputs[thread]), expected[thread], rtol=1e-4, atol=1e-5):
                    wrong.append(thread)

        _in_threads(work)
    assert wrong == []


_WAIT = 5.0
"""Seconds a thread stopped inside a trace waits for the other thread's call (which returns in
milliseconds), so that a failing test fails rather than hangs."""


def _called_during_a_trace(call: Callable[[], object], trace: Callable[[Callable[[], None]], None]) -> object:
    """``call()``, made while another thread is stopped inside a ``torch.fx`` trace: that thread
    runs ``trace(stop)``, which traces something calling ``stop()``, and ``stop()`` waits there
    until ``call()`` has returned. Re-raises the other thread's failure."""
    inside, called = threading.Event(), threading.Event()
    failures: list[BaseException] = []

    def stop() -> None:
        inside.set()
        called.wait(_WAIT)

    def run() -> None:
        try:
            trace(stop)
        except BaseException as failure:  # re-raised in the test's thread
            failures.append(failure)

    tracing = threading.Thread(target=run)
    tracing.start()
    try:
        assert inside.wait(_WAIT), "the other thread never reached its trace"
        return call()
    finally:
        called.set()
        tracing.join()
        if failures:
            raise failures[0]


needs_compile_sessions = pytest.mark.skipif(
    not TORCH_HAS_COMPILE_SESSIONS,
    reason="this torch has no compile sessions (2.11): another thread's trace fails the call, "
           "located (Note [compile session across threads])")


@needs_compile_sessions
def test_a_trace_in_a_compile_session_leaves_other_threads_calls_running():
    """Note [compile session across threads]: outside ``compile_session()`` ``make_fx`` sets
    torch's FX-tracing flag for every thread, and the call fails, on every torch."""
    compiled = hopc.compile(lambda x: torch.sin(x) + 1)
    x = torch.randn(4)
    compiled(x)

    def trace(stop: Callable[[], None]) -> None:
        def traced(t: torch.Tensor) -> torch.Tensor:
            stop()
            return t + 1

        with compile_session():
            make_fx(traced)(x)

    assert torch.equal(_called_during_a_trace(lambda: compiled(x), trace), torch.sin(x) + 1)


_STOPS: list[Callable[[], None]] = []
"""What ``stops_in_fx_traces``'s fake kernel calls inside a ``torch.fx`` trace (Dynamo's own
tracing is none)."""


@torch.library.custom_op("hopctest::stops_in_fx_traces", mutates_args=())
def stops_in_fx_traces(x: torch.Tensor) -> torch.Tensor:
    return x.clone()


@stops_in_fx_traces.register_fake
def _(x):
    if torch.fx._symbolic_trace._is_fx_tracing_flag:
        for stop in _STOPS:
            stop()
    return torch.empty_like(x)


@needs_compile_sessions
def test_a_call_runs_while_another_thread_compiles():
    """The other thread's compile stops inside hopc's ``make_fx`` trace of its graph, inside
    Dynamo's compile session (Note [compile session across threads])."""
    compiled = hopc.compile(lambda x: torch.sin(x) + 1)
    x = torch.randn(4)
    compiled(x)
    compiling = hopc.compile(lambda x: stops_in_fx_traces(x) * 2)

    def trace(stop: Callable[[], None]) -> None:
        _STOPS.append(stop)
        try:
            assert torch.equal(compiling(x), x * 2)
        finally:
            _STOPS.remove(stop)

    assert torch.equal(_called_during_a_trace(lambda: compiled(x), trace), torch.sin(x) + 1)


TRAINED_COND = (pathlib.Path(__file__).parents[2] / "examples" / "cond.mlir").read_text().replace(
    "%x: !hop.tensor<[s0, 4], f32>)", "%x: !hop.tensor<[s0, 4], f32> {hop.requires_grad})")


@needs_compile_sessions
def test_calls_run_while_another_thread_compiles_a_hop_level_module(monkeypatch):
    """A hop-level module's compile traces derivatives outside any Dynamo compile: before that
    compile was a compile session, the calls here failed within milliseconds, on every torch
    (Note [compile session across threads])."""
    monkeypatch.setattr(derivatives, "_CACHE", {})  # so that this compile traces them
    compiled = hopc.compile(lambda x: torch.sin(x) + 1)
    x = torch.randn(4)
    compiled(x)
    modules: list[object] = []
    compiling = threading.Thread(target=lambda: modules.append(hopc.compile(hopc.parse(TRAINED_COND))))
    compiling.start()
    try:
        while compiling.is_alive():
            assert torch.equal(compiled(x), torch.sin(x) + 1)
    finally:
        compiling.join()
    assert len(modules) == 1


@needs_compile_sessions
def test_a_capture_is_a_compile_session(monkeypatch):
    """``hopc.capture``'s traces (its direct capture's ``make_fx`` too) run as a compile session
    (Note [compile session across threads])."""
    import hopc.frontend.capture as capture_module

    seen: list[bool] = []
    captured = capture_module._captured

    def watched(*args: object) -> object:
        seen.append(torch.compiler.is_compiling())
        return captured(*args)

    monkeypatch.setattr(capture_module, "_captured", watched)
    hopc.capture(lambda x: torch.sin(x) + 1, (torch.randn(4),))
    assert seen == [True]
    assert not torch.compiler.is_compiling()
