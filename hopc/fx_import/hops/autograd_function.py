"""Capturing ``hopc_autograd_function(fwd, bwd, gradients, *operands)`` as ``hop.autograd_function``.

``hopc_autograd_function`` stands for ``autograd_function_apply`` in Dynamo's
graph (Note [kept autograd functions]). Its backward takes cotangents and then
saved values, so it has no trailing argument for hoisted constants: a tensor
constant made in one of its bodies is refused.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import torch
import torch.fx

from hopc.dialects import hop
from hopc.fx_import.capture_rules import EAGER_ENTRY_POINTS, HOP_IMPORTS, EntryPoint
from hopc.fx_import.hops.shared import types_of

if TYPE_CHECKING:
    from hopc.fx_import.importer import GraphImporter


@HOP_IMPORTS.register("hopc_autograd_function")
def import_autograd_function(importer: GraphImporter, node: torch.fx.Node) -> None:
    """Both bodies become shared subgraphs: the forward on the operands, the backward on
    one cotangent per output then the saved values, which are the call's results in order."""
    forward, backward, gradients, *operands = node.args
    inputs = importer.values_of(operands, node)
    types, result_types = types_of(inputs), importer.result_types(node)
    outputs, _saved = importer.modules[forward].graph.output_node().args[0]
    forward_name = importer.imports.shared_subgraph(importer.modules[forward], types,
                                                    lambda: importer.region(forward, types, node))
    backward_name = importer.imports.shared_subgraph(importer.modules[backward], result_types,
                                                     lambda: importer.region(backward, result_types, node))
    importer.define(node, hop.AutogradFunctionOp(
        forward_name, backward_name, inputs, result_types, len(outputs), gradients), several=True)


@EAGER_ENTRY_POINTS.register("hopc_autograd_function")
def autograd_function_entry_points() -> Sequence[EntryPoint]:
    """A custom ``autograd.Function`` is applied by ``Function.apply``; outside Dynamo its backward
    would be lost."""
    return ((torch.autograd.Function, "apply"),)
