"""Compiles a generated kernel and runs it on tensors: ``compile_kernel(kernel)(args, outs)``.

``triton.jit`` reads its function's source with ``inspect``, so the source
is written to a file in a cache directory, named by a hash of the source,
and imported from there (``load_function``). That directory is private to
the user (Note [private directories] in ``hopc.backend.private_directory``):
whoever can write to it can make hopc run their code. Jit functions are
cached per target and source (Note [kernel targets] in
``hopc.backend.triton.target``): kernels of one source share a compiled
function and its tuned block sizes. A launcher holds its kernel in both index
widths and picks one per launch (Note [index width] in
``hopc.backend.triton.emit``).
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
from dataclasses import dataclass

import torch

from hopc.backend.private_directory import (
    private_directory,
    read_private_file,
    user_cache_root,
    write_private_file,
)
from hopc.backend.runtime.plan import symbol_binders
from hopc.backend.triton.autotune import AUTOTUNER, CANDIDATES, rows_per_program
from hopc.backend.triton.emit import INDEX_WIDTHS, EmittedKernel, LaunchLayout, emit_kernel
from hopc.backend.triton.target import Target, process_target
from hopc.dialects.kernel import KernelOp
from hopc.torch_bridge.torch_values import evaluate_dim

CACHE_ENVIRONMENT = "HOPC_TRITON_CACHE_DIR"
"""Where generated sources are written; by default ``$XDG_CACHE_HOME/hopc/triton`` (``~/.cache/...``)."""

_FUNCTIONS: dict[tuple[Target, str], Callable] = {}
_LAUNCHERS: dict[tuple[Target, str, str, tuple[str, ...]], Launcher] = {}
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
    if (emitted.target, key) not in _FUNCTIONS:
        path = cache_directory() / f"kernel_{key}.py"
        if read_private_file(path) != emitted.source:
            write_private_file(path, emitted.source)
        module_name = f"hopc_triton_kernel_{key}"
        spec = importlib.util.spec_from_file_location(module_name, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[module_name] = module
        spec.loader.exec_module(module)
        _FUNCTIONS[emitted.target, key] = getattr(module, emitted.name)
    return _FUNCTIONS[emitted.target, key]


INT32_LIMIT = 2**31 - 1


def index_bits(elements: int, block_name: str, tensors: Sequence[torch.Tensor]) -> int:
    """32 where a launch over ``elements`` and every tensor's storage fit 32-bit index arithmetic,
    64 otherwise (Note [index width])."""
    if elements + max(CANDIDATES[block_name]) > INT32_LIMIT:
        return 64
    for tensor in tensors:
        if tensor.untyped_storage().nbytes() // tensor.element_size() > INT32_LIMIT:
            return 64
    return 32


@dataclass(frozen=True)
class LaunchArguments:
    """What one launch passes: ``tensors`` (inputs, then outputs), then ``scalars``.

    ``count`` is the number of elements (pointwise) or rows (reduction) and ``size`` what
    the block size is tuned for (the element count, the row length); ``index_bits`` is the
    width of the kernel's index arithmetic (Note [index width]).
    """

    tensors: tuple[torch.Tensor, ...]
    scalars: tuple[int, ...]
    count: int
    size: int
    index_bits: int
    pointwise: bool

    def blocks(self, block: int, layout: LaunchLayout) -> dict[str, int]:
        """The block constexprs of a launch with block size ``block``: with a reduction's rows
        per program (Note [reduction stages])."""
        if layout.row_block is None:
            return {layout.block: block}
        return {layout.block: block, layout.row_block: rows_per_program(block, self.count)}

    def programs_for(self, block: int) -> int:
        """The launch's program count with block size ``block``."""
        per_program = block if self.pointwise else rows_per_program(block, self.count)
        return math.ceil(self.count / per_program)


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
        self.variants = {bits: emitted if bits == emitted.index_bits else emit_kernel(kernel, emitted.target, bits)
                         for bits in INDEX_WIDTHS}
        """The kernel in each index width, ``emitted`` among them (Note [index width])."""
        self.keys = {bits: source_key(variant.source) for bits, variant in self.variants.items()}
        self.functions: dict[int, Callable] = {}
        """The jit function of each width launched so far (``load_function``)."""
        self.interpreted = emitted.target == Target.INTERPRETER
        """Whether launches run on Triton's interpreter, one at a time (``_INTERPRETER_LAUNCHES``)."""

    def arguments(self, args: Sequence[torch.Tensor | int], outs: Sequence[torch.Tensor]) -> LaunchArguments:
        """What a launch on ``args`` writing ``outs`` passes (sizes and strides read from them)."""
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
        pointwise = self.emitted.kind == "pointwise"
        count = math.prod(shape) if pointwise else math.prod(shape[:-1])
        size = count if pointwise else shape[-1]
        launched = (*tensors, *outs)
        return LaunchArguments(launched, (count, *shape, *strides), count, size,
                               index_bits(math.prod(shape), layout.block, launched), pointwise)

    def __call__(self, args: Sequence[torch.Tensor | int], outs: Sequence[torch.Tensor]) -> None:
        arguments = self.arguments(args, outs)
        if arguments.count == 0:
            return
        bits = arguments.index_bits
        if bits not in self.functions:
            self.functions[bits] = load_function(self.variants[bits])
        function = self.functions[bits]
        inputs = arguments.tensors[:len(arguments.tensors) - len(outs)]
        layout = self.emitted.layout

        def launch(block: int, targets: Sequence[torch.Tensor] = outs) -> None:
            grid = (arguments.programs_for(block),)
            if self.interpreted:
                with _INTERPRETER_LAUNCHES:
                    function[grid](*inputs, *targets, *arguments.scalars, **arguments.blocks(block, layout))
            else:
                function[grid](*inputs, *targets, *arguments.scalars, **arguments.blocks(block, layout))

        AUTOTUNER.block(self.keys[bits], layout.block, arguments.size, launch,
                        lambda block: launch(block, [torch.empty_like(o) for o in outs]))


def compile_kernel(kernel: KernelOp, target: Target | None = None) -> Launcher:
    """The launcher of a pointwise or reduction kernel for ``target`` (the process's,
    ``process_target``, unless given), cached per target, generated source and types.

    The source does not show static sizes, so kernels of one source and other
    types share the jit functions but not the launcher, which evaluates them.
    """
    emitted = emit_kernel(kernel, target or process_target())
    key = (emitted.target, source_key(emitted.source), repr(emitted.layout),
           tuple(str(t) for t in kernel.input_types))
    if key not in _LAUNCHERS:
        _LAUNCHERS[key] = Launcher(kernel, emitted)
    return _LAUNCHERS[key]
