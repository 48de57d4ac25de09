"""hopc on the CPU against eager PyTorch and torch.compile: steady-state calls and first calls (issue 13).

    python bench/cpu.py [--programs cond,rnn,...] [--modes inference,training]
                        [--rounds 5] [--calls 2000] [--executor NAME]
                        [--skip-first-call] [--quick]

Programs (bench/cpu_programs.py): with higher-order ops, a ``torch.cond``
choosing ``sin``/``cos`` of an [8, 16] tensor, a 100-step ``while_loop`` RNN
``h = tanh(h @ w)`` (h [8, 16], a 0-d int64 counter), four 2-layer MLP stages
each under ``torch.utils.checkpoint.checkpoint(use_reentrant=False)``, a
100-step ``scan`` of ``tanh(h + x_t @ w)``; without, an MLP 16-64-16 at batch
8, an MLP 256-1024-256 at batch 64 and a transformer block (d = 64,
[2, 16, 64]). Each runs in two modes: inference (under ``torch.no_grad()``)
and a training step (forward, then backward of ``.sum()``; parameters
require grad, and the input does where a program has none).

Systems (bench/cpu_systems.py; the tables: bench/cpu_tables.py): eager
PyTorch; ``python``, the HOP program written with Python
control flow (an ``if``, a ``for``, no checkpoint), a reference only;
``torch.compile`` with ``backend="eager"`` (Dynamo alone), with
``"aot_eager"`` and with its default backend (Inductor, C++ kernels here);
in inference, ``floor``: ``torch.compile`` of the model's ``forward`` (the
cheapest call Dynamo can stand in front of: no module frame) with a backend
that computes nothing (``dynamo_floor``: each call returns the outputs of the
graph's one run on the example inputs, the bench's own), compiled as hopc
compiles its frames, without the "Pregraph bytecode" profiler range Dynamo
opens per call by default (``record_runtime_overhead``, about 1.4 us here;
Note [pre-graph profiler range] in hopc.frontend.compile): what any backend
behind Dynamo pays per call at least, so ``eager/floor`` bounds every
backend's speedup. ``dynamo``, ``aot_eager`` and ``inductor`` run with
Dynamo's defaults, as a user's ``torch.compile`` does, and so pay that range;
``hopc.compile(model, executor=...)``, on ``"aten"`` if hopc has that
executor and ``"planned"`` otherwise (``--executor`` chooses; the header
says which ran).

1. Correctness guard: before timing, each system's output (and in training
   its gradients) is compared with eager's (``allclose``, rtol 1e-3, atol
   1e-4); a mismatch puts ``!`` beside the time. A system that fails to
   compile or run shows the exception's type in its cell, its message below
   the table.
2. Steady state: one thread (``torch.set_num_threads(1)``), three warm-up
   calls, then the median over ``--rounds`` rounds of the mean time of N
   calls, every system interleaved within a round (as bench/call_overhead.py
   does). N is ``--calls``, fewer where the slowest system would take more
   than a quarter of a second; the table prints it.
3. First call: each (program, system, mode) in a fresh process (this file
   with a hidden flag), from before the compile call to the first result
   (training: after the backward), in seconds, with Inductor's caches in a
   fresh directory (a cold compile).

Tables print ratios against peers measured in the same run. Targets (issue
13): on HOP programs hopc beats eager (which runs HOPs slowly: the issue
measured the cond at 265 us eager, 5.2 us as a Python ``if``, 18.9 us under
Inductor, 74.5 us under aot_eager; the RNN at 1,226 / 215 / 507 / 1,245 us)
and is compared with Inductor; on programs without HOPs hopc's call takes at
most 1.05x Dynamo alone's (the issue: MLP 16-64-16 eager 13.3 us, Dynamo
alone 22.1, aot_eager 33.5, Inductor 27.6; 256-1024-256 486 / 542 / 582 /
554 us); hopc's first call takes at most 0.05x Inductor's.

The load average (``os.getloadavg()``) is printed with the header and the
end: other processes on the machine distort every figure.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from collections.abc import Callable

import torch
from cpu_programs import PROGRAMS  # bench/ is the script's own directory
from cpu_systems import (
    FIRST_CALL_SYSTEMS,
    SYSTEMS,
    backend_fallback,
    compile_settings,
    compiled,
    default_executor,
    failure_reason,
    grad_mode,
    own_code,
    step,
)
from cpu_tables import Cell, Notes, print_table, ratio

MODES = ("inference", "training")
STEADY_TARGET = 1.05  # hopc / Dynamo alone, programs without HOPs
FIRST_CALL_TARGET = 0.05  # hopc / Inductor
MEASUREMENT_SECONDS = 0.25  # the most one system's N calls should take
RTOL, ATOL = 1e-3, 1e-4


def mean_call_us(function: Callable, args: tuple, calls: int) -> float:
    """The mean time of ``calls`` calls of ``function(*args)``, in microseconds."""
    start = time.perf_counter()
    for _ in range(calls):
        function(*args)
    return (time.perf_counter() - start) / calls * 1e6


# ---- correctness and steady state ------------------------------------------------------------


def _outcome(function: Callable, model: torch.nn.Module, inputs: tuple, mode: str) -> list[torch.Tensor]:
    """The output of one call (and, for training, the gradients it leaves), from cleared gradients."""
    leaves = [*model.parameters(), *(x for x in inputs if x.requires_grad)]
    for leaf in leaves:
        leaf.grad = None
    output = step(function, mode)(*inputs)
    return [output.detach().clone(), *(leaf.grad.clone() for leaf in leaves if mode == "training")]


def _difference(values: list[torch.Tensor], expected: list[torch.Tensor]) -> float | None:
    """None if ``values`` match ``expected`` (allclose), else their largest absolute difference."""
    if len(values) != len(expected) or any(v.shape != e.shape for v, e in zip(values, expected)):
        return float("inf")
    if all(torch.allclose(v, e, rtol=RTOL, atol=ATOL) for v, e in zip(values, expected)):
        return None
    return max((v - e).abs().max().item() for v, e in zip(values, expected))


def _check(values: list[torch.Tensor], eager: list[torch.Tensor], python: list[torch.Tensor] | None) -> str | None:
    """None if ``values`` match eager's, else how they differ from eager's and from the Python reference."""
    from_eager = _difference(values, eager)
    if from_eager is None:
        return None
    text = f"output differs from eager's (max abs difference {from_eager:.3g})"
    if python is not None:
        from_python = _difference(values, python)
        text += ("; matches the Python-control-flow version's" if from_python is None
                 else f"; differs from the Python-control-flow version's too ({from_python:.3g})")
    return text


def steady_state(name: str, mode: str, options: argparse.Namespace) -> tuple[dict[str, Cell], int]:
    """Each system's mean call time (us) on ``name`` in ``mode``, and the calls per measurement."""
    from torch._dynamo.utils import counters

    program = PROGRAMS[name]
    torch._dynamo.reset()
    model, inputs = program.make(training=mode == "training")
    systems = [s for s in SYSTEMS if (s != "python" or program.hops) and (s != "floor" or mode == "inference")]
    cells: dict[str, Cell] = {}
    steps: dict[str, Callable] = {}
    with grad_mode(mode):
        eager = _outcome(model, model, inputs, mode)
        python = _outcome(model.unrolled, model, inputs, mode) if program.hops else None
        for system in systems:
            own_model = own_code(program.make(training=mode == "training")[0], system)  # same weights
            counters.clear()
            try:
                function = compiled(system, own_model, options.executor)
                with compile_settings(system):
                    values = _outcome(function, own_model, inputs, mode)  # compiles
                steps[system] = step(function, mode)
                for _ in range(3):
                    steps[system](*inputs)
                reference = python if system != "python" else None
                cells[system] = Cell(mismatch=_check(values, eager, reference), fallback=backend_fallback())
            except Exception as failure:  # a system that cannot compile or run this program
                cells[system] = Cell(failure=failure_reason(failure))
                steps.pop(system, None)
        slowest = max(mean_call_us(function, inputs, 3) for function in steps.values()) / 1e6
        calls = max(5, min(options.calls, int(MEASUREMENT_SECONDS / slowest)))
        times: dict[str, list[float]] = {system: [] for system in steps}
        for _ in range(options.rounds):
            for system, function in steps.items():
                times[system].append(mean_call_us(function, inputs, calls))
    for system, samples in times.items():
        cells[system].value = statistics.median(samples)
    return cells, calls


def print_steady_state(mode: str, results: dict[str, tuple[dict[str, Cell], int]], rounds: int) -> None:
    print(f"\nsteady state, {mode}: us per call (median of {rounds} rounds of the mean of N calls, one thread)")
    notes, rows = Notes(), []
    for name, (cells, calls) in results.items():
        hops = PROGRAMS[name].hops
        row = [name, str(calls), *(notes.text(cells.get(s), f"{s} on {name}", 1) for s in SYSTEMS)]
        if hops:
            row += [ratio(cells["eager"], cells["hopc"]), ratio(cells["inductor"], cells["hopc"]), "-", "-"]
        else:
            against_dynamo = ratio(cells["hopc"], cells["dynamo"], "")
            met = "-" if against_dynamo == "-" else (
                "met" if float(against_dynamo) <= STEADY_TARGET else "NOT met")
            row += [ratio(cells["eager"], cells["hopc"]), ratio(cells["inductor"], cells["hopc"]),
                    against_dynamo, met]
        if mode == "inference":
            row.append(ratio(cells["eager"], cells.get("floor")))
        rows.append(row)
    floor = ["eager/floor"] if mode == "inference" else []
    print_table(["program", "N", *SYSTEMS, "eager/hopc", "inductor/hopc", "hopc/dynamo",
                 f"<= {STEADY_TARGET}", *floor], rows)
    for line in notes.lines:
        print(line)


# ---- first call ------------------------------------------------------------------------------


def first_call(name: str, system: str, mode: str, executor: str) -> None:
    """Child process: seconds from before the compile call to the first result, as JSON on stdout."""
    torch.set_num_threads(1)
    model, inputs = PROGRAMS[name].make(training=mode == "training")
    try:
        with grad_mode(mode):
            started = time.perf_counter()
            step(compiled(system, model, executor), mode)(*inputs)
            seconds = time.perf_counter() - started
    except Exception as failure:
        print(json.dumps({"failure": failure_reason(failure)}))
        return
    print(json.dumps({"seconds": seconds, "fallback": backend_fallback() if system != "eager" else None}))


def fresh_process(name: str, system: str, mode: str, executor: str) -> Cell:
    with tempfile.TemporaryDirectory(prefix="hopc-bench-cpu-") as caches:
        environment = {**os.environ, "TORCHINDUCTOR_CACHE_DIR": caches}
        command = [sys.executable, __file__, "--first-call-child", name, system, mode, executor]
        try:
            result = subprocess.run(command, capture_output=True, text=True, env=environment, timeout=900)
        except subprocess.TimeoutExpired:
            return Cell(failure=("Timeout", "no result after 900 s"))
    lines = result.stdout.strip().splitlines()
    if result.returncode != 0 or not lines:
        tail = (result.stderr.strip().splitlines() or [""])[-1]
        return Cell(failure=(f"exit {result.returncode}", tail[:300]))
    outcome = json.loads(lines[-1])
    if "failure" in outcome:
        return Cell(failure=tuple(outcome["failure"]))
    return Cell(value=outcome["seconds"], fallback=outcome["fallback"])


def first_calls(names: list[str], modes: list[str], executor: str) -> None:
    print(f"\nfirst call: seconds from before the compile call to the first result (training: after the "
          f"backward), each in a fresh process, Inductor's caches cold; load average {_load()}")
    notes, rows = Notes(), []
    for name in names:
        for mode in modes:
            cells = {s: fresh_process(name, s, mode, executor) for s in FIRST_CALL_SYSTEMS}
            against = ratio(cells["hopc"], cells["inductor"], "")
            met = "-" if against == "-" else ("met" if float(against) <= FIRST_CALL_TARGET else "NOT met")
            rows.append([name, mode, *(notes.text(cells[s], f"{s} on {name} ({mode})", 3)
                                       for s in FIRST_CALL_SYSTEMS),
                         ratio(cells["hopc"], cells["dynamo"], ""), against, met])
    print_table(["program", "mode", *FIRST_CALL_SYSTEMS, "hopc/dynamo", "hopc/inductor",
                 f"<= {FIRST_CALL_TARGET}"], rows)
    for line in notes.lines:
        print(line)


# ---- driver ----------------------------------------------------------------------------------


def _load() -> str:
    return " / ".join(f"{load:.2f}" for load in os.getloadavg()) + " (1 / 5 / 15 min)"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--programs", default=",".join(PROGRAMS), help=f"of {', '.join(PROGRAMS)}")
    parser.add_argument("--modes", default=",".join(MODES))
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--calls", type=int, default=2000, help="calls per measurement, at most")
    parser.add_argument("--executor", default=None, help="hopc's executor (default: aten if hopc has it, else planned)")
    parser.add_argument("--skip-first-call", action="store_true")
    parser.add_argument("--quick", action="store_true", help="a smoke run: 2 rounds of at most 20 calls")
    parser.add_argument("--first-call-child", nargs=4, help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.first_call_child:
        first_call(*options.first_call_child)
        return
    if options.quick:
        options.rounds, options.calls = 2, min(options.calls, 20)
    names, modes = options.programs.split(","), options.modes.split(",")
    for unknown in [n for n in names if n not in PROGRAMS] + [m for m in modes if m not in MODES]:
        parser.error(f"unknown program or mode '{unknown}'")
    options.executor = options.executor or default_executor()
    import torch._dynamo  # here, not at the top: a first-call child must not load Dynamo before its timer

    torch.set_num_threads(1)
    torch._logging.set_logs(dynamo=logging.ERROR)  # graph breaks and failures are the tables' notes
    warnings.simplefilter("ignore")
    torch._dynamo.config.fail_on_recompile_limit_hit = True  # never time a silent fall-back to eager
    print(f"bench/cpu.py: torch {torch.__version__}, Python {sys.version.split()[0]}, {os.cpu_count()} CPUs, "
          f"hopc executor '{options.executor}'")
    print(f"load average {_load()}")
    for mode in modes:
        results = {name: steady_state(name, mode, options) for name in names}
        print_steady_state(mode, results, options.rounds)
    if not options.skip_first_call:
        first_calls(names, modes, options.executor)
    print(f"\nload average at the end {_load()}")


if __name__ == "__main__":
    main()
