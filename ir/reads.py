"""The values an op reads: its operands and those of every op nested in its regions.

A read inside a region is a read by the op holding the region, as far as the
block around it can tell: passes that track lifetimes or readers across
region ops (``plan-memory``, ``convert-hop-to-kernel``'s fusion) ask here.
"""

from __future__ import annotations

from collections.abc import Iterator

from xdsl.ir import Operation, SSAValue


def values_read(op: Operation) -> Iterator[SSAValue]:
    """The operands of ``op`` and of every op nested in it (a value may come more than once)."""
    for nested in op.walk():
        yield from nested.operands
