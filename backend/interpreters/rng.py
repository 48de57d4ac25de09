"""Reference-interpreter implementations of the ``hop`` dialect's random-number-state ops.

A ``!hop.rng_state`` is what ``torch.get_rng_state()`` returns: a copy of
the CPU default generator's state as a 1-d ``uint8`` tensor, followed, where
CUDA is initialized, by each CUDA device's default generator state (its
Philox seed and offset, ``torch.cuda.get_rng_state_all()``), so that a
recompute on CUDA draws the forward's numbers as one on the CPU does (Note
[replaying random ops] in ``hopc.dialects.hop_rng``). The planned executor
and generated host code run these implementations as they are (Note
[planned execution] in ``hopc.backend.runtime.plan``).
"""

from __future__ import annotations

from collections.abc import Sequence

import torch

from hopc.backend.interpreter import INTERPRETER_RULES, Frame
from hopc.dialects.hop_rng import GetRngStateOp, SetRngStateOp


@INTERPRETER_RULES.register(GetRngStateOp)
def run_get_rng_state(op: GetRngStateOp, frame: Frame) -> list[object]:
    cuda = torch.cuda.get_rng_state_all() if torch.cuda.is_initialized() else []
    return [joined_state(torch.get_rng_state(), cuda)]


@INTERPRETER_RULES.register(SetRngStateOp)
def run_set_rng_state(op: SetRngStateOp, frame: Frame) -> list[object]:
    cpu, cuda = split_state(frame.values[op.state], torch.get_rng_state().numel(),
                            torch.cuda.device_count() if torch.cuda.is_initialized() else 0)
    torch.set_rng_state(cpu)
    if cuda:
        torch.cuda.set_rng_state_all(cuda)
    return []


def joined_state(cpu: torch.Tensor, cuda: Sequence[torch.Tensor]) -> torch.Tensor:
    """One state: the CPU generator's, then each CUDA device's (none where CUDA is not initialized)."""
    return torch.cat([cpu, *cuda]) if cuda else cpu


def split_state(state: torch.Tensor, cpu_bytes: int, devices: int) -> tuple[torch.Tensor, list[torch.Tensor]]:
    """``joined_state``'s parts: the CPU state (its first ``cpu_bytes``), and one equal part per
    CUDA device where the state holds them (none where it was read without CUDA)."""
    cpu, rest = state[:cpu_bytes], state[cpu_bytes:]
    if not devices or not rest.numel():
        return cpu, []
    return cpu, list(rest.chunk(devices))
