"""``hop.scan`` and ``hop.map`` in the backend: the body runs once per slice along dim 0.

``run_sliced`` is their semantics (their ``RegionEntry``'s ``Slice`` arguments
and ``stacked`` yields), which the interpreter runs and generated host code
runs too; the planned executor runs the reference implementation. In host
code the body is a nested ``def``, a closure over the enclosing function's
locals (Note [generated host code] in ``hopc.backend.host.codegen``): with no
slices, an output is an empty tensor of its type's shape, evaluated where the
op runs (the thunk the code passes).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence

import torch
from xdsl.ir import Operation, SSAValue

from hopc.backend.hops.bodies import body_function, body_runner, emit_call
from hopc.backend.host.codegen import HOST_LOWERINGS, HostBuilder
from hopc.backend.host.names import FUNCTION
from hopc.backend.interpreter import INTERPRETER_RULES, Frame, interpreter_error
from hopc.dialects import hop
from hopc.ir.diagnostics import HopcError
from hopc.ir.types import TensorType
from hopc.torch_bridge.torch_values import dtype_of, evaluate_dim

Shapes = Callable[[], list[tuple[int, ...]]] | None
"""The shapes of the stacked outputs where there are no slices; None where they cannot be
evaluated where the op runs (then no slices is an error)."""


def run_sliced(op: Operation, body: Callable[..., list[object]], carry: list[object], xs: list[torch.Tensor],
               additional: list[object], reverse: bool, empty: Callable[[], list[object]]) -> list[object]:
    """Runs ``body`` once per slice along dim 0 of ``xs`` (the last slice first where
    ``reverse``) on the carry, slice ``i`` of each of ``xs``, then ``additional``; the first
    ``len(carry)`` outputs of a run are the next run's carry. Returns the last carry, then
    each other output stacked over the slices in index order, or ``empty()`` where there are
    no slices: ``hop.scan``, and ``hop.map`` with no carry (their ``RegionEntry``'s ``Slice``
    arguments and ``stacked`` yields). The interpreter and generated host code both run it."""
    lengths = {x.size(0) for x in xs}
    if len(lengths) != 1:
        raise interpreter_error(op, f"scanned operands differ in dim 0: {sorted(lengths)}")
    length = lengths.pop()
    stepped: list[list[object]] = [[] for _ in range(length)]  # outputs by index, not step
    for index in reversed(range(length)) if reverse else range(length):
        outputs = body(*carry, *[x[index] for x in xs], *additional)
        carry, stepped[index] = outputs[:len(carry)], outputs[len(carry):]
    if not stepped:
        return carry + empty()
    return carry + [torch.stack(column) for column in zip(*stepped, strict=True)]


# --------------------------------------------------------------------------- the interpreter


@INTERPRETER_RULES.register(hop.ScanOp)
def run_scan(op: hop.ScanOp, frame: Frame) -> list[object]:
    return run_sliced(op, body_runner(op, frame), frame.get(op.init), frame.get(op.xs), frame.get(op.additional),
                      op.is_reverse, lambda: _empty_tensors(op.outputs[len(op.init):], frame))


@INTERPRETER_RULES.register(hop.MapOp)
def run_map(op: hop.MapOp, frame: Frame) -> list[object]:
    return run_sliced(op, body_runner(op, frame), [], frame.get(op.xs), frame.get(op.additional), False,
                      lambda: _empty_tensors(op.outputs, frame))


def _empty_tensors(results: Sequence[SSAValue], frame: Frame) -> list[object]:
    """An empty tensor of each result's type, its sizes evaluated in ``frame``."""
    empties = []
    for result in results:
        assert isinstance(result.type, TensorType)
        shape = [evaluate_dim(dim, frame.symbols) for dim in result.type.shape]
        empties.append(torch.empty(shape, dtype=dtype_of(result.type.element_type)))
    return empties


# --------------------------------------------------------------------------- host code


@HOST_LOWERINGS.register(hop.ScanOp)
def lower_scan(builder: HostBuilder, op: hop.ScanOp) -> None:
    _lower_sliced(builder, op, [op.init, op.xs, op.additional], op.outputs[len(op.init):], op.is_reverse)


@HOST_LOWERINGS.register(hop.MapOp)
def lower_map(builder: HostBuilder, op: hop.MapOp) -> None:
    _lower_sliced(builder, op, [[], op.xs, op.additional], op.outputs, False)


def _lower_sliced(builder: HostBuilder, op: hop.ScanOp | hop.MapOp, groups: list[Sequence[SSAValue]],
                  stacked: Sequence[SSAValue], reverse: bool) -> None:
    """``results = run(body, [carry], [xs], [additional], shapes)``: ``run_sliced`` on the body's
    function, with the op's stacked results' empty tensors where there are no slices."""
    body = body_function(builder, op.body.block)
    run = builder.bind(functools.partial(_run_sliced, op, reverse, _dtypes(stacked), builder.device), FUNCTION)
    arguments = [f"[{', '.join(builder.locals(values))}]" for values in groups]
    emit_call(builder, op, f"{run}({body}, {', '.join(arguments)}, {_empty_shapes(builder, stacked)})")


def _dtypes(values: Sequence[SSAValue]) -> list[torch.dtype]:
    return [dtype_of(v.type.element_type) for v in values]


def _empty_shapes(builder: HostBuilder, values: Sequence[SSAValue]) -> str:
    """A thunk (source) of the shapes of ``values``' types, or ``None`` where a symbol is unbound."""
    try:
        shapes = [builder.dims(v.type.shape) for v in values if isinstance(v.type, TensorType)]
    except HopcError:
        return "None"
    return f"lambda: [{', '.join(shapes)}]"


def _run_sliced(op: hop.ScanOp | hop.MapOp, reverse: bool, dtypes: list[torch.dtype], device: str,
                body: Callable, carry: list[object], xs: list[torch.Tensor], additional: list[object],
                shapes: Shapes) -> list[object]:
    return run_sliced(op, body, carry, xs, additional, reverse,
                      functools.partial(_empty_results, op, dtypes, device, shapes))


def _empty_results(op: Operation, dtypes: list[torch.dtype], device: str, shapes: Shapes) -> list[object]:
    if shapes is None:
        raise interpreter_error(op, "ran no slices, and the sizes of its empty results are unknown here")
    return [torch.empty(shape, dtype=dtype, device=device) for shape, dtype in zip(shapes(), dtypes, strict=True)]
