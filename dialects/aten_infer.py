"""Result types of ATen ops, inferred with PyTorch's meta kernels under symbolic shapes.

``infer_result_types`` runs the overload on fake tensors whose sizes are our
shape symbols (``hopc.ir.torch_symbolic.FakeShapes``) and maps the sizes of the
results back to our expression text. A data-dependent size (``nonzero``) gets a
fresh unbacked symbol from ``fresh_symbol``. Builders use this when they make a
new op; the parser and verifier never import torch.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence

import torch
from xdsl.dialects.builtin import ArrayAttr
from xdsl.ir import Attribute

from hopc.dialects.aten_schema import Argument, Schema
from hopc.ir.diagnostics import HopcError
from hopc.ir.torch_symbolic import FakeShapes
from hopc.ir.torch_values import value_of_attribute
from hopc.ir.types import ExprAttr, SymIntType, TensorType


def _argument_value(shapes: FakeShapes, argument: Argument, attribute: Attribute) -> object:
    if isinstance(attribute, ExprAttr):
        return shapes.size(attribute.value)
    if isinstance(attribute, ArrayAttr) and any(isinstance(a, ExprAttr) for a in attribute.data):
        element = Argument(argument.name, argument.type.split("[")[0], None, False, None)
        return [_argument_value(shapes, element, a) for a in attribute.data]
    return value_of_attribute(argument, attribute, {})


def _tensor_arguments(shapes: FakeShapes, argument: Argument, types: Sequence[TensorType],
                      nones: Sequence[int]) -> object:
    tensors = [shapes.fake_tensor(t) for t in types]
    if not argument.is_tensor_list:
        return tensors[0] if tensors else None
    for position in sorted(nones):
        tensors.insert(position, None)
    return tensors


def _result_types(shapes: FakeShapes, output: object) -> list[Attribute]:
    if isinstance(output, torch.Tensor):
        return [shapes.tensor_type(output)]
    if isinstance(output, (tuple, list)):
        return [t for item in output for t in _result_types(shapes, item)]
    if isinstance(output, torch.SymInt):
        return [SymIntType(shapes.dim(output))]
    if isinstance(output, int) and not isinstance(output, bool):
        return [SymIntType(output)]
    raise HopcError(f"cannot give a type to a result of kind {type(output).__name__}")


def infer_result_types(schema: Schema, operand_types: Sequence[Sequence[TensorType]],
                       properties: Mapping[str, Attribute],
                       fresh_symbol: Callable[[], str] | None = None,
                       tensor_list_nones: Mapping[str, Sequence[int]] | None = None,
                       ) -> list[Attribute]:
    """The result types of ``schema``'s op on operands of ``operand_types``.

    ``operand_types`` has one list per tensor argument (``schema.operand_arguments``);
    ``properties`` holds the non-default non-tensor arguments. Raises HopcError when
    PyTorch's meta kernel rejects the arguments.
    """
    shapes = FakeShapes(fresh_symbol)
    nones = tensor_list_nones or {}
    args: list[object] = []
    kwargs: dict[str, object] = {}
    skipped = False  # after an omitted argument, later ones go by name
    groups = dict(zip((a.name for a in schema.operand_arguments), operand_types, strict=True))
    for argument in schema.arguments:
        if argument.takes_operands:
            value = _tensor_arguments(shapes, argument, groups[argument.name],
                                      nones.get(argument.name, ()))
        elif argument.name in properties:
            value = _argument_value(shapes, argument, properties[argument.name])
        else:
            skipped = True
            continue
        if argument.kwarg_only or skipped:
            kwargs[argument.name] = value
        else:
            args.append(value)
    overload = getattr(getattr(torch.ops.aten, schema.base_name), schema.overload or "default")
    fake_tensor_log = logging.getLogger("torch._subclasses.fake_tensor")
    saved_level = fake_tensor_log.level
    fake_tensor_log.setLevel(logging.CRITICAL)  # a rejection is reported below, once
    try:
        with shapes.mode:
            output = overload(*args, **kwargs)
    except Exception as error:
        raise HopcError(f"{schema.op_name}: PyTorch rejects these arguments: "
                        f"{str(error).splitlines()[0]}") from None
    finally:
        fake_tensor_log.setLevel(saved_level)
    return _result_types(shapes, output)
