"""An ATen-level FX graph and its entry arguments -> a captured-level module.

The module holds, in order: one ``hop.symbol`` per shape symbol it mentions,
the parameters, buffers and constants, the shared ``hop.subgraph``s, and the
entry function ``@forward`` whose arguments are the graph's placeholders, each
marked with its role (Note [entry signature] in ``hopc.dialects.hop_module``),
and with ``{hop.requires_grad}`` where the module is to be differentiated for
it. The results are the graph's outputs, flattened; mutation stays in place in
the body, so no result is a copy-back at this level. With ``weights``, each
parameter and buffer carries its value (Note [captured weights]).

Note [captured weights]
~~~~~~~~~~~~~~~~~~~~~~~
``hopc.capture(..., weights=True)`` records the value of each parameter and
buffer on its global, as torch-mlir's importer records a frozen module's::

    hop.parameter @lin.weight = dense_resource<lin.weight> : tensor<3x4xf32> : !hop.tensor<[3, 4], f32>

with the bytes in the file's resource section (``hopc.to_text`` appends it,
``hopc.parse`` reads it back: ``hopc.ir.resources``). A weight is a resource
whatever its size, unlike a folded constant (Note [constant values] in
``hopc.torch_bridge.tensor_constants``): the text then keeps every weight in one place, out of
the IR a reader or a FileCheck line looks at. The entry still takes each
weight as an argument: the value is the one the global starts with, which
``--freeze`` folds into the program where the program never changes it (Note
[what freezes] in ``hopc.passes.freeze.globals``); without ``--freeze`` the
module runs on whatever weights its caller passes. The value is a copy taken
at capture time, and its blob is interned for good, as a parsed file's is
(Note [owned blobs] in ``hopc.ir.resources``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import sympy
import torch
import torch.fx
from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseIntOrFPElementsAttr,
    DictionaryAttr,
    FunctionType,
    ModuleOp,
    SymbolRefAttr,
    UnitAttr,
)
from xdsl.dialects.builtin import TensorType as BuiltinTensorType
from xdsl.dialects.func import FuncOp, ReturnOp
from xdsl.ir import Attribute, Block, Operation, Region

from hopc.dialects.hop import BufferOp, ConstantOp, ParameterOp
from hopc.dialects.hop_module import REQUIRES_GRAD
from hopc.dialects.hop_module_structure import STRIDES
from hopc.frontend.entry_arguments import BUFFER, CONSTANT, PARAMETER, EntryArgument
from hopc.fx_import.importer import GraphImporter, ModuleImports
from hopc.fx_import.shape_symbols import ShapeSymbols
from hopc.ir.types import TensorType, dim_attribute
from hopc.torch_bridge.tensor_constants import tensor_value

__all__ = ["BUFFER", "CONSTANT", "PARAMETER", "EntryArgument", "constant_attribute", "import_module", "value_name"]


def constant_attribute(tensor: torch.Tensor, tensor_type: TensorType) -> DenseIntOrFPElementsAttr:
    """The elements of a (real) tensor as a builtin dense attribute."""
    shaped = BuiltinTensorType(tensor_type.element_type, list(tensor.shape))
    values = tensor.detach().flatten().tolist()
    if tensor.dtype == torch.bool:
        values = [int(v) for v in values]
    return DenseIntOrFPElementsAttr.from_list(shaped, values)


def _global_op(argument: EntryArgument, tensor_type: Attribute, weights: bool) -> Operation:
    """The global ``argument`` names; a parameter or buffer with its value where ``weights``
    (Note [captured weights])."""
    if argument.role in (PARAMETER, BUFFER):
        global_class = ParameterOp if argument.role == PARAMETER else BufferOp
        if not weights or argument.value is None:
            return global_class(argument.name, tensor_type)
        return global_class(argument.name, tensor_type, tensor_value(argument.name, argument.value, resource=True))
    assert argument.value is not None
    return ConstantOp(argument.name, constant_attribute(argument.value, tensor_type), tensor_type)


def value_name(name: str) -> str:
    """A name usable as an SSA value name: ``lin.weight`` -> ``lin_weight``."""
    cleaned = re.sub(r"[^A-Za-z0-9_]", "_", name).strip("_") or "arg"
    return f"_{cleaned}" if cleaned[0].isdigit() else cleaned


def _argument_attributes(argument: EntryArgument, symbols: ShapeSymbols) -> dict[str, Attribute]:
    """The argument's role, its grad mark, and its strides unless dense and row-major (Note [entry signature])."""
    attributes: dict[str, Attribute] = {}
    if argument.role:
        attributes[argument.role] = SymbolRefAttr(argument.name)
    if argument.requires_grad:
        attributes[REQUIRES_GRAD] = UnitAttr()
    example = argument.example
    if isinstance(example, torch.Tensor) and not _row_major(example):
        attributes[STRIDES] = ArrayAttr([dim_attribute(symbols.text(s)) for s in example.stride()])
    return attributes


def _row_major(tensor: torch.Tensor) -> bool:
    """Whether the strides are row-major's (those of size-1 dimensions do not matter), exactly."""
    expected: sympy.Expr = sympy.Integer(1)
    for size, stride in reversed(list(zip(tensor.shape, tensor.stride(), strict=True))):
        size_expr, stride_expr = _expr(size), _expr(stride)
        if size_expr != 1 and sympy.expand(stride_expr - expected) != 0:
            return False
        expected = expected * size_expr
    return True


def _expr(value: int | torch.SymInt) -> sympy.Expr:
    return value.node.expr if isinstance(value, torch.SymInt) else sympy.Integer(value)


def import_module(graph: torch.fx.GraphModule, arguments: Sequence[EntryArgument],
                  symbols: ShapeSymbols, *, weights: bool = False) -> ModuleOp:
    """The captured module of ``graph``, whose placeholders are ``arguments`` in order; with
    ``weights``, its parameters and buffers carry their values (Note [captured weights])."""
    imports = ModuleImports(symbols)
    argument_types = [symbols.type_of(argument.example) for argument in arguments]
    block = Block(arg_types=argument_types)
    for block_argument, argument in zip(block.args, arguments, strict=True):
        block_argument.name_hint = value_name(argument.name)
    outputs = GraphImporter(imports, graph, block).import_graph()
    block.add_op(ReturnOp(*outputs))
    roles = [DictionaryAttr(_argument_attributes(argument, symbols)) for argument in arguments]
    function = FuncOp("forward", FunctionType.from_lists(argument_types, [v.type for v in outputs]),
                      Region(block), arg_attrs=ArrayAttr(roles))
    globals_ = [_global_op(argument, type_, weights)
                for argument, type_ in zip(arguments, argument_types) if argument.role]
    return ModuleOp([*symbols.declarations(), *globals_, *imports.subgraphs, function])
