"""``hopc.compile(program, freeze=True)``: inference with the parameters and buffers frozen into constants.

Each graph Dynamo captures is compiled as ``hopc_backend`` compiles it, but
for inference (under ``torch.no_grad()``: no backward), and is run by a
``FrozenCall``: on its first call it freezes a copy of the functional module
with the values the call passes (the driver's ``frozen`` stage,
``hopc.passes.freeze``: the parameters and buffers the program never changes
become constants, and what reads only them folds, inside every HOP region
too), runs the driver's stages after it (Note [compile stages] in
``hopc.driver``), then runs the frozen module on the arguments left. A
hop-level module with ``freeze=True`` is frozen with the values its globals
carry, at compile time (``hopc.driver.compile_captured``).

Note [freeze guard]
~~~~~~~~~~~~~~~~~~~
The frozen module holds copies of the values it froze, so a weight the user
updates afterwards would give stale results. Dynamo still passes every
parameter and buffer to the compiled graph on each call, so ``FrozenCall``
checks, per call, that each tensor it froze is the one it froze, unchanged:
the same data pointer and the same ``_version`` (bumped by every in-place
change: an optimizer step, ``copy_`` under ``torch.no_grad()``,
``load_state_dict``). A changed or replaced tensor refreezes the module from
the current values (a recompile of the frozen artifact, not of the graph).
As for autograd, changes made through ``tensor.data`` bump no version and
are not seen; the check costs a few attribute reads per frozen tensor.

Note [freezing is inference]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~
A frozen parameter is a constant: no gradient reaches it, so a frozen call
returns outputs that require no grad, in grad mode too, as if the program
ran under ``torch.no_grad()`` (``torch.jit.freeze`` likewise). A user input
that requires grad in grad mode is refused with a located error, rather
than returning outputs silently cut off from it.

Note [dropped parameters]
~~~~~~~~~~~~~~~~~~~~~~~~~
``drop_parameters=True`` releases the memory of every parameter and buffer
once frozen (its storage is resized to nothing; the tensor keeps its shape,
dtype and identity, which Dynamo's guards check): the module's weights live
on only in the frozen constants. This is destructive: the eager module can
no longer run, and a new compile that needs the values (a new input shape
not covered by a dynamic one, a new dtype) is a located error, so such
programs are compiled with ``dynamic=True``. Assigning new weights
(``param.data = new``) refreezes from them as any change does.
"""

from __future__ import annotations

import dataclasses
import threading
import traceback
from collections.abc import Sequence
from dataclasses import dataclass

import torch
from xdsl.dialects.builtin import ModuleOp

from hopc.backend.runtime.module_call import ModuleCall
from hopc.backend.runtime.training_call import TrainingCall
from hopc.dialects.hop_module_structure import entry_signature
from hopc.driver import CompileOptions, Frame, compile_frozen
from hopc.driver_log import StageLog
from hopc.ir.diagnostics import HopcError, user_location


@dataclass(frozen=True)
class Freezing:
    """One freeze of a ``FrozenCall``'s module, replaced whole by a refreeze (Note [freeze guard]).

    Invariant: ``frozen`` holds each frozen entry position with the tensor
    frozen there, its ``_version`` and data pointer then; the other positions
    (``kept``) go to ``run``, which owns the blobs of the frozen constants
    (Note [owned blobs] in ``hopc.ir.resources``).
    """

    frozen: tuple[tuple[int, torch.Tensor, int, int], ...]
    kept: tuple[int, ...]
    run: ModuleCall | TrainingCall

    def unchanged(self, entry: Sequence[object]) -> bool:
        """Whether every tensor ``entry`` passes at a frozen position is the one frozen, unchanged."""
        for index, tensor, version, pointer in self.frozen:
            value = entry[index]
            if value is not tensor or value._version != version or value.data_ptr() != pointer:
                return False
        return True


class FrozenCall:
    """Runs the functional ``module`` of ``frame`` frozen on the values of each call's globals
    (module docstring); ``log`` prints and reports the stages each freeze runs (Note [stage log]
    in ``hopc.driver_log``).

    ``freezing`` is the current freeze, read once per call and replaced whole,
    so a call in another thread runs the freeze it read, never half of two
    (Note [concurrent calls] in ``hopc.backend.runtime.module_call``); a
    refreeze drops the previous one, and its constants with it.
    """

    def __init__(self, module: ModuleOp, options: CompileOptions, frame: Frame, log: StageLog):
        self.module = module
        self.trailing = list(frame.trailing)
        self.aliases = frame.aliases
        self.options = options
        self.frame = dataclasses.replace(frame, trailing=(), aliases=None, check_grad=False)
        """The frozen module's own call: it takes what this call passes it, checked here."""
        self.log = log
        self.signature = entry_signature(module)
        self.freezing: Freezing | None = None
        self._refreezing = threading.Lock()

    def __call__(self, *args: object) -> list[object]:
        entry = [*args, *self.trailing]
        freezing = self.freezing
        if freezing is None or not freezing.unchanged(entry):
            freezing = self._refreeze(entry)
        outputs = freezing.run(*(entry[i] for i in freezing.kept))
        return self.aliases.restore(entry, outputs) if self.aliases else outputs

    def _refreeze(self, entry: list[object]) -> Freezing:
        """The freeze for ``entry``'s values: the current one where another thread just made it."""
        with self._refreezing:
            freezing = self.freezing
            if freezing is None or not freezing.unchanged(entry):
                freezing = self.freezing = self._freeze(entry)
            return freezing

    def _freeze(self, entry: list[object]) -> Freezing:
        _check_inference(self.signature.user_inputs, entry)
        globals_ = {i: name for i, (_, name) in self.signature.globals_by_argument.items()
                    if isinstance(entry[i], torch.Tensor)}
        for index in globals_:
            _check_not_dropped(entry[index], globals_[index])
        module = self.module.clone()
        # Converting a value to a constant shares its storage with numpy, which fixes the
        # storage's size; a tensor to release afterwards is converted from a copy.
        values = {name: entry[i].detach().clone() if self.options.drop_parameters else entry[i].detach()
                  for i, name in globals_.items()}
        run, report = compile_frozen(module, values, self.options, self.frame, self.log)
        frozen_names = set(report.frozen)
        positions = [i for i, name in globals_.items() if name in frozen_names]
        if self.options.drop_parameters:
            _release([entry[i] for i in positions], [entry[i] for i in range(len(entry)) if i not in positions])
        return Freezing(tuple((i, entry[i], entry[i]._version, entry[i].data_ptr()) for i in positions),
                        tuple(i for i in range(len(entry)) if i not in positions), run)


def _check_inference(user_inputs: Sequence[int], entry: Sequence[object]) -> None:
    """Note [freezing is inference]."""
    if not torch.is_grad_enabled():
        return
    for position, index in enumerate(user_inputs):
        value = entry[index]
        if isinstance(value, torch.Tensor) and value.requires_grad:
            raise HopcError(f"hopc.compile(freeze=True) compiles for inference, and input {position} "
                            "requires grad; call it under torch.no_grad() or with inputs that do not "
                            "require grad, or compile without freeze",
                            user_location(traceback.extract_stack()))


def _check_not_dropped(tensor: torch.Tensor, name: str) -> None:
    """Refuses to freeze a value released by ``drop_parameters`` (Note [dropped parameters])."""
    if tensor.numel() and tensor.untyped_storage().nbytes() == 0:
        raise HopcError(f"hopc.compile(freeze=True, drop_parameters=True) released '{name}' when it "
                        "froze it, and this call needs a new compile that reads it (a new shape or "
                        "dtype); compile with dynamic=True, or without drop_parameters",
                        user_location(traceback.extract_stack()))


def _release(frozen: Sequence[torch.Tensor], kept: Sequence[object]) -> None:
    """Releases the storage of each frozen tensor that no kept argument shares."""
    shared = {value.untyped_storage().data_ptr() for value in kept if isinstance(value, torch.Tensor)}
    for tensor in frozen:
        if tensor.untyped_storage().data_ptr() not in shared:
            tensor.untyped_storage().resize_(0)
