"""Launches whose results are host scalars, as Python expressions (Note [host scalars]).

A launch of a pointwise kernel on 0-d integer tensors that host code keeps
as Python ints and bools (``hopc.backend.host.scalars``) is its body's ops
written as Python (``SCALAR_OPS``): ``v = (v3 < 100)``. Attributes are
printed from their typed values (``literal``), operands are locals.
"""

from __future__ import annotations

import torch

from hopc.backend.host.codegen import HostBuilder
from hopc.backend.host.lowerings.kernel import kernel_scope, launched_kernel
from hopc.backend.host.names import literal
from hopc.backend.host.scalars import FLOATING, SCALAR_OPS
from hopc.dialects.aten import AtenOp
from hopc.dialects.kernel import LaunchOp
from hopc.torch_bridge.torch_values import dtype_of, value_of_attribute


def lower_scalar_launch(builder: HostBuilder, op: LaunchOp) -> None:
    kernel = launched_kernel(builder, op)
    with kernel_scope(builder, kernel, op):
        for inner in kernel.computation:
            assert isinstance(inner, AtenOp)
            builder.emit(f"{builder.define(inner.results[0])} = {_expression(builder, inner)}")
        yielded = builder.locals(kernel.yield_op.values)
    for result, local in zip(op.outputs, yielded, strict=True):
        builder.alias(result, local)


def _expression(builder: HostBuilder, op: AtenOp) -> str:
    """The op's Python form over its operands' locals and its attributes' literals."""
    operands = {argument.name: values for argument, values in op.operand_groups()}
    names: dict[str, str] = {"alpha": ""}
    for argument in op.SCHEMA.arguments:
        if argument.takes_operands:
            names[argument.name] = builder.local(operands[argument.name][0])
        elif (attribute := op.argument_attribute(argument.name)) is not None:
            value = value_of_attribute(argument, attribute, {})
            if op.operands[0].type.dtype_name in FLOATING:  # compared as PyTorch does: in its dtype
                value = torch.tensor(value, dtype=dtype_of(op.operands[0].type.element_type)).item()
            names[argument.name] = literal(value)
    if names["alpha"]:
        names["alpha"] += " * "
    return SCALAR_OPS[op.name].format(**names)
