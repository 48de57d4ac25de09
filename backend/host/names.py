"""The identifiers of generated host code: made here, never taken from the IR.

Every name in the source ``hopc.backend.host.codegen`` writes is a prefix of
this module's and a counter (``v12``, ``s3``, ``f_4``): an SSA value's name
hint, a symbol's name or an op's name never reaches the source, so nothing
in the IR can change what the source does, and no two names collide.
Values the code uses that are not locals (ATen callables, constant tensors,
attribute values, dtypes) live in the exec namespace under such names.
"""

from __future__ import annotations

import keyword
from collections.abc import Hashable

import torch

VALUE = "v"
"""An SSA value's local (``v12``)."""
SYMBOL = "s"
"""A shape symbol's value materialized as a local (``s3``)."""
CONSTANT = "c_"
"""A Python object the code reads from the namespace (``c_4``)."""
FUNCTION = "f_"
"""A generated function or a bound callable (``f_2``)."""

_PREFIXES = (VALUE, SYMBOL, CONSTANT, FUNCTION)


class Names:
    """Fresh identifiers by prefix; the namespace of one generated source.

    Invariant: every identifier is ``prefix + str(counter)`` with a prefix of
    ``_PREFIXES``, so it is a valid Python identifier, no keyword, and unique
    in the source.
    """

    def __init__(self) -> None:
        self._count = 0
        self.namespace: dict[str, object] = {}
        self.recipes: dict[str, object] = {}
        """Name -> the recipe its binder gave for a value no recipe can be inferred for (Note
        [namespace recipes] in ``hopc.backend.host.recipes``)."""
        self._bound: dict[tuple[type, Hashable], str] = {}

    def fresh(self, prefix: str) -> str:
        if prefix not in _PREFIXES:
            raise ValueError(f"unknown identifier prefix {prefix!r}")
        self._count += 1
        return f"{prefix}{self._count}"

    def bind(self, value: object, prefix: str = CONSTANT, recipe: object = None) -> str:
        """The namespace name of ``value``; one name per object, or per value for a dtype or
        device, which are immutable. ``recipe``: how to make ``value`` again, where it cannot be
        told from the value itself (Note [namespace recipes] in ``hopc.backend.host.recipes``)."""
        key = value if isinstance(value, torch.dtype | torch.device) else id(value)
        lookup = (type(value), key)
        name = self._bound.get(lookup)
        if name is None:
            name = self._bound[lookup] = self.fresh(prefix)
            self.namespace[name] = value
            if recipe is not None:
                self.recipes[name] = recipe
        return name


def literal(value: object) -> str:
    """The source text of an int, float or bool (checked: no other value is printed)."""
    if type(value) is bool or value is None:
        return repr(value)
    if type(value) is int:
        return f"({value})" if value < 0 else repr(value)
    if type(value) is float:
        text = repr(value)
        return f"float({text!r})" if text in ("inf", "-inf", "nan") else f"({text})"
    raise TypeError(f"not a literal: {value!r}")


def keyword_name(name: str) -> str:
    """A schema argument's name as a keyword of a call; refuses anything else."""
    if not name.isidentifier() or not name.isascii() or keyword.iskeyword(name):
        raise ValueError(f"argument name {name!r} is not a Python identifier")
    return name
