"""Reference-interpreter implementations of the ``hop`` dialect's random-number-state ops.

A ``!hop.rng_state`` is what ``torch.get_rng_state()`` returns: a copy of
the CPU default generator's state as a 1-d ``uint8`` tensor (Note [replaying
random ops] in ``hopc.dialects.hop_rng``). The planned executor runs these
implementations as they are (Note [planned execution] in
``hopc.backend.runtime.plan``).
"""

from __future__ import annotations

import torch

from hopc.backend.interpreter import Frame
from hopc.backend.interpreter_registry import impl, register_impls
from hopc.dialects.hop_rng import GetRngStateOp, SetRngStateOp


@register_impls
class RngStateImpls:
    @impl(GetRngStateOp)
    def run_get_rng_state(self, op: GetRngStateOp, frame: Frame) -> list[object]:
        return [torch.get_rng_state()]

    @impl(SetRngStateOp)
    def run_set_rng_state(self, op: SetRngStateOp, frame: Frame) -> list[object]:
        torch.set_rng_state(frame.values[op.state])
        return []
