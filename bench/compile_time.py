"""First-call compile time: hopc against Dynamo alone and aot_eager, cold (and warm), eight programs (issue 25).

    python bench/compile_time.py [--programs cond,while,...] [--modes no_grad,training] [--runs 3] [--warm]
    python bench/compile_time.py --stages [--programs ...] [--modes ...]
    python bench/compile_time.py --profile PROGRAM MODE [--top 40]

What a user waits for first is the first call. Each (program, system, mode)
runs in a fresh ``python`` process (this file with a hidden flag), Dynamo
imported, timed from before the compile call to the first result (training:
after the backward of ``.sum()``), one thread, on two clocks: wall seconds and
the process's CPU seconds (``time.process_time``, steadier on a loaded
machine). Systems:

- ``eager``: ``torch.compile(model, backend="eager")``, Dynamo alone: its
  capture, guards and frame, running the captured graph as it is. Dynamo's
  share of every first call, and not hopc's to cut;
- ``aot_eager``: ``torch.compile(model, backend="aot_eager")``: Dynamo and
  AOTAutograd (functionalization, the joint graph and its partition);
- ``hopc``: ``hopc.compile(model)``, its default executor, ``HOPC_CACHE=0``
  (no persistent compile cache: every stage runs);
- ``hopc_warm`` (with ``--warm``): the same call in a second process, its
  persistent compile cache (``hopc.compile_cache``) filled by a first,
  untimed process of the same program and mode, in a directory of their own.
  A row whose timed process did not hit (a frame stored never, or hopc's
  sources changed between the two processes: the key holds their digest)
  is shown as a failure, not timed.

Modes: ``no_grad`` (the forward under ``torch.no_grad()``) and ``training``
(the forward with grad and the backward of ``.sum()``). Runs interleave the
systems within each round; each figure is the median over ``--runs`` rounds.
The target (issue 25): summed over the programs, hopc's first call beyond
Dynamo's at most half of aot_eager's beyond Dynamo's, per mode:
(hopc - eager) / (aot_eager - eager) <= 0.5; warm, in training, at most a
tenth: (hopc_warm - eager) / (aot_eager - eager) <= 0.1.

``--stages`` (in place of the table) runs hopc's first call of each program
once per mode, in a fresh process with ``HOPC_LOGS=stages``, and prints where
hopc's time goes, summed over the programs, in wall seconds (the stages'
own clock): importing hopc (timed apart, before the call) and each driver
stage (Note [stage log] in ``hopc.driver_log``; ``captured`` is the
frontend's retrace and import of Dynamo's graph, ``executable`` the host
code generation); with ``--warm``, the first calls of a second process (a hit:
``differentiated (cached)`` is the load of the entry).

``--profile PROGRAM MODE`` runs hopc's first call once, in a fresh process,
under cProfile with ``HOPC_LOGS=stages`` (one line per stage on stderr), and
prints the functions with the largest cumulative time.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass

import torch
import torch._dynamo  # before any timer: Dynamo's import is no system's compile
from autograd import Block  # bench/autograd.py's transformer block, one attention head
from cpu_programs import Checkpointed, CondModel, Mlp, Rnn, Scan

SYSTEMS = ("eager", "aot_eager", "hopc")
WARM = "hopc_warm"
MODES = ("no_grad", "training")
TARGETS = {"hopc": 0.5, WARM: 0.1}
"""hopc's first call beyond Dynamo's, as a share of aot_eager's beyond Dynamo's, at most (issue 25)."""
WARM_TARGET_MODES = ("training",)


class DynamicReshape(torch.nn.Module):
    """Rows of x in groups of four, a linear layer per row, back to x's shape: sizes symbolic
    (the input's first dimension is marked dynamic)."""

    def __init__(self, width: int = 16):
        super().__init__()
        self.linear = torch.nn.Linear(4 * width, 4 * width)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        grouped = x.reshape(x.shape[0] // 4, -1)
        return torch.tanh(self.linear(grouped)).reshape(x.shape) + x


class Mutation(torch.nn.Module):
    """A linear layer and BatchNorm in training mode (its running statistics and step counter
    updated in place), then an in-place ``mul_`` and ``add_`` on an intermediate."""

    def __init__(self, width: int = 16):
        super().__init__()
        self.linear, self.norm = torch.nn.Linear(width, width), torch.nn.BatchNorm1d(width)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.norm(self.linear(x))
        y.mul_(2.0).add_(x)
        return y


@dataclass(frozen=True)
class Program:
    """A program of the bench: its model, its input's shape, the input dimensions marked dynamic."""

    description: str
    model: Callable[[], torch.nn.Module]
    input_shape: tuple[int, ...]
    dynamic_dimensions: tuple[int, ...] = ()

    def make(self, mode: str) -> tuple[torch.nn.Module, torch.Tensor]:
        """A fresh model and input (seed 0); for training, an input that requires grad
        where the model has no parameters."""
        torch.manual_seed(0)
        model = self.model().train()
        x = torch.randn(*self.input_shape)
        if mode == "training" and not any(True for _ in model.parameters()):
            x.requires_grad_(True)
        for dimension in self.dynamic_dimensions:
            torch._dynamo.mark_dynamic(x, dimension)
        return model, x


PROGRAMS: dict[str, Program] = {
    "cond": Program("torch.cond sin/cos, [8, 16]", CondModel, (8, 16)),
    "while": Program("while_loop RNN, 100 steps, [8, 16]", Rnn, (8, 16)),
    "checkpoint": Program("4 checkpointed 2-layer stages, [32, 64]", Checkpointed, (32, 64)),
    "scan": Program("scan tanh(h + x_t @ w), [100, 8, 16]", Scan, (100, 8, 16)),
    "block": Program("transformer block, d = 64, [2, 16, 64]", Block, (2, 16, 64)),
    "dynamic": Program("reshape by a symbolic size, [s0, 16]", DynamicReshape, (8, 16), (0,)),
    "mutation": Program("BatchNorm (training) and in-place ops, [8, 16]", Mutation, (8, 16)),
    "mlp": Program("MLP 16-64-16, batch 8", lambda: Mlp(16, 64), (8, 16)),
}


def compiled(system: str, model: torch.nn.Module) -> Callable:
    """``model`` as ``system`` runs it, compiling lazily, on the first call."""
    if system in ("hopc", WARM):
        import hopc

        return hopc.compile(model)
    return torch.compile(model, backend=system)


Clock = tuple[float, float]
"""(wall seconds, CPU seconds)."""


def _clock() -> Clock:
    return time.perf_counter(), time.process_time()


def _since(start: Clock) -> Clock:
    wall, cpu = _clock()
    return wall - start[0], cpu - start[1]


def first_call(name: str, system: str, mode: str) -> Clock:
    """The time from before the compile call to the first result (training: after the backward)."""
    torch.set_num_threads(1)
    model, x = PROGRAMS[name].make(mode)
    with torch.no_grad() if mode == "no_grad" else contextlib.nullcontext():
        started = _clock()
        output = compiled(system, model)(x)
        if mode == "training":
            output.sum().backward()
        return _since(started)


def child(name: str, system: str, mode: str) -> None:
    """The child process: the first call's clocks, or its failure, as JSON on stdout; with
    ``HOPC_LOGS=stages`` the seconds of importing hopc, timed apart before the call, too; for
    hopc, the compile cache's hits and misses."""
    outcome: dict[str, object] = {}
    if os.environ.get("HOPC_LOGS"):
        started = _clock()
        import hopc.frontend.compile  # noqa: F401 (timed: hopc's import, apart from its compile)

        outcome["import"] = _since(started)
    try:
        outcome["first_call"] = first_call(name, system, mode)
    except Exception as failure:
        inner = getattr(failure, "inner_exception", None) or failure
        lines = [line for line in str(inner).splitlines() if line.strip()]
        outcome = {"failure": f"{type(inner).__name__}: {(lines or [''])[0][:200]}"}
    if system in ("hopc", WARM) and "first_call" in outcome:
        from hopc.compile_cache import COUNTS

        outcome["cache"] = [COUNTS.hits, COUNTS.misses]
    print(json.dumps(outcome))


def profile(name: str, mode: str, top: int) -> None:
    """The child process of ``--profile``: hopc's first call under cProfile, the top functions printed."""
    import cProfile
    import pstats

    profiler = cProfile.Profile()
    profiler.enable()
    wall, cpu = first_call(name, "hopc", mode)
    profiler.disable()
    print(f"hopc's first call of {name} ({mode}): {wall:.3f} s wall, {cpu:.3f} s CPU (under cProfile)")
    pstats.Stats(profiler, stream=sys.stdout).sort_stats("cumulative").print_stats(top)


def fresh_process(arguments: list[str], logs: str = "", capture: bool = True,
                  hopc_cache: str | None = None) -> subprocess.CompletedProcess:
    """This file run with ``arguments`` in a fresh process, with ``HOPC_LOGS=logs`` and no
    persistent caches but hopc's in the directory ``hopc_cache``, where one is given."""
    with tempfile.TemporaryDirectory(prefix="hopc-bench-compile-") as caches:
        environment = {**os.environ, "HOPC_CACHE": "0", "TORCHINDUCTOR_CACHE_DIR": caches, "HOPC_LOGS": logs}
        if hopc_cache is not None:
            environment.update(HOPC_CACHE="1", HOPC_CACHE_DIR=hopc_cache)
        return subprocess.run([sys.executable, __file__, *arguments], capture_output=capture, text=True,
                              env=environment, timeout=900)


def measure(name: str, system: str, mode: str, logs: str = "") -> tuple[dict, str]:
    """One first call in a fresh process: its outcome (``first_call``'s clocks, or ``failure``)
    and its standard error. For ``hopc_warm``, the second of two processes sharing a fresh
    compile cache, and a failure where it did not hit."""
    arguments = ["--child", name, system, mode]
    if system != WARM:
        return _outcome(fresh_process(arguments, logs))
    with tempfile.TemporaryDirectory(prefix="hopc-bench-compile-cache-") as directory:
        hopc_cache = os.path.join(directory, "hopc")
        filling, _ = _outcome(fresh_process(arguments, hopc_cache=hopc_cache))
        if "failure" in filling:
            return filling, ""
        outcome, errors = _outcome(fresh_process(arguments, logs, hopc_cache=hopc_cache))
    if "cache" in outcome and outcome["cache"][1] > 0:
        hits, misses = outcome["cache"]
        return {"failure": f"the second process did not hit the compile cache ({hits} hits, {misses} misses)"}, errors
    return outcome, errors


def _outcome(result: subprocess.CompletedProcess) -> tuple[dict, str]:
    """A child's outcome, from the JSON line it printed last, and its standard error."""
    lines = result.stdout.strip().splitlines()
    if result.returncode != 0 or not lines:
        tail = (result.stderr.strip().splitlines() or [""])[-1][:200]
        return {"failure": f"exit {result.returncode}: {tail}"}, result.stderr
    return json.loads(lines[-1]), result.stderr


def _load() -> str:
    return " / ".join(f"{load:.2f}" for load in os.getloadavg()) + " (1 / 5 / 15 min)"


def report(names: list[str], modes: list[str], runs: int, systems: tuple[str, ...] = SYSTEMS) -> None:
    """Every (program, mode, system) ``runs`` times, interleaved; the medians and the summed ratios."""
    samples: dict[tuple[str, str, str], list[dict]] = {}
    for _ in range(runs):
        for name in names:
            for mode in modes:
                for system in systems:
                    samples.setdefault((name, mode, system), []).append(measure(name, system, mode)[0])
    failures = sorted({f"{system} on {name} ({mode}): {outcome['failure']}"
                       for (name, mode, system), outcomes in samples.items()
                       for outcome in outcomes if "failure" in outcome})
    beyond_systems = [system for system in systems if system != "eager"]
    for clock, label in enumerate(("wall", "CPU")):
        print(f"\nfirst call, {label} seconds (median of {runs} fresh processes; load average now {_load()})")
        print("| program | mode | " + " | ".join(systems) + " | "
              + " | ".join(f"{system} - eager" for system in beyond_systems) + " |")
        print("|---|---|" + "---:|" * (len(systems) + len(beyond_systems)))
        sums = {mode: dict.fromkeys(beyond_systems, 0.0) for mode in modes}
        for name in names:
            for mode in modes:
                medians = {}
                for system in systems:
                    values = [o["first_call"][clock] for o in samples[(name, mode, system)] if "first_call" in o]
                    medians[system] = statistics.median(values) if values else None
                cells = " | ".join("-" if value is None else f"{value:.3f}" for value in medians.values())
                if None in medians.values():
                    print(f"| {name} | {mode} | {cells} | " + " | ".join("-" for _ in beyond_systems) + " |")
                    continue
                beyond = {system: medians[system] - medians["eager"] for system in beyond_systems}
                for system, seconds in beyond.items():
                    sums[mode][system] += seconds
                print(f"| {name} | {mode} | {cells} | " + " | ".join(f"{seconds:.3f}" for seconds in beyond.values())
                      + " |")
        print()
        for mode, summed in sums.items():
            if summed["aot_eager"] <= 0:
                print(f"{label}, {mode}: aot_eager's first calls took no longer than Dynamo's alone; no ratio")
                continue
            for system, target in TARGETS.items():
                if system not in summed or (system == WARM and mode not in WARM_TARGET_MODES):
                    continue
                ratio = summed[system] / summed["aot_eager"]
                verdict = "met" if ratio <= target else "NOT met"
                print(f"{label}, {mode}: summed beyond Dynamo alone, {system} {summed[system]:.2f} s, aot_eager "
                      f"{summed['aot_eager']:.2f} s: ({system} - eager) / (aot_eager - eager) = {ratio:.2f} "
                      f"(target <= {target}) {verdict}")
    for failure in failures:
        print(f"failed: {failure}")


_STAGE_LINE = re.compile(r"^hopc: (\w+(?: \(cached\))?) ([0-9.]+) ms ")


def stages(names: list[str], modes: list[str], system: str = "hopc") -> None:
    """Where ``system``'s (``hopc`` or ``hopc_warm``) first calls spend their time, per mode,
    summed over ``names`` (``--stages``)."""
    print(f"\n{system}'s first call by stage, summed over the programs, one fresh process each "
          f"(HOPC_LOGS=stages; the stages' own clock is wall time); load average {_load()}")
    for mode in modes:
        totals: dict[str, float] = {}
        for name in names:
            outcome, errors = measure(name, system, mode, logs="stages")
            if "failure" in outcome:
                print(f"failed: {system} on {name} ({mode}): {outcome['failure']}")
                continue
            totals["first call (wall)"] = totals.get("first call (wall)", 0.0) + outcome["first_call"][0]
            totals["import hopc (wall)"] = totals.get("import hopc (wall)", 0.0) + outcome["import"][0]
            for line in errors.splitlines():
                match = _STAGE_LINE.match(line)
                if match:
                    totals[match[1]] = totals.get(match[1], 0.0) + float(match[2]) / 1e3
        print(f"{mode}: " + ", ".join(f"{stage} {seconds:.2f} s" for stage, seconds in totals.items()))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--programs", default=",".join(PROGRAMS), help=f"of {', '.join(PROGRAMS)}")
    parser.add_argument("--modes", default=",".join(MODES), help=f"of {', '.join(MODES)}")
    parser.add_argument("--runs", type=int, default=3, help="fresh processes per (program, system, mode)")
    parser.add_argument("--stages", action="store_true", help="where hopc's time goes, by stage")
    parser.add_argument("--warm", action="store_true",
                        help="also hopc in a second process, its compile cache filled by a first (hopc_warm)")
    parser.add_argument("--profile", nargs=2, metavar=("PROGRAM", "MODE"))
    parser.add_argument("--top", type=int, default=40, help="functions --profile prints")
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    parser.add_argument("--profile-child", nargs=2, help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.child:
        child(*options.child)
        return
    if options.profile_child:
        profile(*options.profile_child, options.top)
        return
    if options.profile:
        fresh_process(["--profile-child", *options.profile, "--top", str(options.top)], "stages", capture=False)
        return
    names, modes = options.programs.split(","), options.modes.split(",")
    for unknown in [n for n in names if n not in PROGRAMS] + [m for m in modes if m not in MODES]:
        parser.error(f"unknown program or mode '{unknown}'")
    _byte_compile_hopc()
    print(f"bench/compile_time.py: torch {torch.__version__}, Python {sys.version.split()[0]}, "
          f"{os.cpu_count()} CPUs; load average {_load()}")
    if options.stages:
        stages(names, modes, WARM if options.warm else "hopc")
    else:
        report(names, modes, options.runs, (*SYSTEMS, WARM) if options.warm else SYSTEMS)


def _byte_compile_hopc() -> None:
    """Write hopc's bytecode before any fresh process is timed, as an installed wheel ships
    it: with ``PYTHONDONTWRITEBYTECODE`` set or a fresh checkout, every process would otherwise
    compile hopc's sources again (0.41 against 0.24 CPU s to import hopc, measured)."""
    import compileall

    import hopc

    compileall.compile_dir(os.path.dirname(os.path.dirname(hopc.__file__)), quiet=2,
                           rx=re.compile(r"[/\\](\.venv[^/\\]*|\.git|build|tests|lit_tests)([/\\]|$)"))


if __name__ == "__main__":
    main()
