"""IR throughput of ``hopc-opt`` against ``xdsl-opt`` on large generated modules.

    python bench/ir_throughput.py [--sizes 1000 10000 50000] [--repeats 5]

Generates hop-level modules of 1k, 10k and 50k ATen ops (a realistic mix:
elementwise ops, matmuls, views with symbolic sizes, shape-symbol arithmetic,
repeated subexpressions for CSE, and nested ``hop.cond``/``hop.while`` regions),
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

HIDDEN = 64
"""Feature width of every activation: ``!hop.tensor<[s0, 64], f32>``."""


# --------------------------------------------------------------------------- generation


def _tensor(*dims: int | str, dtype: str = "f32") -> str:
    return f"!hop.tensor<[{', '.join(map(str, dims))}], {dtype}>"


ACTIVATION = _tensor("s0", HIDDEN)
WEIGHT = _tensor(HIDDEN, HIDDEN)
PREDICATE = _tensor(dtype="i1")
COUNTER = _tensor(dtype="i64")


class ModuleWriter:
    """Writes the generic form of a module of about ``target`` ATen ops.

    Values are SSA names; ``emit_*`` methods append one op each and return its
    result. Regions nest up to two levels: a ``hop.while`` whose body holds a
    ``hop.cond``.
    """

    def __init__(self, target: int):
        self.target = target
        self.aten_ops = 0
        self.lines: list[str] = []
        self.counter = 0
        self.indent = 2

    def fresh(self) -> str:
        self.counter += 1
        return f"%v{self.counter}"

    def emit(self, text: str) -> None:
        self.lines.append(" " * self.indent + text)

    def aten(self, name: str, operands: list[str], operand_types: list[str],
             result_type: str, properties: str = "") -> str:
        result = self.fresh()
        props = f" <{{{properties}}}>" if properties else ""
        self.emit(f'{result} = "aten.{name}"({", ".join(operands)}){props} : '
                  f'({", ".join(operand_types)}) -> {result_type}')
        self.aten_ops += 1
        return result

    # ----------------------------------------------------------------- op mixes

    def elementwise_block(self, x: str, w: str) -> str:
        """Nine ATen ops: a linear layer, activations, a view round trip and a repeated relu."""
        h = self.aten("mm", [x, w], [ACTIVATION, WEIGHT], ACTIVATION)
        h = self.aten("add.Tensor", [h, x], [ACTIVATION, ACTIVATION], ACTIVATION,
                      "alpha = 1 : i64")
        a = self.aten("relu", [h], [ACTIVATION], ACTIVATION)
        again = self.aten("relu", [h], [ACTIVATION], ACTIVATION)  # CSE merges it with `a`
        s = self.aten("sigmoid", [a], [ACTIVATION], ACTIVATION)
        m = self.aten("mul.Tensor", [s, again], [ACTIVATION, ACTIVATION], ACTIVATION)
        halves = _tensor("2*s0", HIDDEN // 2)
        v = self.aten("view", [m], [ACTIVATION], halves,
                      f"size = [#hop.expr<2*s0>, {HIDDEN // 2} : i64]")
        v = self.aten("mul.Scalar", [v], [halves], halves, "other = 5.000000e-01 : f64")
        return self.aten("view", [v], [halves], ACTIVATION,
                         f"size = [#hop.expr<s0>, {HIDDEN} : i64]")

    def symbol_arithmetic(self, x: str) -> None:
        """Shape-symbol ops, as Dynamo emits them for size checks; unused, so dead."""
        n = self.fresh()
        self.emit(f'{n} = "hop.sym_size"({x}) <{{dim = 0 : i64}}> : ({ACTIVATION}) '
                  "-> !hop.symint<s0>")
        two = self.fresh()
        self.emit(f'{two} = "hop.sym_constant"() : () -> !hop.symint<2>')
        product = self.fresh()
        self.emit(f'{product} = "hop.sym_mul"({n}, {two}) : (!hop.symint<s0>, !hop.symint<2>) '
                  f"-> !hop.symint<2*s0>")

    def cond(self, p: str, x: str, w: str) -> str:
        """A ``hop.cond`` whose branches hold one block each."""
        result = self.fresh()
        self.emit(f'{result} = "hop.cond"({p}, {x}, {w}) ({{')
        for _ in range(2):
            self.indent += 2
            bx, bw = self.fresh(), self.fresh()
            self.emit(f"^bb0({bx}: {ACTIVATION}, {bw}: {WEIGHT}):")
            self.indent += 2
            y = self.elementwise_block(bx, bw)
            self.emit(f'"hop.yield"({y}) : ({ACTIVATION}) -> ()')
            self.indent -= 4
            self.emit("}, {" if _ == 0 else "})"
                      f" : ({PREDICATE}, {ACTIVATION}, {WEIGHT}) -> {ACTIVATION}")
        return result

    def while_loop(self, x: str, i: str, w: str) -> str:
        """A ``hop.while`` counting ``i`` down, whose body holds a block and a ``hop.cond``."""
        result = self.fresh()
        self.emit(f'{result}:2 = "hop.while"({x}, {i}, {w}) '
                  f"<{{operandSegmentSizes = array<i32: 2, 1>}}> ({{")
        self.indent += 2
        cx, ci, cw = self.fresh(), self.fresh(), self.fresh()
        self.emit(f"^bb0({cx}: {ACTIVATION}, {ci}: {COUNTER}, {cw}: {WEIGHT}):")
        self.indent += 2
        go = self.aten("gt.Scalar", [ci], [COUNTER], PREDICATE, "other = 0 : i64")
        self.emit(f'"hop.yield"({go}) : ({PREDICATE}) -> ()')
        self.indent -= 4
        self.emit("}, {")
        self.indent += 2
        bx, bi, bw = self.fresh(), self.fresh(), self.fresh()
        self.emit(f"^bb0({bx}: {ACTIVATION}, {bi}: {COUNTER}, {bw}: {WEIGHT}):")
        self.indent += 2
        y = self.elementwise_block(bx, bw)
        odd = self.aten("remainder.Scalar", [bi], [COUNTER], COUNTER, "other = 2 : i64")
        p = self.aten("eq.Scalar", [odd], [COUNTER], PREDICATE, "other = 1 : i64")
        y = self.cond(p, y, bw)
        step = self.aten("sub.Scalar", [bi], [COUNTER], COUNTER, "other = 1 : i64")
        self.emit(f'"hop.yield"({y}, {step}) : ({ACTIVATION}, {COUNTER}) -> ()')
        self.indent -= 4
        self.emit(f"}}) : ({ACTIVATION}, {COUNTER}, {WEIGHT}) -> ({ACTIVATION}, {COUNTER})")
        return f"{result}#0"

    # ----------------------------------------------------------------- module

    def module(self) -> str:
        self.indent = 4
        x, w, p, i = "%x", "%w", "%p", "%i"
        step = 0
        while self.aten_ops < self.target:
            if step % 10 == 9 and self.target - self.aten_ops > 40:
                x = self.while_loop(x, i, w)
            elif step % 10 == 4 and self.target - self.aten_ops > 20:
                x = self.cond(p, x, w)
            else:
                x = self.elementwise_block(x, w)
            if step % 5 == 0:
                self.symbol_arithmetic(x)
            step += 1
        signature = f"({WEIGHT}, {ACTIVATION}, {PREDICATE}, {COUNTER}) -> {ACTIVATION}"
        header = [
            '"builtin.module"() ({',
            '  "hop.symbol"() <{sym_name = "s0", kind = "backed", lower = 2 : i64}> : () -> ()',
            f'  "hop.parameter"() <{{sym_name = "w", type = {WEIGHT}}}> : () -> ()',
            f'  "func.func"() <{{sym_name = "forward", function_type = {signature}, '
            'arg_attrs = [{hop.parameter = @w}, {}, {}, {}]}> ({',
            f"  ^bb0(%w: {WEIGHT}, %x: {ACTIVATION}, %p: {PREDICATE}, %i: {COUNTER}):",
        ]
        footer = [
            f'    "func.return"({x}) : ({ACTIVATION}) -> ()',
            "  }) : () -> ()",
            "}) : () -> ()",
        ]
        return "\n".join(header + self.lines + footer) + "\n"


def tiny_module() -> str:
    """One ATen op: the fixed cost of starting a tool and handling a module."""
    writer = ModuleWriter(0)
    writer.indent = 4
    y = writer.aten("relu", ["%x"], [ACTIVATION], ACTIVATION)
    writer.lines.append(f'    "func.return"({y}) : ({ACTIVATION}) -> ()')
    return "\n".join([
        '"builtin.module"() ({',
        '  "hop.symbol"() <{sym_name = "s0", kind = "backed", lower = 2 : i64}> : () -> ()',
        f'  "func.func"() <{{sym_name = "forward", '
        f"function_type = ({ACTIVATION}) -> {ACTIVATION}}}> ({{",
        f"  ^bb0(%x: {ACTIVATION}):",
        *writer.lines,
        "  }) : () -> ()",
        "}) : () -> ()",
    ]) + "\n"


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
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000, 50000])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
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
