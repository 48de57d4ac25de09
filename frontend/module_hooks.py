"""Module hooks around a compiled program: when a module call is its ``forward``, and the
global hooks a program was compiled with.

Note [module forward]
~~~~~~~~~~~~~~~~~~~~~
Dynamo compiles a module through its ``__call__`` (``Module._call_impl``),
whose frame, guards and hook checks cost about 3 us of every call on a small
CPU machine, a quarter of a compiled cond's. Without hooks that call is
``module.forward(...)`` and nothing more, so ``hopc.compile`` compiles a
module twice, lazily, as Dynamo compiles: its bound ``forward``, which a call
runs while ``ModuleHooks.runs_forward`` (``_call_impl``'s own test: no hook of any
kind, the module's or global, and ``forward`` still the method compiled),
and the module's ``__call__``, which runs its hooks as eager does and serves
every other call. The ``CompiledModule`` that ``hopc.compile`` returns is a
module, but its call is not ``Module.__call__`` (Note [compiled module] in
``hopc.frontend.compile``), unlike ``torch.compile``'s ``OptimizedModule``,
whose call fires global hooks a second time.

Note [hook guards]
~~~~~~~~~~~~~~~~~~
Hooks change what a module call computes, and Dynamo by default does not
guard them (``skip_nnmodule_hook_guards``: "if your model actually has hooks
and you remove them, or doesn't and you add them, dynamo will not notice").
hopc compiles with those guards on (a hook added to or removed from a
submodule recompiles), and the top module's own hooks are checked on every
call (Note [module forward]). The global hooks
(``torch.nn.modules.module.register_module_forward_hook`` and the like) Dynamo
guards only by the type of their dicts, so a compiled program keeps the
global hooks of its first call (``ModuleHooks``): a call after they changed
is refused with a located error rather than answered with the old hooks.
"""

from __future__ import annotations

import traceback
from collections.abc import Callable

import torch
from torch.nn.modules import module as nn_module

from hopc.ir.diagnostics import HopcError, user_location

_GLOBAL_HOOK_DICTS = (nn_module._global_forward_pre_hooks, nn_module._global_forward_hooks,
                      nn_module._global_backward_pre_hooks, nn_module._global_backward_hooks)
"""PyTorch's global module hook dicts: made once, when ``torch.nn`` is imported, and only ever
changed in place (registering and removing a hook), so they are bound once here."""

_MODULE_HOOK_DICTS = ("_backward_hooks", "_backward_pre_hooks", "_forward_hooks", "_forward_pre_hooks")
"""The hook dicts ``Module.__init__`` puts in a module's ``__dict__``."""


def global_hooks() -> tuple[tuple[object, ...], ...]:
    """The global module hooks registered now, each dict's (handle id, hook) pairs; ``()`` for none."""
    if not any(_GLOBAL_HOOK_DICTS):
        return ()
    return tuple(tuple(hooks.items()) for hooks in _GLOBAL_HOOK_DICTS)


class ModuleHooks:
    """Which compiled entry a call of ``program`` takes, by the hooks registered now: its
    compiled ``forward`` (Note [module forward]) or its compiled ``__call__``; a change of the
    global hooks since the first call is refused (Note [hook guards])."""

    def __init__(self, program: Callable) -> None:
        self.module = program if isinstance(program, torch.nn.Module) else None
        self.forward = self.module.forward if self.module is not None else None
        state = vars(self.module) if self.module is not None else {}
        self._state = state if all(name in state for name in _MODULE_HOOK_DICTS) else None
        """The module's ``__dict__``, read for its hooks by key; None where a hook dict is missing
        from it (a module that skipped ``Module.__init__``), which never runs ``forward`` alone."""
        self.first_call: tuple[tuple[object, ...], ...] | None = None
        """The global hooks of the first call (``global_hooks()``)."""

    def runs_forward(self) -> bool:
        """Whether this call may run the compiled ``forward``: ``module(...)`` is
        ``forward(...)`` (``Module._call_impl``'s test: no hooks of the module's or global, no
        ``torch.compile`` of the module in place, ``module.forward`` still the one compiled).
        Raises ``HopcError`` where the global hooks are not those of the first call."""
        if self.first_call != () or any(_GLOBAL_HOOK_DICTS):
            now = global_hooks()
            if self.first_call is None:
                self.first_call = now
            elif now != self.first_call:
                raise HopcError("unsupported: the global module hooks (register_module_forward_hook and "
                                "the like) changed after the program was first called, and Dynamo does "
                                "not guard them; call hopc.compile again after changing them, or "
                                "register the hooks on the modules themselves",
                                user_location(traceback.extract_stack()))
            if now:
                return False
        state = self._state
        return state is not None and not (
            state["_backward_hooks"] or state["_backward_pre_hooks"] or state["_forward_hooks"]
            or state["_forward_pre_hooks"] or self.module._compiled_call_impl is not None) \
            and self.module.forward == self.forward
