"""One way to register what a stage does per kind of op: a ``RuleTable`` (Review P3).

Note [rule tables]
~~~~~~~~~~~~~~~~~~
Every stage that behaves differently per HOP (the importer, constant hoisting,
functionalize, autograd, the reference interpreter, the planned executor, host
code) keeps its rules in one ``RuleTable`` that the stage's module owns, and the
code for one kind registers itself where it is written, as xDSL's
``@register_impls`` / ``@impl`` do::

    FUNCTIONALIZE_RULES = RuleTable("functionalize", packages=("hopc.passes.functionalize.hops",))

    @FUNCTIONALIZE_RULES.register(hop.CondOp)
    def functionalize_cond(fn, op): ...

Invariants:
- a key (an op class, or a name where the stage meets torch's HOPs by name) has
  at most one rule; registering a second is an error when its module is imported;
- before the first lookup the table imports every module of each of its
  ``packages`` (a package imports its own modules: one file per kind, and no
  list to edit when a kind is added), and nothing before it, so importing a
  stage does not import the rules of kinds a program does not use elsewhere;
- an op class without a rule of its own takes the rule of its nearest
  registered base class (every ``aten.*`` op class derives from ``AtenOp``),
  else that of a trait it has whose class is registered (a rule that follows
  from a fact the op states, as Note [functional bodies] in
  ``hopc.dialects.hop_interface``).

This module is torch-free and names no dialect: it is the bottom layer.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterator, Sequence
from importlib import import_module
from pkgutil import iter_modules
from typing import Generic, TypeVar

Rule = TypeVar("Rule", bound=Callable)


class RuleTable(Generic[Rule]):
    """The rules of one stage, by op class or name, filled where each kind's code lives."""

    def __init__(self, stage: str, packages: Sequence[str] = ()) -> None:
        self.stage = stage
        self.packages = tuple(packages)
        self._rules: dict[Hashable, Rule] = {}
        self._found: dict[Hashable, Rule | None] = {}  # lookups answered, base classes resolved
        self._loaded = False

    def register(self, *keys: Hashable) -> Callable[[Rule], Rule]:
        """Registers the decorated function as this stage's rule for each of ``keys``."""

        def register(rule: Rule) -> Rule:
            for key in keys:
                if key in self._rules and self._rules[key] is not rule:
                    raise ValueError(f"{self.stage}: a second rule for {_name(key)}")
                self._rules[key] = rule
            self._found.clear()
            return rule

        return register

    def get(self, key: Hashable) -> Rule | None:
        """The rule for ``key`` (for a class, that of its nearest registered base, else of a
        registered trait it has), or None."""
        if key in self._found:
            return self._found[key]
        self._load()
        found = self._rules.get(key)
        if found is None and isinstance(key, type):
            found = next((self._rules[base] for base in key.__mro__ if base in self._rules), None)
        if found is None:
            found = next((self._rules[type(trait)] for trait in getattr(key, "traits", ())
                          if type(trait) in self._rules), None)
        self._found[key] = found
        return found

    def __contains__(self, key: Hashable) -> bool:
        return self.get(key) is not None

    def __iter__(self) -> Iterator[Hashable]:
        """Every key with a rule of its own (after the packages are imported)."""
        self._load()
        return iter(tuple(self._rules))

    def _load(self) -> None:
        if self._loaded:
            return
        self._loaded = True
        for package_name in self.packages:
            package = import_module(package_name)
            for module in sorted(iter_modules(package.__path__), key=lambda m: m.name):
                import_module(f"{package_name}.{module.name}")


def _name(key: Hashable) -> str:
    return getattr(key, "name", None) or getattr(key, "__name__", None) or repr(key)
