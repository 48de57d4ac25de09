"""Open registration of reference-interpreter implementations, one class per dialect.

As xDSL's ``@register_impls`` / ``@impl``: a dialect's implementations are
methods of a class decorated with ``register_impls``, each marked
``@impl(OpClass)``; ``hopc.registry.INTERPRETER_IMPLS`` names the classes. An
implementation takes the op and the running ``Frame`` (``hopc.backend.interpreter``)
and returns one value per result of the op::

    @register_impls
    class HopImpls:
        @impl(hop.CondOp)
        def run_cond(self, op: hop.CondOp, frame: Frame) -> list[object]: ...

``implementation_of(op_type)`` finds the implementation of an op class, or of
its nearest registered base class (every ``aten.*`` op class derives from
``AtenOp``), importing its dialect's implementations on first use.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from xdsl.ir import Operation

from hopc.registry import INTERPRETER_IMPLS, load

Implementation = Callable[[Operation, Any], Sequence[object]]
"""``(op, frame) -> values``, one per result of ``op``."""

_IMPL_MARK = "__hopc_implements__"
_implementations: dict[type[Operation], Implementation] = {}
_loaded_dialects: set[str] = set()


def impl(*op_types: type[Operation]) -> Callable[[Callable], Callable]:
    """Marks a method of a ``register_impls`` class as the implementation of ``op_types``."""

    def mark(method: Callable) -> Callable:
        setattr(method, _IMPL_MARK, op_types)
        return method

    return mark


def register_impls(cls: type) -> type:
    """Registers every ``@impl`` method of ``cls`` (bound to one instance of it)."""
    instance = cls()
    for attribute in vars(cls).values():
        for op_type in getattr(attribute, _IMPL_MARK, ()):
            _implementations[op_type] = attribute.__get__(instance, cls)
    return cls


def implementation_of(op_type: type[Operation]) -> Implementation | None:
    """The implementation registered for ``op_type`` or its nearest base class, or None."""
    found = _implementations.get(op_type)
    if found is None:
        dialect = op_type.name.split(".")[0]
        if dialect not in _loaded_dialects and dialect in INTERPRETER_IMPLS:
            _loaded_dialects.add(dialect)
            for reference in INTERPRETER_IMPLS[dialect]:
                load(reference)
        found = next((_implementations[base] for base in op_type.__mro__
                      if base in _implementations), None)
        if found is not None:
            _implementations[op_type] = found
    return found
