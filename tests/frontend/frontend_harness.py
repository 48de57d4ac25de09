"""Running a program eagerly and through hopc on the same inputs, and comparing.

Every run gets its own copies of the inputs and of the program's state, so
that mutation by one run cannot leak into another; after each run the
outputs, the (possibly mutated) inputs and the program's parameters and
buffers are compared with eager's.
"""

from __future__ import annotations

import copy
from collections.abc import Callable

import torch
import torch.utils._pytree as pytree

import hopc
from hopc.backend.interpreter import run_module
from hopc.backend.runtime.entry_values import entry_values


def cloned(values: object) -> object:
    return pytree.tree_map(lambda v: v.clone() if isinstance(v, torch.Tensor) else v, values)


def fresh(program: Callable) -> Callable:
    return copy.deepcopy(program) if isinstance(program, torch.nn.Module) else program


def state(program: Callable) -> dict[str, torch.Tensor]:
    if not isinstance(program, torch.nn.Module):
        return {}
    return dict(program.state_dict())


def assert_same_run(expected: tuple, actual: tuple) -> None:
    """Each of (outputs, inputs, state) must match."""
    for what, want, got in zip(("outputs", "inputs after the call", "parameters and buffers"),
                               expected, actual):
        torch.testing.assert_close(got, want, msg=lambda m, what=what: f"{what}: {m}")


def eager_run(program: Callable, args: tuple) -> tuple:
    program, args = fresh(program), cloned(args)
    with torch.no_grad():
        outputs = program(*args)
    return outputs, args, state(program)


def captured_run(module: object, program: Callable, args: tuple) -> tuple:
    """Runs the captured module on the interpreter; outputs are the flat leaves."""
    program, args = fresh(program), cloned(args)
    outputs = run_module(module, entry_values(module, program, args))
    return outputs, args, state(program)


def check_capture(program: Callable, input_sets: list[tuple], dynamic_shapes: object = None):
    """Captures on the first input set, round-trips the text, compares every set with eager."""
    module = hopc.capture(fresh(program), cloned(input_sets[0]), dynamic_shapes=dynamic_shapes)
    text = str(module)
    reparsed = hopc.parse(text)
    assert str(reparsed) == text
    for args in input_sets:
        outputs, inputs, buffers = eager_run(program, args)
        assert_same_run((pytree.tree_leaves(outputs), inputs, buffers),
                        captured_run(reparsed, program, args))
    return module


def check_compile(program: Callable, input_sets: list[tuple], **options: object) -> Callable:
    """Compiles ``program`` (a copy) and compares each call with eager's, pytree included."""
    reference, compiled_program = fresh(program), fresh(program)
    compiled = hopc.compile(compiled_program, **options)
    for args in input_sets:
        eager_args, hopc_args = cloned(args), cloned(args)
        with torch.no_grad():
            expected = reference(*eager_args)
            actual = compiled(*hopc_args)
        assert_same_run((expected, eager_args, state(reference)),
                        (actual, hopc_args, state(compiled_program)))
    return compiled
