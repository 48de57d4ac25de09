"""The ``dim`` arguments of ATen ops: a dimension named by a possibly negative integer.

An ATen op names a dimension of a tensor of rank ``r`` by an integer in
``[-r, r - 1]`` (``sum(x, dim=-1)``, ``transpose(x, 0, -2)``); a negative one
counts from the end. ``normalized_dim`` and ``normalized_dims`` give the index
in ``0..r-1`` it names, by the rule of PyTorch's
``torch._prims_common.canonicalize_dim``, written out here so that a pass that
reads dims (functionalize) need not import torch, which that module imports
(Note [lazy sympy] in ``hopc.ir.dims``; ``tests/test_opt_imports.py``).
"""

from __future__ import annotations

from collections.abc import Iterable


def normalized_dim(dim: int, rank: int) -> int:
    """The index in ``0..rank-1`` that ``dim`` names in a tensor of rank ``rank``: ``dim``
    itself where it is non-negative, ``dim + rank`` where it is negative.

    Accepts ``dim`` in ``[-rank, rank - 1]``; a 0-d tensor accepts ``0`` and ``-1``, both
    as ``0``, as PyTorch does (``wrap_scalar``). Raises IndexError, with PyTorch's message,
    for any other ``dim``."""
    extent = max(rank, 1)
    if not -extent <= dim < extent:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-extent}, "
                         f"{extent - 1}], but got {dim})")
    return dim + extent if dim < 0 else dim


def normalized_dims(dims: Iterable[int], rank: int) -> tuple[int, ...]:
    """``normalized_dim`` of each of ``dims``, in order (duplicates kept)."""
    return tuple(normalized_dim(dim, rank) for dim in dims)
