"""Cost of ``--functionalize`` + ``--lift-symbols`` against xDSL's parse+print of the same module.

    python bench/passes.py [--sizes 1000 10000 50000] [--repeats 3]

Generates modules of about 1k, 10k and 50k ops made of a repeated unit: in-place
ops through views (select, transpose, view of a symbolic size) of a tensor with
a symbolic dimension, and a ``hop.cond`` whose branches reshape through
``#hop.expr`` sizes and read an outer size by name (so both passes have work in
every region). In one process it times, on freshly parsed copies:

- hopc: ``functionalize`` then ``lift-symbols`` (the passes only, parsing excluded);
- the peer: xDSL parsing and printing the same module's generic form with a
  plain xDSL context (hop and aten unregistered).

CPU time, median of ``--repeats``; the garbage collector is off while timing
both (it otherwise adds a size-dependent cost to whatever runs). Targets
(issue 4): the two passes at most 0.5x the peer's parse+print; per-op cost at
50k at most 1.3x the per-op cost at 1k.

``--process N`` also times whole processes on an N-op module (``bench/startup.py``'s
way: median child CPU over ``--repeats`` interleaved runs): ``hopc-opt
--functionalize --lift-symbols`` against ``xdsl-opt --allow-unregistered-dialect``
parsing and printing its generic form, so start-up and imports (sympy: Note
[lazy sympy] in ``hopc.ir.dims``) count too.
"""

from __future__ import annotations

import argparse
import gc
import platform
import statistics
import tempfile
import time
from collections.abc import Callable
from io import StringIO
from pathlib import Path

import xdsl
from startup import _run, _tool
from xdsl.context import Context
from xdsl.dialects.builtin import Builtin
from xdsl.dialects.func import Func
from xdsl.parser import Parser
from xdsl.printer import Printer

from hopc.dialects.context import make_context
from hopc.dialects.parse import parse_module
from hopc.passes import pass_class

T = "!hop.tensor<[s0, 8], f32>"
ROW = "!hop.tensor<[8], f32>"
TRANSPOSED = "!hop.tensor<[8, s0], f32>"
FLAT = "!hop.tensor<[8*s0], f32>"
PREDICATE = "!hop.tensor<[], i1>"


def _unit(k: int, current: str) -> list[str]:
    """One unit of ~12 ops; returns its lines, the last defining ``%cur{k}``."""
    return [
        f"%row{k} = aten.select.int({current}) {{dim = 0 : i64, index = 0 : i64}} : ({T}) -> {ROW}",
        f"%inc{k} = aten.add_.Scalar(%row{k}) {{other = 1 : i64}} : ({ROW}) -> {ROW}",
        f"%tr{k} = aten.transpose.int({current}) {{dim0 = 0 : i64, dim1 = 1 : i64}} : ({T}) -> {TRANSPOSED}",
        f"%dbl{k} = aten.mul_.Scalar(%tr{k}) {{other = 2 : i64}} : ({TRANSPOSED}) -> {TRANSPOSED}",
        f"%flat{k} = aten.view({current}) {{size = [#hop.expr<8*s0>]}} : ({T}) -> {FLAT}",
        f"%neg{k} = aten.neg_(%flat{k}) : ({FLAT}) -> {FLAT}",
        f"%sum{k} = aten.sum({current}) : ({T}) -> !hop.tensor<[], f32>",
        f"%p{k} = aten.gt.Scalar(%sum{k}) {{other = 0 : i64}} : (!hop.tensor<[], f32>) -> {PREDICATE}",
        f"%c{k} = hop.cond %p{k}({current}) : {PREDICATE}, ({T}) -> {T} then {{",
        f"^bb0(%a{k}: {T}):",
        f"  %s{k} = aten.sin(%a{k}) : ({T}) -> {T}",
        f"  %f{k} = aten.view(%s{k}) {{size = [#hop.expr<8*s0>]}} : ({T}) -> {FLAT}",
        f"  %b{k} = aten.view(%f{k}) {{size = [#hop.expr<s0>, 8]}} : ({FLAT}) -> {T}",
        f"  hop.yield %b{k} : {T}",
        "} else {",
        f"^bb0(%e{k}: {T}):",
        f"  %o{k} = aten.cos(%e{k}) : ({T}) -> {T}",
        f"  hop.yield %o{k} : {T}",
        "}",
        f"%cur{k} = aten.add.Tensor(%c{k}, {current}) : ({T}, {T}) -> {T}",
    ]


OPS_PER_UNIT = 16


def generate(ops: int) -> str:
    lines = ["hop.symbol @s0 backed [2, oo]", f"func.func @forward(%x: {T}) -> {T} {{"]
    current = "%x"
    for k in range(max(1, ops // OPS_PER_UNIT)):
        lines += ["  " + line for line in _unit(k, current)]
        current = f"%cur{k}"
    lines += [f"  func.return {current} : {T}", "}"]
    return "\n".join(lines) + "\n"


def _cpu_seconds(action: Callable[[], object]) -> float:
    gc.collect()
    gc.disable()
    try:
        start = time.process_time()
        action()
        return time.process_time() - start
    finally:
        gc.enable()


def _median(action: Callable[[], object], repeats: int, prepare: Callable[[], object]) -> float:
    times = []
    for _ in range(repeats):
        subject = prepare()
        times.append(_cpu_seconds(lambda subject=subject: action(subject)))
    return statistics.median(times)


def _generic(text: str) -> str:
    stream = StringIO()
    Printer(stream=stream, print_generic_format=True).print_op(parse_module(text))
    return stream.getvalue()


def _xdsl_round_trip(generic: str) -> None:
    context = Context(allow_unregistered=True)
    context.load_dialect(Builtin)
    context.load_dialect(Func)
    module = Parser(context, generic).parse_module()
    Printer(stream=StringIO(), print_generic_format=True).print_op(module)


def measure(ops: int, repeats: int) -> tuple[int, float, float]:
    text = generate(ops)
    generic = _generic(text)
    context = make_context()
    passes = [pass_class("functionalize")(), pass_class("lift-symbols")()]
    count = sum(1 for _ in parse_module(text).walk()) - 1

    def run_passes(module: object) -> None:
        for module_pass in passes:
            module_pass.apply(context, module)

    hopc = _median(run_passes, repeats, lambda: parse_module(text))
    peer = _median(lambda _: _xdsl_round_trip(generic), repeats, lambda: None)
    return count, hopc, peer


def measure_process(ops: int, runs: int) -> tuple[float, float]:
    """Median child CPU seconds of (hopc-opt's two passes, xdsl-opt's round trip)."""
    with tempfile.TemporaryDirectory(prefix="hopc-passes-") as directory:
        hop_file, generic_file = Path(directory) / "m.mlir", Path(directory) / "m_generic.mlir"
        text = generate(ops)
        hop_file.write_text(text)
        generic_file.write_text(_generic(text))
        commands = [[_tool("hopc-opt"), "--functionalize", "--lift-symbols", str(hop_file)],
                    [_tool("xdsl-opt"), "--allow-unregistered-dialect", str(generic_file)]]
        for command in commands:  # warm the file system cache and .pyc files
            _run(command)
        samples: list[list[float]] = [[], []]
        for _ in range(runs):
            for sample, command in zip(samples, commands):
                sample.append(_run(command)[0])
    hopc, peer = (statistics.median(sample) for sample in samples)
    return hopc, peer


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000, 50000])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--process", type=int, metavar="N",
                        help="also time whole processes on an N-op module")
    args = parser.parse_args()
    print(f"python {platform.python_version()}, xDSL {xdsl.__version__}, "
          f"median of {args.repeats}; CPU seconds, garbage collector off while timing")
    print(f"{'ops':>8} {'functionalize+lift':>20} {'xdsl parse+print':>18} {'ratio':>7} "
          f"{'us/op (passes)':>15}")
    rows = []
    for size in args.sizes:
        count, hopc, peer = measure(size, args.repeats)
        rows.append((count, hopc, peer))
        print(f"{count:>8} {hopc:>20.3f} {peer:>18.3f} {hopc / peer:>6.2f}x "
              f"{1e6 * hopc / count:>15.1f}")
    print("targets")
    for count, hopc, peer in rows:
        verdict = "ok" if hopc / peer <= 0.5 else "MISSED"
        print(f"  {count:>8} ops  passes/xdsl parse+print  {hopc / peer:5.2f}x (target <= 0.50x) {verdict}")
    first, last = rows[0], rows[-1]
    growth = (last[1] / last[0]) / (first[1] / first[0])
    verdict = "ok" if growth <= 1.3 else "MISSED"
    print(f"  per-op {last[0]}/{first[0]}: {growth:.2f}x (target <= 1.30x) {verdict}")
    if args.process:
        hopc, peer = measure_process(args.process, args.repeats)
        print(f"whole processes, {args.process}-op module: hopc-opt --functionalize "
              f"--lift-symbols {hopc:.3f} s, xdsl-opt round trip {peer:.3f} s: {hopc / peer:.2f}x CPU")


if __name__ == "__main__":
    main()
