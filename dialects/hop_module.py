"""The module-structure ops of the ``hop`` dialect: globals, entry points, and their roles.

``hop.parameter``, ``hop.buffer`` and ``hop.constant`` declare the module's
named tensors; ``hop.entry`` names an entry function by symbol and says what
kind of entry it is. The attribute names that give every entry argument and
result its role are defined here too (Note [entry signature]);
``hopc.dialects.hop_function_signature`` reads them and ``hopc.dialects.hop_module_structure`` checks them across
functions. The ``Hop`` dialect (``hopc.dialects.hop``) registers these ops and
re-exports them.

Note [entry signature]
~~~~~~~~~~~~~~~~~~~~~~
A module names its entry functions by symbol, ``hop.entry forward @f``, at
most one per kind (``ENTRY_KINDS``: forward, backward, joint). A module
without ``hop.entry`` ops has a single entry, its one public ``func.func``,
which is the forward: the captured and functional levels look like that.

Every argument and result of an entry function has exactly one role, given by
its attributes; which roles an entry of each kind may use is its
``EntryKind``. Arguments:

- unmarked: a user input, in order;
- ``{hop.parameter = @p}``, ``{hop.buffer = @b}``, ``{hop.constant = @c}``:
  the module's global of that name, declared by the op of that name, same type;
- ``{hop.saved = k}`` (backward): the value the forward saves as ``k``, same type;
- ``{hop.cotangent_of = i}`` (backward, joint): the cotangent of result ``i``
  of the differentiated function, same type: a user output, or the copy-back
  of an argument marked ``hop.requires_grad`` (an input the program changes
  in place, whose new value the caller copies back under autograd, as
  AOTAutograd does: Note [training call]).

``{hop.requires_grad}`` (a unit attribute) may sit beside a user input or a
parameter: the differentiated entries may return its gradient.
``{hop.strides = [1, #hop.expr<s0>]}`` may sit beside any role: the tensor
argument's strides (one integer or expression per dimension; what a view of it
shares depends on them); without it a tensor argument is dense and row-major.
Results:

- unmarked: a user output, in order;
- ``{hop.copy_back_to = i}``: the final value of argument ``i`` (an input or
  buffer the program changed in place), same type; the caller copies it back;
- ``{hop.saved = k}`` (forward): saved value ``k`` for the backward; a forward's
  saved values are numbered 0..n-1, each once, and the backward takes each
  exactly once;
- ``{hop.gradient_of = j}`` (backward, joint): the gradient of argument ``j`` of
  the differentiated function, which is ``hop.requires_grad``, same type.

The differentiated function of a backward is the forward; a joint is its own
(it takes the forward's arguments and the cotangents, and returns the outputs
and the gradients). Indices are argument or result positions, not ordinals
among the user inputs or outputs, so every role survives reordering the
others.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    DenseResourceAttr,
    ModuleOp,
    ShapedType,
    StringAttr,
    SymbolNameConstraint,
    SymbolRefAttr,
)
from xdsl.dialects.func import FuncOp
from xdsl.ir import Attribute, Operation
from xdsl.irdl import IRDLOperation, irdl_op_definition, opt_prop_def, prop_def, result_def, traits_def
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import HasParent, Pure, SymbolOpInterface, SymbolTable
from xdsl.utils.exceptions import VerifyException

from hopc.dialects.hop_common import describe
from hopc.ir.resources import BLOBS, blob_data
from hopc.ir.types import TensorType

PARAMETER = "hop.parameter"
BUFFER = "hop.buffer"
CONSTANT = "hop.constant"
SAVED = "hop.saved"
COTANGENT_OF = "hop.cotangent_of"
REQUIRES_GRAD = "hop.requires_grad"
STRIDES = "hop.strides"
COPY_BACK = "hop.copy_back_to"
GRADIENT_OF = "hop.gradient_of"

GLOBAL_ROLES = (PARAMETER, BUFFER, CONSTANT)
"""Argument roles that name a module global by symbol."""
ARGUMENT_ROLES = (*GLOBAL_ROLES, SAVED, COTANGENT_OF)
"""The exclusive argument roles; an argument without one is a user input."""
RESULT_ROLES = (COPY_BACK, SAVED, GRADIENT_OF)
"""The exclusive result roles; a result without one is a user output."""


@dataclass(frozen=True)
class EntryKind:
    """A kind of entry function: the roles its arguments and results may have.

    ``argument_roles`` and ``result_roles`` list the attributes allowed beyond
    an unmarked user input or output (and ``hop.strides``). ``differentiates``
    names the kind whose user outputs ``hop.cotangent_of`` and whose arguments
    ``hop.gradient_of`` refer to, and whose saved values ``hop.saved``
    arguments take; an entry of that kind must exist (Note [entry signature]).
    """

    name: str
    argument_roles: frozenset[str]
    result_roles: frozenset[str]
    differentiates: str | None = None


ENTRY_KINDS = (
    EntryKind("forward", frozenset({*GLOBAL_ROLES, REQUIRES_GRAD}), frozenset({COPY_BACK, SAVED})),
    EntryKind("backward", frozenset({*GLOBAL_ROLES, SAVED, COTANGENT_OF}), frozenset({GRADIENT_OF}),
              differentiates="forward"),
    EntryKind("joint", frozenset({*GLOBAL_ROLES, REQUIRES_GRAD, COTANGENT_OF}),
              frozenset({COPY_BACK, GRADIENT_OF}), differentiates="joint"),
)
"""Every kind of entry, in the order a module lists them."""

ENTRY_KIND_BY_NAME = {kind.name: kind for kind in ENTRY_KINDS}


TENSOR_VALUE = DenseIntOrFPElementsAttr | DenseResourceAttr
"""The attributes a global's value may be: inline ``dense<...>``, or ``dense_resource<handle>``
whose bytes the file's resource section holds (``hopc.ir.resources``)."""


def verify_tensor_value(global_name: str, value: DenseIntOrFPElementsAttr | DenseResourceAttr,
                        tensor_type: TensorType) -> None:
    """Raises unless ``value`` holds the elements of a ``tensor_type``: its shape, its element
    type, and (a resource) a blob of exactly their bytes. ``global_name`` names the global in
    messages: ``'hop.constant' @c``."""
    shaped = value.type
    assert isinstance(shaped, ShapedType)
    shape, element_type = tuple(shaped.get_shape()), shaped.get_element_type()
    if shape != tensor_type.shape or element_type != tensor_type.element_type:
        raise VerifyException(f"{global_name} value has type {shaped}, its type is {tensor_type}")
    if isinstance(value, DenseResourceAttr):
        handle = value.resource_handle.data
        blob = BLOBS.blob(handle)
        if blob is None:
            raise VerifyException(f"{global_name} value dense_resource<{handle}> has no blob: "
                                  "the resource section does not define it")
        expected = math.prod(shape) * element_type.compile_time_size
        if len(blob_data(blob)) != expected:
            raise VerifyException(f"{global_name} value dense_resource<{handle}> holds "
                                  f"{len(blob_data(blob))} bytes, a {shaped} has {expected}")


class _GlobalTensorOp(IRDLOperation):
    """A named module-level tensor the entry functions take as an argument, with its value
    where the module knows it (``--freeze`` folds such values into constants)."""

    sym_name = prop_def(SymbolNameConstraint())
    tensor_type = prop_def(Attribute, prop_name="type")  # a TensorType, printed in full
    value = opt_prop_def(TENSOR_VALUE)
    traits = traits_def(SymbolOpInterface(), Pure())
    assembly_format = "$sym_name (`=` $value^)? `:` $type attr-dict"

    def verify_(self) -> None:
        if not isinstance(self.tensor_type, TensorType):
            raise VerifyException(f"'{self.name}' @{self.symbol} type {self.tensor_type} is not a !hop.tensor")
        if self.value is not None:
            verify_tensor_value(f"'{self.name}' @{self.symbol}", self.value, self.tensor_type)

    def __init__(self, name: str, tensor_type: TensorType,
                 value: DenseIntOrFPElementsAttr | DenseResourceAttr | None = None):
        super().__init__(properties={"sym_name": StringAttr(name), "value": value, "type": tensor_type})

    @property
    def symbol(self) -> str:
        return self.sym_name.data


@irdl_op_definition
class ParameterOp(_GlobalTensorOp):
    """A parameter of the captured module: ``hop.parameter @linear.weight : !hop.tensor<[4, 4], f32>``,
    or with its value, ``hop.parameter @w = dense<...> : tensor<2xf32> : !hop.tensor<[2], f32>``."""

    name = "hop.parameter"


@irdl_op_definition
class BufferOp(_GlobalTensorOp):
    """A buffer of the captured module: ``hop.buffer @bn.running_mean : !hop.tensor<[4], f32>``,
    or with its value as a ``hop.parameter``'s."""

    name = "hop.buffer"


@irdl_op_definition
class ConstantOp(IRDLOperation):
    """A tensor constant of the module, with its value::

        hop.constant @c0 = dense<[1.0, 2.0]> : tensor<2xf32> : !hop.tensor<[2], f32>

    or ``hop.constant @w = dense_resource<w> : tensor<64x64xf32> : ...`` with
    the bytes of ``w`` in the file's resource section (``hopc.ir.resources``):
    ``hopc.torch_bridge.tensor_constants.constant_op`` makes a large value so.
    Restrictions: the value has the type's shape and element type.
    """

    name = "hop.constant"
    sym_name = prop_def(SymbolNameConstraint())
    value = prop_def(TENSOR_VALUE)
    tensor_type = prop_def(Attribute, prop_name="type")  # a TensorType, printed in full
    traits = traits_def(SymbolOpInterface(), Pure())
    assembly_format = "$sym_name `=` $value `:` $type attr-dict"

    def __init__(self, name: str, value: DenseIntOrFPElementsAttr | DenseResourceAttr,
                 tensor_type: TensorType):
        super().__init__(properties={"sym_name": StringAttr(name), "value": value, "type": tensor_type})

    @property
    def symbol(self) -> str:
        return self.sym_name.data

    def verify_(self) -> None:
        if not isinstance(self.tensor_type, TensorType):
            raise VerifyException(f"'hop.constant' @{self.symbol} type {self.tensor_type} is not a !hop.tensor")
        verify_tensor_value(f"'hop.constant' @{self.symbol}", self.value, self.tensor_type)


@irdl_op_definition
class GetConstantOp(IRDLOperation):
    """Reads a constant of the module: ``%w = hop.get_constant @w : !hop.tensor<[4, 4], f32>``.

        result = module.constants[constant]

    As MLIR's ``memref.get_global``: the constant is named by symbol, not read
    as an SSA value, so the op may sit in any region, an isolated HOP region
    included (Note [isolated regions] in ``hopc.dialects.hop_interface``).
    Pure: two reads of one constant are one value (cse), an unused one is dead.
    Restrictions: ``constant`` names a ``hop.constant`` of the module, whose
    type is the result type. The result is read-only: every call shares it, so
    no op may mutate it in place (none does after ``--functionalize``).
    """

    name = "hop.get_constant"
    constant = prop_def(SymbolRefAttr)
    result = result_def(TensorType)
    traits = traits_def(Pure())
    assembly_format = "$constant `:` type($result) attr-dict"

    def __init__(self, symbol: str, result_type: TensorType):
        super().__init__(properties={"constant": SymbolRefAttr(symbol)}, result_types=[result_type])

    @property
    def symbol(self) -> str:
        return self.constant.root_reference.data

    def referenced(self) -> Operation | None:
        """The op the symbol names in the symbol table around this op; None where it names
        nothing, or the op is in no symbol table."""
        table = self.parent_op()
        while table is not None and not table.has_trait(SymbolTable):
            table = table.parent_op()
        return None if table is None else SymbolTable.lookup_symbol(table, self.constant)

    def verify_(self) -> None:
        if self.parent_op() is None:
            return
        found = self.referenced()
        if found is None:
            raise VerifyException(f"'hop.get_constant' {describe(self.result)} reads @{self.symbol}, "
                                  "which the module does not declare")
        if not isinstance(found, ConstantOp):
            raise VerifyException(f"'hop.get_constant' {describe(self.result)} reads @{self.symbol}, "
                                  f"a {found.name}, not a hop.constant")
        if found.tensor_type != self.result.type:
            raise VerifyException(f"'hop.get_constant' {describe(self.result)} has type {self.result.type}, "
                                  f"but hop.constant @{self.symbol} has type {found.tensor_type}")


GLOBAL_OPS = {PARAMETER: ParameterOp, BUFFER: BufferOp, CONSTANT: ConstantOp}
"""The op that declares the global an argument of each global role names."""


@irdl_op_definition
class EntryOp(IRDLOperation):
    """Names an entry function of the module: ``hop.entry backward @backward``.

        module.entries[kind] = module.functions[function]

    Restrictions: ``kind`` is one of ``ENTRY_KINDS``; ``function`` names a
    ``func.func`` of the module; each kind is named at most once; the kind an
    entry differentiates (a backward's forward) is named too. The roles of the
    function's arguments and results are checked with the module
    (Note [entry signature]).
    """

    name = "hop.entry"
    kind = prop_def(StringAttr)
    function = prop_def(SymbolRefAttr)
    traits = traits_def(HasParent(ModuleOp))

    def __init__(self, kind: str, function: str):
        super().__init__(properties={"kind": StringAttr(kind), "function": SymbolRefAttr(function)})

    @property
    def entry_kind(self) -> EntryKind | None:
        return ENTRY_KIND_BY_NAME.get(self.kind.data)

    @property
    def function_name(self) -> str:
        return self.function.root_reference.data

    def verify_(self) -> None:
        kind = self.entry_kind
        if kind is None:
            raise VerifyException(f"'hop.entry' kind must be one of {', '.join(ENTRY_KIND_BY_NAME)}, "
                                  f"got '{self.kind.data}'")
        if self.parent is None:
            return
        if not isinstance(SymbolTable.lookup_symbol(self, self.function), FuncOp):
            raise VerifyException(f"'hop.entry' {kind.name} names {self.function}, which is not a "
                                  "func.func of the module")
        entries = [op for op in self.parent.ops if isinstance(op, EntryOp)]
        earlier = entries[:entries.index(self)]
        first = next((op for op in earlier if op.kind == self.kind), None)
        if first is not None:
            raise VerifyException(f"'hop.entry' {kind.name} @{self.function_name}: the module already "
                                  f"names @{first.function_name} as its {kind.name} entry")
        if kind.differentiates is not None and kind.differentiates != kind.name and \
                all(op.kind.data != kind.differentiates for op in entries):
            raise VerifyException(f"'hop.entry' {kind.name} @{self.function_name} needs a "
                                  f"hop.entry {kind.differentiates}")

    @classmethod
    def parse(cls, parser: Parser) -> EntryOp:
        position = parser.pos
        kind = parser.parse_identifier()
        if kind not in ENTRY_KIND_BY_NAME:
            parser.raise_error(f"expected an entry kind ({', '.join(ENTRY_KIND_BY_NAME)})", position)
        op = cls(kind, parser.parse_symbol_name().data)
        op.attributes.update(parser.parse_optional_attr_dict())
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_identifier_or_string_literal(self.kind.data)  # never raw text of a name
        printer.print_string(" ")
        printer.print_attribute(self.function)
        printer.print_op_attributes(self.attributes)
