"""What the capture rules of several HOP kinds share (this module registers nothing)."""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from typing import TYPE_CHECKING

import torch.fx
from xdsl.ir import Attribute

from hopc.dialects import hop
from hopc.dialects.hop_interface import sliced_type
from hopc.fx_import.capture_rules import EntryPoint

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
                       op_class: type[hop.WrapOp] | type[hop.CheckpointOp]) -> None:
    """``op_class(body, *operands)``: one body on the operands, as ``hop.wrap`` and ``hop.checkpoint``."""
    body, *operands = node.args
    inputs = importer.values_of(operands, node)
    importer.define(node, op_class(inputs, importer.result_types(node),
                                   importer.region(body, types_of(inputs), node)), several=True)
