"""Executors: what turns one function of a module into a callable ``args -> results``.

An ``Executor`` prepares a function once (``prepare(module, function)``) and
the callable it returns runs it on a list of argument values, returning the
list of its results; tensors are the caller's own, so the function's in-place
effects (at the captured level) reach them. Executors are chosen by name
(``EXECUTORS``, ``executor_named``); ``DEFAULT_EXECUTOR`` is the fastest one
that is correct on every module the reference interpreter runs.

- ``interpreter``: the reference interpreter (``hopc.backend.interpreter``),
  checking every value against its type and every symbol binding;
- ``planned``: the same semantics, planned once and unchecked (Note [planned
  execution] in ``hopc.backend.runtime.plan``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

from xdsl.dialects.builtin import ModuleOp
from xdsl.dialects.func import FuncOp

from hopc.ir.diagnostics import HopcError

Prepared = Callable[[Sequence[object]], list[object]]


class Executor(Protocol):
    name: str

    def prepare(self, module: ModuleOp, function: FuncOp) -> Prepared:
        """``function`` of ``module`` ready to run: ``args -> results``."""
        ...


class InterpreterExecutor:
    """The checked reference interpreter."""

    name = "interpreter"

    def prepare(self, module: ModuleOp, function: FuncOp) -> Prepared:
        from hopc.backend.interpreter import run_module

        name = function.sym_name.data
        return lambda args: run_module(module, args, function=name)


class PlannedExecutor:
    """The reference semantics, planned once per function and run unchecked."""

    name = "planned"

    def prepare(self, module: ModuleOp, function: FuncOp) -> Prepared:
        from hopc.backend.runtime.plan import plan_function

        return plan_function(function)


EXECUTORS: dict[str, Executor] = {e.name: e for e in (InterpreterExecutor(), PlannedExecutor())}
DEFAULT_EXECUTOR = "planned"


def executor_named(name: str) -> Executor:
    """The executor called ``name``; a HopcError lists the known ones otherwise."""
    if name not in EXECUTORS:
        raise HopcError(f"unknown executor '{name}'; hopc has {', '.join(sorted(EXECUTORS))}")
    return EXECUTORS[name]
