"""Capture and first-compile time of hopc against PyTorch's own, on the same programs.

    python bench/capture.py [--repeats 5]

Programs: the MLP and the transformer block (SDPA, LayerNorm) of
``tests/frontend/frontend_models.py``, and a program with a ``torch.cond``
inside a ``while_loop``. For each program, in one run, it times:

- ``hopc.capture(program, args)`` against
  ``torch.export.export(program, args, strict=False)``;
- the first call of ``hopc.compile(program)`` against the first call of
  ``torch.compile(program, backend="aot_eager")`` (both under
  ``torch.no_grad()``: forward only; bench/autograd.py measures training),
  and, as the floor of any Dynamo backend, the first call of
  ``torch.compile(program, backend="eager")`` (Dynamo alone; column ``dynamo``),
  also with Dynamo configured as ``hopc.compile`` runs it (column ``floor``:
  ``hopc.frontend.compile.dynamo_settings``, which skips Dynamo's guard-latency
  profiling), the floor of ``hopc.compile`` itself.

Every measurement starts from ``torch._dynamo.reset()``, a fresh program and a
collected heap. Each time is the median over ``--repeats`` rounds (each round
runs all six measurements, interleaved) of the process's CPU time, which other
work on a shared machine disturbs less than wall time, after one untimed round
of everything (imports, lazy initialisation). Kernels run on one thread
(``torch.set_num_threads(1)``): the run inside a first call is the same on
every side, and on a loaded machine idle OpenMP threads spinning for work add
CPU time at random. Targets (issue 3, item 9):
capture at most 1.5x torch.export's time; compile's first call at most 0.5x
aot_eager's.
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import torch
from torch._higher_order_ops.while_loop import while_loop

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "frontend"))
from frontend_models import Mlp, TransformerBlock

import hopc
from hopc.frontend.compile import dynamo_settings

CAPTURE_TARGET = 1.5
COMPILE_TARGET = 0.5


class CondInWhile(torch.nn.Module):
    """Three steps of a loop whose body picks a branch by the sign of the carried sum."""

    def __init__(self, width: int = 8):
        super().__init__()
        torch.manual_seed(0)
        self.linear = torch.nn.Linear(width, width)

    def forward(self, x):
        def body(i, acc):
            step = torch.cond(acc.sum() > 0, lambda a: self.linear(a).tanh(),
                              lambda a: a * 0.5 + 1.0, (acc,))
            return i + 1, step

        _, result = while_loop(lambda i, acc: i < 3, body, (torch.tensor(0), x))
        return result


@dataclass
class Program:
    name: str
    make: Callable[[], torch.nn.Module]
    args: tuple


PROGRAMS = [
    Program("mlp", Mlp, (torch.randn(4, 8),)),
    Program("transformer_block", TransformerBlock, (torch.randn(2, 8, 16),)),
    Program("cond_in_while", CondInWhile, (torch.randn(4, 8),)),
]


def _seconds(run: Callable[[torch.nn.Module, tuple], object], program: Program) -> float:
    """CPU time of ``run`` on a fresh program, from a reset Dynamo and a collected heap."""
    torch._dynamo.reset()
    model = program.make()
    gc.collect()
    start = time.process_time()
    run(model, program.args)
    return time.process_time() - start


def _hopc_capture(model: torch.nn.Module, args: tuple) -> object:
    return hopc.capture(model, args)


def _export(model: torch.nn.Module, args: tuple) -> object:
    return torch.export.export(model, args, strict=False)


def _hopc_first_call(model: torch.nn.Module, args: tuple) -> object:
    with torch.no_grad():
        return hopc.compile(model)(*args)


def _aot_eager_first_call(model: torch.nn.Module, args: tuple) -> object:
    with torch.no_grad():
        return torch.compile(model, backend="aot_eager")(*args)


def _dynamo_first_call(model: torch.nn.Module, args: tuple) -> object:
    with torch.no_grad():
        return torch.compile(model, backend="eager")(*args)


def _dynamo_floor_first_call(model: torch.nn.Module, args: tuple) -> object:
    with torch.no_grad(), dynamo_settings():
        return torch.compile(model, backend="eager")(*args)


MEASUREMENTS = {
    "hopc.capture": _hopc_capture,
    "torch.export": _export,
    "hopc.compile": _hopc_first_call,
    "aot_eager": _aot_eager_first_call,
    "dynamo": _dynamo_first_call,
    "floor": _dynamo_floor_first_call,
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    options = parser.parse_args()
    warnings.simplefilter("ignore")
    torch.set_num_threads(1)
    for program in PROGRAMS:
        for run in MEASUREMENTS.values():
            _seconds(run, program)
    print(f"torch {torch.__version__}, Python {sys.version.split()[0]}, "
          f"median CPU time of {options.repeats} rounds (ms)\n")
    header = (f"{'program':<18} {'capture':>8} {'export':>8} {'ratio':>6} "
              f"{'compile':>8} {'aot_eager':>9} {'ratio':>6} {'dynamo':>7} {'ratio':>6} "
              f"{'floor':>6} {'ratio':>6}")
    print(header)
    print("-" * len(header))
    for program in PROGRAMS:
        rounds = [{name: _seconds(run, program) for name, run in MEASUREMENTS.items()}
                  for _ in range(options.repeats)]
        times = {name: statistics.median(r[name] for r in rounds) for name in MEASUREMENTS}
        capture_ratio = times["hopc.capture"] / times["torch.export"]
        compile_ratio = times["hopc.compile"] / times["aot_eager"]
        dynamo_ratio = times["dynamo"] / times["aot_eager"]
        floor_ratio = times["floor"] / times["aot_eager"]
        print(f"{program.name:<18} {times['hopc.capture'] * 1e3:>8.0f} "
              f"{times['torch.export'] * 1e3:>8.0f} {capture_ratio:>5.2f}x "
              f"{times['hopc.compile'] * 1e3:>8.0f} {times['aot_eager'] * 1e3:>9.0f} "
              f"{compile_ratio:>5.2f}x {times['dynamo'] * 1e3:>7.0f} {dynamo_ratio:>5.2f}x "
              f"{times['floor'] * 1e3:>6.0f} {floor_ratio:>5.2f}x")
    print(f"\ntargets: capture <= {CAPTURE_TARGET}x torch.export; "
          f"compile first call <= {COMPILE_TARGET}x aot_eager")


if __name__ == "__main__":
    main()
