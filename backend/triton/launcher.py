"""Compiles a generated kernel and runs it on tensors: ``compile_kernel(kernel)(args, outs)``.

``triton.jit`` reads its function's source with ``inspect``, so the source
is written to a file in a cache directory, named by a hash of the source,
and imported from there (``load_function``). That directory is private to
the user (Note [private directories] in ``hopc.backend.private_directory``):
whoever can write to it can make hopc run their code. Launchers are cached per
source: kernels of one source share a compiled function and its tuned
block sizes.
"""

from __future__ import annotations

import hashlib
import importlib.util
import math
import os
import pathlib
import sys
import threading
from collections.abc import Callable, Sequence

import torch

from hopc.backend.private_directory import (
    private_directory,
    read_private_file,
    user_cache_root,
    write_private_file,
)
from hopc.backend.runtime.plan import symbol_binders
from hopc.backend.triton.autotune import AUTOTUNER, interpreting
from hopc.backend.triton.emit import EmittedKernel, emit_kernel
from hopc.dialects.kernel import KernelOp
from hopc.torch_bridge.torch_values import evaluate_dim

CACHE_ENVIRONMENT = "HOPC_TRITON_CACHE_DIR"
"""Where generated sources are written; by default ``$XDG_CACHE_HOME/hopc/triton`` (``~/.cache/...``)."""

_FUNCTIONS: dict[str, Callable] = {}
_LAUNCHERS: dict[tuple[str, str, tuple[str, ...]], Launcher] = {}
_INTERPRETER_LAUNCHES = threading.Lock()
"""Held by each launch under Triton's interpreter, whose grid state is one per process: launches
from two threads would run each other's programs (Note [concurrent calls] in
``hopc.backend.runtime.module_call``)."""


def cache_directory() -> pathlib.Path:
    """The directory of generated sources, created private to the user (a located
    ``HopcError`` where it exists and is not: Note [private directories])."""
    configured = os.environ.get(CACHE_ENVIRONMENT)
    path = pathlib.Path(configured) if configured else user_cache_root() / "hopc" / "triton"
    return private_directory(path, f"set {CACHE_ENVIRONMENT} to a directory of your own")


def source_key(source: str) -> str:
    return hashlib.sha256(source.encode()).hexdigest()[:32]


def load_function(emitted: EmittedKernel) -> Callable:
    """The jit function of ``emitted``, imported from its source file (written once per source)."""
    key = source_key(emitted.source)
    if key not in _FUNCTIONS:
        path = cache_directory() / f"kernel_{key}.py"
        if read_private_file(path) != emitted.source:
            write_private_file(path, emitted.source)
        module_name = f"hopc_triton_kernel_{key}"
        spec = importlib.util.spec_from_file_location(module_name, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[module_name] = module
        spec.loader.exec_module(module)
        _FUNCTIONS[key] = getattr(module, emitted.name)
    return _FUNCTIONS[key]


class Launcher:
    """Runs one generated kernel: ``launcher(args, outs)`` writes its results into ``outs``.

    ``args`` are the kernel's arguments (tensors, then ints for its
    ``!hop.symint`` arguments); ``outs`` one contiguous tensor per yielded
    value, of its shape and dtype, on the device of the inputs.
    """

    def __init__(self, kernel: KernelOp, emitted: EmittedKernel):
        self.input_binders = symbol_binders(kernel.input_types)
        """(symbol, position in ``args``, dim) for each symbol the inputs' types bind."""
        bound_by_inputs = {symbol for symbol, _, _ in self.input_binders}
        self.output_binders = [binder for binder in symbol_binders(kernel.output_types)
                               if binder[0] not in bound_by_inputs]
        """(symbol, position in ``outs``, dim) for each symbol the outputs' types bind and the
        inputs' do not; a symbol both bind has one size in a launch, read from ``args``."""
        self.emitted = emitted
        self.key = source_key(emitted.source)
        self.function = load_function(emitted)
        self.interpreted = interpreting()
        """Whether launches run on Triton's interpreter, one at a time (``_INTERPRETER_LAUNCHES``)."""

    def __call__(self, args: Sequence[torch.Tensor | int], outs: Sequence[torch.Tensor]) -> None:
        layout = self.emitted.layout
        symbols: dict[str, int] = {}
        for symbol, position, dim in self.input_binders:
            symbols[symbol] = args[position] if dim is None else args[position].shape[dim]
        for symbol, position, dim in self.output_binders:
            symbols[symbol] = outs[position] if dim is None else outs[position].shape[dim]
        shape = [int(evaluate_dim(d, symbols)) for d in layout.shape]
        tensors = [a for a in args if isinstance(a, torch.Tensor)]
        strides: list[int] = []
        for position, dims, count in layout.strides:
            target = [int(evaluate_dim(d, symbols)) for d in dims]
            strides += tensors[position].expand(target).stride()[:count]
        if self.emitted.kind == "pointwise":
            count, size = math.prod(shape), math.prod(shape)
        else:
            count, size = math.prod(shape[:-1]), shape[-1]
        if count == 0:
            return
        scalars = [count, *shape, *strides]

        def launch(block: int, targets: Sequence[torch.Tensor] = outs) -> None:
            programs = math.ceil(count / block) if self.emitted.kind == "pointwise" else count
            if self.interpreted:
                with _INTERPRETER_LAUNCHES:
                    self.function[(programs,)](*tensors, *targets, *scalars, **{layout.block: block})
            else:
                self.function[(programs,)](*tensors, *targets, *scalars, **{layout.block: block})

        AUTOTUNER.block(self.key, layout.block, size, launch,
                        lambda block: launch(block, [torch.empty_like(o) for o in outs]))


def compile_kernel(kernel: KernelOp) -> Launcher:
    """The launcher of a pointwise or reduction kernel, cached per generated source and types.

    The source does not show static sizes, so kernels of one source and other
    types share the jit function but not the launcher, which evaluates them.
    """
    emitted = emit_kernel(kernel)
    key = (source_key(emitted.source), repr(emitted.layout), tuple(str(t) for t in kernel.input_types))
    if key not in _LAUNCHERS:
        _LAUNCHERS[key] = Launcher(kernel, emitted)
    return _LAUNCHERS[key]
