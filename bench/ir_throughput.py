"""IR throughput of ``hopc-opt`` against ``xdsl-opt`` on large generated modules.

    python bench/ir_throughput.py [--sizes 1000 10000 50000] [--repeats 5]
    python bench/ir_throughput.py --passes [--quick] [--sizes 1000 2000 4000 8000] [--repeats 3]

Generates hop-level modules of 1k, 10k and 50k ATen ops (``bench/ir_modules.py``: a
realistic mix of elementwise ops, matmuls, views with symbolic sizes, shape-symbol
arithmetic, repeated subexpressions for CSE, and nested ``hop.cond``/``hop.while`` regions),
writes each in generic form to a temporary directory, and times, in one run:

- ``hopc-opt file`` (parse, verify, print),
- ``hopc-opt --canonicalize --cse file``,
- ``xdsl-opt --allow-unregistered-dialect file``: xDSL's own round trip of the
  same text, where hop and aten are unregistered ops (the peer).

Each time is the least, over ``--repeats`` runs of the command (output to
``/dev/null``; three times as many runs for modules under 10k ops), of its CPU
time (user + system, of the child process): on a shared virtual machine, load
from elsewhere only ever adds time, so the least is the steadiest estimate of
what a tool costs (the median wall time is printed beside it). The tools take
turns, run by run, so that such load falls on all of them alike. The
per-op cost subtracts the time of the same command on a module of one op
(process start-up and imports), so that it measures how the work grows with
the module. Targets (issue 2):

- hopc-opt round trip at most 1.2x xdsl-opt's;
- canonicalize+cse adds at most 50% on top of hopc-opt's round trip;
- the per-op cost at 50k ops at most 1.3x the per-op cost at 1k.

``--passes`` instead measures, in process, the per-op cost of every
registered pass (each on an input of the level it expects), of parsing and of
printing, at 1k, 2k, 4k and 8k ATen ops (``--quick``: 250 to 2k), each size
warm (the per-signature caches already hold its signatures), and the growth of
each from the smallest size to the largest (target, issue 25: at most 1.3x);
``bench/pass_scaling.py`` says how.
"""

from __future__ import annotations

import argparse
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import xdsl
from ir_modules import ModuleWriter, tiny_module

# --------------------------------------------------------------------------- timing


@dataclass
class Tool:
    label: str
    command: list[str]


def tools(with_passes: bool) -> list[Tool]:
    hopc_opt = shutil.which("hopc-opt") or str(Path(sys.executable).with_name("hopc-opt"))
    xdsl_opt = shutil.which("xdsl-opt") or str(Path(sys.executable).with_name("xdsl-opt"))
    found = [
        Tool("xdsl-opt round trip", [xdsl_opt, "--allow-unregistered-dialect"]),
        Tool("hopc-opt round trip", [hopc_opt]),
    ]
    if with_passes:
        found.append(Tool("hopc-opt --canonicalize --cse", [hopc_opt, "--canonicalize", "--cse"]))
    return found


def passes_available() -> bool:
    """canonicalize and cse exist (they were written alongside this benchmark)."""
    root = Path(__file__).resolve().parent.parent / "passes"
    return (root / "canonicalize.py").exists() and (root / "cse.py").exists()


@dataclass(frozen=True)
class Timing:
    cpu: float
    """Least user + system seconds of the child process."""
    wall: float
    """Median wall seconds."""


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _run_once(command: list[str], path: Path) -> tuple[float, float]:
    """(CPU, wall) seconds of ``command path -o /dev/null``; fails loudly on a non-zero exit."""
    cpu_start, wall_start = _children_cpu(), time.perf_counter()
    run = subprocess.run([*command, str(path), "-o", "/dev/null"], capture_output=True, text=True)
    wall = time.perf_counter() - wall_start
    if run.returncode != 0:
        raise SystemExit(f"{' '.join(command)} {path} failed:\n{run.stderr[-2000:]}")
    return _children_cpu() - cpu_start, wall


def time_tools(measured: list[Tool], path: Path, repeats: int) -> dict[str, Timing]:
    """Timings per tool; the tools take turns, so a burst of load elsewhere hits them alike."""
    samples: dict[str, list[tuple[float, float]]] = {tool.label: [] for tool in measured}
    for _ in range(repeats):
        for tool in measured:
            samples[tool.label].append(_run_once(tool.command, path))
    return {label: Timing(min(c for c, _ in runs), statistics.median(w for _, w in runs))
            for label, runs in samples.items()}


# --------------------------------------------------------------------------- report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+")
    parser.add_argument("--repeats", type=int)
    parser.add_argument("--passes", action="store_true",
                        help="per-op cost of every pass, parse and print, in process (bench/pass_scaling.py)")
    parser.add_argument("--quick", action="store_true", help="with --passes: smaller sizes, two repeats")
    parser.add_argument("--only", nargs="+", metavar="PASS", help="with --passes: these passes only")
    args = parser.parse_args()
    if args.passes:
        from pass_scaling import run

        sizes = args.sizes or ([250, 500, 1000, 2000] if args.quick else [1000, 2000, 4000, 8000])
        run(sizes, args.repeats or (2 if args.quick else 3), args.only)
        return
    args.sizes = args.sizes or [1000, 10000, 50000]
    args.repeats = args.repeats or 5
    compare_tools(args)


def compare_tools(args: argparse.Namespace) -> None:
    """The process-level comparison of the module docstring."""
    with_passes = passes_available()
    measured = tools(with_passes)
    with tempfile.TemporaryDirectory(prefix="hopc-bench-") as directory:
        root = Path(directory)
        tiny = root / "tiny.mlir"
        tiny.write_text(tiny_module())
        time_tools(measured, tiny, 1)  # warm up: file system cache, compiled bytecode
        startup = time_tools(measured, tiny, 3 * args.repeats)
        rows: dict[int, dict[str, Timing]] = {}
        counts: dict[int, int] = {}
        for size in args.sizes:
            writer = ModuleWriter(size)
            path = root / f"aten_{size}.mlir"
            path.write_text(writer.module())
            counts[size] = writer.aten_ops
            rows[size] = time_tools(measured, path,
                                    args.repeats * (3 if size < 10000 else 1))
    print(f"python {platform.python_version()}, xDSL {xdsl.__version__}, "
          f"{platform.machine()}; least CPU seconds of {args.repeats} runs or more "
          "(median wall seconds)")
    labels = [tool.label for tool in measured]
    width = max(map(len, labels)) + 2
    print(f"{'':{width}}{'1 op':>14}" + "".join(f"{counts[s]:>11} ops" for s in args.sizes))
    for label in labels:
        timings = [startup[label]] + [rows[s][label] for s in args.sizes]
        print(f"{label:{width}}" + "".join(f"{t.cpu:>7.2f} ({t.wall:>5.2f})" for t in timings))
    print()

    def net_per_op(size: int, label: str) -> float:
        return (rows[size][label].cpu - startup[label].cpu) / counts[size]

    def added_per_op(smaller: int, larger: int, label: str) -> float:
        return ((rows[larger][label].cpu - rows[smaller][label].cpu)
                / (counts[larger] - counts[smaller]))

    steps = list(zip(args.sizes, args.sizes[1:]))
    print("per-op CPU cost, microseconds: start-up (the 1-op run) subtracted; and of each op "
          "added from one size to the next")
    print(f"{'':{width}}" + "".join(f"{counts[s]:>9} ops" for s in args.sizes)
          + "".join(f"{f'{counts[a]}->{counts[b]}':>15}" for a, b in steps))
    for label in labels:
        print(f"{label:{width}}"
              + "".join(f"{1e6 * net_per_op(s, label):>13.1f}" for s in args.sizes)
              + "".join(f"{1e6 * added_per_op(a, b, label):>15.1f}" for a, b in steps))
    print()
    print("targets")
    hopc, xdsl_label = "hopc-opt round trip", "xdsl-opt round trip"
    for size in args.sizes:
        ratio = rows[size][hopc].cpu / rows[size][xdsl_label].cpu
        print(f"  {counts[size]:>6} ops  hopc/xdsl round trip       {ratio:5.2f}x  "
              f"(target <= 1.20x) {'ok' if ratio <= 1.2 else 'MISSED'}")
    if with_passes:
        passes_label = "hopc-opt --canonicalize --cse"
        for size in args.sizes:
            extra = rows[size][passes_label].cpu / rows[size][hopc].cpu - 1
            print(f"  {counts[size]:>6} ops  canonicalize+cse adds      {100 * extra:4.0f}%   "
                  f"(target <= 50%)   {'ok' if extra <= 0.5 else 'MISSED'}")
    else:
        print("  canonicalize+cse: passes/canonicalize.py or passes/cse.py missing; not measured")
    smallest, largest = min(args.sizes), max(args.sizes)
    if smallest != largest:
        for label in labels:
            growth = net_per_op(largest, label) / net_per_op(smallest, label)
            verdict = "ok" if growth <= 1.3 else "MISSED"
            target = "(target <= 1.30x) " + verdict if label.startswith("hopc") else "(peer)"
            print(f"  per-op {counts[largest]}/{counts[smallest]}  {label:<30}{growth:5.2f}x  "
                  f"{target}")
    if len(steps) > 1:
        (a, b), (c, d) = steps[-1], steps[0]
        span = f"{counts[a]}->{counts[b]} / {counts[c]}->{counts[d]}"
        for label in labels:
            growth = added_per_op(*steps[-1], label) / added_per_op(*steps[0], label)
            print(f"  added op {span}  {label:<30}{growth:5.2f}x  (linearity check)")


if __name__ == "__main__":
    main()
