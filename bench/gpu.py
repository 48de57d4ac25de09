"""hopc on one CUDA device against eager PyTorch and torch.compile (NOTES-gpu.md section 5).

    python bench/gpu.py [--programs cond-stack,rnn,...] [--modes forward,training]
                        [--systems eager,...] [--rounds 5] [--calls 100] [--short] [--json PATH]

Programs, small and launch-bound, where CUDA graphs and device-side control flow pay:
``cond-stack``, eight ``torch.cond`` layers, each choosing ``tanh(h @ a)`` or ``relu(h @ b)``
by the sign of the carry's sum, h [8, 64] (branches too big to become selects); ``rnn``,
bench/cpu_programs.py's 100-step ``while_loop`` RNN ``h = tanh(h @ w)`` (h [8, 16]) with its
counter on the device, so that eager and Inductor read the loop's predicate from the GPU
every step; ``scan``, its 100-step ``scan`` of ``tanh(h + x_t @ w)``; ``checkpointed``, its
four checkpointed 2-layer stages [32, 64]; ``block``, its transformer block [2, 16, 64].
Each runs forward (under ``torch.no_grad()``) and as a training step (forward, then the
backward of ``.sum()``).

Systems: ``eager``; ``inductor`` (``torch.compile``); ``inductor-ro``
(``mode="reduce-overhead"``: Inductor and cudagraph trees, a new step marked before each
call); ``cudagraphs`` (``backend="cudagraphs"``: AOT Autograd and cudagraph trees, no
Inductor); ``hopc-triton`` and ``hopc-cuda`` (``hopc.compile`` with ``executor="triton"``:
generated Triton kernels; ``"cuda"``: the same in CUDA graphs per size).

1. Correctness guard: each system's first output (in training also its gradients) against
   the program's plain-Python form where it has one (``unrolled``: an ``if``, a ``for``, no
   checkpoint), eager's otherwise (``allclose``, rtol 1e-3, atol 1e-4); ``!`` marks a
   mismatch. Not eager's: on the RNN eager's ``while_loop`` gives another weight gradient
   than the unrolled loop (torch 2.13 on the CPU: largest entry 0.33, the unrolled loop's
   11.7, hopc's the unrolled loop's), so ``eager`` itself may show ``!`` in training. A system that fails
   shows its exception's type, and the message below the table; one Dynamo ran eagerly
   after its backend failed shows ``fallback``.
2. First call: from the compile call to the first result with the device synchronized, in
   this process, in seconds. Triton's and Inductor's on-disk caches start empty (the device
   check points them at fresh folders) but are warm for a later system that compiles the
   same kernels.
3. Steady state: after three warm-up calls, the median over rounds of the time of N calls
   with the device synchronized once per batch (launch-bound programs are host-bound:
   what is timed is what a caller waits for), per call, in microseconds.
4. Bandwidth: a device-to-device copy (``copy_`` of 256 MiB: bytes read and written per
   second), and hopc's fused pointwise (``relu(x * y + 1)``) and reduction (a softmax over
   rows of 4,096) kernels on inputs of 256 MiB, as GB/s (the bytes one pass must read and
   write, per second) and a fraction of the copy's.

``--short`` is the device check's run (scripts/gpu_check.sh): rnn, cond-stack and block,
three rounds of 20 calls, hopc's systems right after eager; the bandwidth rows come first.
Rows print as they finish and the JSON file (``--json``, by default ``$OUT/gpu_bench.json``
where ``OUT`` is set) is rewritten after each cell, so an interrupted run keeps what it
measured; ``--tables JSON`` prints a saved run's tables.
Without CUDA it says so and exits.
"""

from __future__ import annotations

import argparse
import copy
import json
import math
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import torch
from cpu_programs import PROGRAMS, Rnn  # bench/ is the script's own directory
from cpu_systems import backend_fallback, failure_reason, grad_mode, own_code
from torch._higher_order_ops.while_loop import while_loop

SYSTEMS = ("eager", "inductor", "inductor-ro", "cudagraphs", "hopc-triton", "hopc-cuda")
MODES = ("forward", "training")
RTOL, ATOL = 1e-3, 1e-4
BANDWIDTH_BYTES = 256 * 2**20
DEVICE = "cuda"
SHORT = {"programs": "rnn,cond-stack,block", "rounds": 3, "calls": 20,
         "systems": "eager,hopc-cuda,hopc-triton,inductor-ro,inductor,cudagraphs"}


class CondStack(torch.nn.Module):
    """``depth`` layers of ``h = cond(h.sum() > 0, tanh(h @ a), relu(h @ b))``."""

    def __init__(self, width: int = 64, depth: int = 8):
        super().__init__()
        self.a = torch.nn.ParameterList(torch.randn(width, width) / math.sqrt(width) for _ in range(depth))
        self.b = torch.nn.ParameterList(torch.randn(width, width) / math.sqrt(width) for _ in range(depth))

    def forward(self, h: torch.Tensor) -> torch.Tensor:
        for a, b in zip(self.a, self.b):
            h = torch.cond(h.sum() > 0, self.then_branch, self.else_branch, (h, a, b))
        return h

    def unrolled(self, h: torch.Tensor) -> torch.Tensor:
        for a, b in zip(self.a, self.b):
            h = torch.tanh(h @ a) if h.sum() > 0 else torch.relu(h @ b)
        return h

    @staticmethod
    def then_branch(h: torch.Tensor, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return torch.tanh(h @ a)

    @staticmethod
    def else_branch(h: torch.Tensor, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return torch.relu(h @ b)


class DeviceRnn(Rnn):
    """bench/cpu_programs.py's RNN with the loop counter on the carry's device."""

    def forward(self, h: torch.Tensor) -> torch.Tensor:
        def condition(i: torch.Tensor, h: torch.Tensor) -> torch.Tensor:
            return i < self.steps

        def body(i: torch.Tensor, h: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
            return i + 1, torch.tanh(h @ self.w)

        return while_loop(condition, body, (torch.zeros((), dtype=torch.int64, device=h.device), h))[1]


MODELS: dict[str, tuple[Callable[[], torch.nn.Module], tuple[int, ...]]] = {
    "cond-stack": (CondStack, (8, 64)),
    "rnn": (DeviceRnn, PROGRAMS["rnn"].input_shape),
    "scan": (PROGRAMS["scan"].model, PROGRAMS["scan"].input_shape),
    "checkpointed": (PROGRAMS["checkpointed"].model, PROGRAMS["checkpointed"].input_shape),
    "block": (PROGRAMS["block"].model, PROGRAMS["block"].input_shape),
}


def synchronized(function: Callable[[], object]) -> float:
    """Seconds ``function()`` takes, the device synchronized before and after."""
    torch.cuda.synchronize()
    start = time.perf_counter()
    function()
    torch.cuda.synchronize()
    return time.perf_counter() - start


def compiled(system: str, model: torch.nn.Module) -> Callable:
    """``model`` as ``system`` runs it; compiling systems compile on the first call."""
    if system == "eager":
        return model
    if system.startswith("hopc-"):
        import hopc

        return hopc.compile(model, executor=system.removeprefix("hopc-"))
    if system == "inductor":
        return torch.compile(model)
    function = torch.compile(model, mode="reduce-overhead") if system == "inductor-ro" else \
        torch.compile(model, backend="cudagraphs")

    def new_step_each_call(*args: torch.Tensor) -> torch.Tensor:  # cudagraph trees may reuse the last outputs
        torch.compiler.cudagraph_mark_step_begin()
        return function(*args)

    return new_step_each_call


def step(function: Callable, mode: str) -> Callable:
    """A call of ``function`` or, for training, its forward and the backward of ``.sum()``."""
    if mode == "forward":
        return function

    def training_step(x: torch.Tensor) -> torch.Tensor:
        output = function(x)
        output.sum().backward()
        return output

    return training_step


def outcome(run: Callable, model: torch.nn.Module, x: torch.Tensor, mode: str) -> list[torch.Tensor]:
    """The output of one step (for training, and the gradients it leaves), from cleared gradients."""
    for parameter in model.parameters():
        parameter.grad = None
    output = run(x)
    gradients = [p.grad.clone() for p in model.parameters() if p.grad is not None] if mode == "training" else []
    return [output.detach().clone(), *gradients]


def matches(values: list[torch.Tensor], expected: list[torch.Tensor]) -> bool:
    return len(values) == len(expected) and all(
        v.shape == e.shape and torch.allclose(v, e, rtol=RTOL, atol=ATOL) for v, e in zip(values, expected))


def steady_us(run: Callable, x: torch.Tensor, calls: int, rounds: int) -> float:
    """The median over ``rounds`` of the time per call of ``calls`` calls, synchronized per batch."""
    def batch() -> None:
        for _ in range(calls):
            run(x)

    return statistics.median(synchronized(batch) / calls * 1e6 for _ in range(rounds))


def measure(name: str, mode: str, system: str, options: argparse.Namespace) -> dict[str, object]:
    """One cell: first-call seconds, steady-state microseconds, and whether it matched the reference."""
    from torch._dynamo.utils import counters

    make_model, shape = MODELS[name]
    torch.manual_seed(0)
    base = make_model().to(DEVICE)
    x = torch.randn(*shape, device=DEVICE)
    eager_model = copy.deepcopy(base)
    with grad_mode("inference" if mode == "forward" else "training"):
        expected = outcome(step(getattr(eager_model, "unrolled", eager_model), mode), eager_model, x, mode)
        model = own_code(copy.deepcopy(base), system)
        torch._dynamo.reset()
        counters.clear()
        try:
            run: Callable = step(compiled(system, model), mode)
            values: list[torch.Tensor] = []
            first = synchronized(lambda: values.extend(outcome(run, model, x, mode)))
            fallback = backend_fallback()
            for _ in range(3):
                run(x)
            us = steady_us(run, x, options.calls, options.rounds)
        except Exception as failure:  # a system that cannot compile or run this program
            kind, message = failure_reason(failure)
            return {"error": kind, "message": message}
    cell = {"us": us, "first_s": first, "ok": matches(values, expected)}
    if fallback:
        cell["fallback"] = fallback
    return cell


def bandwidth() -> dict[str, dict[str, float]]:
    """GB/s of a device-to-device copy, and of hopc's fused pointwise and reduction kernels: the
    median over ten samples of ten calls each, synchronized per sample."""
    import hopc

    elements = BANDWIDTH_BYTES // 4
    source, target = torch.randn(elements, device=DEVICE), torch.empty(elements, device=DEVICE)
    x, y = torch.randn(elements, device=DEVICE), torch.randn(elements, device=DEVICE)
    rows = torch.randn(elements // 4096, 4096, device=DEVICE)
    kernels = [  # (name, function, arguments, how many tensors of BANDWIDTH_BYTES one pass moves)
        ("copy", target.copy_, (source,), 2),
        ("hopc pointwise relu(x * y + 1)", hopc.compile(lambda x, y: torch.relu(x * y + 1), executor="triton"),
         (x, y), 3),
        ("hopc reduction softmax(rows)", hopc.compile(lambda r: torch.softmax(r, dim=-1), executor="triton"),
         (rows,), 2),
    ]
    results = {}
    with torch.no_grad():
        for name, function, arguments, tensors_moved in kernels:
            def ten_calls(function=function, arguments=arguments) -> None:
                for _ in range(10):
                    function(*arguments)

            try:
                ten_calls()
                seconds = statistics.median(synchronized(ten_calls) / 10 for _ in range(10))
                results[name] = {"gb_per_s": tensors_moved * BANDWIDTH_BYTES / seconds / 1e9}
            except Exception as failure:  # a kernel hopc cannot compile or run is reported, not fatal
                results[name] = {"error": "{}: {}".format(*failure_reason(failure))}
    copy_rate = results["copy"].get("gb_per_s")
    for result in results.values():
        if copy_rate and "gb_per_s" in result:
            result["of_copy"] = result["gb_per_s"] / copy_rate
    return results


def cell_text(cell: dict[str, object]) -> str:
    if "error" in cell:
        return str(cell["error"])
    mark = "" if cell["ok"] else "!"
    fallback = " fallback" if "fallback" in cell else ""
    return f"{cell['us']:.1f}{mark} ({cell['first_s']:.1f}){fallback}"


def print_tables(results: dict[str, object], systems: list[str]) -> None:
    print(f"\n{results['device']}, torch {results['torch']}; us per call (first call, s); "
          "! differs from the reference")
    print("| program | mode | " + " | ".join(systems) + " |")
    print("|---|---|" + "---:|" * len(systems))
    messages = []
    for row in results["rows"]:
        cells = [row["cells"].get(system) for system in systems]
        print(f"| {row['program']} | {row['mode']} | "
              + " | ".join("-" if cell is None else cell_text(cell) for cell in cells) + " |")
        messages += [f"{row['program']} {row['mode']} {system}: {cell.get('message') or cell.get('fallback')}"
                     for system, cell in zip(systems, cells) if cell and ("error" in cell or "fallback" in cell)]
    print("\n".join(messages))
    if "bandwidth" in results:
        print("\n| kernel (256 MiB inputs) | GB/s | of copy |\n|---|---:|---:|")
        for name, result in results["bandwidth"].items():
            if "error" in result:
                print(f"| {name} | {result['error'][:100]} | - |")
            else:
                print(f"| {name} | {result['gb_per_s']:.0f} | {result.get('of_copy', 1.0):.2f} |")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--programs", default=",".join(MODELS), help=f"of {', '.join(MODELS)}")
    parser.add_argument("--modes", default=",".join(MODES))
    parser.add_argument("--systems", default=",".join(SYSTEMS))
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--calls", type=int, default=100, help="calls per synchronized batch")
    parser.add_argument("--short", action="store_true", help="the device check's run: " + str(SHORT))
    parser.add_argument("--json", help="where to write the results (default: $OUT/gpu_bench.json where OUT is set)")
    parser.add_argument("--tables", metavar="JSON", help="print the tables of a saved run (no device needed)")
    options = parser.parse_args()
    if options.tables:
        saved = json.loads(Path(options.tables).read_text())
        print_tables(saved, [s for s in options.systems.split(",") if any(s in r["cells"] for r in saved["rows"])])
        return 0
    if not torch.cuda.is_available():
        print("bench/gpu.py: no CUDA device here; it measures hopc on a GPU (bench/cpu.py is the CPU's)",
              file=sys.stderr)
        return 2
    if options.short:
        options.programs, options.rounds, options.calls, options.systems = (
            SHORT["programs"], SHORT["rounds"], SHORT["calls"], SHORT["systems"])
    json_path = options.json or (os.path.join(os.environ["OUT"], "gpu_bench.json") if os.environ.get("OUT") else None)
    systems = options.systems.split(",")
    results: dict[str, object] = {"device": torch.cuda.get_device_name(), "torch": torch.__version__, "rows": []}

    def save() -> None:
        if json_path:
            Path(json_path).write_text(json.dumps(results, indent=1))

    results["bandwidth"] = bandwidth()  # first: seconds, where the programs' compiles take minutes
    save()
    for name in options.programs.split(","):
        for mode in options.modes.split(","):
            cells: dict[str, object] = {}
            results["rows"].append({"program": name, "mode": mode, "cells": cells})
            for system in systems:
                cells[system] = measure(name, mode, system, options)
                save()
            print(f"{name} {mode}: " + ", ".join(f"{s} {cell_text(c)}" for s, c in cells.items()), flush=True)
    print_tables(results, systems)
    return 0


if __name__ == "__main__":
    sys.exit(main())
