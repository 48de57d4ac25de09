"""``hop.scan`` and ``hop.map`` on values: the body once per slice along dim 0, importing no IR.

``run_slices`` is their semantics, which the reference interpreter
(``hopc.backend.hops.scan_map``) and generated host code both run; host code
calls ``run_sliced_in_host_code``, a function of this module bound to plain
values, so that a call stored in the compile cache runs it too (Note
[namespace recipes] in ``hopc.backend.host.recipes``). A failure here is a
``ValueError``: the interpreter raises it again at its op, and generated code
at the op of the line that called (Note [generated host code] in
``hopc.backend.host.codegen``).
"""

from __future__ import annotations

import functools
from collections.abc import Callable

import torch

Shapes = Callable[[], list[tuple[int, ...]]] | None
"""The shapes of the stacked outputs where there are no slices; None where they cannot be
evaluated where the op runs (then no slices is an error)."""


class UnequalSlices(ValueError):
    """The scanned operands differ in their number of slices (dim 0)."""


def run_slices(body: Callable[..., list[object]], carry: list[object], xs: list[torch.Tensor],
               additional: list[object], reverse: bool, empty: Callable[[], list[object]]) -> list[object]:
    """Runs ``body`` once per slice along dim 0 of ``xs`` (the last slice first where
    ``reverse``) on the carry, slice ``i`` of each of ``xs``, then ``additional``; the first
    ``len(carry)`` outputs of a run are the next run's carry. Returns the last carry, then
    each other output stacked over the slices in index order, or ``empty()`` where there are
    no slices: ``hop.scan``, and ``hop.map`` with no carry (their ``RegionEntry``'s ``Slice``
    arguments and ``stacked`` yields)."""
    lengths = {x.size(0) for x in xs}
    if len(lengths) != 1:
        raise UnequalSlices(f"scanned operands differ in dim 0: {sorted(lengths)}")
    length = lengths.pop()
    stepped: list[list[object]] = [[] for _ in range(length)]  # outputs by index, not step
    for index in reversed(range(length)) if reverse else range(length):
        outputs = body(*carry, *[x[index] for x in xs], *additional)
        carry, stepped[index] = outputs[:len(carry)], outputs[len(carry):]
    if not stepped:
        return carry + empty()
    return carry + [torch.stack(column) for column in zip(*stepped, strict=True)]


def run_sliced_in_host_code(reverse: bool, dtypes: list[torch.dtype], device: str, body: Callable[..., list[object]],
                            carry: list[object], xs: list[torch.Tensor], additional: list[object],
                            shapes: Shapes) -> list[object]:
    """``run_slices`` as generated host code calls it: with no slices, empty outputs of
    ``shapes()`` (evaluated where the op runs), ``dtypes`` and ``device``."""
    return run_slices(body, carry, xs, additional, reverse, functools.partial(_empty_results, dtypes, device, shapes))


def _empty_results(dtypes: list[torch.dtype], device: str, shapes: Shapes) -> list[object]:
    if shapes is None:
        raise ValueError("ran no slices, and the sizes of its empty results are unknown here")
    return [torch.empty(shape, dtype=dtype, device=device) for shape, dtype in zip(shapes(), dtypes, strict=True)]
