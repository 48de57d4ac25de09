"""Compiled programs called from several threads at once (Note [concurrent calls] in
``hopc.backend.runtime.module_call``): each call's values are its own, and calls that
change a buffer give the results of some serial order of the calls, as eager does."""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable

import pytest
import torch

import hopc

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
