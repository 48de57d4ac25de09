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
tracing the forward (in a subgraph's body, also those a call's caller asserts
of its operands, copied there: Note [assertions a caller checks] in
``hopc.passes.autograd.hops.caller_assertions``). An assertion on an unbacked
symbol is a deferred runtime assert in the ShapeEnv, never a guard, and its
block checks it each time it runs, before any backward; PyTorch's own
reasoning then takes the paths that hold for every value (a fresh size, named
as the tangent's).
The assertions on a size the op itself defines (the slice's ``[u1]``,
asserted ``Eq(u1, s0)`` where a broadcast learned it: Note [reads the trace
learned about] in ``hopc.fx_import.shape_symbols``) are not told: they hold
of its result, not of its operands, and told them the trace would write the
result as ``[s0]``, losing the symbol the op defines. An unbacked symbol
whose range is one value (a size asserted to be 6, declared ``[6, 6]``) is
traced from that value up, and told it equals it where the op does not
define it: PyTorch replaces a symbol by the value a check narrows its range
to, not one made so, and the IR's sizes after the assertion say 6.
Eager's ``slice_backward`` needs no more: it scatters the cotangent into
zeros at run time, clamping the end as the forward did. A trace that still
needs a fact is a located error naming it. Such a derivative is cached with
the assertions it assumed.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import replace

from hopc.dialects.aten import AtenOp
from hopc.dialects.hop_symbols import AssertOp
from hopc.ir.dims import dim_symbols
from hopc.ir.substitution import substitute
from hopc.ir.symbol_uses import symbols_of_attribute
from hopc.torch_bridge.aten_builders import unbacked_symbols
from hopc.torch_bridge.torch_symbolic import SymbolFacts


def unbacked_pattern_symbols(op: AtenOp, renaming: Mapping[str, str]) -> frozenset[str]:
    """The pattern names of ``op``'s symbols that its module declares unbacked."""
    declared = unbacked_symbols([*op.operands, *op.results])
    return frozenset(canonical for name, canonical in renaming.items() if name in declared)


def block_assertions(op: AtenOp, renaming: Mapping[str, str], unbacked: frozenset[str]) -> tuple[str, ...]:
    """The conditions of the ``hop.assert`` ops of ``op``'s block that mention only ``op``'s
    symbols, one of them unbacked, and none that ``op`` defines, in pattern names (Note
    [data-dependent derivatives])."""
    block = op.parent_block()
    if block is None:
        return ()
    defined = defined_symbols(op)
    conditions = []
    for assertion in block.ops:
        if isinstance(assertion, AssertOp):
            condition = assertion.condition.type
            if condition.free_symbols() <= renaming.keys() and not condition.free_symbols() & defined:
                renamed = substitute(condition, renaming).value
                if dim_symbols(renamed) & unbacked:
                    conditions.append(renamed)
    return tuple(dict.fromkeys(conditions))


def defined_symbols(op: AtenOp) -> frozenset[str]:
    """The symbols ``op`` defines: its result types name them, its operands and attributes do not."""
    inputs = [*op.operand_types, *op.properties.values()]
    named_by_inputs = {name for attribute in inputs for name in symbols_of_attribute(attribute)}
    return frozenset(name for t in op.result_types for name in symbols_of_attribute(t)) - named_by_inputs


def in_names(text: str, names: Mapping[str, str]) -> str:
    """``text`` with each pattern name (``p0``) that ``names`` maps replaced by its name."""
    return re.sub(r"\bp[0-9]+\b", lambda match: names.get(match[0], match[0]), text)


def traced_facts(facts: Mapping[str, SymbolFacts], unbacked: frozenset[str], defined: frozenset[str]
                  ) -> tuple[dict[str, SymbolFacts], tuple[str, ...]]:
    """The facts to trace with, ``unbacked`` symbols unbacked, and the equalities to tell the trace:
    a symbol whose range is one value ranges from it up, and equals it where the op does not define
    it (Note [data-dependent derivatives])."""
    one_valued = {name: f.lower for name, f in facts.items()
                  if name in unbacked and f.lower is not None and f.lower == f.upper}
    traced = {name: replace(f, unbacked=name in unbacked, upper=None if name in one_valued else f.upper)
              for name, f in facts.items()}
    return traced, tuple(f"Eq({name}, {value})" for name, value in one_valued.items() if name not in defined)
