"""An ATen op of our IR as a call of its PyTorch overload: on fake tensors for the tracer, or run on values.

Note [ATen calling convention]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
An ATen op holds its tensor arguments as operands (one list per tensor
argument, ``Schema.operand_arguments``; the positions of the ``None`` entries
of a ``Tensor?[]`` in its ``<arg>_nones`` property) and its non-tensor
arguments as properties, one per argument that does not take its default.
Its overload (``overload_of``) takes them in schema order: positionally up to
the first argument the op leaves at its default, by keyword after it (torch
accepts any argument by name), and keyword-only ones by keyword; a ``Tensor``
is its one value, a ``Tensor?`` its value or None, a list of tensors a list
with its ``None`` entries back in place. ``call_arguments`` is that
convention, the only copy, over any kind of value: the tracer's fake tensors
and torch SymInts (``hopc.torch_bridge.op_tracer``, autograd's derivatives),
the reference interpreter's values (``call_aten``), the planned executor's
slots and the host code's source text (``hopc.backend``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, MutableMapping, Sequence
from functools import cache
from typing import TypeVar

import torch
from xdsl.dialects.builtin import ArrayAttr
from xdsl.ir import Attribute, SSAValue

from hopc.dialects.aten import AtenOp
from hopc.dialects.aten_schema import Argument, Schema
from hopc.ir.types import ExprAttr
from hopc.torch_bridge.torch_symbolic import FakeShapes
from hopc.torch_bridge.torch_values import value_of_attribute

Value = TypeVar("Value")

CallArguments = tuple[list[object], dict[str, object]]
"""``(args, kwargs)`` of an overload's call."""


def overload_of(schema: Schema) -> torch._ops.OpOverload:
    """The torch overload of ``schema``: ``torch.ops.<namespace>.<base_name>.<overload>`` (ATen's,
    or a custom operator's)."""
    return _overload(schema.namespace, schema.base_name, schema.overload)


@cache
def _overload(namespace: str, base_name: str, overload: str) -> torch._ops.OpOverload:
    return getattr(getattr(getattr(torch.ops, namespace), base_name), overload or "default")


def call_arguments(schema: Schema, operands: Mapping[str, Sequence[Value]],
                   properties: Mapping[str, Attribute], tensor_list_nones: Mapping[str, Sequence[int]],
                   attribute_value: Callable[[Argument, Attribute], object]) -> CallArguments:
    """``(args, kwargs)`` for ``overload_of(schema)`` (Note [ATen calling convention]).

    ``operands`` maps each tensor argument's name to the values passed for it;
    ``tensor_list_nones`` the name of a ``Tensor?[]`` to the positions of its
    ``None`` entries; ``properties`` (``_nones`` entries aside) the name of each
    non-tensor argument that does not take its default to its attribute, passed
    as ``attribute_value(argument, attribute)``.
    """
    args: list[object] = []
    kwargs: dict[str, object] = {}
    for index, argument in enumerate(schema.arguments):
        if argument.takes_operands:
            value = _tensor_argument(argument, operands[argument.name],
                                     tensor_list_nones.get(argument.name, ()))
        elif (attribute := properties.get(argument.name)) is not None:
            value = attribute_value(argument, attribute)
        else:
            continue  # left at its default; later arguments go by name
        if argument.kwarg_only or len(args) < index:
            kwargs[argument.name] = value
        else:
            args.append(value)
    return args, kwargs


def _tensor_argument(argument: Argument, values: Sequence[Value],
                     nones: Sequence[int]) -> Value | None | list[Value | None]:
    """One value (None for an absent ``Tensor?``), or a list with its ``None`` entries restored."""
    if not argument.is_tensor_list:
        return values[0] if values else None
    absent = set(nones)
    remaining = iter(values)
    return [None if position in absent else next(remaining)
            for position in range(len(values) + len(absent))]


def op_call_arguments(op: AtenOp, operand_value: Callable[[SSAValue], Value],
                      attribute_value: Callable[[Argument, Attribute], object]) -> CallArguments:
    """``call_arguments`` of ``op``, each operand passed as ``operand_value(operand)``."""
    groups = op.operand_groups()
    operands = {argument.name: [operand_value(v) for v in values] for argument, values in groups}
    nones = {argument.name: op.tensor_list_nones(argument) for argument, _ in groups}
    return call_arguments(op.SCHEMA, operands, op.properties, nones, attribute_value)


def fake_attribute_value(shapes: FakeShapes, argument: Argument, attribute: Attribute) -> object:
    """``attribute`` as the tracer passes it: an expression over shape symbols as a torch SymInt."""
    if isinstance(attribute, ExprAttr):
        return shapes.size(attribute.value)
    if isinstance(attribute, ArrayAttr) and any(isinstance(a, ExprAttr) for a in attribute.data):
        element = Argument(argument.name, argument.type.split("[")[0], None, False, None)
        return [fake_attribute_value(shapes, element, a) for a in attribute.data]
    return value_of_attribute(argument, attribute, {})


def call_aten(op: AtenOp, value_of: Callable[[SSAValue], object],
              symbols: MutableMapping[str, int]) -> list[object]:
    """Runs ``op`` with PyTorch's own kernel; returns one value per result of ``op``.

    Tensors are passed as they are, so in-place ops and views act on the
    caller's tensors as in eager mode; expressions are evaluated under ``symbols``.
    """
    args, kwargs = op_call_arguments(
        op, value_of, lambda argument, attribute: value_of_attribute(argument, attribute, symbols))
    return flatten_returns(op.SCHEMA, overload_of(op.SCHEMA)(*args, **kwargs))


def flatten_returns(schema: Schema, returned: object) -> list[object]:
    """torch's return value as a flat list: one entry per result of the IR op."""
    if len(schema.returns) == 1:
        per_return = [returned]
    else:
        per_return = list(() if returned is None else returned)
    flat: list[object] = []
    for ret, value in zip(schema.returns, per_return, strict=True):
        if ret.is_tensor_list:
            flat.extend(value)
        else:
            flat.append(value)
    return flat
