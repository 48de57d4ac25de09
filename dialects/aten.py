"""The ``aten`` dialect: every ATen operator overload, as PyTorch's schema declares it.

The ops are not a hand-written list. ``aten_ops.json`` (generated from PyTorch's
operator registry) holds every overload's schema, and the op class of an
overload is built from its schema the first time a context asks for it
(``op_class`` in ``hopc.dialects.aten_op_classes``, which ``HopcContext`` in
``hopc.dialects.context`` calls), so parsing a file costs only the ops it uses
and never imports torch. A custom operator's op (``custom.<ns>.<name>``)
is an ``AtenOp`` of the schema its registry declares (Note [custom operators] in
``hopc.dialects.custom``).

An ATen op ``aten.<name>[.<overload>]`` has
- one operand group per tensor argument, in schema order: ``Tensor`` is one
  operand, ``Tensor?`` zero or one, ``Tensor[]``/``Tensor?[]`` any number
  (``operandSegmentSizes`` when several groups vary; the positions of ``None``
  in a ``Tensor?[]`` list are the property ``<arg>_nones``);
- one property per other argument, named as in the schema, omitted when the
  argument takes its default (ints are ``i64``, floats ``f64``, bools ``i1``,
  symbolic ints ``#hop.expr<...>``, dtypes MLIR element types, devices,
  layouts and memory formats strings, ``None`` is ``#hop.none``);
- one result per schema return (``Tensor[]`` returns are variadic).

Custom form::

    %r = aten.add.Tensor(%a, %b) {alpha = 2 : i64} : (!hop.tensor<[4], f32>, !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
    %c = aten.cat([%a, %b]) {dim = 0 : i64} : (!hop.tensor<[4], f32>, !hop.tensor<[4], f32>) -> !hop.tensor<[8], f32>
    %y = aten.index.Tensor(%x, [none, %i]) : (!hop.tensor<[4, 5], f32>, !hop.tensor<[3], i64>) -> !hop.tensor<[4, 3], f32>

Effects: an op that mutates an argument (``Tensor(a!)``) or draws random
numbers writes; every other op only reads its operands (a later in-place op may
change them, so at the captured level reads are not pure; see ``passes/cse.py``).

Tags: ``op.tags`` are PyTorch's op tags that passes ask about, and
``is_pointwise``, ``is_reduction``, ``is_view`` and ``is_random`` read them
(Note [op tags] in ``hopc.dialects.aten_schema``).

Note [undeclared writes]
~~~~~~~~~~~~~~~~~~~~~~~~
A few ATen schemas do not declare every write: ``aten.batch_norm`` (and
``native_batch_norm``, ``_batch_norm_impl_index``, the cudnn/miopen kernels,
``instance_norm``) update ``running_mean`` and ``running_var`` in place when
``training`` (``use_input_stats``) is true, though their schemas say
``Tensor?``, not ``Tensor(a!)?``. ``UNDECLARED_WRITES`` names them;
``AtenOp.mutated_operands`` includes those operands when the flag is true, and
such an op writes (``RunningStatsEffect`` in ``hopc.dialects.aten_op_classes``),
so no pass merges, drops or reorders it as if it only read.
"""

from __future__ import annotations

import keyword
from collections.abc import Sequence
from typing import ClassVar

from xdsl.dialects.builtin import ArrayAttr, IntegerAttr, i64
from xdsl.ir import Attribute, Dialect, SSAValue
from xdsl.irdl import IRDLOperation
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from hopc.dialects import aten_enums
from hopc.dialects.aten_attributes import attribute_fits
from hopc.dialects.aten_schema import Argument, Schema

_RUNNING_STATS = ("running_mean", "running_var")
UNDECLARED_WRITES: dict[str, tuple[str, tuple[str, ...]]] = {
    "aten.batch_norm": ("training", _RUNNING_STATS),
    "aten.native_batch_norm": ("training", _RUNNING_STATS),
    "aten._batch_norm_impl_index": ("training", _RUNNING_STATS),
    "aten.cudnn_batch_norm": ("training", _RUNNING_STATS),
    "aten.miopen_batch_norm": ("training", _RUNNING_STATS),
    "aten.instance_norm": ("use_input_stats", _RUNNING_STATS),
}
"""Op -> (the bool argument that turns the write on, the arguments written): Note [undeclared writes]."""


def field_name(argument_name: str) -> str:
    """The Python accessor of an argument: its name, with ``_`` added on a clash
    (with a keyword or a name of ``AtenOp``, ``_RESERVED_FIELD_NAMES``)."""
    return f"{argument_name}_" if argument_name in _RESERVED_FIELD_NAMES else argument_name


def nones_property(argument: Argument) -> str:
    """The property that lists the positions of ``None`` in a ``Tensor?[]`` argument."""
    return f"{argument.name}_nones"


class AtenOp(IRDLOperation):
    """Base of every ATen op class; ``schema`` is the overload's schema."""

    SCHEMA: ClassVar[Schema]

    # ----------------------------------------------------------------- queries for passes

    @property
    def tags(self) -> frozenset[str]:
        """The overload's op tags (Note [op tags] in ``hopc.dialects.aten_schema``)."""
        return self.SCHEMA.tags

    @property
    def is_pointwise(self) -> bool:
        """PyTorch tags it ``pointwise``: each output element reads the inputs at its index."""
        return self.SCHEMA.is_pointwise

    @property
    def is_reduction(self) -> bool:
        """PyTorch tags it ``reduction``."""
        return self.SCHEMA.is_reduction

    @property
    def is_view(self) -> bool:
        """A result may alias an operand that the op does not write (``Tensor(a)``)."""
        return self.SCHEMA.is_view

    @property
    def is_random(self) -> bool:
        """Its results depend on the RNG state (``nondeterministic_seeded``): it writes the state."""
        return self.SCHEMA.is_random

    def operand_groups(self) -> list[tuple[Argument, list[SSAValue]]]:
        """Each tensor argument with the operands passed for it, in schema order."""
        groups = []
        for argument in self.SCHEMA.operand_arguments:
            value = getattr(self, field_name(argument.name))
            if value is None:
                groups.append((argument, []))
            elif isinstance(value, SSAValue):
                groups.append((argument, [value]))
            else:
                groups.append((argument, list(value)))
        return groups

    def argument_attribute(self, name: str) -> Attribute | None:
        """The property of a non-tensor argument, or None when it takes its default."""
        return self.properties.get(name)

    def tensor_list_nones(self, argument: Argument) -> tuple[int, ...]:
        """Positions of ``None`` entries in a ``Tensor?[]`` argument."""
        nones = self.properties.get(nones_property(argument))
        if not isinstance(nones, ArrayAttr):
            return ()
        return tuple(a.value.data for a in nones.data)  # type: ignore[attr-defined]

    def mutated_operands(self) -> list[SSAValue]:
        """Operands this op writes to: its ``Tensor(a!)`` arguments and its undeclared writes."""
        written = self.undeclared_writes()
        return [v for arg, values in self.operand_groups()
                if arg.is_mutated or arg.name in written for v in values]

    def undeclared_writes(self) -> tuple[str, ...]:
        """The arguments this op writes though its schema does not say so (Note [undeclared writes])."""
        entry = UNDECLARED_WRITES.get(self.SCHEMA.op_name)
        if entry is None:
            return ()
        flag = self.properties.get(entry[0])
        if not (isinstance(flag, IntegerAttr) and flag.value.data):
            return ()
        return tuple(arg.name for arg, values in self.operand_groups() if arg.name in entry[1] and values)

    def aliased_operand(self, result_index: int) -> SSAValue | None:
        """The operand whose storage result ``result_index`` shares, if any."""
        argument = self.SCHEMA.aliased_argument_of_return[result_index]
        if argument is None:
            return None
        for candidate, values in self.operand_groups():
            if candidate is argument and values:
                return values[0]
        return None

    # ----------------------------------------------------------------- verification

    def verify_(self) -> None:
        known = {a.name for a in self.SCHEMA.attribute_arguments}
        known |= {nones_property(a) for a in self.SCHEMA.operand_arguments if a.is_tensor_list}
        known.add("operandSegmentSizes")
        known.add("resultSegmentSizes")
        for name in self.properties:
            if name not in known:
                raise VerifyException(f"'{self.name}' has no argument named '{name}'")
        for argument in self.SCHEMA.attribute_arguments:
            attribute = self.properties.get(argument.name)
            if attribute is None:
                if argument.required:
                    raise VerifyException(
                        f"'{self.name}' requires argument '{argument.name}' ({argument.type})"
                    )
                continue
            if not attribute_fits(argument.type, attribute):
                raise VerifyException(
                    f"'{self.name}' argument '{argument.name}' of type {argument.type} "
                    f"cannot be {attribute}"
                )
            if (reason := aten_enums.invalid_value(argument.type, attribute)) is not None:
                raise VerifyException(f"'{self.name}' argument '{argument.name}' of type "
                                      f"{argument.type} cannot be {attribute}: {reason}")

    # ----------------------------------------------------------------- custom form

    def print(self, printer: Printer) -> None:
        printer.print_string("(")
        for index, (argument, values) in enumerate(self.operand_groups()):
            if index:
                printer.print_string(", ")
            if argument.is_tensor_list:
                self._print_list(printer, argument, values)
            elif values:
                printer.print_operand(values[0])
            else:
                printer.print_string("none")
        printer.print_string(")")
        shown = {k: v for k, v in self.properties.items()
                 if k not in ("operandSegmentSizes", "resultSegmentSizes")
                 and not k.endswith("_nones")}
        printer.print_op_attributes(shown | dict(self.attributes))
        printer.print_string(" : ")
        printer.print_function_type([v.type for v in self.operands],
                                    [r.type for r in self.results])

    def _print_list(self, printer: Printer, argument: Argument,
                    values: Sequence[SSAValue]) -> None:
        nones = set(self.tensor_list_nones(argument))
        remaining = iter(values)
        printer.print_string("[")
        for position in range(len(values) + len(nones)):
            if position:
                printer.print_string(", ")
            if position in nones:
                printer.print_string("none")
            else:
                printer.print_operand(next(remaining))
        printer.print_string("]")

    @classmethod
    def parse(cls, parser: Parser) -> AtenOp:
        schema = cls.SCHEMA
        parser.parse_punctuation("(")
        groups: list[list[UnresolvedOperand]] = []
        nones: dict[str, list[int]] = {}
        arity = (f"{schema.op_name} takes {len(schema.operand_arguments)} tensor arguments "
                 f"({', '.join(a.name for a in schema.operand_arguments)})")
        for index, argument in enumerate(schema.operand_arguments):
            if index and parser.parse_optional_punctuation(",") is None:
                parser.raise_error(f"{arity}, got {index}")
            if argument.is_tensor_list:
                group, group_nones = _parse_operand_list(parser, argument)
                if group_nones:
                    nones[argument.name] = group_nones
                groups.append(group)
            elif parser.parse_optional_keyword("none") is not None:
                if not argument.is_optional_tensor:
                    parser.raise_error(f"argument '{argument.name}' of {schema.op_name} is not optional")
                groups.append([])
            else:
                groups.append([parser.parse_unresolved_operand()])
        if parser.parse_optional_punctuation(")") is None:
            if parser.parse_optional_punctuation(",") is not None:
                parser.raise_error(f"{arity}, got more")
            parser.raise_error(f"expected ')' after the {len(groups)} tensor arguments of {schema.op_name}")
        dictionary_position = parser.pos
        dictionary = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        types_position = parser.pos
        function_type = parser.parse_function_type()
        flat = [operand for group in groups for operand in group]
        operands = parser.resolve_operands(flat, function_type.inputs.data, types_position)
        argument_names = {a.name for a in schema.attribute_arguments}
        for name in dictionary:
            # A discardable attribute names its dialect (``hop.note``); a bare name is an argument.
            if name not in argument_names and "." not in name:
                parser.raise_error(f"{schema.op_name} has no argument named '{name}' (arguments: "
                                   f"{', '.join(sorted(argument_names)) or 'none'})",
                                   dictionary_position)
        properties = {k: v for k, v in dictionary.items() if k in argument_names}
        attributes = {k: v for k, v in dictionary.items() if k not in argument_names}
        for name, positions in nones.items():
            properties[f"{name}_nones"] = ArrayAttr([IntegerAttr(p, i64) for p in positions])
        return cls.build_from_groups(
            _regroup(operands, [len(g) for g in groups]),
            properties,
            list(function_type.outputs.data),
            attributes,
        )

    @classmethod
    def build_from_groups(cls, groups: Sequence[Sequence[SSAValue]],
                          properties: dict[str, Attribute],
                          result_types: Sequence[Attribute],
                          attributes: dict[str, Attribute] | None = None) -> AtenOp:
        """Builds the op from one operand list per tensor argument and its results' types."""
        operand_defs = []
        for argument, group in zip(cls.SCHEMA.operand_arguments, groups, strict=True):
            if argument.is_tensor_list or argument.is_optional_tensor:
                operand_defs.append(list(group))
            else:
                if len(group) != 1:
                    raise VerifyException(
                        f"'{cls.SCHEMA.op_name}' argument '{argument.name}' needs one tensor"
                    )
                operand_defs.append(group[0])
        return cls(operands=operand_defs, properties=properties,
                   result_types=_result_groups(cls.SCHEMA, result_types),
                   attributes=attributes or {})


def _parse_operand_list(parser: Parser, argument: Argument) -> tuple[list[UnresolvedOperand], list[int]]:
    parser.parse_punctuation("[")
    operands: list[UnresolvedOperand] = []
    nones: list[int] = []
    if parser.parse_optional_punctuation("]") is not None:
        return operands, nones
    position = 0
    while True:
        if parser.parse_optional_keyword("none") is not None:
            if argument.type != "Tensor?[]":
                parser.raise_error(f"argument '{argument.name}' ({argument.type}) cannot hold none")
            nones.append(position)
        else:
            operands.append(parser.parse_unresolved_operand())
        position += 1
        if parser.parse_optional_punctuation(",") is None:
            break
    parser.parse_punctuation("]")
    return operands, nones


def _regroup(values: Sequence[SSAValue], sizes: Sequence[int]) -> list[list[SSAValue]]:
    groups, start = [], 0
    for size in sizes:
        groups.append(list(values[start : start + size]))
        start += size
    return groups


def _result_groups(schema: Schema, result_types: Sequence[Attribute]) -> list:
    """Splits a flat result type list into one entry per schema return."""
    variadic = [r for r in schema.returns if r.is_tensor_list]
    if not variadic:
        if len(result_types) != len(schema.returns):
            raise VerifyException(
                f"'{schema.op_name}' returns {len(schema.returns)} values, "
                f"got {len(result_types)} result types"
            )
        return list(result_types)
    fixed = len(schema.returns) - len(variadic)
    if len(variadic) > 1:
        raise VerifyException(f"'{schema.op_name}' has several list returns; use the generic form")
    groups, index = [], 0
    for ret in schema.returns:
        if ret.is_tensor_list:
            count = len(result_types) - fixed
            groups.append(list(result_types[index : index + count]))
            index += count
        else:
            groups.append(result_types[index])
            index += 1
    return groups


_RESERVED_FIELD_NAMES = frozenset(dir(AtenOp)) | frozenset(keyword.kwlist)

Aten = Dialect("aten", [], [])
"""The dialect object; its ops are created on demand by ``hopc.dialects.aten_op_classes.op_class``."""
