"""Training steps of small transformers models: eager, hopc, aot_eager and Inductor (issue 23).

    python bench/real_models.py [--models gpt2,llama,t5] [--rounds 5] [--steps 20]
                                [--skip-first-step | --first-step-only]

Models (random weights, nothing downloaded): GPT-2, Llama (rotary
embeddings, grouped-query attention) and T5 (encoder-decoder), each with
hidden size 64, 2 layers, 4 heads, vocabulary 256, a batch of 4 sequences of
32 tokens (T5: 16 target tokens), dropout off. A step is the forward with
labels, the backward of the loss and an AdamW step. GPT-2's loss is named
(``loss_type = "ForCausalLM"``, the loss transformers falls back to): unnamed,
transformers logs a warning in the forward, at which Dynamo breaks the graph,
so that every compiled system (hopc, aot_eager, Inductor alike) ran GPT-2 as
three compiled frames a step, with six Dynamo cache lookups.

Systems: eager; ``hopc.compile(model)`` (its default executor);
``torch.compile(model, backend="aot_eager")``; ``torch.compile(model)``
(Inductor, C++ kernels here). Each trains its own copy of the same weights.

1. Correctness guard: the first step's loss of each system is compared
   with eager's (rtol 1e-4, atol 1e-5); a mismatch puts ``!`` beside its
   time, a failure prints the exception's type in the cell, its message below.
2. Steady state: one thread, three warm-up steps, then the median over
   ``--rounds`` rounds of the mean time of ``--steps`` steps, every system
   interleaved within a round; milliseconds per step, ratios against eager.
3. First step: each (model, system) in a fresh process (this file with a
   hidden flag), from before the compile call to the end of the first
   optimizer step, in seconds: cold, Inductor's caches (``TORCHINDUCTOR_CACHE_DIR``)
   and hopc's compile cache (``HOPC_CACHE_DIR``) in a fresh directory; then
   warm, a second fresh process given the same directories.

The target on the CPU: hopc at least eager's speed (eager/hopc >= 1).
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from collections.abc import Callable

import torch

SYSTEMS = ("eager", "hopc", "aot_eager", "inductor")
VOCABULARY, BATCH, SEQUENCE = 256, 4, 32
RTOL, ATOL = 1e-4, 1e-5


def _gpt2() -> tuple[torch.nn.Module, dict[str, torch.Tensor]]:
    import transformers

    config = transformers.GPT2Config(vocab_size=VOCABULARY, n_embd=64, n_layer=2, n_head=4, n_positions=64,
                                     resid_pdrop=0.0, embd_pdrop=0.0, attn_pdrop=0.0)
    ids = torch.randint(0, VOCABULARY, (BATCH, SEQUENCE))
    model = transformers.GPT2LMHeadModel(config)
    model.loss_type = "ForCausalLM"  # the loss transformers falls back to, without its graph-breaking warning
    return model, {"input_ids": ids, "labels": ids}


def _llama() -> tuple[torch.nn.Module, dict[str, torch.Tensor]]:
    import transformers

    config = transformers.LlamaConfig(vocab_size=VOCABULARY, hidden_size=64, intermediate_size=128,
                                      num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
                                      max_position_embeddings=64)
    ids = torch.randint(0, VOCABULARY, (BATCH, SEQUENCE))
    return transformers.LlamaForCausalLM(config), {"input_ids": ids, "labels": ids}


def _t5() -> tuple[torch.nn.Module, dict[str, torch.Tensor]]:
    import transformers

    config = transformers.T5Config(vocab_size=VOCABULARY, d_model=64, d_kv=16, d_ff=128, num_layers=2,
                                   num_heads=4, decoder_start_token_id=0, dropout_rate=0.0)
    inputs = {"input_ids": torch.randint(0, VOCABULARY, (BATCH, SEQUENCE)),
              "labels": torch.randint(0, VOCABULARY, (BATCH, SEQUENCE // 2))}
    return transformers.T5ForConditionalGeneration(config), inputs


MODELS = {"gpt2": _gpt2, "llama": _llama, "t5": _t5}


def make(name: str) -> tuple[torch.nn.Module, dict[str, torch.Tensor]]:
    """The model ``name`` in training mode and one batch of its inputs, the same on every call."""
    torch.manual_seed(0)
    model, inputs = MODELS[name]()
    return model.train(), inputs


def compiled(system: str, model: torch.nn.Module) -> Callable:
    if system == "eager":
        return model
    if system == "hopc":
        import hopc

        return hopc.compile(model)
    return torch.compile(model, backend="aot_eager" if system == "aot_eager" else "inductor")


def training_step(function: Callable, optimizer: torch.optim.Optimizer, inputs: dict) -> torch.Tensor:
    """Forward with labels, backward of the loss, one AdamW step; the loss."""
    loss = function(**inputs).loss
    loss.backward()
    optimizer.step()
    optimizer.zero_grad()
    return loss.detach()


def failure_reason(failure: BaseException) -> tuple[str, str]:
    inner = getattr(failure, "inner_exception", None) or failure
    lines = [line for line in str(inner).splitlines() if line.strip()]
    return type(inner).__name__, (lines[0].strip() if lines else "")[:300]


def steady_state(name: str, rounds: int, steps: int) -> dict[str, tuple[float | None, str]]:
    """Each system's median milliseconds per step and its mark ("" / "!" / a failure)."""
    torch._dynamo.reset()
    model, inputs = make(name)
    results: dict[str, tuple[float | None, str]] = {}
    runs: dict[str, Callable[[], torch.Tensor]] = {}
    expected = None
    for system in SYSTEMS:
        own = copy.deepcopy(model)
        optimizer = torch.optim.AdamW(own.parameters(), lr=1e-3)
        try:
            function = compiled(system, own)
            run = (lambda f, o: lambda: training_step(f, o, inputs))(function, optimizer)
            loss = run()
            expected = loss if expected is None else expected
            mark = "" if torch.allclose(loss, expected, rtol=RTOL, atol=ATOL) else "!"
            for _ in range(3):
                run()
            runs[system] = run
            results[system] = (None, mark)
        except Exception as failure:
            results[system] = (None, "{}: {}".format(*failure_reason(failure)))
    samples: dict[str, list[float]] = {system: [] for system in runs}
    for _ in range(rounds):
        for system, run in runs.items():
            start = time.perf_counter()
            for _ in range(steps):
                run()
            samples[system].append((time.perf_counter() - start) / steps * 1e3)
    for system, times in samples.items():
        results[system] = (statistics.median(times), results[system][1])
    return results


def first_step(name: str, system: str) -> None:
    """Child process: seconds from before the compile call to the end of the first step, as JSON."""
    torch.set_num_threads(1)
    warnings.simplefilter("ignore")
    model, inputs = make(name)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    try:
        started = time.perf_counter()
        training_step(compiled(system, model), optimizer, inputs)
        print(json.dumps({"seconds": time.perf_counter() - started}))
    except Exception as failure:
        print(json.dumps({"failure": failure_reason(failure)}))


def cold_and_warm(name: str, system: str) -> tuple[str, str]:
    """The first step in a fresh process with empty cache directories, then in another given
    the directories the first filled."""
    with tempfile.TemporaryDirectory(prefix="hopc-bench-real-") as caches:
        environment = {**os.environ, "TORCHINDUCTOR_CACHE_DIR": os.path.join(caches, "inductor"),
                       "HOPC_CACHE_DIR": os.path.join(caches, "hopc")}
        environment.pop("HOPC_CACHE", None)
        return fresh_process(name, system, environment), fresh_process(name, system, environment)


def fresh_process(name: str, system: str, environment: dict[str, str]) -> str:
    command = [sys.executable, __file__, "--first-step-child", name, system]
    result = subprocess.run(command, capture_output=True, text=True, env=environment, timeout=900)
    lines = result.stdout.strip().splitlines()
    if result.returncode != 0 or not lines:
        return f"exit {result.returncode}"
    outcome = json.loads(lines[-1])
    return f"{outcome['seconds']:.2f}" if "seconds" in outcome else "{}: {}".format(*outcome["failure"])


def steady_states(names: list[str], rounds: int, steps: int) -> None:
    """Prints each model's steady-state table row (section 2 of the module docstring)."""
    print(f"\nsteady state: ms per training step (median of {rounds} rounds of the mean of "
          f"{steps} steps, one thread); ratio = eager / system")
    print("| model | " + " | ".join(SYSTEMS) + " | " + " | ".join(f"eager/{s}" for s in SYSTEMS[1:]) + " |")
    notes = []
    for name in names:
        results = steady_state(name, rounds, steps)
        cells, ratios = [], []
        for system in SYSTEMS:
            value, mark = results[system]
            if value is None:
                notes.append(f"{system} on {name}: {mark}")
                cells.append(f"fails [{len(notes)}]")
            else:
                cells.append(f"{value:.2f}{mark}")
        eager = results["eager"][0]
        for system in SYSTEMS[1:]:
            value = results[system][0]
            ratios.append("-" if value is None or eager is None else f"{eager / value:.2f}x")
        print(f"| {name} | " + " | ".join(cells) + " | " + " | ".join(ratios) + " |", flush=True)
    for number, note in enumerate(notes, 1):
        print(f"[{number}] {note}")


def _load() -> str:
    return " / ".join(f"{load:.2f}" for load in os.getloadavg()) + " (1 / 5 / 15 min)"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default=",".join(MODELS))
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--steps", type=int, default=20, help="steps per measurement")
    parser.add_argument("--skip-first-step", action="store_true")
    parser.add_argument("--first-step-only", action="store_true", help="only the first steps, cold and warm")
    parser.add_argument("--first-step-child", nargs=2, help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.first_step_child:
        first_step(*options.first_step_child)
        return
    names = options.models.split(",")
    for unknown in [n for n in names if n not in MODELS]:
        parser.error(f"unknown model '{unknown}'")
    import transformers

    torch.set_num_threads(1)
    warnings.simplefilter("ignore")
    print(f"bench/real_models.py: torch {torch.__version__}, transformers {transformers.__version__}, "
          f"Python {sys.version.split()[0]}, {os.cpu_count()} CPUs; load average {_load()}")
    if not options.first_step_only:
        steady_states(names, options.rounds, options.steps)
    if not options.skip_first_step:
        print(f"\nfirst step: seconds from before the compile call to the end of the first optimizer step, "
              f"each in a fresh process, cold (empty Inductor and hopc cache directories) / warm (a second "
              f"process given the same directories); load average {_load()}")
        print("| model | " + " | ".join(SYSTEMS) + " |")
        for name in names:
            cells = [" / ".join(cold_and_warm(name, system)) for system in SYSTEMS]
            print(f"| {name} | " + " | ".join(cells) + " |", flush=True)
    print(f"\nload average at the end {_load()}")


if __name__ == "__main__":
    main()
