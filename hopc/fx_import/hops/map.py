"""Capturing ``map_impl(body_graph, xs, additional)`` (``torch._higher_order_ops.map``) as ``hop.map``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import torch.fx

from hopc.dialects import hop
from hopc.fx_import.capture_rules import EAGER_ENTRY_POINTS, HOP_IMPORTS, TRAILING_ARGUMENTS, EntryPoint
from hopc.fx_import.hops.shared import COMPILED_CALL, slice_types, types_of

if TYPE_CHECKING:
    from hopc.fx_import.importer import GraphImporter


@HOP_IMPORTS.register("map_impl")
def import_map(importer: GraphImporter, node: torch.fx.Node) -> None:
    body_graph, xs_operands, additional_operands = node.args
    xs = importer.values_of(xs_operands, node)
    additional = importer.values_of(additional_operands, node)
    types = slice_types(xs) + types_of(additional)
    importer.define(node, hop.MapOp(operands=[xs, additional],
                                    result_types=[importer.result_types(node)],
                                    regions=[importer.region(body_graph, types, node)]),
                    several=True)


@TRAILING_ARGUMENTS.register("map_impl")
def map_trailing_argument() -> int:
    """The additional inputs, which the body takes last."""
    return 2


@EAGER_ENTRY_POINTS.register("map_impl")
def map_entry_points() -> Sequence[EntryPoint]:
    return (COMPILED_CALL,)
