"""The xDSL context that knows hop-level IR: builtin, func, hop, and every ATen op.

``HopcContext`` builds an ATen op class the first time its name is looked up
(see ``hopc.dialects.aten``); everything else is ordinary xDSL registration.
"""

from __future__ import annotations

from xdsl.context import Context
from xdsl.ir import Operation


class HopcContext(Context):
    """A Context whose ``aten.*`` ops are made from PyTorch's schemas on first use."""

    def _get_known_op(self, name: str) -> type[Operation] | None:
        known = super()._get_known_op(name)
        if known is not None or not name.startswith("aten."):
            return known
        from hopc.dialects.aten import op_class

        cls = op_class(name)
        if cls is not None:
            self.load_op(cls)
        return cls


def make_context(*, allow_unregistered: bool = False) -> HopcContext:
    """A fresh context with the dialects of hop-level IR registered (loaded lazily)."""
    from xdsl.dialects.builtin import Builtin
    from xdsl.dialects.func import Func

    context = HopcContext(allow_unregistered=allow_unregistered)
    context.load_dialect(Builtin)
    context.register_dialect("func", lambda: Func)
    context.register_dialect("hop", _hop_dialect)
    context.register_dialect("aten", _aten_dialect)
    return context


def _hop_dialect():
    from hopc.dialects.hop import Hop

    return Hop


def _aten_dialect():
    from hopc.dialects.aten import Aten

    return Aten
