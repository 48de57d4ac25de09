"""How the cost per op of every registered pass, and of parsing and printing, grows with the module.

    python bench/ir_throughput.py --passes [--sizes 1000 2000 4000 8000] [--repeats 3]
                                  [--quick] [--only convert-hop-to-kernel plan-memory ...]

For each size, ``ModuleWriter(size, trainable=True)`` (``bench/ir_modules.py``)
is parsed and taken through the pipeline; each pass of
``hopc.passes.PASS_CLASSES`` then runs, in process, on a copy of the module at
the level it expects (``INPUT_STAGES``: ``plan-memory`` after
``convert-hop-to-kernel``, ``lift-symbols`` after ``functionalize``, ...; a
pass the table does not name gets the pipeline's output). ``parse``,
``verify`` and ``print`` are ``hopc.dialects.parse.parse_module`` (of the custom
form), ``hopc.dialects.verify.verify_module`` and ``str`` of the pipeline's output;
``parse kernel``, ... the same for the kernel level.

Each time is the least CPU time (``time.process_time``) over ``--repeats``
runs (fewer where the runs so far took ``REPEAT_BUDGET`` seconds), with the
garbage collector off while timing (it otherwise adds a size-dependent cost
to whatever runs): on a shared machine load from elsewhere only adds time.

Every size is measured warm: before its timed runs, each row runs once
untimed on the same input, which loads what the row imports (torch, sympy)
and fills the process's per-signature caches (``autograd``'s derivative
traces, the op tracer's result types) with every signature of that input.
Each block's own scale (``trainable``) is a signature of its own, so without
that run the first run of a size would trace one derivative per block and
the others none: the least of the repeats would be a warm run at the small
sizes, where the budget allows repeats, and a cold one at the large sizes,
where it does not. Warm, every size times the pass's own work alone.

The per-op cost divides by the ops (all of them, nested ones included) of the
pass's input; the target (issue 25) is at most 1.3x the smallest size's at
the largest size, for every row.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable, Sequence

from ir_modules import ModuleWriter
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp

from hopc.dialects.context import make_context
from hopc.dialects.parse import parse_module
from hopc.dialects.verify import verify_module
from hopc.passes import PASS_CLASSES, pass_class
from hopc.passes.pipeline import STAGES

KERNEL_STAGES = (*STAGES, "convert-hop-to-kernel")

INPUT_STAGES: dict[str, tuple[str, ...]] = {
    "functionalize": (),
    "lift-symbols": ("functionalize",),
    "canonicalize": ("functionalize", "lift-symbols"),
    "cse": ("functionalize", "lift-symbols"),
    "dce": ("functionalize", "lift-symbols"),
    "plan-memory": KERNEL_STAGES,
}
"""The stages a pass's input has been through, each a prefix of ``KERNEL_STAGES`` (so one run of
the pipeline makes every input); any other pass gets ``STAGES``' output."""

GROWTH_TARGET = 1.3
REPEAT_BUDGET = 5.0
"""Seconds of runs after which a row is not repeated further at that size."""


def input_stages(name: str) -> tuple[str, ...]:
    return INPUT_STAGES.get(name, STAGES)


def modules_by_stages(size: int, wanted: set[tuple[str, ...]], context: Context) -> dict[tuple[str, ...], ModuleOp]:
    """The generated module of ``size`` ATen ops after each wanted stage prefix (copies)."""
    module = parse_module(ModuleWriter(size, trainable=True).module())
    found: dict[tuple[str, ...], ModuleOp] = {}
    done: tuple[str, ...] = ()
    for stages in sorted(wanted, key=len):
        for name in stages[len(done):]:
            pass_class(name)().apply(context, module)
        done = stages
        found[stages] = module.clone()
    return found


def least_cpu_seconds(action: Callable[[object], object], prepare: Callable[[], object],
                      repeats: int, budget: float = REPEAT_BUDGET) -> float:
    """The least CPU time of ``action(prepare())`` over ``repeats`` runs, collector off; no
    further run once the runs so far took ``budget`` seconds (a slow row needs no repeats to
    show how it grows, and would make the benchmark long)."""
    best, spent = float("inf"), 0.0
    for _ in range(repeats):
        subject = prepare()
        gc.collect()
        gc.disable()
        try:
            start = time.process_time()
            action(subject)
            seconds = time.process_time() - start
        finally:
            gc.enable()
        best, spent = min(best, seconds), spent + seconds
        if spent >= budget:
            break
    return best


def measurements(passes: Sequence[str], context: Context) -> dict[str, tuple[tuple[str, ...], Callable, bool]]:
    """Row label -> (stages of its input, action on that input, whether it takes the text)."""
    rows: dict[str, tuple[tuple[str, ...], Callable, bool]] = {}
    for name in passes:
        rows[name] = (input_stages(name), lambda module, name=name: pass_class(name)().apply(context, module),
                      False)
    for suffix, stages in (("", STAGES), (" kernel", KERNEL_STAGES)):
        rows[f"parse{suffix}"] = (stages, parse_module, True)
        rows[f"verify{suffix}"] = (stages, verify_module, False)
        rows[f"print{suffix}"] = (stages, str, False)
    return rows


def measure(sizes: Sequence[int], repeats: int, passes: Sequence[str]) -> tuple[dict, dict]:
    """(label -> size -> least seconds, label -> size -> ops in the input)."""
    context = make_context()
    rows = measurements(passes, context)
    wanted = {stages for stages, _, _ in rows.values()}
    seconds: dict[str, dict[int, float]] = {label: {} for label in rows}
    ops: dict[str, dict[int, int]] = {label: {} for label in rows}
    for size in sizes:
        inputs = modules_by_stages(size, wanted, context)
        texts = {stages: str(module) for stages, module in inputs.items()}
        for label, (stages, action, takes_text) in rows.items():
            module = inputs[stages]
            prepare = (lambda text=texts[stages]: text) if takes_text else module.clone
            action(prepare())  # warms the caches with this input's signatures (the module docstring)
            seconds[label][size] = least_cpu_seconds(action, prepare, repeats)
            ops[label][size] = sum(1 for _ in module.walk()) - 1
        print(f"  {size} ATen ops generated: measured", flush=True)
    return seconds, ops


def report(sizes: Sequence[int], seconds: dict, ops: dict) -> None:
    smallest, largest = min(sizes), max(sizes)
    width = max(map(len, seconds)) + 2
    print("microseconds of CPU per op of the input (ops: of the largest input), least of the "
          "repeats, collector off")
    print(f"{'':{width}}" + "".join(f"{size:>10}" for size in sizes)
          + f"{'ops':>9}{'growth':>9}  target <= {GROWTH_TARGET}x")
    for label in seconds:
        per_op = {size: 1e6 * seconds[label][size] / ops[label][size] for size in sizes}
        growth = per_op[largest] / per_op[smallest]
        verdict = "ok" if growth <= GROWTH_TARGET else "MISSED"
        print(f"{label:{width}}" + "".join(f"{per_op[size]:>10.1f}" for size in sizes)
              + f"{ops[label][largest]:>9}{growth:>8.2f}x  {verdict}")


def run(sizes: Sequence[int], repeats: int, only: Sequence[str] | None) -> None:
    passes = list(only) if only else list(PASS_CLASSES)
    seconds, ops = measure(sizes, repeats, passes)
    report(sizes, seconds, ops)
