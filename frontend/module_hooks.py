"""Module hooks around a compiled program: when a module call is its ``forward``, and the
global hooks a program was compiled with.

Note [module forward]
~~~~~~~~~~~~~~~~~~~~~
Dynamo compiles a module through its ``__call__`` (``Module._call_impl``),
whose frame, guards and hook checks cost about 3 us of every call on a small
CPU machine, a quarter of a compiled cond's. Without hooks that call is
``module.forward(...)`` and nothing more, so ``hopc.compile`` compiles a
module twice, lazily, as Dynamo compiles: its bound ``forward``, which a call
runs while ``calls_forward_only`` (``_call_impl``'s own test: no hook of any
kind, the module's or global, and ``forward`` still the method compiled),
and the module's ``__call__``, which runs its hooks as eager does and serves
every other call. The module is not wrapped in an ``OptimizedModule`` as
``torch.compile(module)`` does: that wrapper is a module too, whose call
fires global hooks a second time.

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
global hooks of its first call (``GlobalHooks``): a call after they changed
is refused with a located error rather than answered with the old hooks.
"""

from __future__ import annotations

import traceback
from collections.abc import Callable

import torch
from torch.nn.modules import module as nn_module

from hopc.frontend.errors import user_location
from hopc.ir.diagnostics import HopcError


def global_hooks() -> tuple[tuple[object, ...], ...]:
    """The global module hooks registered now, each dict's (handle id, hook) pairs; ``()`` for none."""
    dicts = (nn_module._global_forward_pre_hooks, nn_module._global_forward_hooks,
             nn_module._global_backward_pre_hooks, nn_module._global_backward_hooks)
    if not any(dicts):
        return ()
    return tuple(tuple(hooks.items()) for hooks in dicts)


class GlobalHooks:
    """The global hooks a program was first called with; ``check`` refuses others (Note [hook guards])."""

    def __init__(self) -> None:
        self.compiled_with: tuple[tuple[object, ...], ...] | None = None

    def check(self, now: tuple[tuple[object, ...], ...]) -> None:
        if self.compiled_with is None:
            self.compiled_with = now
        elif now != self.compiled_with:
            raise HopcError("unsupported: the global module hooks (register_module_forward_hook and the "
                            "like) changed after the program was first called, and Dynamo does not "
                            "guard them; call hopc.compile again after changing them, or register the "
                            "hooks on the modules themselves", user_location(traceback.extract_stack()))


def calls_forward_only(module: torch.nn.Module, forward: Callable, hooks: tuple) -> bool:
    """Whether ``module(...)`` is ``forward(...)`` with the global hooks ``hooks``: no hooks
    (``Module._call_impl``'s test), no ``torch.compile`` of the module in place, and
    ``module.forward`` still ``forward`` (Note [module forward])."""
    return not (hooks or module._backward_hooks or module._backward_pre_hooks or module._forward_hooks
                or module._forward_pre_hooks or module._compiled_call_impl is not None) \
        and module.forward == forward
