"""The entry arguments of a captured module for one call of the program it came from.

A captured module's entry function takes the user's tensor inputs (the tensor
leaves of ``(args, kwargs)``, in pytree order) and then the module-level
tensors it declares: parameters and buffers are looked up by name in the
program, constants are read from their ``hop.constant``. ``entry_values``
assembles that list, which is what ``hopc.backend.interpreter.run_module``
takes; the tensors are the caller's own, so in-place updates reach them.
"""

from __future__ import annotations

from collections.abc import Callable

import torch
import torch.utils._pytree as pytree
from xdsl.dialects.builtin import ModuleOp

from hopc.dialects.hop import ConstantOp
from hopc.dialects.hop_module_structure import entry_signature
from hopc.torch_bridge.tensor_constants import constant_tensor


def entry_values(module: ModuleOp, program: Callable, args: tuple | list,
                 kwargs: dict | None = None) -> list[object]:
    """The entry arguments of ``module`` for the call ``program(*args, **kwargs)``."""
    signature = entry_signature(module)
    user = [leaf for leaf in pytree.tree_leaves((tuple(args), kwargs or {}))
            if isinstance(leaf, torch.Tensor)]
    if len(user) != len(signature.user_inputs):
        raise ValueError(f"the module takes {len(signature.user_inputs)} user inputs, "
                         f"the call passes {len(user)} tensors")
    tensors: dict[str, torch.Tensor] = {}
    if isinstance(program, torch.nn.Module):
        tensors.update(program.named_parameters(remove_duplicate=False))
        tensors.update(program.named_buffers(remove_duplicate=False))
    constants = {op.symbol: op for op in module.ops if isinstance(op, ConstantOp)}
    values: list[object] = []
    inputs = iter(user)
    for index in range(len(signature.function.function_type.inputs.data)):
        role_and_name = signature.globals_by_argument.get(index)
        if role_and_name is None:
            values.append(next(inputs))
        elif role_and_name[0] == "hop.constant":
            values.append(constant_tensor(constants[role_and_name[1]]))
        else:
            values.append(tensors[role_and_name[1]])
    return values
