"""The higher-order ops of the ``hop`` dialect, one module per HOP (or per family of two).

Each module defines its ops and lists them in ``OPERATIONS``; ``operations()``
imports every module of this package and returns what they list, in module
order, so ``hopc.dialects.hop`` registers a new HOP without an edit of its own
(the package imports its own modules, as every per-HOP rule package of hopc
does: ``hopc.ir.rule_table``). Invariant: every op listed has a
``HopRegionInterface``; the ``hop`` dialect holds exactly these HOPs.
"""

from __future__ import annotations

from importlib import import_module
from pkgutil import iter_modules

from xdsl.ir import Operation


def operations() -> tuple[type[Operation], ...]:
    """Every op that a module of this package lists in its ``OPERATIONS``."""
    found: list[type[Operation]] = []
    for module in sorted(iter_modules(__path__), key=lambda m: m.name):
        found.extend(import_module(f"{__name__}.{module.name}").OPERATIONS)
    return tuple(found)
