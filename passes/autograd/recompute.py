"""Which forward ops the backward may compute rather than have their values saved.

Note [recompute policy]
~~~~~~~~~~~~~~~~~~~~~~~
The backward may compute a forward op itself when the op is pure: pointwise
and view-copy ATen ops (PyTorch's op tags, recorded in hopc's ATen table: Note
[op tags]), factories without tensor operands, and shape arithmetic; never a
random op, a HOP or a data read (``hop.item``). An op the forward needs too
(an output depends on it, or an op only the forward may run reads it) is then
computed twice, so of those only the cheap pointwise ops of
``CHEAP_POINTWISE`` are recomputed: a few instructions an element
(arithmetic, clamps, rounding, comparisons, logic, selection). An elementary
function (tanh, exp, log, erf, sigmoid, sqrt, pow, ...) or an op made of them
(gelu, silu) that the forward needs is saved. An op only the backward needs
(sin's derivative ``cos(x)``, which the joint lists among the forward ops as
it reads only forward values) moves to the backward whatever it costs: it is
computed once either way. This is PyTorch's ``should_ban_recomputation``,
which bans only nodes the forward requires, with a shorter allowlist than its
``recomputable_ops``: Inductor fuses a recomputed chain into the backward's
kernels, where it costs no memory traffic, while here the level is the same
for every device and on the CPU the executors run ATen ops one by one, so a
recomputed op costs its whole time again (GPT-2's GELU recomputed tanh).
Within a HOP's region pair the rule is the same; a checkpoint still saves
only its inputs and reruns its body (Note [checkpoint recompute]).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from xdsl.ir import Operation, SSAValue

from hopc.dialects import hop
from hopc.dialects.aten import AtenOp

CHEAP_POINTWISE = frozenset({
    "abs", "add", "addcdiv", "addcmul", "bitwise_and", "bitwise_left_shift", "bitwise_not",
    "bitwise_or", "bitwise_right_shift", "bitwise_xor", "ceil", "clamp", "clamp_max", "clamp_min",
    "clip", "clone", "copysign", "div", "eq", "floor", "fmax", "fmin", "fmod", "frac", "ge", "gt",
    "hardtanh", "isfinite", "isinf", "isnan", "isneginf", "isposinf", "le", "lerp", "logical_and",
    "logical_not", "logical_or", "logical_xor", "lt", "masked_fill", "max", "maximum", "min",
    "minimum", "mul", "nan_to_num", "native_dropout_backward", "ne", "neg", "positive",
    "reciprocal", "relu", "remainder", "round", "rsub", "sgn", "sigmoid_backward", "sign",
    "signbit", "square", "sub", "tanh_backward", "threshold", "threshold_backward", "true_divide",
    "trunc", "where",
})
"""The pointwise ATen ops (base names) that cost a few instructions an element (Note [recompute policy])."""


def computable_in_backward(op: Operation) -> bool:
    """Whether the backward may compute ``op`` itself, from its operands (Note [recompute policy])."""
    if isinstance(op, AtenOp):
        return not op.is_random and (not op.operands or op.is_pointwise or op.SCHEMA.is_view_copy)
    return isinstance(op, hop.SymSizeOp | hop.SymConstantOp) or op.name.startswith("hop.sym_")


def cheap(op: Operation) -> bool:
    """Whether computing ``op`` twice costs little: it is ``computable_in_backward`` and, if
    pointwise, in ``CHEAP_POINTWISE`` (Note [recompute policy])."""
    if not computable_in_backward(op):
        return False
    if not isinstance(op, AtenOp) or not op.is_pointwise or not op.operands:
        return True
    return not op.SCHEMA.is_custom and op.SCHEMA.base_name in CHEAP_POINTWISE


def recomputable_ops(forward_ops: Sequence[Operation], outputs: Iterable[SSAValue]) -> set[Operation]:
    """The ops of ``forward_ops`` (those of a forward computing ``outputs``) that the backward may
    compute rather than have their results saved (Note [recompute policy])."""
    in_forward = _needed_by_forward(forward_ops, outputs)
    return {op for op in forward_ops if (cheap(op) if op in in_forward else computable_in_backward(op))}


def _needed_by_forward(forward_ops: Sequence[Operation], outputs: Iterable[SSAValue]) -> set[Operation]:
    """The forward ops that ``outputs`` or an op the backward may not compute depend on."""
    pending = [*outputs, *(v for op in forward_ops if not computable_in_backward(op) for v in op.operands)]
    in_forward = set(forward_ops)
    needed: set[Operation] = set()
    while pending:
        owner = pending.pop().owner
        if isinstance(owner, Operation) and owner in in_forward and owner not in needed:
            needed.add(owner)
            pending.extend(owner.operands)
    return needed
