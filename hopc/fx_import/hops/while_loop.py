"""Capturing ``while_loop(cond_graph, body_graph, carried, additional)`` as ``hop.while``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import torch.fx

from hopc.dialects import hop
from hopc.fx_import.capture_rules import EAGER_ENTRY_POINTS, HOP_IMPORTS, TRAILING_ARGUMENTS, EntryPoint
from hopc.fx_import.errors import unsupported
from hopc.fx_import.hops.shared import COMPILED_CALL, types_of

if TYPE_CHECKING:
    from hopc.fx_import.importer import GraphImporter


@HOP_IMPORTS.register("while_loop")
def import_while(importer: GraphImporter, node: torch.fx.Node) -> None:
    cond_graph, body_graph, carried_operands, additional_operands = node.args[:4]
    carried = importer.values_of(carried_operands, node)
    additional = importer.values_of(additional_operands, node)
    if importer.result_types(node) != types_of(carried):
        raise unsupported(node, "a while_loop whose carried values change type "
                                "(shape or symbolic value) between iterations")
    types = types_of(carried) + types_of(additional)
    importer.define(node, hop.WhileOp(carried, additional,
                                      importer.region(cond_graph, types, node),
                                      importer.region(body_graph, types, node)), several=True)


@TRAILING_ARGUMENTS.register("while_loop")
def while_trailing_argument() -> int:
    """The additional inputs, which both bodies take after the carried values."""
    return 3


@EAGER_ENTRY_POINTS.register("while_loop")
def while_entry_points() -> Sequence[EntryPoint]:
    return (COMPILED_CALL,)
