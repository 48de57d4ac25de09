"""Capturing PyTorch's ``flex_attention`` HOP call as ``hop.flex_attention``.

The trace records ``flex_attention(query, key, value, score_graph, block_mask,
scale, kernel_options, score_mod_other_buffers, mask_mod_other_buffers)``
with three results, ``(output, logsumexp, max_scores)``. The op keeps what
eager's math reads (Note [flex attention semantics] in
``hopc.dialects.hops.flex_attention``): the ``mask_mod`` graph, the last entry
of ``block_mask``, and not its block tables; ``kernel_options`` choose a
kernel, not the values. Sizes may be symbolic; the frontend has guarded
those that eager's math needs equal and dropped the block tables (Note [flex
attention sizes] and Note [flex attention block tables] in
``hopc.frontend.flex_attention_calls``).
``logsumexp`` and ``max_scores`` are refused where the program reads them
(``return_lse``); their unread ``getitem`` nodes are dead and dropped.
"""

from __future__ import annotations

import importlib
import operator
from collections.abc import Sequence
from typing import TYPE_CHECKING

import torch.fx
from xdsl.ir import Region
from xdsl.utils.exceptions import VerifyException

from hopc.dialects.hops.flex_attention import INDEX_COUNT, INDEX_TYPE, FlexAttentionOp
from hopc.fx_import.capture_rules import EAGER_ENTRY_POINTS, HOP_IMPORTS, TRAILING_ARGUMENTS, EntryPoint
from hopc.fx_import.errors import unsupported
from hopc.fx_import.hops.shared import types_of
from hopc.ir.types import TensorType

if TYPE_CHECKING:
    from hopc.fx_import.importer import GraphImporter


@HOP_IMPORTS.register("flex_attention")
def import_flex_attention(importer: GraphImporter, node: torch.fx.Node) -> None:
    """Defines ``node``'s output as a new ``hop.flex_attention`` (the module docstring)."""
    (query_node, key_node, value_node, score_graph, block_mask, scale, _kernel_options,
     score_buffer_nodes, mask_buffer_nodes) = node.args
    query, key, value = (importer.value(n, node) for n in (query_node, key_node, value_node))
    if isinstance(scale, bool) or not isinstance(scale, int | float):
        raise unsupported(node, f"flex_attention with a symbolic scale ({scale}); pass scale= a number")
    _drop_unread_statistics(node)
    score_buffers = importer.values_of(score_buffer_nodes, node)
    mask_buffers = importer.values_of(mask_buffer_nodes, node)
    score_types = [TensorType((), query.type.element_type), *(INDEX_TYPE,) * INDEX_COUNT]
    score = importer.region(score_graph, score_types + types_of(score_buffers), node)
    _refuse_mask_constants(importer, node, block_mask[-1])
    mask = importer.region(block_mask[-1], [INDEX_TYPE] * INDEX_COUNT + types_of(mask_buffers), node)
    _take_every_buffer(score, mask_buffers, at=len(score.block.args))
    _take_every_buffer(mask, score_buffers, at=INDEX_COUNT)
    op = FlexAttentionOp(query, key, value, [*score_buffers, *mask_buffers], float(scale), score, mask)
    try:
        op.verify()
    except VerifyException as error:
        raise unsupported(node, f"flex_attention here: {error}") from None
    importer.define(node, op, several=True)


@TRAILING_ARGUMENTS.register("flex_attention")
def flex_attention_trailing_argument() -> int:
    """``score_mod_other_buffers``; the ``mask_mod`` graph is no argument of its own."""
    return 7


@EAGER_ENTRY_POINTS.register("flex_attention")
def flex_attention_entry_points() -> Sequence[EntryPoint]:
    """``flex_attention`` compiles its call in ``setup_compilation_env`` under its own module's
    name for it (imported by name, so ``COMPILED_CALL`` does not reach it)."""
    return ((importlib.import_module("torch.nn.attention.flex_attention"), "setup_compilation_env"),)


def _drop_unread_statistics(node: torch.fx.Node) -> None:
    """Erases the unread ``getitem``s of ``logsumexp`` and ``max_scores``; refuses a read one."""
    for user in list(node.users):
        if user.target is not operator.getitem or user.args[1] == 0:
            continue
        if user.users:
            raise unsupported(user, "reading flex_attention's logsumexp or max_scores (return_lse=True)")
        node.graph.erase_node(user)


def _refuse_mask_constants(importer: GraphImporter, node: torch.fx.Node, mask_graph: torch.fx.Node) -> None:
    """Refuses a tensor constant made in ``mask_mod``: constant hoisting passes those of
    ``score_mod`` in as buffers (``hopc.frontend.constant_hoisting``), but the ``mask_mod``
    graph sits inside the ``block_mask`` tuple, where it looks for none."""
    module = importer.modules.get(mask_graph)
    if module is None:
        return  # region reports a body that is no traced graph
    for inner in module.graph.find_nodes(op="get_attr"):
        if isinstance(getattr(module, inner.target), torch.Tensor):
            raise unsupported(node, "a tensor constant made inside flex_attention's mask_mod "
                                    "(make it outside, or pass it in as a buffer)")


def _take_every_buffer(region: Region, others: list, at: int) -> None:
    """Adds a block argument for each of ``others``, from position ``at``: both bodies take
    every buffer (Note [flex attention semantics])."""
    for offset, other in enumerate(others):
        region.block.insert_arg(other.type, at + offset)
