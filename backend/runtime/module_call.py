"""Calling a hop-level module like a function: entry values in, copy-back, user outputs out.

``ModuleCall(module, trailing)(*args)`` runs the entry function on ``args``
followed by ``trailing`` (tensors the module takes that the caller does not
pass: constants, and attributes Dynamo left in its graph) through an executor
(``hopc.backend.runtime.executors``), and returns the user outputs. Mutation
has the caller's semantics either way: at the captured level in-place ops
update the caller's tensors directly, and after functionalization each
``{hop.copy_back_to = i}`` result is copied into argument ``i``
(``apply_copy_back``, the one place that does it). With ``aliases`` (from
Dynamo's graph), an output that eager returns as an input, or as a view of
one, is that input or view again (Note [aliased outputs]).

Everything that can be decided once is decided in ``__init__``: the
signature is read and the function prepared by its executor; a call does the
run, the copy-back and the aliases, and (only where no guard settles it
already, ``check_grad``) refuses a call that would need gradients or whose
arguments do not have the entry's types (``hopc.backend.runtime.argument_check``).

Note [direct entry]
~~~~~~~~~~~~~~~~~~~
A small program's call is a few ATen calls, and each Python layer around
them shows (bench/cpu.py's cond: three ATen calls of 2.3 us in a call of
about 11 us). Where the call adds nothing to the run (no trailing tensors,
copy-backs, aliases or checks, and every result a user output, in order) and
the caller fixes the device of the tensors and grad mode off for every call
(a Dynamo graph compiled under ``torch.no_grad()``: Dynamo guards both),
``direct_entry(device)`` is the compiled executor's generated function for
that device itself, which Dynamo then calls with the graph's arguments: the
``ModuleCall`` and ``GeneratedCall`` layers (their frames, grad-mode test and
argument list) are gone, about 0.4 us of the cond's call. Anywhere else it is
the ``ModuleCall``.

Note [concurrent calls]
~~~~~~~~~~~~~~~~~~~~~~~
Compiled programs may be called from several threads at once. What a call
works on is its own: every executor keeps its values per call (the planned
executor's list of slots, the generated code's locals, the buffers a memory
plan allocates per run of a block: Note [memory plan]); what calls share is
read only (constants, converted once; prepared functions and launchers).
The Triton interpreter is the exception, its grid state one per process, so
its launches are serialized (``hopc.backend.triton.launcher``).

What eager does atomically a compiled call does not: ``count.add_(1)`` is
one in-place op, but after functionalization the call reads ``count``,
computes ``count + 1`` and copies it back at its end, and two threads
interleaving those lose updates (2 x 2000 calls counted to about 3,300).
So a call that changes an argument (a copy-back, in ``ModuleCall`` and
``TrainingCall``) runs and copies back holding ``MUTATING_CALLS``, one
re-entrant lock for the process: each compiled call that changes a tensor is
atomic with respect to every other, whichever program it belongs to (a
graph, its recompiled versions, a frozen or a training call of the same
buffers). The guarantee: concurrent compiled calls that change their
arguments give the results of some serial order of those calls, as eager's
in-place ops do for the counter. Calls that change nothing take no lock and
run in parallel (their reads of a tensor another call changes see it
before or after that call, as in eager). A program Dynamo splits at graph
breaks is atomic per graph, not as a whole: the Python between its graphs
runs as eager runs it. The lock costs about 0.1 us per changing call when
uncontended, and serializes changing calls that run at once, also of
programs that share no tensor.
"""

from __future__ import annotations

import threading
import traceback
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import torch

from hopc.backend.runtime.executors import DEFAULT_EXECUTOR
from hopc.backend.runtime.generated_call import Generated, GeneratedCall
from hopc.ir.diagnostics import HopcError, user_location

if TYPE_CHECKING:
    from xdsl.dialects.builtin import ModuleOp

    from hopc.backend.runtime.executors import Executor, Prepared
    from hopc.backend.runtime.output_aliases import OutputAliases
    from hopc.dialects.hop_function_signature import FunctionSignature

MUTATING_CALLS = threading.RLock()
"""Held by a compiled call while it runs and copies back into its arguments (Note [concurrent calls])."""


def apply_copy_back(signature: FunctionSignature | ModuleOp, args: Sequence[object],
                    results: Sequence[object]) -> list[object]:
    """Copies each ``{hop.copy_back_to = i}`` result into ``args[i]``; returns the user outputs."""
    from hopc.dialects.hop_function_signature import FunctionSignature
    from hopc.dialects.hop_module_structure import entry_signature

    if not isinstance(signature, FunctionSignature):
        signature = entry_signature(signature)
    copy_back(signature.copy_back.items(), args, results)
    return [results[index] for index in signature.user_outputs]


def copy_back(pairs: Iterable[tuple[int, int]], args: Sequence[object], results: Sequence[object]) -> None:
    """For each (result, argument) pair, copies ``results[result]`` into ``args[argument]`` in place."""
    for result, argument in pairs:
        args[argument].copy_(results[result])  # type: ignore[attr-defined]


def needs_gradients(values: Sequence[object]) -> bool:
    """Whether a call on ``values`` would need autograd: grad mode on and a tensor requiring grad."""
    return torch.is_grad_enabled() and any(
        isinstance(value, torch.Tensor) and value.requires_grad for value in values)


def gradients_unsupported() -> HopcError:
    return HopcError("the module was compiled without a backward (no argument of its entry is marked "
                     "{hop.requires_grad}), and this call needs gradients (grad mode is on and an "
                     "input requires grad); mark the arguments to differentiate, or call it under "
                     "torch.no_grad() or with tensors that do not require grad",
                     user_location(traceback.extract_stack()))


@dataclass(frozen=True)
class ModulePlan:
    """What a ``ModuleCall`` reads of its entry's signature, decided once: indices only, so
    that a call stored in the compile cache is made again from it without the module
    (``hopc.backend.runtime.stored_call``)."""

    copy_back: tuple[tuple[int, int], ...]
    """(result, argument) per ``{hop.copy_back_to}`` result."""
    user_outputs: tuple[int, ...]
    result_count: int


class ModuleCall:
    """A callable running ``module``'s entry function (see the module docstring)."""

    def __init__(self, module: ModuleOp, trailing: Sequence[torch.Tensor] = (),
                 aliases: OutputAliases | None = None, *, executor: str | Executor = DEFAULT_EXECUTOR,
                 check_grad: bool = True):
        from hopc.backend.runtime.argument_check import ArgumentCheck
        from hopc.backend.runtime.executors import executor_named
        from hopc.dialects.hop_module_structure import entry_signature

        self.module = module
        self.signature = signature = entry_signature(module)
        plan = ModulePlan(tuple(signature.copy_back.items()), tuple(signature.user_outputs),
                          len(signature.function.function_type.outputs))
        self._adopt(plan, executor_named(executor).prepare(module, signature.function), trailing, aliases,
                    check_grad)
        self._check_arguments = ArgumentCheck(module, signature.function) if check_grad else None

    @classmethod
    def from_plan(cls, plan: ModulePlan, run: Prepared, trailing: Sequence[torch.Tensor] = (),
                  aliases: OutputAliases | None = None) -> ModuleCall:
        """The call that ``plan`` and the prepared entry make, without the module: for a caller
        whose guards check the arguments (Dynamo's), as ``check_grad=False`` does."""
        call = cls.__new__(cls)
        call.module = call.signature = call._check_arguments = None
        call._adopt(plan, run, trailing, aliases, check_grad=False)
        return call

    def _adopt(self, plan: ModulePlan, run: Prepared, trailing: Sequence[torch.Tensor],
               aliases: OutputAliases | None, check_grad: bool) -> None:
        self.plan = plan
        self.trailing = list(trailing)
        self.aliases = aliases if aliases else None
        self.check_grad = check_grad
        self._run = run
        self._copy_back = plan.copy_back
        self._user_outputs = plan.user_outputs
        self._direct = not (self.trailing or self._copy_back or self.aliases or check_grad) \
            and list(self._user_outputs) == list(range(plan.result_count))
        """The call is the run: every result a user output, in order, and nothing to add or restore."""

    def direct_entry(self, device: str) -> Generated | ModuleCall:
        """The generated function to call in place of this call, for a caller that passes
        tensors on ``device`` only and keeps grad mode as it is now, off (Note [direct entry]);
        this call where it is not the run or grad mode is on."""
        if self._direct and not torch.is_grad_enabled() and isinstance(self._run, GeneratedCall):
            return self._run.for_device(device)
        return self

    def __call__(self, *args: object) -> list[object]:
        if self._direct:
            return self._run(args)
        entry = [*args, *self.trailing] if self.trailing else list(args)
        if self._check_arguments is not None:
            self._check_arguments(entry)
            if needs_gradients(entry):
                raise gradients_unsupported()
        if self._copy_back:
            with MUTATING_CALLS:  # Note [concurrent calls]
                results = self._run(entry)
                copy_back(self._copy_back, entry, results)
        else:
            results = self._run(entry)
        outputs = [results[index] for index in self._user_outputs]
        return self.aliases.restore(entry, outputs) if self.aliases else outputs
