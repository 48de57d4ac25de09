"""Recipes: the values a generated function closes over, as data that makes them again.

Note [namespace recipes]
~~~~~~~~~~~~~~~~~~~~~~~~
Generated host code reads its non-local values from a namespace (Note
[generated host code] in ``hopc.backend.host.codegen``): ATen callables,
dtypes, devices, lists of sizes, runtime helpers. An executable entry of the
compile cache (Note [executable entries] in ``hopc.compile_cache``) keeps
each as a recipe, JSON data that ``value_of`` turns back into the value
without the IR:

- ``None``, a bool, an int or a string as itself; a float as
  ``{"float": repr}`` (so that ``inf`` and ``nan`` stay JSON);
- ``{"list": [...]}``, ``{"tuple": [...]}``, ``{"frozenset": [...]}`` of recipes;
- ``{"dtype": "float32"}``, ``{"device": "cpu"}``;
- ``{"named": [root, name]}``: an attribute of one of ``NAMED_ROOTS`` (torch's
  functions, ``torch._C._nn``'s, a ``Tensor`` method, a builtin exception);
- ``{"operator": "aten::mm.out"}``: an ATen overload's C++ callable, the
  recipe its binder gives (``Names.bind``), for the callable does not name
  its overload;
- ``{"function": [module, name]}``: a function of one of ``RUNTIME_MODULES``,
  hopc's runtime helpers, which import no IR;
- ``RELOCATION``: the function's own relocation of its failures (Note
  [generated host code]), which the loader of the function makes, for it
  reads the function's file name and line table;
- ``{"partial": [function, [arguments]]}``: a ``functools.partial``;
- ``{"sympy": srepr}``: a sympy expression (a symbolic size or stride), made
  again from sympy's and ``torch.utils._sympy.functions``' classes alone.

``recipe_of`` fails closed: a value it does not know (a tensor constant, a
Triton launcher, a partial binding an op of the IR) raises ``Unstorable``,
and the frame keeps its module entry alone. Invariant: ``value_of(recipe)``
is the very object for a named value, operator or function (```recipe_of``
checks that identity when it writes the recipe), and an equal value of the
same type for the rest.
"""

from __future__ import annotations

import builtins
import functools
import importlib
import sys
from collections.abc import Callable

import sympy
import torch

NAMED_ROOTS: dict[str, object] = {"torch": torch, "torch._C._nn": torch._C._nn, "torch.Tensor": torch.Tensor,
                                  "torch._C._linalg": torch._C._linalg, "torch._C._special": torch._C._special,
                                  "torch._C._fft": torch._C._fft, "builtins": builtins}
"""Where a named value is looked up (``{"named": [root, name]}``)."""

RUNTIME_MODULES = frozenset({"hopc.backend.runtime.sliced_runs"})
"""The modules a ``{"function": ...}`` recipe may name."""

RELOCATION = {"relocation": None}
"""The recipe of a generated function's relocation of its failures (made by its loader)."""

_LITERALS = (type(None), bool, int, str)


class Unstorable(Exception):
    """A value ``recipe_of`` has no recipe for; ``str`` says which."""


def recipe_of(value: object, given: object = None) -> object:
    """The recipe of ``value`` (Note [namespace recipes]); ``given`` is its binder's, used as it is.
    Raises ``Unstorable``."""
    if given is not None:
        return given
    if type(value) in _LITERALS:
        return value
    if type(value) is float:
        return {"float": repr(value)}
    if type(value) in (list, tuple, frozenset):
        return {type(value).__name__: [recipe_of(item) for item in value]}
    if isinstance(value, torch.dtype):
        return {"dtype": str(value).removeprefix("torch.")}
    if isinstance(value, torch.device):
        return {"device": str(value)}
    if isinstance(value, sympy.Basic):
        return {"sympy": sympy.srepr(value)}
    if isinstance(value, functools.partial) and not value.keywords:
        return {"partial": [recipe_of(value.func), [recipe_of(argument) for argument in value.args]]}
    module, name = getattr(value, "__module__", None), getattr(value, "__name__", None)
    if module in RUNTIME_MODULES and getattr(sys.modules[module], name, None) is value:
        return {"function": [module, name]}
    for root_name, root in NAMED_ROOTS.items():
        if isinstance(name, str) and getattr(root, name, None) is value:
            return {"named": [root_name, name]}
    raise Unstorable(f"no recipe for {type(value).__name__} {value!r:.80}")


def operator_recipe(overload: torch._ops.OpOverload) -> object:
    """The recipe of what host code calls for ``overload``: its C++ callable (``_op``)."""
    return {"operator": overload.name()}


def value_of(recipe: object) -> object:
    """The value ``recipe`` makes (Note [namespace recipes]); ``ValueError`` for a malformed one."""
    if type(recipe) in _LITERALS:
        return recipe
    if not isinstance(recipe, dict) or len(recipe) != 1:
        raise ValueError(f"not a recipe: {recipe!r:.80}")
    ((kind, data),) = recipe.items()
    make = _MAKERS.get(kind)
    if make is None:
        raise ValueError(f"unknown recipe kind {kind!r}")
    return make(data)


def _float(text: str) -> float:
    return float(text)


def _named(data: list[str]) -> object:
    root, name = data
    return getattr(NAMED_ROOTS[root], name)


def _operator(name: str) -> object:
    namespace, _, qualified = name.partition("::")
    packet, _, overload = qualified.partition(".")
    found = getattr(getattr(getattr(torch.ops, namespace), packet), overload or "default")
    return getattr(found, "_op", found)


def _function(data: list[str]) -> object:
    module, name = data
    if module not in RUNTIME_MODULES:
        raise ValueError(f"a recipe names {module}, not a runtime module of hopc")
    return getattr(importlib.import_module(module), name)


def _dtype(name: str) -> torch.dtype:
    found = getattr(torch, name)
    if not isinstance(found, torch.dtype):
        raise ValueError(f"torch.{name} is not a dtype")
    return found


def sympy_from_srepr(text: str) -> sympy.Basic:
    """The sympy expression whose ``sympy.srepr`` is ``text``; ``ValueError`` for anything else.
    (An entry of the compile cache is code: Note [safe cache entries] in ``hopc.compile_cache``.)"""
    import torch.utils._sympy.functions

    names = {**vars(sympy), **vars(torch.utils._sympy.functions)}
    try:
        expression = eval(text, {"__builtins__": {}}, names)  # an entry is code, checked as such
    except Exception as error:  # a malformed text is a ValueError, whatever it raises
        raise ValueError(f"not a sympy expression ({type(error).__name__})") from None
    if not isinstance(expression, sympy.Basic):
        raise ValueError("not a sympy expression")
    return expression


def _partial(data: list) -> functools.partial:
    function, arguments = data
    return functools.partial(value_of(function), *map(value_of, arguments))


_MAKERS: dict[str, Callable[[object], object]] = {
    "float": _float, "list": lambda items: [value_of(item) for item in items],
    "tuple": lambda items: tuple(value_of(item) for item in items),
    "frozenset": lambda items: frozenset(value_of(item) for item in items),
    "dtype": _dtype, "device": torch.device, "named": _named, "operator": _operator,
    "function": _function, "partial": _partial, "sympy": sympy_from_srepr}
