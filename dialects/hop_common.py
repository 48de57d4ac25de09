"""What the op files of the ``hop`` dialect share: value names in messages, a canonicalization trait.

Invariant: nothing here defines an op, so every op file of the dialect
(``hop``, ``hop_symbols``) can import it without a cycle.
"""

from __future__ import annotations

from xdsl.ir import Operation, SSAValue
from xdsl.traits import HasCanonicalizationPatternsTrait


def describe(value: SSAValue) -> str:
    """``%name``, or where a value printed by number comes from (``result #0 of 'aten.mm'``)."""
    if value.name_hint:
        return f"%{value.name_hint}"
    owner = value.owner
    if isinstance(owner, Operation):
        return f"result #{owner.results.index(value)} of '{owner.name}'"
    return f"block argument #{value.index}"  # type: ignore[attr-defined]


class HopCanonicalizationPatterns(HasCanonicalizationPatternsTrait):
    """Attaches ``hopc.passes.canonicalization.hop``'s patterns (each matches only its ops)."""

    @classmethod
    def get_canonicalization_patterns(cls) -> tuple:
        from hopc.passes.canonicalization.hop import CANONICALIZATION_PATTERNS

        return CANONICALIZATION_PATTERNS
