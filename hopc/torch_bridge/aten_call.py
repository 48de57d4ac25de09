"""An ATen op of our IR as a PyTorch call: on fake tensors for the tracer, or run on values.

``call_arguments`` turns operand types (one list per tensor argument,
``Schema.operand_arguments``) and the op's properties (its non-default
non-tensor arguments) into the positional and keyword arguments of the
overload, with fake tensors and torch SymInts from a ``FakeShapes`` in place
of our types and expressions. ``hopc.torch_bridge.op_tracer`` calls the overload with them.

``call_aten`` runs an op on real values with PyTorch's own kernel (the
reference interpreter, freeze's folding): arguments go positionally up to the
first one the op leaves at its default, by keyword after it;
``flatten_returns`` makes torch's return value one value per result of the op.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, MutableMapping, Sequence
from functools import cache

import torch
from xdsl.dialects.builtin import ArrayAttr
from xdsl.ir import Attribute, SSAValue

from hopc.dialects.aten import AtenOp
from hopc.dialects.aten_schema import Argument, Schema
from hopc.ir.types import ExprAttr, TensorType
from hopc.torch_bridge.torch_symbolic import FakeShapes
from hopc.torch_bridge.torch_values import value_of_attribute


def overload_of(schema: Schema) -> torch._ops.OpOverload:
    """The torch overload of ``schema`` (ATen's, or a custom operator's)."""
    return getattr(getattr(getattr(torch.ops, schema.namespace), schema.base_name), schema.overload or "default")


def _argument_value(shapes: FakeShapes, argument: Argument, attribute: Attribute) -> object:
    if isinstance(attribute, ExprAttr):
        return shapes.size(attribute.value)
    if isinstance(attribute, ArrayAttr) and any(isinstance(a, ExprAttr) for a in attribute.data):
        element = Argument(argument.name, argument.type.split("[")[0], None, False, None)
        return [_argument_value(shapes, element, a) for a in attribute.data]
    return value_of_attribute(argument, attribute, {})


def _tensor_arguments(tensors: list[torch.Tensor], argument: Argument,
                      nones: Sequence[int]) -> object:
    if not argument.is_tensor_list:
        return tensors[0] if tensors else None
    listed: list[torch.Tensor | None] = list(tensors)
    for position in sorted(nones):
        listed.insert(position, None)
    return listed


def call_arguments(schema: Schema, shapes: FakeShapes,
                   operand_types: Sequence[Sequence[TensorType]],
                   properties: Mapping[str, Attribute],
                   tensor_list_nones: Mapping[str, Sequence[int]],
                   requires_grad: Sequence[bool],
                   tensors: Sequence[torch.Tensor] | None = None) -> tuple[list[object], dict[str, object]]:
    """``(args, kwargs)`` for ``overload_of(schema)``.

    ``requires_grad`` has one flag per tensor operand, in order (flattened
    ``operand_types``). Arguments after an omitted one go by name. ``tensors``,
    one per tensor operand in order, are passed instead of new fake tensors
    (a traced function's own inputs).
    """
    flags = iter(requires_grad)
    given = iter(tensors) if tensors is not None else None
    groups = dict(zip((a.name for a in schema.operand_arguments), operand_types, strict=True))
    args: list[object] = []
    kwargs: dict[str, object] = {}
    skipped = False
    for argument in schema.arguments:
        if argument.takes_operands:
            passed = [shapes.fake_tensor(t, next(flags)) if given is None else next(given)
                      for t in groups[argument.name]]
            value = _tensor_arguments(passed, argument, tensor_list_nones.get(argument.name, ()))
        elif argument.name in properties:
            value = _argument_value(shapes, argument, properties[argument.name])
        else:
            skipped = True
            continue
        if argument.kwarg_only or skipped:
            kwargs[argument.name] = value
        else:
            args.append(value)
    return args, kwargs


@cache
def torch_overload(base_name: str, overload: str, namespace: str = "aten") -> torch._ops.OpOverload:
    """``torch.ops.<namespace>.<base_name>.<overload>``: ATen's, or a custom operator's."""
    return getattr(getattr(getattr(torch.ops, namespace), base_name), overload or "default")


def call_aten(op: AtenOp, value_of: Callable[[SSAValue], object],
              symbols: MutableMapping[str, int]) -> list[object]:
    """Runs ``op`` with PyTorch's own kernel; returns one value per result of ``op``.

    Arguments go to torch as the schema names them: positionally up to the
    first one the op leaves at its default, by keyword after it (torch accepts
    any argument by name). Tensors are passed as they are, so in-place ops and
    views act on the caller's tensors as in eager mode.
    """
    positional: list[object] = []
    keywords: dict[str, object] = {}
    operands = {argument.name: values for argument, values in op.operand_groups()}
    for index, argument in enumerate(op.SCHEMA.arguments):
        if argument.takes_operands:
            value = _operand_value(op, argument, operands[argument.name], value_of)
        elif (attribute := op.argument_attribute(argument.name)) is not None:
            value = value_of_attribute(argument, attribute, symbols)
        else:
            continue  # left to the schema's default; later arguments go by name
        if argument.kwarg_only or len(positional) < index:
            keywords[argument.name] = value
        else:
            positional.append(value)
    returned = torch_overload(op.SCHEMA.base_name, op.SCHEMA.overload, op.SCHEMA.namespace)(
        *positional, **keywords)
    return flatten_returns(op.SCHEMA, returned)


def _operand_value(op: AtenOp, argument: Argument, values: Sequence[SSAValue],
                   value_of: Callable[[SSAValue], object]) -> object:
    """A tensor, None for an absent ``Tensor?``, or a list with its ``None``s restored."""
    if not argument.is_tensor_list:
        return value_of(values[0]) if values else None
    nones = set(op.tensor_list_nones(argument))
    remaining = iter(values)
    return [None if position in nones else value_of(next(remaining))
            for position in range(len(values) + len(nones))]


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
