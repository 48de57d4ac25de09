"""One traced ATen call (``torch.ops.aten.<name>.<overload>``) as an ``aten`` op.

The op takes one operand group per tensor argument of the schema and a
property per non-tensor argument that the call passed with a value other than
its default (see ``hopc.dialects.aten``). A symbolic integer argument, which
the trace holds as an FX node computing a ``SymInt``, becomes a
``#hop.expr<...>`` property: the value travels in the attribute, not as an
operand. Result types come from the fake values the trace recorded.

Note [wrapped numbers]: eager lets a Python number stand for a tensor
argument (``x * 2`` calls ``aten.mul.Tensor`` with a "wrapped number" tensor,
whose type promotion is a Scalar's), and the trace records the number itself.
An operand cannot be a number, so such a call becomes the overload that takes a
``Scalar`` in that position and is otherwise the same (``aten.mul.Scalar``
with ``other = 2``), which computes exactly what the wrapped number does.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import torch
import torch.fx
from xdsl.dialects.builtin import ArrayAttr, IntegerAttr, i64
from xdsl.ir import Attribute, SSAValue

from hopc.dialects.aten import AtenOp
from hopc.dialects.aten_op_classes import op_class
from hopc.dialects.aten_schema import Argument
from hopc.dialects.custom import custom_op_name
from hopc.fx_import.shape_symbols import ShapeSymbols
from hopc.torch_bridge.torch_values import attribute_of_value

_NOT_PASSED = object()


def aten_op_name(overload: torch._ops.OpOverload) -> str:
    """``aten.add.Tensor`` for ``torch.ops.aten.add.Tensor``; ``aten.sum`` for ``sum.default``;
    ``custom.mylib.f`` for a custom operator ``mylib::f`` (Note [custom operators] in
    ``hopc.dialects.custom``)."""
    namespace, base = overload._schema.name.split("::", 1)
    if namespace != "aten":
        return custom_op_name(namespace, base, overload._overloadname)
    suffix = "" if overload._overloadname == "default" else f".{overload._overloadname}"
    return f"aten.{base}{suffix}"


def _passed_values(overload: torch._ops.OpOverload, args: Sequence[object],
                   kwargs: dict[str, object]) -> list[object]:
    """The value passed for each schema argument, or ``_NOT_PASSED``."""
    values = []
    for index, argument in enumerate(overload._schema.arguments):
        if index < len(args) and not argument.kwarg_only:
            values.append(args[index])
        else:
            values.append(kwargs.get(argument.name, _NOT_PASSED))
    return values


def _is_number(value: object) -> bool:
    """A Python number, or an FX node computing a symbolic one."""
    if isinstance(value, torch.fx.Node):
        value = value.meta.get("val")
    return isinstance(value, int | float | torch.SymInt | torch.SymFloat | torch.SymBool)


def _scalar_positions(overload: torch._ops.OpOverload, passed: Sequence[object]) -> list[int]:
    """Tensor arguments given a number (a "wrapped number" in eager)."""
    return [index for index, (argument, value) in enumerate(zip(overload._schema.arguments, passed))
            if isinstance(argument.type, torch.TensorType) and _is_number(value)]


def scalar_overload(overload: torch._ops.OpOverload,
                    positions: Sequence[int]) -> torch._ops.OpOverload | None:
    """The overload that takes a ``Scalar`` at ``positions`` and is otherwise the same.

    None if ATen has none (Note [wrapped numbers]), or for a custom operator.
    """
    schema = overload._schema
    if overload.namespace != "aten":
        return None
    packet = getattr(torch.ops.aten, schema.name.removeprefix("aten::"))
    for name in packet.overloads():
        candidate = getattr(packet, name)._schema
        if len(candidate.arguments) != len(schema.arguments) or \
                len(candidate.returns) != len(schema.returns):
            continue
        if all(mine.name == theirs.name and (
                isinstance(theirs.type, torch.NumberType) if index in positions
                else str(mine.type) == str(theirs.type))
               for index, (mine, theirs) in enumerate(zip(schema.arguments,
                                                          candidate.arguments))):
            return getattr(packet, name)
    return None


def _traced_value(value: object) -> object:
    """A non-tensor argument with each FX node replaced by the value it computed."""
    if isinstance(value, torch.fx.Node):
        return value.meta["val"]
    if isinstance(value, list | tuple):
        return [_traced_value(v) for v in value]
    return value


def _is_default(value: object, argument: torch.Argument) -> bool:
    """Whether ``value`` is the schema default (same type and value; symbolic never is)."""
    if not argument.has_default_value() or _is_symbolic(value):
        return False
    default = argument.default_value
    value = list(value) if isinstance(value, tuple) else value
    default = list(default) if isinstance(default, tuple) else default
    return type(value) is type(default) and value == default


def _is_symbolic(value: object) -> bool:
    if isinstance(value, list | tuple):
        return any(_is_symbolic(v) for v in value)
    return isinstance(value, torch.SymInt | torch.SymFloat | torch.SymBool)


def _operand_group(argument: Argument, value: object,
                   operand: Callable[[torch.fx.Node], SSAValue]) -> tuple[list[SSAValue], list[int]]:
    """The operands passed for a tensor argument, and the positions of ``None`` in a list."""
    if value is _NOT_PASSED or value is None:
        return [], []
    if not argument.is_tensor_list:
        return [operand(value)], []
    operands, nones = [], []
    for position, entry in enumerate(value):
        if entry is None:
            nones.append(position)
        else:
            operands.append(operand(entry))
    return operands, nones


def build_aten_op(overload: torch._ops.OpOverload, args: Sequence[object],
                  kwargs: dict[str, object], operand: Callable[[torch.fx.Node], SSAValue],
                  symbols: ShapeSymbols, result_types: Sequence[Attribute]) -> AtenOp:
    """The ``aten`` op of one call; ``operand`` maps an FX node to its SSA value.

    Raises ValueError for an overload ATen's table lacks or an argument IR cannot hold.
    """
    passed = _passed_values(overload, args, kwargs)
    positions = _scalar_positions(overload, passed)
    if positions:
        replacement = scalar_overload(overload, positions)
        if replacement is None:
            raise ValueError(f"{aten_op_name(overload)} was given a number where it takes a "
                             "tensor, and has no overload taking a Scalar there")
        overload = replacement
    name = aten_op_name(overload)
    cls = op_class(name)
    if cls is None:
        raise ValueError(f"{name} is not in hopc's ATen operator table, nor a custom operator "
                         "whose schema hopc can model")
    groups: list[list[SSAValue]] = []
    properties: dict[str, Attribute] = {}
    for argument, torch_argument, value in zip(cls.SCHEMA.arguments, overload._schema.arguments,
                                               passed, strict=True):
        if argument.takes_operands:
            group, nones = _operand_group(argument, value, operand)
            groups.append(group)
            if nones:
                properties[f"{argument.name}_nones"] = ArrayAttr([IntegerAttr(p, i64) for p in nones])
            continue
        if value is _NOT_PASSED:
            continue
        value = _traced_value(value)
        if _is_default(value, torch_argument):
            continue
        properties[argument.name] = attribute_of_value(argument, value, symbols.text_of_symint)
    return cls.build_from_groups(groups, properties, list(result_types))


def aten_result_types(overload: torch._ops.OpOverload, traced: object,
                      symbols: ShapeSymbols) -> list[Attribute]:
    """The result types of a call from the value it traced to (one entry per flat result)."""
    returns = overload._schema.returns
    if not returns:
        return []
    if len(returns) == 1 and not isinstance(returns[0].type, torch.ListType):
        traced = [traced]
    return [symbols.type_of(value) for value in traced]
