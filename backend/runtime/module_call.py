"""Calling a hop-level module like a function, on the reference interpreter.

``ModuleCall(module, trailing)(*args)`` runs the entry function on ``args``
followed by ``trailing`` (tensors the module takes that the caller does not
pass: constants, and attributes Dynamo left in its graph), and returns the
user outputs. Mutation has the caller's semantics either way: at the captured
level in-place ops update the caller's tensors directly, and after
functionalization each ``{hop.copy_back_to = i}`` result is copied into
argument ``i``. With ``aliases`` (from Dynamo's graph), an output that eager
returns as an input, or as a view of one, is that input or view again (Note
[aliased outputs]).

Autograd through the module is not supported yet, so a call that would need
it (grad mode on and an input that requires grad) raises instead of silently
returning outputs without a graph.
"""

from __future__ import annotations

import traceback
from collections.abc import Sequence

import torch
from xdsl.dialects.builtin import ModuleOp

from hopc.backend.interpreter import run_module
from hopc.frontend.errors import user_location
from hopc.frontend.output_aliases import OutputAliases
from hopc.ir.diagnostics import HopcError
from hopc.ir.module import entry_signature


class ModuleCall:
    """A callable running ``module``'s entry function (see the module docstring)."""

    def __init__(self, module: ModuleOp, trailing: Sequence[torch.Tensor] = (),
                 aliases: OutputAliases | None = None):
        self.module = module
        self.signature = entry_signature(module)
        self.trailing = list(trailing)
        self.aliases = aliases

    def __call__(self, *args: object) -> list[object]:
        entry = [*args, *self.trailing]
        if torch.is_grad_enabled() and any(
                isinstance(value, torch.Tensor) and value.requires_grad for value in entry):
            raise HopcError("hopc does not differentiate compiled programs yet, and this call "
                            "needs gradients (grad mode is on and an input or parameter "
                            "requires grad); call it under torch.no_grad() or with tensors "
                            "that do not require grad", user_location(traceback.extract_stack()))
        results = run_module(self.module, entry)
        for result, argument in self.signature.copy_back.items():
            entry[argument].copy_(results[result])
        outputs = [results[index] for index in self.signature.user_outputs]
        return self.aliases.restore(args, outputs) if self.aliases else outputs
