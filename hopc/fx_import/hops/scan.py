"""Capturing ``scan(combine_graph, init, xs, additional)`` as ``hop.scan``.

``scan`` reverses by flipping its operands before and after
(``torch._higher_order_ops.scan``), so the op's ``reverse`` flag is never set here.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import torch.fx

from hopc.dialects import hop
from hopc.fx_import.capture_rules import EAGER_ENTRY_POINTS, HOP_IMPORTS, TRAILING_ARGUMENTS, EntryPoint
from hopc.fx_import.hops.shared import COMPILED_CALL, slice_types, types_of

if TYPE_CHECKING:
    from hopc.fx_import.importer import GraphImporter


@HOP_IMPORTS.register("scan")
def import_scan(importer: GraphImporter, node: torch.fx.Node) -> None:
    combine_graph, init_operands, xs_operands, additional_operands = node.args
    init = importer.values_of(init_operands, node)
    xs = importer.values_of(xs_operands, node)
    additional = importer.values_of(additional_operands, node)
    types = types_of(init) + slice_types(xs) + types_of(additional)
    importer.define(node, hop.ScanOp(operands=[init, xs, additional],
                                     result_types=[importer.result_types(node)],
                                     regions=[importer.region(combine_graph, types, node)]),
                    several=True)


@TRAILING_ARGUMENTS.register("scan")
def scan_trailing_argument() -> int:
    """The additional inputs, which the combine takes last."""
    return 3


@EAGER_ENTRY_POINTS.register("scan")
def scan_entry_points() -> Sequence[EntryPoint]:
    return (COMPILED_CALL,)
