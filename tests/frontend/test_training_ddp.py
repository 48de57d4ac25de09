"""A compiled model trains under DistributedDataParallel as the eager model does.

Two processes on the CPU (gloo) each train, on their own batches, an eager
DDP model, a DDP model whose module runs through ``hopc.compile``, and a
DDP model compiled whole; after every step the gradients (averaged across
the processes by DDP's hooks on the parameters, which the compiled backward
feeds) and the parameters must be eager's. Skipped only while the autograd pass
(``hopc.passes.autograd``) is missing.
"""

from __future__ import annotations

import copy
import os
import socket
import sys
from collections.abc import Callable

import torch
import torch.distributed as dist
import torch.multiprocessing
from frontend_models import Mlp
from torch.nn.parallel import DistributedDataParallel

import hopc

WORLD_SIZE = 2
STEPS = 3


class Compiled(torch.nn.Module):
    """``model`` run through ``hopc.compile``, with ``model``'s parameters for DDP to see."""

    def __init__(self, model: torch.nn.Module):
        super().__init__()
        self.model = model
        self.run = hopc.compile(model)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.run(x)


def _train_and_compare(rank: int, port: int) -> None:
    os.environ["MASTER_ADDR"] = "localhost"
    os.environ["MASTER_PORT"] = str(port)
    dist.init_process_group("gloo", rank=rank, world_size=WORLD_SIZE)
    try:
        model = Mlp()  # seeded: the same on every process
        eager = DistributedDataParallel(copy.deepcopy(model))
        ddp_of_compiled = DistributedDataParallel(Compiled(copy.deepcopy(model)))
        compiled_ddp = DistributedDataParallel(copy.deepcopy(model))
        runs = {"eager": (eager, eager.module), "DDP(compiled)": (ddp_of_compiled, ddp_of_compiled.module.model),
                "compiled DDP": (hopc.compile(compiled_ddp), compiled_ddp.module)}
        optimizers = {name: torch.optim.SGD(trained.parameters(), lr=0.1) for name, (_, trained) in runs.items()}
        generator = torch.Generator().manual_seed(rank)
        for step in range(STEPS):
            x, target = torch.randn(4, 8, generator=generator), torch.randn(4, 8, generator=generator)
            for name, (run, _) in runs.items():
                optimizers[name].zero_grad()
                torch.nn.functional.mse_loss(run(x), target).backward()
                optimizers[name].step()
            for name, (_, trained) in runs.items():
                for (parameter, expected), actual in zip(eager.module.named_parameters(), trained.parameters()):
                    torch.testing.assert_close(actual.grad, expected.grad,
                                               msg=_in(f"{name}, step {step}: {parameter}.grad"))
                torch.testing.assert_close(dict(trained.state_dict()), dict(eager.module.state_dict()),
                                           msg=_in(f"{name}, step {step}: parameters"))
        dist.barrier()
    finally:
        dist.destroy_process_group()
    # Passed. Leave without interpreter finalization: Gloo's worker threads can
    # still hold tensors (DDP's reducer keeps the process group alive past
    # destroy_process_group), and freeing them while Python shuts down aborts
    # the process ("terminate called without an active exception", a known
    # PyTorch teardown crash, not a training failure). Failures raise above
    # and reach the parent through spawn's error file as usual.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


def _in(context: str) -> Callable[[str], str]:
    return lambda message: f"{context}: {message}"


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("localhost", 0))
        return probe.getsockname()[1]


def test_compiled_models_under_ddp_train_as_eager_ddp():
    """DDP around a compiled module, and a compiled DDP module (Dynamo splits its graph at DDP's buckets)."""
    torch.multiprocessing.spawn(_train_and_compare, args=(_free_port(),), nprocs=WORLD_SIZE)
