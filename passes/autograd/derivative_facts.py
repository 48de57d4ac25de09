"""What a derivative trace may assume about an op's unbacked symbols, and its errors in our names.

Note [data-dependent derivatives]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
The trace stands a backed symbol with a hint in for each of the op's
symbols, unbacked ones too (Note [trace hints] in
``hopc.torch_bridge.op_tracer``). For a size read from data
(``x[:k.item()]``: ``slice`` at an end ``u0``, its result ``[u1]``) that
makes the derivative ask what the forward never decided (is ``u0`` past the
size?): a guard no ShapeEnv can install on a value, which fails the trace.
Where the op mentions symbols its module declares unbacked, the derivative
is then traced again as Dynamo traced the forward: those symbols unbacked
in their declared ranges (a size carrier of one is the SymInt itself, as a
tensor size would make it non-negative: Note [size carriers] in
``hopc.passes.autograd.derivatives``), a ``_copy``
traced as its view (Note [data-dependent view copies] in
``hopc.passes.autograd.derivative_graphs``), and told, with
``FakeShapes.assume`` (Note [trace assertions] in
``hopc.torch_bridge.op_tracer``), the conditions of the ``hop.assert`` ops of the op's block
that mention only its symbols, one of them unbacked (``0 <= u1 <= s0``, a
user's ``torch._check(k <= x.size(0))``), which Dynamo recorded while
tracing the forward. An assertion on an unbacked symbol is a deferred
runtime assert in the ShapeEnv, never a guard, and its block checks it each
time it runs, before any backward; PyTorch's own reasoning then takes the
paths that hold for every value (a fresh size, named as the tangent's).
Eager's ``slice_backward`` needs no more: it scatters the cotangent into
zeros at run time, clamping the end as the forward did. A trace that still
needs a fact is a located error naming it. Such a derivative is cached with
the assertions it assumed.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from hopc.dialects.aten import AtenOp
from hopc.dialects.hop_symbols import AssertOp
from hopc.ir.dims import dim_symbols
from hopc.ir.substitution import substitute
from hopc.torch_bridge.aten_builders import unbacked_symbols


def unbacked_pattern_symbols(op: AtenOp, renaming: Mapping[str, str]) -> frozenset[str]:
    """The pattern names of ``op``'s symbols that its module declares unbacked."""
    declared = unbacked_symbols([*op.operands, *op.results])
    return frozenset(canonical for name, canonical in renaming.items() if name in declared)


def block_assertions(op: AtenOp, renaming: Mapping[str, str], unbacked: frozenset[str]) -> tuple[str, ...]:
    """The conditions of the ``hop.assert`` ops of ``op``'s block that mention only ``op``'s
    symbols, one of them unbacked, in pattern names (Note [data-dependent derivatives])."""
    block = op.parent_block()
    if block is None:
        return ()
    conditions = []
    for assertion in block.ops:
        if isinstance(assertion, AssertOp):
            condition = assertion.condition.type
            if condition.free_symbols() <= renaming.keys():
                renamed = substitute(condition, renaming).value
                if dim_symbols(renamed) & unbacked:
                    conditions.append(renamed)
    return tuple(dict.fromkeys(conditions))


def in_names(text: str, names: Mapping[str, str]) -> str:
    """``text`` with each pattern name (``p0``) that ``names`` maps replaced by its name."""
    return re.sub(r"\bp[0-9]+\b", lambda match: names.get(match[0], match[0]), text)
