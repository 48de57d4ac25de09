"""``hop.scan`` and ``hop.map`` in the backend: the body runs once per slice along dim 0.

``run_slices`` (``hopc.backend.runtime.sliced_runs``) is their semantics (their
``RegionEntry``'s ``Slice`` arguments and ``stacked`` yields), which the
interpreter runs and generated host code runs too; the planned executor runs the reference implementation. In host
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
from hopc.backend.runtime.sliced_runs import UnequalSlices, run_sliced_in_host_code, run_slices
from hopc.dialects import hop
from hopc.ir.diagnostics import HopcError
from hopc.ir.types import TensorType
from hopc.torch_bridge.torch_values import dtype_of, evaluate_dim


def run_sliced(op: Operation, body: Callable[..., list[object]], carry: list[object], xs: list[torch.Tensor],
               additional: list[object], reverse: bool, empty: Callable[[], list[object]]) -> list[object]:
    """``run_slices`` for the interpreter: unequal slices an error at ``op``."""
    try:
        return run_slices(body, carry, xs, additional, reverse, empty)
    except UnequalSlices as error:
        raise interpreter_error(op, str(error)) from None


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
    """``results = run(body, [carry], [xs], [additional], shapes)``: ``run_sliced_in_host_code`` on the body's
    function, with the op's stacked results' empty tensors where there are no slices."""
    body = body_function(builder, op.body.block)
    run = builder.bind(functools.partial(run_sliced_in_host_code, reverse, _dtypes(stacked), builder.device),
                       FUNCTION)
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
