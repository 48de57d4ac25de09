"""What the capture rules of several HOP kinds share (this module registers nothing).

- ``with_size_results(body)`` and ``call_result_types(...)``: a body that yields a size it
  defines only inside expressions (``[4*u0]``) yields it as a ``!hop.symint`` too, and the op
  that runs it gets one more result per such size, of its own name (Note [call result symbols]
  in ``hopc.dialects.hop_call_results``): ``hop.invoke_subgraph``, ``hop.wrap``,
  ``hop.checkpoint``.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from typing import TYPE_CHECKING

import torch.fx
from xdsl.ir import Attribute, OpResult, Region, SSAValue

from hopc.dialects import hop
from hopc.dialects.hop_call_results import (
    UnnamedSize,
    call_names,
    defining_results,
    sizes_only_inside_expressions,
)
from hopc.dialects.hop_interface import sliced_type
from hopc.dialects.hop_yield import yield_of
from hopc.fx_import.capture_rules import EntryPoint
from hopc.fx_import.errors import unsupported
from hopc.ir.dims import Dim
from hopc.ir.substitution import InconsistentBinding, bind, substitute
from hopc.ir.types import SymFloatType, SymIntType, TensorType

if TYPE_CHECKING:
    from hopc.fx_import.importer import GraphImporter

COMPILED_CALL: EntryPoint = (importlib.import_module("torch._higher_order_ops.utils"), "setup_compilation_env")
"""Where ``cond``, ``while_loop``, ``scan``, ``map``, a pointwise ``associative_scan`` and an
exported ``nested_compile_region`` compile their call outside Dynamo (torch 2.13 through
``_hop_compile_and_call``, which torch 2.11 lacks). The module itself:
``torch._higher_order_ops`` exports HOPs of the same names as its modules."""


def types_of(values: Sequence) -> list[Attribute]:
    return [v.type for v in values]


def slice_types(xs: Sequence) -> list[Attribute]:
    """The types the body of a scan or map sees: one slice along dim 0 of each operand."""
    types = [sliced_type(x.type) for x in xs]
    assert None not in types
    return types


def import_single_body(importer: GraphImporter, node: torch.fx.Node,
                       op_class: type[hop.WrapOp] | type[hop.CheckpointOp], kind: str) -> None:
    """``op_class(body, *operands)``: one body on the operands, as ``hop.wrap`` and
    ``hop.checkpoint``; ``kind`` (``a wrap``) names the op in an error."""
    body, *operands = node.args
    inputs = importer.values_of(operands, node)
    region = with_size_results(importer.region(body, types_of(inputs), node))
    yielded = [v.type for v in yield_of(region).values]
    result_types = call_result_types(node, kind, yielded, {}, importer.result_types(node))
    importer.define(node, op_class(inputs, result_types, region), several=True)


def with_size_results(body: Region) -> Region:
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


def call_result_types(node: torch.fx.Node, kind: str, yielded_types: Sequence[Attribute],
                      substitution: dict[str, Dim], result_types: list[Attribute]) -> list[Attribute]:
    """``result_types`` (the node's), then a ``!hop.symint`` (``!hop.symfloat``) of the op's own
    name for each size its body yields after them (``yielded_types``, the body's, under
    ``substitution`` at this call: Note [call result symbols]); a located error, naming the op
    as ``kind`` (``a nested_compile_region``), where the types name one by no single symbol."""
    extra = yielded_types[len(result_types):]
    if not extra or not all(isinstance(t, SymIntType | SymFloatType) for t in extra):
        return result_types  # none, or the verifier of the op counts the results
    sizes = [t.value for t in extra]
    yielded = yielded_types[:len(result_types)]
    try:
        substitution = substitution | bind(yielded, result_types)
    except InconsistentBinding:
        substitution = {}  # the verifier of the op names the conflict
    try:
        names = call_names([substitute(t, substitution) for t in yielded], result_types, sizes)
    except UnnamedSize as reason:
        raise unsupported(node, f"{kind} whose body defines {reason.size} and returns it only "
                          f"inside expressions: the call's result has {reason}; return (and use) "
                          f"a tensor of the body that has {reason.size} as a whole dimension too"
                          ) from None
    return [*result_types, *(type(t)(names[t.value]) for t in extra)]
