"""Capturing ``invoke_subgraph(subgraph, identifier, *operands)`` as ``hop.invoke_subgraph``.

The body becomes a shared ``hop.subgraph`` (``ModuleImports.shared_subgraph``),
one per graph module and argument types, which every call names. A size the
body defines and returns only inside expressions (``[4*u0]``) is returned as
a ``!hop.symint`` too, and each call names it by the symbol its own result
types give it (Note [call result symbols] in
``hopc.dialects.hop_call_results``).
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from typing import TYPE_CHECKING

import torch.fx
from xdsl.dialects.builtin import SymbolRefAttr
from xdsl.ir import Attribute, OpResult, Region, SSAValue

from hopc.dialects import hop
from hopc.dialects.hop_call_results import (
    UnnamedSize,
    call_names,
    defining_results,
    sizes_only_inside_expressions,
)
from hopc.fx_import.capture_rules import EAGER_ENTRY_POINTS, HOP_IMPORTS, TRAILING_ARGUMENTS, EntryPoint
from hopc.fx_import.errors import unsupported
from hopc.fx_import.hops.shared import COMPILED_CALL, types_of
from hopc.ir.substitution import InconsistentBinding, bind, substitute
from hopc.ir.types import SymFloatType, SymIntType, TensorType

if TYPE_CHECKING:
    from hopc.fx_import.importer import GraphImporter

_INVOKE_SUBGRAPH = importlib.import_module("torch._higher_order_ops.invoke_subgraph")
"""The module itself (``torch._higher_order_ops`` exports the HOP under its name)."""


@HOP_IMPORTS.register("invoke_subgraph")
def import_invoke_subgraph(importer: GraphImporter, node: torch.fx.Node) -> None:
    subgraph, _identifier, *operands = node.args
    inputs = importer.values_of(operands, node)
    types = types_of(inputs)
    name = importer.imports.shared_subgraph(
        importer.modules.get(subgraph), types,
        lambda: _with_size_results(importer.region(subgraph, types, node)))
    result_types = _call_result_types(node, importer.imports.subgraph(name), types,
                                      importer.result_types(node))
    importer.define(node, hop.InvokeSubgraphOp(properties={"callee": SymbolRefAttr(name)},
                                               operands=[inputs], result_types=[result_types]),
                    several=True)


def _with_size_results(body: Region) -> Region:
    """``body``, yielding after its results a ``!hop.symint`` of each size it defines that they
    have only inside expressions (Note [call result symbols])."""
    block = body.block
    terminator = block.last_op
    assert isinstance(terminator, hop.YieldOp)
    sizes = sizes_only_inside_expressions(block, [v.type for v in terminator.values])
    if not sizes:
        return body
    defining = defining_results(block)
    extra = [_size_of(defining[size], size, terminator) for size in sizes]
    size_yield = hop.YieldOp(*terminator.values, *extra)
    size_yield.location = terminator.location
    block.insert_op_before(size_yield, terminator)
    block.erase_op(terminator)
    return body


def _size_of(result: OpResult, size: str, terminator: hop.YieldOp) -> SSAValue:
    """A value of type ``!hop.symint<size>``: ``result`` itself, or a ``hop.sym_size`` of the
    dimension of ``result`` that is ``size``, inserted before ``terminator``."""
    if not isinstance(result.type, TensorType):
        return result
    read = hop.SymSizeOp(result, result.type.shape.index(size))
    read.location = result.op.location
    terminator.parent_block().insert_op_before(read, terminator)
    return read.result


def _call_result_types(node: torch.fx.Node, callee: hop.SubgraphOp, operand_types: list[Attribute],
                       result_types: list[Attribute]) -> list[Attribute]:
    """``result_types`` (the node's), then a ``!hop.symint`` (``!hop.symfloat``) of the call's own
    name for each size ``callee`` yields after them (Note [call result symbols]); a located error
    where the types name one by no single symbol."""
    extra = callee.output_types[len(result_types):]
    if not extra or not all(isinstance(t, SymIntType | SymFloatType) for t in extra):
        return result_types  # none, or the verifier of the call counts the results
    sizes = [t.value for t in extra]
    yielded = callee.output_types[:len(result_types)]
    try:
        substitution = callee.substitution_for(operand_types) | bind(yielded, result_types)
    except InconsistentBinding:
        substitution = {}  # the verifier of the call names the conflict
    try:
        names = call_names([substitute(t, substitution) for t in yielded], result_types, sizes)
    except UnnamedSize as reason:
        raise unsupported(node, f"a nested_compile_region whose body defines {reason.size} and "
                          f"returns it only inside expressions: the call's result has {reason}; "
                          f"return (and use) a tensor of the body that has {reason.size} as a "
                          "whole dimension too") from None
    return [*result_types, *(type(t)(names[t.value]) for t in extra)]


@TRAILING_ARGUMENTS.register("invoke_subgraph")
def invoke_subgraph_trailing_argument() -> None:
    """The operands, the variadic rest; a subgraph shared by several calls is changed once."""
    return None


@EAGER_ENTRY_POINTS.register("invoke_subgraph")
def invoke_subgraph_entry_points() -> Sequence[EntryPoint]:
    """An exported ``nested_compile_region`` compiles its call; otherwise it calls
    ``invoke_subgraph_placeholder``."""
    return (COMPILED_CALL, (_INVOKE_SUBGRAPH, "invoke_subgraph_placeholder"))
