"""The joint of a block: its forward ops, then each op's backward in reverse order.

``JointBuilder(block, differentiated)`` turns ``block`` (a function body or a
region body, its terminator removed) into its joint in place: ``build``
walks the forward ops last to first and, for each op with a cotangent on some
result, asks the op's backward rule (``hopc.passes.autograd.rules``) for the
gradients of its operands, which accumulate (``aten.add.Tensor``) into the
operands' cotangents. Backward ops are appended at the end of the block, so
the block reads: every forward op, then every backward op (``backward_ops``).
The partitioner (``hopc.passes.autograd.partition``) splits it there.

Invariants:
- only *active* values get cotangents: floating-point or complex tensors that depend on a
  differentiated value through ops (``is_active``); an op with no active
  operand or no cotangent on any result gets no backward (seed PR 151107);
- a rule may replace its forward op (``replace_forward``): a composite op by
  its traced decomposition, a subgraph call by one that also returns residuals;
  ``resolve`` maps a value of the original block to the one that now holds it;
- the builders of one ``differentiate`` run share its ``module`` and an
  ``outlined`` cache: a rule that outlines a body into new module-level
  ``hop.subgraph``s (a subgraph call's forward/backward pair, a checkpoint's
  body) adds them to ``module`` and keys them in ``outlined``, so every call
  shares them; a region's joint gets both from the builder of the block
  that holds the HOP (``nested``, ``parent`` in ``hopc.passes.autograd.regions``);
- a forward op and the backward ops that came from it carry one ``hop.seq_nr``,
  unique in the run (Note [sequence numbers] in
  ``hopc.passes.autograd.provenance``), and every backward op a location naming
  its forward op (``NameLoc("backward of <op>", <forward's loc>)``), so a user
  maps backward work to forward ops and source lines (seed PR 103129).

Note [joint of an op]
~~~~~~~~~~~~~~~~~~~~~
An ATen op's backward is PyTorch's own derivative, traced as the joint of the
single op (``hopc.passes.autograd.derivatives``). Its nodes that do not depend
on a tangent are forward nodes: they go before the op and replace it (for a
primitive op, the same op; for a composite one, its decomposition, together
with what that forward computes for the backward, as AOTAutograd does). The
nodes that depend on a tangent are appended as backward ops. Whether a forward
value the backward reads is saved or recomputed is the partitioner's choice.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence

from xdsl.dialects.builtin import ModuleOp, NameLoc, StringAttr
from xdsl.ir import Block, Operation, SSAValue

from hopc.ir.diagnostics import op_error
from hopc.ir.types import TensorType
from hopc.passes.autograd.provenance import SequenceNumbers
from hopc.torch_bridge.aten_builders import build_aten
from hopc.torch_bridge.torch_values import dtype_of

STOPS_GRADIENT = frozenset({"aten.detach_copy"})
"""Ops whose result carries no gradient whatever their operand (``x.detach()``, which
functionalize makes a ``detach_copy``)."""


def is_differentiable(value: SSAValue) -> bool:
    """Whether ``value`` is a floating-point or complex tensor (only those carry gradients;
    a complex one's is PyTorch's conjugate Wirtinger derivative, as its formulas give it)."""
    if not isinstance(value.type, TensorType):
        return False
    dtype = dtype_of(value.type.element_type)
    return dtype.is_floating_point or dtype.is_complex


def active_values(block: Block, differentiated: Sequence[SSAValue]) -> set[SSAValue]:
    """The values of ``block`` that carry a gradient: the differentiable ones of ``differentiated``,
    and the differentiable results of every op that reads one (a gradient barrier aside)."""
    active = {v for v in differentiated if is_differentiable(v)}
    for op in block.ops:
        if op.name not in STOPS_GRADIENT and any(v in active for v in op.operands):
            active.update(r for r in op.results if is_differentiable(r))
    return active


def loop_active_arguments(body: Block, active: set[int], carried: int) -> tuple[set[int], set[SSAValue]]:
    """The loop body's argument indices that carry a gradient on some iteration, and its active values.

    ``active`` are those its operands make active; the first ``carried``
    arguments take the body's first ``carried`` yields on the next iteration,
    so a differentiable one whose yield is active joins them, to a fixpoint.
    """
    terminator = body.last_op
    assert terminator is not None
    while True:
        values = active_values(body, [body.args[i] for i in sorted(active)])
        grown = active | {i for i in range(carried)
                          if is_differentiable(body.args[i]) and terminator.operands[i] in values}
        if grown == active:
            return active, values
        active = grown


Rule = Callable[["JointBuilder", Operation, list[SSAValue | None]], list[SSAValue | None]]
"""A backward rule: (builder, forward op, one cotangent or None per result) -> one gradient
or None per operand. It emits its backward ops with ``builder.emit``."""


class JointBuilder:
    """Builds the joint of one block in place (see the module docstring)."""

    def __init__(self, block: Block, differentiated: Sequence[SSAValue], *,
                 module: ModuleOp | None = None, outlined: dict[Hashable, object] | None = None,
                 numbers: SequenceNumbers | None = None):
        self.block = block
        self.module = module
        """The module being differentiated, where rules add module-level symbols; None for a
        block differentiated on its own (a rule that needs it then raises a located error)."""
        self.outlined: dict[Hashable, object] = {} if outlined is None else outlined
        """What rules outlined into ``module`` in this run, by the rule's own key."""
        self.numbers = SequenceNumbers.after_those_of(module) if numbers is None else numbers
        """The run's sequence numbers; a run's first builder numbers its whole block afresh, a
        nested one the ops its copied block holds without a number (Note [sequence numbers])."""
        self.numbers.number(block, renumber=numbers is None)
        self.forward_ops: list[Operation] = list(block.ops)
        self.active = active_values(block, differentiated)
        self.cotangents: dict[SSAValue, SSAValue] = {}
        self.backward_ops: list[Operation] = []
        self._renamed: dict[SSAValue, SSAValue] = {}
        self._current: Operation | None = None

    def nested(self, block: Block, differentiated: Sequence[SSAValue]) -> JointBuilder:
        """A builder of a region's joint that shares this run's ``module``, ``outlined`` and
        ``numbers``."""
        return JointBuilder(block, differentiated, module=self.module, outlined=self.outlined,
                            numbers=self.numbers)

    # ----------------------------------------------------------------- queries

    def is_active(self, value: SSAValue) -> bool:
        """Whether ``value`` carries a gradient (a floating or complex tensor depending on a differentiated one)."""
        return value in self.active

    def resolve(self, value: SSAValue) -> SSAValue:
        """The value that now holds ``value`` of the original block (after ``replace_forward``)."""
        while value in self._renamed:
            value = self._renamed[value]
        return value

    # ----------------------------------------------------------------- building

    def build(self, outputs: Sequence[SSAValue], cotangents: Sequence[SSAValue | None]
              ) -> None:
        """Seeds ``outputs`` with ``cotangents`` and emits the backward of every op that needs one."""
        from hopc.passes.autograd.batched_derivatives import trace_expected_derivatives
        from hopc.passes.autograd.rules import backward_rule

        for output, cotangent in zip(outputs, cotangents, strict=True):
            if cotangent is not None:
                self.accumulate(output, cotangent)
        trace_expected_derivatives(self)  # Note [batched derivative traces]
        for op in reversed(self.forward_ops):
            cotangents_of_op = [self.cotangents.get(r) for r in op.results]
            if all(c is None for c in cotangents_of_op):
                continue
            rule = backward_rule(op)
            if rule is None:
                raise op_error(op, f"autograd: no backward rule for '{op.name}', and a result of it "
                                   "needs a gradient")
            self._current = op
            gradients = rule(self, op, cotangents_of_op)
            self._current = None
            for operand, gradient in zip(op.operands, gradients, strict=True):
                if gradient is not None:
                    self.accumulate(operand, gradient)

    def gradient(self, value: SSAValue) -> SSAValue | None:
        """The accumulated cotangent of ``value`` (its gradient, once ``build`` is done)."""
        return self.cotangents.get(value)

    def accumulate(self, value: SSAValue, gradient: SSAValue) -> None:
        """Adds ``gradient`` to ``value``'s cotangent (nothing for an inactive value)."""
        if value not in self.active:
            return
        existing = self.cotangents.get(value)
        if existing is None:
            self.cotangents[value] = gradient
            return
        self.cotangents[value] = self.emit(build_aten("aten.add.Tensor", [existing, gradient],
                                                      origin=self._current)).results[0]

    def emit(self, op: Operation) -> Operation:
        """Appends a backward op, marked with the forward op it came from (its number and name)."""
        forward = self._current
        if forward is not None:
            self.numbers.mark_backward(op, forward)
            op.location = NameLoc(StringAttr(f"backward of {forward.name}"), forward.location)
        self.block.add_op(op)
        self.backward_ops.append(op)
        return op

    def insert_forward(self, op: Operation, before: Operation) -> Operation:
        """Inserts a forward op before ``before`` (a rule's replacement of its op), marked as it."""
        op.location = before.location
        self.numbers.mark_as(op, before)
        self.block.insert_op_before(op, before)
        return op

    def replace_forward(self, op: Operation, values: Sequence[SSAValue]) -> None:
        """Replaces the results of forward op ``op`` by ``values`` and erases it."""
        for result, value in zip(op.results, values, strict=True):
            result.replace_all_uses_with(value)
            self._renamed[result] = value
            if result in self.active and is_differentiable(value):
                self.active.add(value)
        op.detach()
        op.erase()

