"""Training with hopc: first-call time and saved-for-backward bytes against PyTorch.

    python bench/autograd.py [--programs mlp,block,...] [--steps 100,1000,10000] [--skip-first-call]

Programs: an MLP, a transformer block, a checkpointed stack, a ``torch.cond``
model and a ``while_loop`` RNN. In one run it measures:

1. first call of forward + backward, each backend in a fresh process (what a
   user waits for): ``torch.compile(backend="eager")`` (Dynamo alone),
   ``torch.compile(backend="aot_eager")`` and ``hopc.compile``; it prints each
   compiler's time beyond Dynamo's. Target (issue 11): hopc's at most 0.5x
   aot_eager's;
2. bytes saved for the backward, in eager PyTorch and in hopc, both counted
   the same way: the distinct storages handed to autograd's saved-tensor hooks
   during the forward (``torch.autograd.graph.saved_tensors_hooks``; hopc's
   compiled call saves through ``ctx.save_for_backward``), less the model's
   parameters and buffers. Target: hopc's at most PyTorch's on every program;
3. a ``while_loop`` with T = 100, 1,000, 10,000 iterations (carry 1024x512
   f32): memory the forward retains for the backward (resident memory, since
   PyTorch's while_loop keeps its values out of reach of saved-tensor hooks),
   O(1) in hopc's forward (the backward's buffers are O(sqrt T)); target at
   T = 10,000: at most 5% of PyTorch's.
"""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
import time

import torch
from torch._subclasses.fake_tensor import FakeTensor

PROGRAMS = ("mlp", "block", "checkpointed", "cond", "rnn")


class Mlp(torch.nn.Module):
    def __init__(self, width: int = 64, depth: int = 4):
        super().__init__()
        self.layers = torch.nn.ModuleList(torch.nn.Linear(width, width) for _ in range(depth))
        self.norm = torch.nn.LayerNorm(width)

    def forward(self, x):
        for layer in self.layers:
            x = torch.nn.functional.gelu(layer(x))
        return self.norm(x)


class Block(torch.nn.Module):
    def __init__(self, d: int = 64):
        super().__init__()
        self.norm1, self.norm2 = torch.nn.LayerNorm(d), torch.nn.LayerNorm(d)
        self.qkv, self.out = torch.nn.Linear(d, 3 * d), torch.nn.Linear(d, d)
        self.up, self.down = torch.nn.Linear(d, 4 * d), torch.nn.Linear(4 * d, d)

    def forward(self, x):
        q, k, v = self.qkv(self.norm1(x)).chunk(3, dim=-1)
        scores = (q @ k.transpose(-2, -1)) / math.sqrt(x.size(-1))
        x = x + self.out(torch.softmax(scores, dim=-1) @ v)
        return x + self.down(torch.nn.functional.gelu(self.up(self.norm2(x))))


class Checkpointed(torch.nn.Module):
    def __init__(self, width: int = 64, depth: int = 4):
        super().__init__()
        self.stages = torch.nn.ModuleList(Mlp(width, 2) for _ in range(depth))

    def forward(self, x):
        for stage in self.stages:
            x = torch.utils.checkpoint.checkpoint(stage, x, use_reentrant=False)
        return x


class CondModel(torch.nn.Module):
    def __init__(self, width: int = 64):
        super().__init__()
        self.a, self.b = torch.nn.Linear(width, width), torch.nn.Linear(width, width)

    def forward(self, x):
        return torch.cond(x.sum() > 0, lambda x: self.a(x).tanh(), lambda x: self.b(x).sin(), (x,))


class Rnn(torch.nn.Module):
    """h = tanh(h @ w + b), repeated ``steps`` times by a ``while_loop``."""

    def __init__(self, width: int = 64, steps: int = 10):
        super().__init__()
        self.w = torch.nn.Parameter(torch.randn(width, width) / math.sqrt(width))
        self.b = torch.nn.Parameter(torch.zeros(width))
        self.steps = steps

    def forward(self, h):
        from torch._higher_order_ops.while_loop import while_loop

        def condition(i, h):
            return i < self.steps

        def body(i, h):
            return i + 1, torch.tanh(h @ self.w + self.b)

        return while_loop(condition, body, (torch.zeros((), dtype=torch.int64), h))[1]


def make(name: str, width: int = 64, steps: int = 10) -> tuple[torch.nn.Module, torch.Tensor]:
    torch.manual_seed(0)
    if name == "rnn":
        return Rnn(width, steps), torch.randn(8, width)
    model = {"mlp": Mlp, "block": Block, "checkpointed": Checkpointed, "cond": CondModel}[name]()
    inputs = torch.randn(2, 16, 64) if name == "block" else torch.randn(32, 64)
    return model, inputs


def _compiled(model: torch.nn.Module, backend: str):
    if backend == "hopc":
        import hopc

        return hopc.compile(model)
    return torch.compile(model, backend=backend, fullgraph=True)


def first_call(name: str, backend: str) -> None:
    """Child process: the first forward+backward of ``name`` under ``backend``, in seconds (JSON)."""
    model, inputs = make(name)
    compiled = _compiled(model, backend)
    started = time.perf_counter()
    compiled(inputs).sum().backward()
    print(json.dumps({"seconds": time.perf_counter() - started}))


def saved_bytes(run, model: torch.nn.Module) -> int:
    """Bytes of the distinct storages autograd saves while ``run()`` runs the forward.

    The model's parameters and buffers are left out: they live on whether
    saved or not (eager's checkpoint reads them again, hopc saves them).
    """
    persistent = {t.untyped_storage().data_ptr() for t in [*model.parameters(), *model.buffers()]}
    storages: dict[int, int] = {}

    def pack(tensor: torch.Tensor) -> torch.Tensor:
        if isinstance(tensor, FakeTensor):
            return tensor  # eager while_loop's own tracing of its body
        storage = tensor.untyped_storage()
        if storage.data_ptr() not in persistent:
            storages[storage.data_ptr()] = storage.nbytes()
        return tensor

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda tensor: tensor):
        output = run()
    output.sum().backward()
    return sum(storages.values())


def _fresh_process(name: str, backend: str) -> float:
    command = [sys.executable, __file__, "--child", name, backend]
    result = subprocess.run(command, capture_output=True, text=True, check=True)
    return json.loads(result.stdout.strip().splitlines()[-1])["seconds"]


HELD_ON_CONTEXT = {"cond": 1}
"""Bytes eager keeps for the backward on the autograd context, out of reach of saved-tensor hooks:
torch.cond's ``CondAutogradOp`` keeps its predicate (a 0-d bool) as ``ctx._pred``."""


def _saved(name: str, **sizes) -> tuple[int, int]:
    import hopc

    model, inputs = make(name, **sizes)
    eager = saved_bytes(lambda: model(inputs), model) + HELD_ON_CONTEXT.get(name, 0)
    compiled = hopc.compile(model)
    compiled(inputs).sum().backward()  # compile outside the measured forward
    return eager, saved_bytes(lambda: compiled(inputs), model)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--programs", default=",".join(PROGRAMS))
    parser.add_argument("--steps", default="100,1000,10000")
    parser.add_argument("--skip-first-call", action="store_true")
    parser.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.child:
        first_call(*options.child)
        return
    names = options.programs.split(",")
    if not options.skip_first_call:
        print("first forward+backward, fresh process, seconds (beyond Dynamo = minus backend='eager')")
        print(f"{'program':<13} {'dynamo':>7} {'aot_eager':>10} {'hopc':>7} {'aot beyond':>11} "
              f"{'hopc beyond':>12} {'ratio':>6}")
        for name in names:
            times = {b: _fresh_process(name, b) for b in ("eager", "aot_eager", "hopc")}
            aot, ours = times["aot_eager"] - times["eager"], times["hopc"] - times["eager"]
            print(f"{name:<13} {times['eager']:7.2f} {times['aot_eager']:10.2f} {times['hopc']:7.2f} "
                  f"{aot:11.2f} {ours:12.2f} {ours / aot:6.2f}")
    print("\nbytes saved for backward")
    print(f"{'program':<13} {'eager':>12} {'hopc':>12} {'hopc/eager':>11}")
    for name in names:
        if name == "rnn":
            continue  # measured below (its eager values escape the hooks)
        eager, ours = _saved(name)
        print(f"{name:<13} {eager:12,d} {ours:12,d} {ours / eager:11.3f}")
    print("\nwhile_loop RNN, carry 1024x512 f32: memory the forward retains for the backward")
    print(f"{'T':>6} {'eager':>16} {'hopc':>14} {'hopc/eager':>11} {'carries kept':>13}")
    carry = 1024 * 512 * 4
    for steps in map(int, options.steps.split(",")):
        eager, ours = _saved_rnn(steps)
        print(f"{steps:6d} {eager:16,d} {ours:14,d} {ours / eager:11.4f} {ours / carry:13.1f}")


def _retained_bytes(run) -> int:
    """Resident memory the forward ``run()`` leaves allocated (what autograd keeps, plus the output)."""
    import gc

    gc.collect()
    before = _resident_bytes()
    output = run()
    retained = _resident_bytes() - before
    output.sum().backward()
    return retained


def _resident_bytes() -> int:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * 4096


def _saved_rnn(steps: int) -> tuple[int, int]:
    """Memory the RNN's forward keeps for the backward (1024x512 carry), eager and hopc.

    PyTorch's while_loop keeps its per-step values on the autograd context,
    out of reach of saved-tensor hooks, so eager's is the resident memory its
    forward retains (carries are 2 MB each, allocated by mmap, so RSS follows
    them; the output is counted too). hopc's is what its forward saves, through
    the hooks (an RSS delta would miss values that reuse freed memory). Eager
    keeps about three carries per iteration; at T = 10,000 that is over 50 GB,
    more than this machine has, so eager is measured at min(T, 1000) and
    scaled linearly.
    """
    import hopc

    torch.manual_seed(0)
    model = Rnn(512, steps)
    inputs = torch.randn(1024, 512)
    measured = min(steps, 1000)
    eager_model = Rnn(512, measured)
    eager_model.load_state_dict(model.state_dict())
    eager = _retained_bytes(lambda: eager_model(inputs)) * steps // measured
    compiled = hopc.compile(model)
    compiled(inputs).sum().backward()  # compile outside the measured forward
    return eager, saved_bytes(lambda: compiled(inputs), model)


if __name__ == "__main__":
    main()
