"""``hopc.compile``'s options: what the driver runs and how (``hopc.driver``, which re-exports them).

They live apart from the driver so that making them imports none of its
stages: a frame that the compile cache serves makes its options before it
knows whether any stage runs (Note [imports of a cache hit] in
``hopc.frontend.dynamo_backend``), and a ``CompileOptions`` made in the
user's script imports no xDSL.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping
from dataclasses import dataclass

from hopc.backend.runtime.executors import DEFAULT_EXECUTOR, DEFAULT_LOWERING, EXECUTORS, Executor, LoweringOptions
from hopc.ir.diagnostics import HopcError

__all__ = ["DEFAULT_MAX_CONSTANT_BYTES", "CompileOptions", "compile_options"]

DEFAULT_MAX_CONSTANT_BYTES = 64 << 20
"""The ``freeze`` pass's own default (``hopc.passes.freeze``), stated here so that making options
imports no pass; ``tests/test_compile_imports.py`` checks that the two agree."""

_FLAGS = ("fullgraph", "freeze", "drop_parameters", "verify_each", "print_ir_after_all")


@dataclass(frozen=True)
class CompileOptions:
    """What ``hopc.compile`` runs and how (Note [compile stages] in ``hopc.driver``); checked when
    made, a ``HopcError`` naming the problem otherwise (``hopc.compile`` locates it at the user's line)."""

    executor: str = DEFAULT_EXECUTOR
    """Who runs the module (``hopc.backend.runtime.executors.EXECUTORS``)."""
    dynamic: bool | None = None
    """Dynamo's: sizes symbolic from the start (``True``), never (``False``), after one changes (``None``)."""
    fullgraph: bool = False
    """A graph break is an error (Dynamo's ``nopython``)."""
    freeze: bool = False
    """Inference with the unchanged parameters and buffers frozen into constants (the ``frozen`` stage)."""
    drop_parameters: bool = False
    """Release the parameters and buffers once frozen (Note [dropped parameters]); needs ``freeze``."""
    max_constant_bytes: int = DEFAULT_MAX_CONSTANT_BYTES
    """The largest constant the ``frozen`` stage folds."""
    lowering: LoweringOptions | None = None
    """The ``kernel`` stage's options, in place of the executor's own (``Executor.lowering``)."""
    verify_each: bool = False
    """Verify the module after each pass of the ``functional`` stage, not only after the last."""
    print_ir_after_all: bool = False
    """Print the IR after each stage to stderr, with its time (as ``HOPC_LOGS=ir``)."""
    report_dir: str | os.PathLike[str] | None = None
    """Write a compile report of each frame there (``hopc.compile_report``)."""

    def __post_init__(self) -> None:
        if self.executor not in EXECUTORS:
            raise HopcError(f"unknown executor '{self.executor}'; hopc has {', '.join(sorted(EXECUTORS))}")
        for name in _FLAGS:
            if not isinstance(getattr(self, name), bool):
                raise HopcError(f"compile option {name} is True or False, not {getattr(self, name)!r}")
        if self.dynamic not in (None, True, False):
            raise HopcError(f"compile option dynamic is None, True or False, not {self.dynamic!r}")
        if self.drop_parameters and not self.freeze:
            raise HopcError("drop_parameters=True releases what freeze=True froze; pass freeze=True too")
        if not isinstance(self.max_constant_bytes, int) or self.max_constant_bytes < 0:
            raise HopcError(f"max_constant_bytes is a number of bytes, not {self.max_constant_bytes!r}")
        if self.lowering is not None and not isinstance(self.lowering, LoweringOptions):
            raise HopcError(f"compile option lowering is a LoweringOptions, not {self.lowering!r}")
        if self.lowering is not None and EXECUTORS[self.executor].lowering is None:
            lowering_executors = ", ".join(sorted(name for name, executor in EXECUTORS.items()
                                                  if executor.lowering is not None))
            raise HopcError(f"executor '{self.executor}' runs the functional level and takes no lowering "
                            f"options; pick a compiled executor ({lowering_executors})")

    @property
    def chosen_executor(self) -> Executor:
        """The executor named, generating code for ``lowering`` where that is given."""
        executor = EXECUTORS[self.executor]
        if self.lowering is not None:  # only an executor with lowering options takes it (above)
            return executor.with_lowering(self.lowering)
        return executor

    @property
    def lowering_options(self) -> LoweringOptions:
        """The ``kernel`` stage's options: the executor's, for one that runs the functional level the default."""
        return self.chosen_executor.lowering or DEFAULT_LOWERING


def compile_options(options: CompileOptions | Mapping[str, object] | None = None, **keywords: object) -> CompileOptions:
    """``options`` (a ``CompileOptions``, a dict of its fields as ``torch.compile(options=...)``
    passes them, or none) with ``keywords`` replacing its fields."""
    if options is not None and not isinstance(options, CompileOptions | Mapping):
        raise HopcError(f"options is a hopc.CompileOptions, not {type(options).__name__}")
    given = {**options, **keywords} if isinstance(options, Mapping) else keywords
    fields = [field.name for field in dataclasses.fields(CompileOptions)]
    for name in given:
        if name not in fields:
            raise HopcError(f"unknown compile option '{name}'; hopc.compile takes {', '.join(fields)}")
    if isinstance(options, CompileOptions):
        return dataclasses.replace(options, **given) if given else options
    return CompileOptions(**given)
