"""A kernel-level function's generated host code, located and compiled once.

``generate_function`` runs the ``HostBuilder`` of ``codegen`` over a function
and wraps its body so that a failure of a generated line is raised again at
the op it came from; ``GeneratedFunction`` holds the source, the namespace its
outer function closes over, and the op of each line (Note [generated host
code] in ``hopc.backend.host.codegen``). Invariant: the source embeds no text
from the IR, only counter names (``hopc.backend.host.names``).
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass

from xdsl.dialects.func import FuncOp
from xdsl.ir import Operation

from hopc.backend.host.codegen import HostBuilder, Line, Lowering
from hopc.backend.host.names import FUNCTION, VALUE
from hopc.backend.host.recipes import RELOCATION
from hopc.backend.host.scalars import host_scalars
from hopc.backend.runtime.generated_call import compile_entry
from hopc.backend.runtime.located_failures import LineFailure, relocate_at_lines
from hopc.backend.runtime.plan import unshared_results
from hopc.ir.diagnostics import location_of, op_name

FAILURES = (RuntimeError, ValueError, TypeError, IndexError, KeyError, ZeroDivisionError)
"""What a failing ATen call or symbol expression raises; re-raised located (Note [generated host code])."""


@dataclass(frozen=True)
class GeneratedFunction:
    """A function's generated source, its namespace, and the op each source line came from."""

    source: str
    """One outer function, taking the namespace's names and returning the entry function
    (Note [generated host code])."""
    namespace: dict[str, object]
    outer: str
    """The name of the outer function."""
    filename: str
    line_ops: dict[int, Operation]
    recipes: dict[str, object]
    """Namespace name -> the recipe its binder gave (Note [namespace recipes] in ``hopc.backend.host.recipes``)."""

    def compile(self) -> Callable[..., list[object]]:
        """Compiles and runs the source once; the entry function, ``*args -> results``
        (its ``source`` and this ``generated`` function attached), closed over the namespace's values."""
        entry = compile_entry(self.source, self.filename, self.outer, self.namespace)
        entry.generated = self
        return entry

    def line_failures(self) -> dict[int, LineFailure]:
        """What a failure of each line of the source is reported as: its op's prefix and location
        (``relocate_at_lines``'s table, Note [executable entries] in ``hopc.compile_cache``)."""
        return dict(_OpFailures(self.line_ops))


_generated_count = itertools.count()


def generate_function(function: FuncOp, lower_launch: Lowering, device: str,
                      first_write_allocates: bool = False) -> GeneratedFunction:
    """The source of ``function`` (Note [generated host code]); HopcError for an op without a
    lowering. ``first_write_allocates``: Note [first write allocates]."""
    builder = HostBuilder(lower_launch, device, host_scalars(function), first_write_allocates=first_write_allocates)
    filename = f"<hopc generated {next(_generated_count)}>"
    line_ops: dict[int, Operation] = {}
    block = function.body.block
    parameters = [builder.names.fresh(VALUE) for _ in block.args]
    with builder.function(["*args"]) as entry:
        if parameters:
            builder.unpack(parameters, "args")
        builder.emit("try:")
        with builder.indented():
            results = builder.lower_block(block, parameters, isolated=True)
            returned = f"[{', '.join(results)}]"
            if builder.constants:
                storages = frozenset(t.untyped_storage().data_ptr() for t in builder.constants)
                returned = f"{builder.bind(unshared_results, FUNCTION)}({returned}, {builder.bind(storages)})"
            builder.emit(f"return {returned}")
        builder.emit(f"except {builder.bind(FAILURES)}:")
        with builder.indented():
            relocate = functools.partial(relocate_at_lines, filename, _OpFailures(line_ops))
            builder.emit(f"{builder.bind(relocate, FUNCTION, RELOCATION)}()")
            builder.emit("raise")
    outer = builder.names.fresh(FUNCTION)
    lines: list[Line] = [(f"def {outer}({', '.join(builder.names.namespace)}):", None)]
    lines += [("    " + text, op) for function_lines in builder.functions for text, op in function_lines]
    lines.append((f"    return {entry}", None))
    line_ops.update((number, op) for number, (_, op) in enumerate(lines, start=1) if op is not None)
    source = "\n".join(text for text, _ in lines) + "\n"
    return GeneratedFunction(source, builder.names.namespace, outer, filename, line_ops, builder.names.recipes)


class _OpFailures(Mapping[int, LineFailure]):
    """Line -> what its failure is reported as (``relocate_at_lines``' table), read from the line's op
    when asked, which is only when a line fails."""

    def __init__(self, line_ops: dict[int, Operation]):
        self._line_ops = line_ops

    def __getitem__(self, line: int) -> LineFailure:
        op = self._line_ops[line]
        return f"'{op_name(op)}' op", location_of(op)

    def __iter__(self) -> Iterator[int]:
        return iter(self._line_ops)

    def __len__(self) -> int:
        return len(self._line_ops)
