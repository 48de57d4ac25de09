"""Entry arguments that become constants: the parameters, buffers and constants the program never changes.

``freeze_arguments(module, entry, values, table)`` turns each argument of the
forward entry that names a global (``{hop.parameter = @w}``,
``{hop.buffer = @b}``, ``{hop.constant = @c}``) and may be frozen (Note
[what freezes]) into a ``hop.get_constant`` of a ``hop.constant`` of the same
name (``ConstantTable.freeze_global``: it takes the parameter's or buffer's
place); the argument goes from the
entry, and the remaining arguments and the ``{hop.copy_back_to = i}`` indices
of the results are renumbered. Every global left an argument is marked
``{hop.not_frozen = "<why>"}``.

Note [what freezes]
~~~~~~~~~~~~~~~~~~~
After functionalize, a global the program changes is the target of a
``{hop.copy_back_to = i}`` result of the entry, whichever region changed it
(Note [mutation through HOP regions]); so an argument with no copy-back to
it is never written, and its value on entry is its value throughout. It is
frozen when its value is known (the caller's ``values[name]``, else the
value the global op carries) and its type is static; a constant given a
value in ``values`` (the tensor a caller passes for it) is frozen with that. Kept: a global the
program changes (a running statistic, a counter), one without a value, one
of symbolic type, and one passed with ``{hop.strides}`` (a constant is dense
and row-major, and a strided read of it would read other elements).
"""

from __future__ import annotations

from collections.abc import Mapping

import torch
from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, IntegerAttr, ModuleOp, StringAttr, i64
from xdsl.dialects.func import FuncOp

from hopc.dialects.hop import BufferOp, ConstantOp, GetConstantOp, ParameterOp
from hopc.dialects.hop_function_signature import function_signature
from hopc.dialects.hop_module import COPY_BACK
from hopc.ir.diagnostics import op_error
from hopc.ir.types import TensorType
from hopc.passes.freeze.constant_table import ConstantTable
from hopc.torch_bridge.tensor_constants import global_value
from hopc.torch_bridge.torch_values import dtype_of

NOT_FROZEN = "hop.not_frozen"
"""The attribute on a global that stays an entry argument: why it was not frozen."""


def freeze_arguments(module: ModuleOp, entry: FuncOp, values: Mapping[str, torch.Tensor],
                     table: ConstantTable) -> tuple[list[str], dict[str, str]]:
    """Freezes what may be frozen of ``entry``'s global arguments (module docstring).

    Returns the names of the globals frozen and, for each global kept, why.
    """
    signature = function_signature(entry)
    copied_back = {argument: result for result, argument in signature.copy_back.items()}
    declared = {op.symbol: op for op in module.ops if isinstance(op, ParameterOp | BufferOp | ConstantOp)}
    frozen: dict[int, str] = {}  # argument index -> the constant it reads
    frozen_names: set[str] = set()
    kept: dict[str, str] = {}
    for index, (_, name) in signature.globals_by_argument.items():
        op = declared[name]
        if index in copied_back:
            reason = f"the program changes it (result {copied_back[index]} is copied back to it)"
        elif index in signature.strides:
            reason = "its argument has non-default strides"
        elif not all(isinstance(d, int) for d in op.tensor_type.shape):
            reason = f"its type {op.tensor_type} has symbolic sizes"
        elif (value := _value(op, values)) is None and not isinstance(op, ConstantOp):
            reason = "its value is unknown (give it one, or pass it to freeze)"
        else:
            frozen[index] = name if value is None else table.freeze_global(op, _checked(op, value))
            frozen_names.add(name)
            continue
        kept[name] = reason
        op.attributes[NOT_FROZEN] = StringAttr(reason)
    _remove_arguments(entry, frozen)
    return sorted(frozen_names), kept


def _value(op: ParameterOp | BufferOp | ConstantOp, values: Mapping[str, torch.Tensor]) -> torch.Tensor | None:
    """The value given for ``op``, else a parameter's or buffer's own; None for a constant's own."""
    given = values.get(op.symbol)
    if given is not None or isinstance(op, ConstantOp):
        return given
    return global_value(op)


def _checked(op: ParameterOp | BufferOp | ConstantOp, value: torch.Tensor) -> torch.Tensor:
    """``value`` as a detached CPU tensor, if it has ``op``'s shape and dtype (a located error otherwise)."""
    type_ = op.tensor_type
    assert isinstance(type_, TensorType)
    if list(value.shape) != list(type_.shape) or value.dtype != dtype_of(type_.element_type):
        raise op_error(op, f"freeze: the value of @{op.symbol} has shape {list(value.shape)} and dtype "
                           f"{value.dtype}, but @{op.symbol} is {type_}")
    return value.detach().to("cpu")


def _remove_arguments(entry: FuncOp, frozen: dict[int, str]) -> None:
    """Replaces each frozen argument by a read of its constant and drops it from the signature."""
    block = entry.body.block
    first = block.first_op
    for index, name in frozen.items():
        argument = block.args[index]
        read = GetConstantOp(name, argument.type)
        block.insert_op_before(read, first)
        argument.replace_all_uses_with(read.results[0])
    new_index = {old: old - sum(1 for f in frozen if f < old) for old in range(len(block.args))
                 if old not in frozen}
    for index in sorted(frozen, reverse=True):
        block.erase_arg(block.args[index])
    if entry.arg_attrs is not None:
        entry.arg_attrs = ArrayAttr([a for i, a in enumerate(entry.arg_attrs.data) if i not in frozen])
    if entry.res_attrs is not None:
        entry.res_attrs = ArrayAttr([_renumbered(a, new_index) for a in entry.res_attrs.data])
    entry.update_function_type()


def _renumbered(attributes: DictionaryAttr, new_index: dict[int, int]) -> DictionaryAttr:
    target = attributes.data.get(COPY_BACK)
    if not isinstance(target, IntegerAttr):
        return attributes
    return DictionaryAttr({**attributes.data, COPY_BACK: IntegerAttr(new_index[target.value.data], i64)})
