"""Capturing ``cond(pred, true_graph, false_graph, operands)`` as ``hop.cond``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import torch.fx

from hopc.dialects import hop
from hopc.fx_import.capture_rules import EAGER_ENTRY_POINTS, HOP_IMPORTS, TRAILING_ARGUMENTS, EntryPoint
from hopc.fx_import.hops.shared import COMPILED_CALL, types_of

if TYPE_CHECKING:
    from hopc.fx_import.importer import GraphImporter


@HOP_IMPORTS.register("cond")
def import_cond(importer: GraphImporter, node: torch.fx.Node) -> None:
    predicate, true_graph, false_graph, operands = node.args
    inputs = importer.values_of(operands, node)
    types = types_of(inputs)
    importer.define(node, hop.CondOp(importer.value(predicate, node), inputs,
                                     importer.result_types(node),
                                     importer.region(true_graph, types, node),
                                     importer.region(false_graph, types, node)), several=True)


@TRAILING_ARGUMENTS.register("cond")
def cond_trailing_argument() -> int:
    """``operands``, which both branches take."""
    return 3


@EAGER_ENTRY_POINTS.register("cond")
def cond_entry_points() -> Sequence[EntryPoint]:
    return (COMPILED_CALL,)
