"""Steady-state cost of one compiled call: hopc against eager and against Dynamo alone.

    python bench/call_overhead.py [--calls 2000] [--rounds 7]

Programs: a 1-op program (``x + 1`` on a [4] tensor), a small MLP (16-64-16,
batch 8, ReLU) and a ``torch.cond`` choosing ``sin``/``cos`` of an [8, 16]
tensor. For each program, in one run and interleaved round by round, it times
a call of eager PyTorch, of ``torch.compile(program, backend="eager")``
(Dynamo alone: its guards and frame handling, the floor every Dynamo-based
compiler pays per call) and of ``hopc.compile(program)`` (default executor),
all under ``torch.no_grad()`` on one thread, after warm-up calls that compile.
Each figure is the median over ``--rounds`` rounds of the mean over
``--calls`` calls. It prints hopc's cost beyond Dynamo's per call; the
target (issue 10) is at most 5 us on the 1-op program.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

import torch

import hopc

TARGET_US = 5.0


class Mlp(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.first, self.second = torch.nn.Linear(16, 64), torch.nn.Linear(64, 16)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.second(torch.relu(self.first(x)))


def one_op(x: torch.Tensor) -> torch.Tensor:
    return x + 1


def cond_program(x: torch.Tensor) -> torch.Tensor:
    return torch.cond(x.sum() > 0, torch.sin, torch.cos, (x,))


PROGRAMS: dict[str, tuple[Callable, tuple[torch.Tensor, ...]]] = {
    "1-op": (one_op, (torch.randn(4),)),
    "mlp": (Mlp(), (torch.randn(8, 16),)),
    "cond": (cond_program, (torch.randn(8, 16),)),
}


def mean_call_us(function: Callable, args: tuple, calls: int) -> float:
    """The mean time of ``calls`` calls of ``function(*args)``, in microseconds."""
    start = time.perf_counter()
    for _ in range(calls):
        function(*args)
    return (time.perf_counter() - start) / calls * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=7)
    options = parser.parse_args()
    torch.set_num_threads(1)
    print(f"{'program':<8} {'eager us':>9} {'dynamo us':>10} {'hopc us':>9} {'hopc - dynamo':>14}")
    worst = 0.0
    with torch.no_grad():
        for name, (program, args) in PROGRAMS.items():
            sides = {"eager": program,
                     "dynamo": torch.compile(program, backend="eager"),
                     "hopc": hopc.compile(program)}
            for side in sides.values():
                for _ in range(3):
                    side(*args)  # compile, then settle
            times: dict[str, list[float]] = {side: [] for side in sides}
            for _ in range(options.rounds):
                for side, function in sides.items():
                    times[side].append(mean_call_us(function, args, options.calls))
            eager, dynamo, compiled = (statistics.median(times[s]) for s in ("eager", "dynamo", "hopc"))
            if name == "1-op":
                worst = compiled - dynamo
            print(f"{name:<8} {eager:>9.1f} {dynamo:>10.1f} {compiled:>9.1f} {compiled - dynamo:>+13.1f}")
    verdict = "met" if worst <= TARGET_US else "NOT met"
    print(f"1-op: hopc costs {worst:+.1f} us per call beyond Dynamo's (target <= {TARGET_US:.0f} us): {verdict}")


if __name__ == "__main__":
    main()
