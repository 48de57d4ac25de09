"""Calling a differentiated module like a function that PyTorch's autograd can differentiate.

``TrainingCall(module, trailing, aliases)(*args)`` is ``ModuleCall``'s
counterpart for a module at the differentiated level, one with ``hop.entry
forward`` and ``hop.entry backward`` (Note [entry signature] in
``hopc.dialects.hop_module``): the call takes the forward's arguments and
returns its user outputs, and autograd through those outputs runs the
backward (Note [training call]). ``trailing`` and ``aliases`` are
``ModuleCall``'s: tensors appended to every call, and outputs restored as the
inputs or views eager returns (Note [aliased outputs]).

Note [training call]
~~~~~~~~~~~~~~~~~~~~
A call with grad mode on, where an argument marked ``{hop.requires_grad}``
requires grad, applies one ``torch.autograd.Function``:

- its forward runs the forward entry (autograd does not record inside) and
  keeps the saved values (``hop.saved = k``) for the backward: tensors with
  ``ctx.save_for_backward``, so that changing one in place before the
  backward is caught as in eager; other values (``!hop.symint`` sizes are
  ints) on ``ctx``; a saved value in the memory of an input the call changes
  (the input's value on entry, which the copy-back overwrites) is saved as a
  copy. It returns the user outputs and the copy-back values; every output
  the backward takes no cotangent for (integer outputs, the copy-backs of
  arguments not differentiated) is marked non-differentiable (as an alias,
  where the same tensor is also a differentiable output);
- its backward runs the backward entry on the saved values and one cotangent
  per ``hop.cotangent_of`` argument (autograd gives zeros for an output that
  got no gradient; a cotangent is made contiguous, as the entry's types
  are), and returns each ``hop.gradient_of = j`` result as the gradient of
  argument ``j``, None for the others. With ``create_graph=True`` autograd
  would differentiate the backward too, which runs outside autograd: that
  is refused with a located ``HopcError``, not answered wrongly.

As in AOTAutograd, a changed input's final value comes out of the Function
and is copied into the caller's tensor with ``copy_`` afterwards, with grad
mode on, so that autograd records the write (the tensor's version changes,
and a later backward that saved its old value complains as in eager). Where
the input is differentiated (a non-leaf that requires grad: eager refuses
in-place changes of a leaf that does), its new value is a differentiable
output of the Function, with a cotangent in the backward: a gradient reaching
the caller's tensor after the call flows through ``copy_`` into the Function,
and from there to the input's value on entry and to the other arguments. A
new value that takes no gradient (a buffer's, or a parameter's changed under
``torch.no_grad()``, Note [no-grad spans]) is copied back under
``torch.no_grad()``, which autograd does not record, as in eager.

A call with grad mode off, or where nothing marked ``{hop.requires_grad}``
requires grad, runs only the forward entry and drops the saved values. With
``check_grad`` a call refuses an argument that requires grad but is not
marked: its gradient would silently be missing, and arguments that do not
have the forward's types (``hopc.backend.runtime.argument_check``); Dynamo's
guards settle both for the Dynamo backend, which turns the checks off.

Note [autograd function entry]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
A small training step is a few ATen calls, and the Python around one
``autograd.Function`` is a good part of what hopc adds to it (measured on
bench/cpu.py's small MLP: 4 of 65 us). So a call enters the Function where
``torch.autograd.Function.apply`` itself ends: where no functorch transform
is active, that method unwraps dead functorch wrappers among the arguments
(``unwrap_dead_wrappers``: tensors that escaped a ``torch.func`` transform)
and calls the C entry ``torch._C._FunctionBase.apply``; ``TrainingCall``
does the same. The Function defines no ``setup_context``, so ``apply``
binds no default arguments, and under an active transform ``apply`` refuses
it; ``TrainingCall`` refuses that call with a located ``HopcError`` instead.
(``hopc.compile`` of a program never gets there: it runs a call under a
transform eagerly, Note [calls under torch.func] in ``hopc.frontend.compile``.)
In the backward, the engine calls the node's ``apply``, which looks up the
Function's ``backward`` (against a ``vjp``) and whether it takes boxed
gradients on every call; the node class of ``_Differentiated`` has its
``backward`` as ``apply`` instead, what that lookup returns. The per-call plans (which results are saved tensors, where
each backward argument comes from, which result is each gradient) are made
once, in ``__init__``.
"""

from __future__ import annotations

import traceback
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import torch
from torch._C._functorch import unwrap_if_dead
from torch._functorch.utils import unwrap_dead_wrappers

from hopc.backend.runtime.module_call import DEFAULT_EXECUTOR, MUTATING_CALLS, copy_back
from hopc.ir.diagnostics import HopcError, Location, user_location

if TYPE_CHECKING:
    from xdsl.dialects.builtin import ModuleOp

    from hopc.backend.runtime.executors import Executor, Prepared
    from hopc.backend.runtime.output_aliases import OutputAliases
    from hopc.dialects.hop_function_signature import FunctionSignature


@dataclass(frozen=True)
class TrainingPlan:
    """What a ``TrainingCall`` reads of its module's signatures, decided once (Note [training
    call]): positions and indices only, so that a call stored in the compile cache is made
    again from it without the module (``hopc.backend.runtime.stored_call``)."""

    requires_grad: tuple[int, ...]
    """The forward's arguments marked ``{hop.requires_grad}``."""
    all_tensors: bool
    """Whether every argument is a tensor, which ``unwrap_if_dead`` takes without a test."""
    user_output_count: int
    returned: tuple[int, ...]
    """The forward's results the autograd Function returns: user outputs, then copy-backs."""
    saved_tensors: tuple[int, ...]
    saved_others: tuple[int, ...]
    """The forward's result index of each saved tensor, and of each other saved value, in order."""
    cotangents: tuple[tuple[int, int], ...]
    """(backward argument, position among the Function's outputs) per cotangent."""
    differentiable: tuple[int, ...]
    non_differentiable: tuple[int, ...]
    copy_back: tuple[tuple[int, int], ...]
    """(Function output, argument) per copy-back autograd records: a differentiated input's."""
    copy_back_unrecorded: tuple[tuple[int, int], ...]
    """(Function output, argument) per copy-back of a value that takes no gradient: copied
    under ``torch.no_grad()``, as eager's ``w.add_(1)`` under no_grad changes a leaf."""
    changed_arguments: tuple[int, ...]
    """The arguments the call changes (copies back into)."""
    backward_arguments: tuple[int, ...]
    """Per backward argument, its position in ``(*saved tensors, *other saved values,
    *cotangents)``: what ``run_backward`` has at hand (Note [training call])."""
    gradients: tuple[int, ...]
    """What ``_Differentiated.backward`` returns, as backward results: -1 (the None after the
    results) for the ``call`` argument, then per forward argument the result that is its
    gradient, -1 where there is none."""


def training_plan(forward: FunctionSignature, backward: FunctionSignature) -> TrainingPlan:
    """The plan of the differentiated module whose entries have these signatures."""
    from hopc.ir.types import TensorType

    copy_back_results = tuple(forward.copy_back)
    user_output_count = len(forward.user_outputs)
    returned = (*forward.user_outputs, *copy_back_results)
    copied = [(user_output_count + position, forward.copy_back[result])
              for position, result in enumerate(copy_back_results)]
    saved = tuple(forward.saved_results[number] for number in range(len(forward.saved_results)))
    result_types = forward.function.function_type.outputs.data
    tensors = [number for number, index in enumerate(saved) if isinstance(result_types[index], TensorType)]
    others = [number for number in range(len(saved)) if number not in tensors]
    at_hand = tensors + others
    """The saved value numbers as ``run_backward`` has them at hand: the tensors (saved with
    ``ctx.save_for_backward``), then the other values, each in number order."""
    position_of = {result: position for position, result in enumerate(returned)}
    cotangents = tuple((argument, position_of[result]) for argument, result in backward.cotangent_arguments.items())
    differentiable = tuple(sorted(position for _, position in cotangents))
    position_at_hand = {number: position for position, number in enumerate(at_hand)}
    source = {argument: position_at_hand[number] for number, argument in backward.saved_arguments.items()}
    for offset, (argument, _) in enumerate(cotangents):
        source[argument] = len(at_hand) + offset
    gradient_of = {argument: result for result, argument in backward.gradient_results.items()}
    return TrainingPlan(
        requires_grad=tuple(sorted(forward.requires_grad)),
        all_tensors=all(isinstance(t, TensorType) for t in forward.function.function_type.inputs.data),
        user_output_count=user_output_count, returned=returned,
        saved_tensors=tuple(saved[number] for number in tensors),
        saved_others=tuple(saved[number] for number in others),
        cotangents=cotangents, differentiable=differentiable,
        non_differentiable=tuple(position for position in range(len(returned)) if position not in differentiable),
        copy_back=tuple(pair for pair in copied if pair[0] in differentiable),
        copy_back_unrecorded=tuple(pair for pair in copied if pair[0] not in differentiable),
        changed_arguments=tuple(argument for _, argument in copied),
        backward_arguments=tuple(source[argument] for argument in range(len(backward.arguments))),
        gradients=(-1, *(gradient_of.get(argument, -1) for argument in range(len(forward.arguments)))))


class TrainingCall:
    """A callable running a differentiated ``module`` under autograd (see the module docstring)."""

    def __init__(self, module: ModuleOp, trailing: Sequence[torch.Tensor] = (),
                 aliases: OutputAliases | None = None, *, executor: str | Executor = DEFAULT_EXECUTOR,
                 check_grad: bool = True):
        from hopc.backend.runtime.argument_check import ArgumentCheck
        from hopc.backend.runtime.executors import executor_named
        from hopc.dialects.hop_module_structure import entry_signature

        self.module = module
        self.forward_signature = forward = entry_signature(module, "forward")
        backward = entry_signature(module, "backward")
        chosen = executor_named(executor)
        self._adopt(training_plan(forward, backward), chosen.prepare(module, forward.function),
                    chosen.prepare(module, backward.function), trailing, aliases)
        self._check_arguments = ArgumentCheck(module, forward.function) if check_grad else None

    @classmethod
    def from_plan(cls, plan: TrainingPlan, run_forward: Prepared, run_backward: Prepared,
                  trailing: Sequence[torch.Tensor] = (), aliases: OutputAliases | None = None) -> TrainingCall:
        """The call that ``plan`` and the prepared entries make, without the module: for a
        caller whose guards check the arguments (Dynamo's), as ``check_grad=False`` does."""
        call = cls.__new__(cls)
        call.module = call.forward_signature = call._check_arguments = None
        call._adopt(plan, run_forward, run_backward, trailing, aliases)
        return call

    def _adopt(self, plan: TrainingPlan, run_forward: Prepared, run_backward: Prepared,
               trailing: Sequence[torch.Tensor], aliases: OutputAliases | None) -> None:
        self.plan = plan
        self._run_forward = run_forward
        self._run_backward = run_backward
        self.trailing = list(trailing)
        self.aliases = aliases if aliases else None

    def __call__(self, *args: object) -> list[object]:
        entry = [*args, *self.trailing] if self.trailing else list(args)
        if self._check_arguments is not None:
            self._check_arguments(entry)
            self._check_requires_grad(entry)
        if self.plan.changed_arguments:
            with MUTATING_CALLS:  # Note [concurrent calls] in hopc.backend.runtime.module_call
                returned = self._run_and_copy_back(entry)
        else:
            returned = self._run_and_copy_back(entry)
        outputs = list(returned[:self.plan.user_output_count])
        return self.aliases.restore(entry, outputs) if self.aliases else outputs

    def _run_and_copy_back(self, entry: list[object]) -> Sequence[object]:
        """The Function's outputs (``_returned``) for ``entry``, its changed arguments copied back."""
        plan = self.plan
        if torch.is_grad_enabled() and any(entry[index].requires_grad for index in plan.requires_grad):
            returned = self._apply(entry)
        else:
            results = self._run_forward(entry)
            returned = [results[index] for index in plan.returned]
        if plan.copy_back:
            copy_back(plan.copy_back, entry, returned)
        if plan.copy_back_unrecorded:
            with torch.no_grad():
                copy_back(plan.copy_back_unrecorded, entry, returned)
        return returned

    def _apply(self, entry: list[object]) -> tuple:
        """``_Differentiated.apply(self, *entry)`` through its C entry (Note [autograd function
        entry]); a located HopcError under a functorch transform."""
        if torch._C._are_functorch_transforms_active():
            raise HopcError("a compiled training call cannot run under a torch.func transform (grad, "
                            "vmap, jacrev, ...): its backward is hopc's, not a formula torch.func can "
                            "transform; apply the transform to the eager program, or compute the "
                            "gradients with torch.autograd", _caller_location())
        if self.plan.all_tensors:  # unwrap_dead_wrappers's own test per argument costs about 1 us
            return _apply_function(self, *map(unwrap_if_dead, entry))
        return _apply_function(self, *unwrap_dead_wrappers(entry))

    def _check_requires_grad(self, entry: Sequence[object]) -> None:
        if not torch.is_grad_enabled():
            return
        for index, value in enumerate(entry):
            if _requires_grad(value) and index not in self.plan.requires_grad:
                raise HopcError(f"argument {index} of @{self.forward_signature.name} requires grad, "
                                f"but the module was not differentiated for it (it is not marked "
                                f"{{hop.requires_grad}})", _caller_location())

    def run_forward(self, ctx: torch.autograd.function.FunctionCtx, entry: Sequence[object]) -> tuple:
        """The forward entry on ``entry``: keeps the saved values on ``ctx``, returns the Function's outputs."""
        plan = self.plan
        results = self._run_forward(entry)
        saved_tensors = [results[index] for index in plan.saved_tensors]
        if plan.changed_arguments:
            changed = {_storage(entry[argument]) for argument in plan.changed_arguments}
            saved_tensors = [value.clone() if _storage(value) in changed else value for value in saved_tensors]
        ctx.save_for_backward(*saved_tensors)
        ctx.saved_others = [results[index] for index in plan.saved_others]
        returned = [results[index] for index in plan.returned]
        if plan.non_differentiable:
            differentiable = {id(returned[position]) for position in plan.differentiable}
            for position in plan.non_differentiable:  # marked apart from the same tensor as a differentiable one
                if id(returned[position]) in differentiable:
                    returned[position] = returned[position].detach()
            ctx.mark_non_differentiable(*(returned[position] for position in plan.non_differentiable
                                          if isinstance(returned[position], torch.Tensor)))
        return tuple(returned)

    def run_backward(self, ctx: torch.autograd.function.FunctionCtx, cotangents: Sequence[object]) -> tuple:
        """The backward entry on the saved values and ``cotangents``: None for the ``call``
        argument of ``_Differentiated``, then one gradient (or None) per entry argument."""
        plan = self.plan
        if torch.is_grad_enabled():
            raise double_backward_unsupported()
        at_hand = [*ctx.saved_tensors, *ctx.saved_others]
        for _, position in plan.cotangents:
            cotangent = cotangents[position]
            at_hand.append(cotangent.contiguous() if isinstance(cotangent, torch.Tensor) else cotangent)
        results = self._run_backward([at_hand[source] for source in plan.backward_arguments])
        results.append(None)
        return tuple([results[result] for result in plan.gradients])


class _Differentiated(torch.autograd.Function):
    """The forward and backward entries of a ``TrainingCall`` as one autograd node (Note [training call])."""

    @staticmethod
    def forward(ctx: torch.autograd.function.FunctionCtx, call: TrainingCall, *entry: object) -> tuple:
        ctx.call = call
        return call.run_forward(ctx, entry)

    @staticmethod
    def backward(ctx: torch.autograd.function.FunctionCtx, *cotangents: object) -> tuple:
        return ctx.call.run_backward(ctx, cotangents)


_Differentiated._backward_cls.apply = _Differentiated.backward  # Note [autograd function entry]
_apply_function = super(torch.autograd.Function, _Differentiated).apply
"""``torch._C._FunctionBase.apply`` bound to ``_Differentiated``: the C entry that
``torch.autograd.Function.apply`` ends in (Note [autograd function entry])."""


def _storage(tensor: torch.Tensor) -> int:
    return tensor.untyped_storage().data_ptr()


def _requires_grad(value: object) -> bool:
    return isinstance(value, torch.Tensor) and value.requires_grad


def double_backward_unsupported() -> HopcError:
    return HopcError("hopc does not differentiate the backward of a compiled program (double "
                     "backward): a backward through it ran with create_graph=True; compute "
                     "higher-order gradients eagerly or with torch.func outside hopc.compile",
                     _caller_location())


def _caller_location() -> Location | None:
    """The user's line that called into this module (the runtime's frames are not the user's)."""
    return user_location([frame for frame in traceback.extract_stack() if frame.filename != __file__])
