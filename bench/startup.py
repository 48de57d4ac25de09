"""Start-up time of ``hopc-opt --canonicalize`` on a small module, against ``xdsl-opt``.

    python bench/startup.py [--runs 10]

Times ``hopc-opt --canonicalize`` on a small captured module (a matmul, an
add, a ``hop.cond``, a view with a symbolic size, shape-symbol ops) and two
peers that do the same on an equivalent file:

- ``xdsl-opt --allow-unregistered-dialect -p canonicalize`` on the generic form
  of the same module (hop and aten are unregistered there);
- ``xdsl-opt -p canonicalize`` on the same program written in xDSL's own
  ``func``/``arith``/``scf`` dialects.

Runs alternate between the commands; each figure is the median over ``--runs``
runs of the child's CPU time (user + system), with the median wall time beside.
Target (issue 2): hopc-opt under 2x xdsl-opt.
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
from pathlib import Path

import xdsl

SMALL_HOP = """\
hop.symbol @s0 backed [2, oo]
hop.parameter @w : !hop.tensor<[4, 4], f32>
func.func @forward(%w: !hop.tensor<[4, 4], f32> {hop.parameter = @w}, %x: !hop.tensor<[s0, 4], f32>, %p: !hop.tensor<[], i1>) -> !hop.tensor<[2*s0, 2], f32> {
  %0 = aten.mm(%x, %w) : (!hop.tensor<[s0, 4], f32>, !hop.tensor<[4, 4], f32>) -> !hop.tensor<[s0, 4], f32>
  %1 = aten.add.Tensor(%0, %x) {alpha = 2 : i64} : (!hop.tensor<[s0, 4], f32>, !hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32>
  %2 = hop.cond %p(%1) : !hop.tensor<[], i1>, (!hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32> then {
  ^bb0(%a: !hop.tensor<[s0, 4], f32>):
    %3 = aten.sin(%a) : (!hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32>
    hop.yield %3 : !hop.tensor<[s0, 4], f32>
  } else {
  ^bb0(%b: !hop.tensor<[s0, 4], f32>):
    hop.yield %b : !hop.tensor<[s0, 4], f32>
  }
  %n = hop.sym_size %2[0] : !hop.tensor<[s0, 4], f32> -> !hop.symint<s0>
  %two = hop.sym_constant : !hop.symint<2>
  %rows = hop.sym_mul %n, %two : !hop.symint<s0>, !hop.symint<2> -> !hop.symint<2*s0>
  %v = aten.view(%2) {size = [#hop.expr<2*s0>, 2]} : (!hop.tensor<[s0, 4], f32>) -> !hop.tensor<[2*s0, 2], f32>
  func.return %v : !hop.tensor<[2*s0, 2], f32>
}
"""

SMALL_XDSL = """\
func.func @forward(%w: i64, %x: i64, %p: i1) -> i64 {
  %0 = arith.muli %x, %w : i64
  %1 = arith.addi %0, %x : i64
  %2 = scf.if %p -> (i64) {
    %3 = arith.subi %1, %x : i64
    scf.yield %3 : i64
  } else {
    scf.yield %1 : i64
  }
  %n = arith.index_cast %2 : i64 to index
  %two = arith.constant 2 : index
  %rows = arith.muli %n, %two : index
  %v = arith.index_cast %rows : index to i64
  func.return %v : i64
}
"""


def _tool(name: str) -> str:
    return shutil.which(name) or str(Path(sys.executable).with_name(name))


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _run(command: list[str]) -> tuple[float, float]:
    """(CPU, wall) seconds of one run; fails loudly on a non-zero exit."""
    cpu_start, wall_start = _children_cpu(), time.perf_counter()
    run = subprocess.run(command, capture_output=True, text=True)
    wall = time.perf_counter() - wall_start
    if run.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed:\n{run.stderr[-2000:]}")
    return _children_cpu() - cpu_start, wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="hopc-startup-") as directory:
        root = Path(directory)
        names = ("small.mlir", "small_generic.mlir", "small_xdsl.mlir")
        hop_file, generic_file, xdsl_file = (root / name for name in names)
        hop_file.write_text(SMALL_HOP)
        generic = subprocess.run([_tool("hopc-opt"), str(hop_file), "--print-op-generic"],
                                 capture_output=True, text=True, check=True).stdout
        generic_file.write_text(generic)
        xdsl_file.write_text(SMALL_XDSL)
        commands = {
            "hopc-opt --canonicalize": [_tool("hopc-opt"), "--canonicalize", str(hop_file)],
            "xdsl-opt -p canonicalize (same module, generic)":
                [_tool("xdsl-opt"), "--allow-unregistered-dialect", "-p", "canonicalize",
                 str(generic_file)],
            "xdsl-opt -p canonicalize (func/arith/scf)":
                [_tool("xdsl-opt"), "-p", "canonicalize", str(xdsl_file)],
        }
        for command in commands.values():  # warm the file system cache and .pyc files
            _run(command)
        samples: dict[str, list[tuple[float, float]]] = {label: [] for label in commands}
        for _ in range(args.runs):
            for label, command in commands.items():
                samples[label].append(_run(command))
    print(f"python {platform.python_version()}, xDSL {xdsl.__version__}, {platform.machine()}; "
          f"median of {args.runs} runs")
    width = max(map(len, commands)) + 2
    print(f"{'':{width}}{'CPU s':>8}{'wall s':>8}")
    medians = {}
    for label, runs in samples.items():
        cpu = statistics.median(c for c, _ in runs)
        wall = statistics.median(w for _, w in runs)
        medians[label] = (cpu, wall)
        print(f"{label:{width}}{cpu:>8.3f}{wall:>8.3f}")
    hopc_cpu, hopc_wall = medians["hopc-opt --canonicalize"]
    print()
    for label in list(commands)[1:]:
        cpu, wall = medians[label]
        ratio = hopc_cpu / cpu
        print(f"hopc-opt / {label}: {ratio:.2f}x CPU, {hopc_wall / wall:.2f}x wall "
              f"(target < 2x) {'ok' if ratio < 2 else 'MISSED'}")


if __name__ == "__main__":
    main()
