"""An ATen op of our IR as a PyTorch call on fake tensors: the overload, its args and kwargs.

``call_arguments`` turns operand types (one list per tensor argument,
``Schema.operand_arguments``) and the op's properties (its non-default
non-tensor arguments) into the positional and keyword arguments of the
overload, with fake tensors and torch SymInts from a ``FakeShapes`` in place
of our types and expressions. ``hopc.ir.op_tracer`` calls the overload with them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import torch
from xdsl.dialects.builtin import ArrayAttr
from xdsl.ir import Attribute

from hopc.dialects.aten_schema import Argument, Schema
from hopc.ir.torch_symbolic import FakeShapes
from hopc.ir.torch_values import value_of_attribute
from hopc.ir.types import ExprAttr, TensorType


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
