"""The op class of each ATen overload, built from its schema the first time it is asked for.

``op_class("aten.add.Tensor")`` is the IRDL op class of that overload: a
subclass of ``AtenOp`` (``hopc.dialects.aten``) that ``make_op_class`` builds
from the overload's schema in ``aten_ops.json``, so that a context
(``HopcContext`` in ``hopc.dialects.context``) loads only the ops a module
uses. Its fields follow the schema: one operand group per tensor argument,
one optional property per other argument, one result per return. Its traits
say what it writes: an op with a ``Tensor(a!)`` argument or a random one
writes, one with undeclared writes writes when its flag is set
(``RunningStatsEffect``, Note [undeclared writes] in ``hopc.dialects.aten``),
every other op only reads.

Invariant: one class per op name for the life of the process, so op classes
compare by identity; a custom operator's (``custom.<ns>.<name>``) is rebuilt
only when its schema changes (Note [custom operators] in ``hopc.dialects.custom``).
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import ArrayAttr
from xdsl.ir import Attribute, Operation
from xdsl.irdl import (
    AttrSizedOperandSegments,
    AttrSizedResultSegments,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    result_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.traits import EffectInstance, MemoryEffect, MemoryEffectKind, MemoryReadEffect, MemoryWriteEffect

from hopc.dialects import aten_schema
from hopc.dialects.aten import UNDECLARED_WRITES, AtenOp, field_name, nones_property
from hopc.dialects.aten_schema import Argument, Schema
from hopc.ir.types import TensorType

_READ_WRITE = frozenset({EffectInstance(MemoryEffectKind.READ), EffectInstance(MemoryEffectKind.WRITE)})
_READ = frozenset({EffectInstance(MemoryEffectKind.READ)})


class RunningStatsEffect(MemoryEffect):
    """Reads, and writes when the op's flag turns its undeclared writes on (Note [undeclared writes])."""

    @classmethod
    def get_effects(cls, op: Operation) -> frozenset[EffectInstance]:
        return _READ_WRITE if isinstance(op, AtenOp) and op.undeclared_writes() else _READ


def _operand_field(argument: Argument):
    if argument.is_tensor_list:
        return var_operand_def(TensorType)
    if argument.is_optional_tensor:
        return opt_operand_def(TensorType)
    return operand_def(TensorType)


def _result_field(ret):
    if ret.is_tensor_list:
        return var_result_def(TensorType)
    if ret.type == "Tensor":
        return result_def(TensorType)
    return result_def()


def make_op_class(schema: Schema) -> type[AtenOp]:
    """Builds the IRDL op class of one ATen overload from its schema."""
    fields: dict[str, object] = {
        "name": schema.op_name,
        "SCHEMA": schema,
        "__annotations__": {"SCHEMA": ClassVar[Schema]},
        "__doc__": f"``{schema.torch_name}``: an ATen op (see ``hopc.dialects.aten``).",
        "__module__": __name__,
    }
    for argument in schema.operand_arguments:
        fields[field_name(argument.name)] = _operand_field(argument)
        if argument.type.startswith("Tensor?[]"):
            fields[field_name(nones_property(argument))] = opt_prop_def(
                ArrayAttr, prop_name=nones_property(argument)
            )
    for argument in schema.attribute_arguments:
        fields[field_name(argument.name)] = opt_prop_def(Attribute, prop_name=argument.name)
    for index, ret in enumerate(schema.returns):
        fields[f"result_{index}"] = _result_field(ret)
    options = []
    if sum(1 for a in schema.operand_arguments if not (a.is_tensor and not a.is_optional_tensor)) > 1:
        options.append(AttrSizedOperandSegments(as_property=True))
    if sum(1 for r in schema.returns if r.is_tensor_list) > 1:
        options.append(AttrSizedResultSegments(as_property=True))
    fields["irdl_options"] = tuple(options)
    writes = schema.is_mutating or schema.is_random
    effects = (MemoryReadEffect(), MemoryWriteEffect()) if writes else (MemoryReadEffect(),)
    if schema.op_name in UNDECLARED_WRITES:
        effects = (RunningStatsEffect(),)
    fields["traits"] = traits_def(*effects)
    class_name = ("Custom_" if schema.is_custom else "Aten_") + \
        schema.op_name.split(".", 1)[1].replace(".", "_") + "Op"
    return irdl_op_definition(type(class_name, (AtenOp,), fields))


_OP_CLASSES: dict[str, type[AtenOp]] = {}


def op_class(op_name: str) -> type[AtenOp] | None:
    """The op class of ``aten.<name>[.<overload>]``, built once; None if ATen has no such op.

    Also that of a custom operator, ``custom.<ns>.<name>[.<overload>]``, while this process
    has it registered; rebuilt if its schema changed (Note [custom operators] in
    ``hopc.dialects.custom``).
    """
    cls = _OP_CLASSES.get(op_name)
    if cls is None or cls.SCHEMA.is_custom:
        schema = aten_schema.lookup(op_name)
        if schema is None:
            return None
        if cls is None or schema != cls.SCHEMA:
            cls = _OP_CLASSES[op_name] = make_op_class(schema)
    return cls
