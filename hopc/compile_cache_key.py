"""What a compile cache entry is keyed by (Note [compile cache key] in ``hopc.compile_cache``), and the
Dynamo frame's shape facts: read into the key, the guards the stages add kept and replayed.

Note [frame facts in the key]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
The ``differentiated`` stage traces some derivatives in the ``ShapeEnv`` of
the Dynamo frame it compiles, and their guards join the frame's (Note
[derivatives in a frame] in ``hopc.passes.autograd.derivatives``); the
retrace of a Dynamo graph runs in that ``ShapeEnv`` too. A hit skips those
traces. So the key holds what the traces read of the frame (its guards,
replacements, ranges, size hints and deferred runtime assertions, as text:
``frame_facts``) before the stages ran, and an entry holds the guards the
stages added (``added_guards``), which a hit adds to the frame again
(Note [replayed guards]). Where the stages changed anything else of the
facts (a replacement, a range, an assertion), the entry is not stored, and
the frame compiles every time.

Note [replayed guards]
~~~~~~~~~~~~~~~~~~~~~~
A miss whose stages guard the frame (``glu``'s derivative guards that a
symbolic size is even; a reshape by ``x.shape[0] // 4`` guards its
divisions) compiled code that is right under the frame's guards and those
added; the hit evaluates each added guard in its frame again
(``ShapeEnv.evaluate_expr``, as the stages did), so that Dynamo's guards of
the hit hold the miss's, and the code runs only where it is right. As
Inductor's FX graph cache keeps its guards (``guards_expr``), a guard is
kept as the ``sympy.srepr`` of its expression, made again from sympy's and
``torch.utils._sympy.functions``' classes alone. The sizes the guards read
are the frame's hints, which the key holds, so each evaluates as it did on
the miss; one that does not (or does not parse) makes the entry unusable, a
warned miss, after having added only guards true of the frame's sizes, which
can make Dynamo recompile, never run code where it is wrong.
"""

from __future__ import annotations

import ast
import dataclasses
import functools
import hashlib
import importlib.metadata
import importlib.util
import pathlib
import sys
from typing import TYPE_CHECKING

from hopc.ir.diagnostics import HOPC_PACKAGES

if TYPE_CHECKING:
    from xdsl.dialects.builtin import ModuleOp

    from hopc.compile_options import CompileOptions

SHOWN_ONLY = frozenset({"report_dir", "print_ir_after_all"})
"""The compile options that only show the stages, left out of the key (Note [compile cache key])."""
SOURCE_SUFFIXES = (".py", ".json")


def frame_facts() -> str:
    """What the stages read of the Dynamo frame compiled now, as text: its ``ShapeEnv``'s guards,
    replacements, ranges, size hints and deferred runtime assertions; "" outside a frame (Note
    [frame facts in the key])."""
    shape_env = _frame_shape_env()
    if shape_env is None:
        return ""
    guards = [str(guard.expr) for guard in shape_env.guards]
    assertions = sorted(str(assertion.expr) for assertions in shape_env.deferred_runtime_asserts.values()
                        for assertion in assertions)
    tables = [shape_env.replacements, shape_env.var_to_range, shape_env.backed_var_to_val]
    return repr([guards, *(sorted((str(name), str(value)) for name, value in table.items()) for table in tables),
                 assertions])


def added_guards(before: str) -> list[str] | None:
    """The guards added to the frame since its facts were ``before`` (``frame_facts``), each a
    ``sympy.srepr``; None where anything else of the facts changed (Note [frame facts in the key])."""
    now = frame_facts()
    if now == before:
        return []
    was, is_now = ast.literal_eval(before), ast.literal_eval(now)
    if was[1:] != is_now[1:] or is_now[0][:len(was[0])] != was[0]:
        return None
    import sympy

    return [sympy.srepr(guard.expr) for guard in _frame_shape_env().guards[len(was[0]):]]


def replay_guards(guards: list[str]) -> str | None:
    """Evaluates each of ``guards`` (``added_guards``') in the frame compiled now, which adds them to
    its guards (Note [replayed guards]); why they could not be, or None."""
    if not guards:
        return None
    shape_env = _frame_shape_env()
    if shape_env is None:
        return "the entry's guards need a Dynamo frame"
    import sympy

    from hopc.backend.host.recipes import sympy_from_srepr

    for text in guards:
        try:
            expression = sympy_from_srepr(text)
        except ValueError as error:
            return f"a guard does not parse ({error})"
        if shape_env.evaluate_expr(expression) is not sympy.true:
            return f"the guard {expression} does not hold in this frame"
    return None


def _frame_shape_env() -> object | None:
    """The ``ShapeEnv`` of the Dynamo frame compiled now, if any."""
    import torch._guards

    context = torch._guards.TracingContext.try_get()
    return getattr(getattr(context, "fake_mode", None), "shape_env", None)


def cache_key(program: ModuleOp | str, options: CompileOptions, device: str, facts: str) -> str:
    """The key of the entry of ``program``, a captured module or a graph's text (Note [compile cache key])."""
    read = {field.name: getattr(options, field.name) for field in dataclasses.fields(options)
            if field.name not in SHOWN_ONLY}
    parts = [f"options {sorted(read.items())!r} lowering {options.lowering_options!r}",
             f"device {device} {_device_capability(device)}", f"versions {versions()}",
             f"facts {facts}", program if isinstance(program, str) else module_text(program)]
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()


@functools.cache
def versions() -> str:
    """Python's, torch's, xDSL's and Triton's versions, and the digest of hopc's sources."""
    import torch

    return (f"python {sys.version} torch {torch.__version__} {torch.version.git_version} "
            f"xdsl {_distribution_version('xdsl')} triton {_distribution_version('triton')} "
            f"hopc {_distribution_version('hopc')} {hopc_source_digest()}")


@functools.cache
def hopc_source_digest() -> str:
    """The SHA-256 of every source and data file of hopc's packages, with its path in its package."""
    digest = hashlib.sha256()
    for package in HOPC_PACKAGES:
        for folder in importlib.util.find_spec(package).submodule_search_locations:
            for path in sorted(pathlib.Path(folder).rglob("*")):
                if path.suffix in SOURCE_SUFFIXES and path.is_file():
                    digest.update(f"{package}/{path.relative_to(folder)}\n".encode())
                    digest.update(path.read_bytes())
    return digest.hexdigest()


def _distribution_version(name: str) -> str:
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return "none"


def _device_capability(device: str) -> str:
    """The compute capability of a CUDA device (what Triton generates for); "" for any other."""
    import torch

    if device != "cuda" or not torch.cuda.is_available():
        return ""
    return repr(torch.cuda.get_device_capability())


def module_text(module: ModuleOp) -> str:
    """The text an entry keeps of ``module``: every op's location and the resource blobs included."""
    from hopc import to_text

    return to_text(module, debuginfo=True)
