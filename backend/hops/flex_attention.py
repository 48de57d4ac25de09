"""``hop.flex_attention`` in the backend: the reference interpreter runs eager's dense math, the
bodies under ``vmap``.

As PyTorch's ``math_attention`` does, each body runs once, under four nested
``torch.vmap``s over the batch, head, query and key positions, so that it
sees one score and 0-d indices, as its block arguments' types say, and the
interpreter checks every value it computes against its type (Note [flex
attention semantics] in ``hopc.dialects.hops.flex_attention``). The planned
executor runs this reference implementation; host code never meets the op,
which ``convert-hop-to-kernel`` rewrites into ATen ops before it
(``hopc.passes.convert_hop_to_kernel.flex_attention``).
"""

from __future__ import annotations

from collections.abc import Callable

import torch

from hopc.backend.interpreter import INTERPRETER_RULES, Frame, run_region
from hopc.dialects import hop

_POSITION_DIMS = ((None, None, None, 0), (None, None, 0, None), (None, 0, None, None), (0, None, None, None))
"""The ``in_dims`` of the indices ``(b, h, q_idx, kv_idx)`` for each ``vmap``, innermost first."""


def over_every_position(body: Callable[..., torch.Tensor], takes_score: bool) -> Callable[..., torch.Tensor]:
    """``body`` on one position, mapped over all: called with ``(scores, b, h, m, n)`` (the
    scores ``[B, H, L, S]`` when ``takes_score``) and the 1-d indices, it gives ``[B, H, L, S]``."""
    for dims in _POSITION_DIMS:
        body = torch.vmap(body, in_dims=(0, *dims) if takes_score else dims)
    return body


def dense_flex_attention(query: torch.Tensor, key: torch.Tensor, value: torch.Tensor,
                         score: Callable[..., torch.Tensor], mask: Callable[..., torch.Tensor],
                         scale: float) -> torch.Tensor:
    """Note [flex attention semantics], where ``score`` and ``mask`` take one position."""
    groups = query.size(1) // key.size(1)
    key, value = key.repeat_interleave(groups, dim=1), value.repeat_interleave(groups, dim=1)
    scores = query @ key.transpose(-2, -1) * scale
    indices = [torch.arange(size, dtype=torch.int32, device=query.device) for size in scores.shape]
    kept = over_every_position(mask, takes_score=False)(*indices)
    changed = over_every_position(score, takes_score=True)(scores, *indices)
    masked = torch.where(kept, changed, torch.tensor(-float("inf"), dtype=changed.dtype, device=query.device))
    return torch._safe_softmax(masked, dim=-1).to(query.dtype) @ value


@INTERPRETER_RULES.register(hop.FlexAttentionOp)
def run_flex_attention(op: hop.FlexAttentionOp, frame: Frame) -> list[object]:
    query, key, value, *buffers = frame.get(op.operands)

    def score(*arguments: torch.Tensor) -> torch.Tensor:
        return run_region(op.score, [*arguments, *buffers], frame, op)[0]

    def mask(*indices: torch.Tensor) -> torch.Tensor:
        return run_region(op.mask, [*indices, *buffers], frame, op)[0]

    return [dense_flex_attention(query, key, value, score, mask, op.scale_value)]
