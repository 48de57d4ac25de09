"""``torch.autograd.gradcheck`` of a differentiated module's forward and backward entries.

``gradcheck_program(program, args)`` differentiates ``program`` (captured on
float64 ``args``; see ``autograd_harness.differentiated``) and wraps its
entries in a ``torch.autograd.Function`` run on the reference interpreter:
forward = the forward entry (keeping the saved values), backward = the
backward entry. ``gradcheck`` then compares those gradients with finite
differences of the forward entry itself: an oracle that shares nothing with
PyTorch's derivative formulas or the partitioner.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch
from autograd_harness import differentiated, entry_values

from hopc.backend.interpreter import run_module
from hopc.dialects.hop_module_structure import entry_signature


def gradcheck_program(program, args: Sequence[torch.Tensor], *, dynamic_shapes=None,
                      run_args: Sequence[torch.Tensor] | None = None) -> None:
    """Checks the differentiated ``program`` with ``torch.autograd.gradcheck`` on ``run_args``."""
    _, module, _ = differentiated(program, args, dynamic_shapes=dynamic_shapes)
    forward = entry_signature(module, "forward")
    backward = entry_signature(module, "backward")
    values = entry_values(program, list(run_args if run_args is not None else args), module)
    differentiable = sorted(forward.requires_grad)

    class Entries(torch.autograd.Function):
        @staticmethod
        def forward(ctx, *inputs):
            entry = list(values)
            for index, value in zip(differentiable, inputs, strict=True):
                entry[index] = value.detach()
            results = run_module(module, entry, function="forward")
            ctx.saved = {k: results[i] for k, i in forward.saved_results.items()}
            outputs = [results[i] for i in forward.user_outputs]
            ctx.mark_non_differentiable(*(o for o in outputs if not o.is_floating_point()))
            return tuple(outputs)

        @staticmethod
        def backward(ctx, *cotangents):
            arguments = []
            for role in backward.arguments:
                if role.kind == "hop.saved":
                    arguments.append(ctx.saved[role.target])
                else:
                    arguments.append(cotangents[forward.user_outputs.index(role.target)])
            gradients = run_module(module, arguments, function="backward")
            by_argument = {backward.gradient_results[i]: g for i, g in enumerate(gradients)}
            return tuple(by_argument.get(index) for index in differentiable)

    inputs = tuple(values[i].detach().clone().requires_grad_() for i in differentiable)
    assert torch.autograd.gradcheck(lambda *xs: Entries.apply(*xs), inputs, eps=1e-6, atol=1e-5,
                                    rtol=1e-4, check_undefined_grad=False)
