"""The xDSL context that knows hopc's IR: the dialects of ``hopc.registry``, and every ATen op.

``HopcContext`` builds an ATen op class the first time its name is looked up
(see ``hopc.dialects.aten``), and a custom operator's while the process has it
registered (Note [custom operators] in ``hopc.dialects.custom``); everything else is ordinary xDSL registration of
the dialects that ``hopc.registry.DIALECTS`` lists, each loaded on first use.
The ``builtin`` dialect is xDSL's with hopc's blob store
(``hopc.ir.resources.Builtin``), so the parser keeps the bytes of every
``dense_resource`` where ``constant_tensor`` and the printers find them.
"""

from __future__ import annotations

from xdsl.context import Context
from xdsl.ir import Operation


class HopcContext(Context):
    """A Context whose ``aten.*`` (and ``custom.*``) ops are made from PyTorch's schemas on first use."""

    def _get_known_op(self, name: str) -> type[Operation] | None:
        known = super()._get_known_op(name)
        if known is not None or not name.startswith(("aten.", "custom.")):
            return known
        from hopc.dialects.aten_op_classes import op_class

        cls = op_class(name)
        if cls is not None:
            self.load_op(cls)
        return cls


def make_context(*, allow_unregistered: bool = False) -> HopcContext:
    """A fresh context with every dialect of ``hopc.registry`` registered (loaded lazily)."""
    from hopc.ir import resources
    from hopc.registry import DIALECTS, load

    context = HopcContext(allow_unregistered=allow_unregistered)
    loaders = {name: lambda reference=reference: load(reference) for name, reference in DIALECTS.items()}
    loaders["builtin"] = lambda: resources.Builtin  # xDSL's, with the blob store
    for name, loader in loaders.items():
        context.register_dialect(name, loader)
    return context
