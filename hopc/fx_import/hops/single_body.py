"""Capturing ``hopc_wrap`` and ``hopc_checkpoint`` (``(body, *operands)``) as ``hop.wrap`` and
``hop.checkpoint``: a body called once.

``hopc_wrap`` and ``hopc_checkpoint`` stand for ``wrap`` and ``checkpoint`` in Dynamo's graph
(Note [kept regions]).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import torch.fx
import torch.utils.checkpoint
from torch._higher_order_ops.wrap import Wrap

from hopc.dialects import hop
from hopc.fx_import.capture_rules import EAGER_ENTRY_POINTS, HOP_IMPORTS, TRAILING_ARGUMENTS, EntryPoint
from hopc.fx_import.hops.shared import import_single_body

if TYPE_CHECKING:
    from hopc.fx_import.importer import GraphImporter


@HOP_IMPORTS.register("hopc_wrap")
def import_wrap(importer: GraphImporter, node: torch.fx.Node) -> None:
    import_single_body(importer, node, hop.WrapOp, "a wrap")


@TRAILING_ARGUMENTS.register("hopc_wrap")
def wrap_trailing_argument() -> None:
    """The operands, the variadic rest."""
    return None


@EAGER_ENTRY_POINTS.register("hopc_wrap")
def wrap_entry_points() -> Sequence[EntryPoint]:
    """``wrap``, whatever name the program imported it by, runs ``Wrap.__call__``, which outside
    Dynamo runs its body inline."""
    return ((Wrap, "__call__"),)


@HOP_IMPORTS.register("hopc_checkpoint")
def import_checkpoint(importer: GraphImporter, node: torch.fx.Node) -> None:
    import_single_body(importer, node, hop.CheckpointOp, "a checkpoint")


@TRAILING_ARGUMENTS.register("hopc_checkpoint")
def checkpoint_trailing_argument() -> None:
    """The operands, the variadic rest."""
    return None


@EAGER_ENTRY_POINTS.register("hopc_checkpoint")
def checkpoint_entry_points() -> Sequence[EntryPoint]:
    """``checkpoint`` runs ``CheckpointFunction`` (reentrant) or
    ``_checkpoint_without_reentrant_generator``, which outside Dynamo run the body inline."""
    return ((torch.utils.checkpoint, "CheckpointFunction"),
            (torch.utils.checkpoint, "_checkpoint_without_reentrant_generator"))
