"""The backward of ``hop.checkpoint``: recompute the body by calling what the forward called.

    %r = hop.checkpoint(%x, %w) { body }           // %r has a cotangent %t
  ->
    %s = hop.get_rng_state                         // only if the body draws random numbers
    %r, %res... = hop.invoke_subgraph @checkpoint_forward(%x, %w)     // forward
    ...
    %now = hop.get_rng_state                       // backward: the recompute, with the
    hop.set_rng_state %s                           //   forward's random state
    %r2, %res2... = hop.invoke_subgraph @checkpoint_forward(%x, %w)
    hop.set_rng_state %now
    %dx, %dw = hop.invoke_subgraph @checkpoint_backward(%res2..., %t)

Note [checkpoint recompute]
~~~~~~~~~~~~~~~~~~~~~~~~~~~
The body is outlined once into the pair of ``region_pair`` (forward: the
body's arguments -> its yields, then the residuals; backward: the residuals
and the cotangents -> the gradients, ``hopc.passes.autograd.hops.outlining``).
The forward calls ``@checkpoint_forward`` and ignores its residuals; the
backward calls the same subgraph again and feeds its residuals to
``@checkpoint_backward``. So:

- only the region's inputs are saved (they are what the backward's recompute
  reads; the outer min-cut may still recompute a cheap input from its own
  inputs), and the forward's residuals die at the end of the forward call;
- the recompute runs the very code the forward ran, so its values are
  bit-identical to the forward's by construction (PyTorch issue 186572 shows
  eager recomputation drifting when the two are compiled apart); so are its
  data-dependent sizes, and its results name them as the forward call's do
  (Note [call result symbols] in ``hopc.dialects.hop_call_results``), so the
  backward call binds them alike from the recomputed residuals and the
  cotangents; the backward of a later op that uses one before the recompute
  binds it again reads the forward's, which the partitioner saves (a
  ``!hop.symint``);
- the recompute is emitted as a backward op, so the partitioner puts it in the
  backward and can never save what it computes;
- a body that draws random numbers (a random ATen op at any depth, also
  through subgraph calls; dropout in training) replays the forward's draws:
  the generator's state is read right before the forward call, saved like any
  forward value (it is small: the partitioner counts it as one byte, and
  never recomputes ``hop.get_rng_state``), set before the recompute, and the
  backward's own state restored after it (Note [replaying random ops] in
  ``hopc.dialects.hop_rng``). On the CPU and in the interpreter the state is
  the generator's, so the masks are eager's exactly.

Every checkpoint gets its own pair (``@checkpoint_forward``,
``@checkpoint_backward``, then ``_1``, ``_2``, ...): bodies are not compared.
"""

from __future__ import annotations

from xdsl.ir import SSAValue

from hopc.dialects import hop
from hopc.passes.autograd.hops.outlining import call, draws_random_numbers, module_of, outlined_pair
from hopc.passes.autograd.joint import JointBuilder
from hopc.passes.autograd.rules import BACKWARD_RULES


@BACKWARD_RULES.register(hop.CheckpointOp)
def checkpoint_backward(builder: JointBuilder, op: hop.CheckpointOp,
                        cotangents: list[SSAValue | None]) -> list[SSAValue | None]:
    """``checkpoint(x) {body}`` -> a call of the outlined body, called again in the backward."""
    module = module_of(builder, op)
    differentiated = [i for i, v in enumerate(op.inputs) if builder.is_active(v)]
    with_cotangent = [i for i, c in enumerate(cotangents) if c is not None]
    pair = outlined_pair(builder, op, op.body.block, differentiated, with_cotangent, "checkpoint")
    inputs = list(op.inputs)
    state = None
    if draws_random_numbers(op.body, module):
        state = builder.insert_forward(hop.GetRngStateOp(), before=op).results[0]
    forward = builder.insert_forward(call(pair.forward, inputs, [r.type for r in op.outputs]), before=op)
    builder.replace_forward(op, forward.results[:pair.result_count])

    if state is not None:
        now = builder.emit(hop.GetRngStateOp()).results[0]
        builder.emit(hop.SetRngStateOp(state))
    recompute = builder.emit(call(pair.forward, inputs, [r.type for r in forward.results]))
    if state is not None:
        builder.emit(hop.SetRngStateOp(now))
    backward = builder.emit(call(pair.backward, [*pair.residuals(inputs, recompute),
                                                 *(c for c in cotangents if c is not None)]))
    gradients: list[SSAValue | None] = [None] * len(inputs)
    for index, gradient in zip(differentiated, backward.results, strict=True):
        gradients[index] = gradient
    return gradients
