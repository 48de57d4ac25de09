"""What several HOP kinds share to run a body: in the reference interpreter, the planned
executor and host code. Registers no rule (``hopc.backend.hops``)."""

from __future__ import annotations

from collections.abc import Callable

from xdsl.ir import Block, Operation

from hopc.backend.host.codegen import HostBuilder
from hopc.backend.host.names import VALUE
from hopc.backend.interpreter import Frame, run_region
from hopc.backend.runtime.plan import Values
from hopc.dialects import hop


def body_runner(op: hop.ScanOp | hop.MapOp | hop.AssociativeScanOp, frame: Frame) -> Callable[..., list[object]]:
    """The op's body as a function of its block arguments, run in ``frame`` (the interpreter)."""
    return lambda *arguments: run_region(op.body, list(arguments), frame, op)


def store(values: Values, slots: list[int], outputs: list[object]) -> None:
    """Stores ``outputs`` into their ``slots`` (a planned step)."""
    for slot, output in zip(slots, outputs):
        values[slot] = output


def body_function(builder: HostBuilder, block: Block) -> str:
    """A nested ``def`` of ``block`` returning the list of its yields; its name (host code)."""
    parameters = [builder.names.fresh(VALUE) for _ in block.args]
    with builder.function(parameters, nested=True) as name:
        yielded = builder.lower_block(block, parameters)
        builder.emit(f"return [{', '.join(yielded)}]")
    return name


def emit_call(builder: HostBuilder, op: Operation, call: str) -> None:
    """``results = call`` where ``call`` returns a list of one value per result (host code)."""
    builder.unpack([builder.define(r) for r in op.results], call)
