"""``hop.associative_scan`` in the backend: the inclusive scan of its operands by its combine body.

``run_associative_scan`` is its semantics (Note [associative scan semantics] in
``hopc.dialects.hops.associative_scan``), which the interpreter runs and
generated host code runs too, the combine body a nested ``def`` there; the
planned executor runs the reference implementation.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

import torch
from xdsl.ir import Operation

from hopc.backend.hops.bodies import body_function, body_runner, emit_call
from hopc.backend.host.codegen import HOST_LOWERINGS, HostBuilder
from hopc.backend.host.names import FUNCTION
from hopc.backend.interpreter import INTERPRETER_RULES, Frame, interpreter_error
from hopc.dialects import hop


def run_associative_scan(op: Operation, combine: Callable[..., list[object]], xs: list[torch.Tensor],
                         additional: list[object]) -> list[object]:
    """The inclusive scan of ``xs`` along dim 0, left to right: slice 0 of each, then ``combine``
    of the previous slices of the results and slice ``i`` of ``xs`` (then ``additional``), stacked
    (Note [associative scan semantics]). The interpreter and generated host code both run it."""
    lengths = {x.size(0) for x in xs}
    if len(lengths) != 1:
        raise interpreter_error(op, f"scanned operands differ in dim 0: {sorted(lengths)}")
    length = lengths.pop()
    if length == 0:
        raise interpreter_error(op, "scans no slices; PyTorch's associative_scan needs at least one")
    combined = [x[0] for x in xs]
    steps = [combined]
    for index in range(1, length):
        combined = combine(*combined, *[x[index] for x in xs], *additional)
        steps.append(combined)
    return [torch.stack(column) for column in zip(*steps, strict=True)]


@INTERPRETER_RULES.register(hop.AssociativeScanOp)
def run_associative_scan_op(op: hop.AssociativeScanOp, frame: Frame) -> list[object]:
    return run_associative_scan(op, body_runner(op, frame), frame.get(op.xs), frame.get(op.additional))


@HOST_LOWERINGS.register(hop.AssociativeScanOp)
def lower_associative_scan(builder: HostBuilder, op: hop.AssociativeScanOp) -> None:
    """``results = run(body, [xs], [additional])``: ``run_associative_scan`` on the body's function."""
    body = body_function(builder, op.body.block)
    run = builder.bind(functools.partial(run_associative_scan, op), FUNCTION)
    arguments = [f"[{', '.join(builder.locals(values))}]" for values in (op.xs, op.additional)]
    emit_call(builder, op, f"{run}({body}, {', '.join(arguments)})")
