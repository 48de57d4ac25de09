"""Running a module on the reference interpreter for a differential test, and comparing runs.

``run_outcome(module, arguments)`` gives the outputs, or the ``InterpreterError``
the run raised, and the arguments as the run left them (it runs on copies,
from a fixed RNG state); ``assert_same_outcome`` compares two such outcomes.
The pass tests (``test_passes_differential``) and the freeze tests share them.
"""

from __future__ import annotations

import torch
from xdsl.dialects.builtin import ModuleOp

from hopc.backend.interpreter import InterpreterError, run_module
from hopc.backend.runtime.module_call import apply_copy_back

Outcome = list[object] | InterpreterError


def run_outcome(module: ModuleOp, arguments: list[object]) -> tuple[Outcome, list[object]]:
    """(the user outputs or the failure, the arguments as the run left them), from a fixed RNG
    state; each ``{hop.copy_back_to = i}`` result is copied into argument ``i``, as a compiled
    call does (``apply_copy_back``), so a functionalized module compares with its original."""
    arguments = [v.clone() if isinstance(v, torch.Tensor) else v for v in arguments]
    torch.manual_seed(0)
    try:
        return apply_copy_back(module, arguments, run_module(module, arguments)), arguments
    except InterpreterError as error:
        return error, arguments


def assert_same_outcome(before: Outcome, after: Outcome, *, exact: bool = True) -> None:
    """The outcomes agree: the same failure, or the same values, bit for bit or (``exact=False``)
    within float tolerance."""
    if isinstance(before, InterpreterError) or isinstance(after, InterpreterError):
        assert type(before) is type(after), f"before: {before}\nafter: {after}"
        return
    assert len(before) == len(after)
    tolerance = {"rtol": 0, "atol": 0} if exact else {}
    for old, new in zip(before, after, strict=True):
        if isinstance(old, torch.Tensor):
            torch.testing.assert_close(new, old, equal_nan=True, **tolerance)
        else:
            assert new == old
