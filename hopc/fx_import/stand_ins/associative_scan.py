"""``associative_scan``'s stand-in: what PyTorch's pointwise mode does, for every mode (Note
[associative scan capture] in ``hopc.fx_import.hops.associative_scan``)."""

from __future__ import annotations

import functools
import importlib
from collections.abc import Callable

import torch
import torch.utils._pytree as pytree
from torch._prims_common import canonicalize_dim

from hopc.fx_import.capture_rules import DYNAMO_STAND_INS

_ASSOCIATIVE_SCAN = importlib.import_module("torch._higher_order_ops.associative_scan")
"""The module itself (``torch._higher_order_ops`` exports the function under its name)."""


@DYNAMO_STAND_INS.register(_ASSOCIATIVE_SCAN.associative_scan)
def traceable_associative_scan(combine_fn: Callable, xs: object, dim: int, reverse: bool = False,
                               combine_mode: str = "pointwise") -> object:
    """``associative_scan`` as Dynamo traces it in hopc's programs (Note [associative scan capture])."""
    if combine_mode not in ("pointwise", "generic"):
        raise ValueError(f"Combine_mode must either 'pointwise' or 'generic', but got {combine_mode}")
    leaves, spec = pytree.tree_flatten(xs)
    dim = canonicalize_dim(leaves[0].ndim, dim)
    leaves = [torch.movedim(leaf, dim, 0) for leaf in leaves]
    for leaf in leaves[1:]:
        torch._check(leaf.size(0) == leaves[0].size(0), lambda: "associative_scan: xs differ in length along dim")
    if reverse:
        leaves = [torch.flip(leaf, [0]) for leaf in leaves]
    combine = functools.partial(_ASSOCIATIVE_SCAN.wrap_combine_fn_flat, combine_fn=combine_fn,
                                spec=spec, num_leaves=len(leaves))
    # Dynamo gives the op's results the structure of ``xs`` (``spec``), as PyTorch's function returns them
    scanned = _ASSOCIATIVE_SCAN.associative_scan_op(combine, leaves, additional_inputs=())
    if reverse:
        scanned = pytree.tree_map(lambda leaf: torch.flip(leaf, [0]), scanned)
    return pytree.tree_map(lambda leaf: torch.movedim(leaf, 0, dim), scanned)
