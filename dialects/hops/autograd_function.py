"""``hop.autograd_function``: a custom ``torch.autograd.Function``, its forward and its backward.

Note [custom autograd functions]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
A ``torch.autograd.Function`` gives its own backward: autograd must call it,
never differentiate the forward's ops (``Scale.apply(x)`` computing ``x * 2``
with a backward returning ``g * 10`` has the gradient 10, not 2). Dynamo hands
such a call over as the HOP ``autograd_function_apply(fwd_body, bwd_body,
*operands)``, with the ``ctx`` already traced away: the forward graph returns
the outputs and then the tensors the backward reads (``save_for_backward``,
or stashed on ``ctx``), the backward graph takes one cotangent per output
and then those saved values, and returns one gradient or ``None`` per
operand; saved non-tensors and ``needs_input_grad`` are constants of the
backward graph. ``hop.autograd_function`` keeps exactly that, both bodies as
``hop.subgraph``s referenced by symbol (the example of ``AutogradFunctionOp``):

    %y, %saved = hop.autograd_function @forward(%x, %w) backward @backward
                 {gradients = array<i64: 0>, output_count = 1 : i64} : (T, U) -> (T, U)

is ``invoke_subgraph @forward(%x, %w)`` in every run: its results are the
forward's yields, the Function's ``output_count`` outputs first, then the values saved for
the backward. Its backward rule (``hopc.passes.autograd.hops.autograd_function``)
is the user's: ``%dx = invoke_subgraph @backward(%dy, %saved)``, where
``@backward`` yields one gradient per operand position listed in
``gradients`` (an operand not listed takes none, the ``None`` a backward
returned), and a missing cotangent is zeros, as eager materializes it.

The bodies are called, not owned, so that no pass reshapes them: a region
op's unused results and unread arguments are dropped by ``--dce``, which
would cut the saved values off the forward or the operands off the
gradients' positions; a subgraph keeps its signature. Lifted symbols are
appended to the operands (``InvokeSubgraphInterface``), after the positions
``gradients`` names.

The marks on ``ctx`` are ops around the call, not properties of it
(``hopc.frontend.autograd_functions``): a ``mark_non_differentiable`` output
is read through ``aten.detach`` (so its cotangent is zeros), and a
``mark_dirty`` input is written by ``copy_`` from the result of a forward
that changed a clone of it. A forward may yield an argument or a view of
one: the result is that view of the operand, as for any subgraph call (Note
[mutation through HOP regions]).
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import DenseArrayBase, IntegerAttr, SymbolRefAttr, i64
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    ParsePropInAttrDict,
    irdl_op_definition,
    prop_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.traits import SymbolTable
from xdsl.utils.exceptions import VerifyException

from hopc.dialects.hop_call_results import fresh_result_symbols
from hopc.dialects.hop_common import describe
from hopc.dialects.hops.subgraph import CalleeMemoryEffect, InvokeSubgraphInterface, SubgraphOp
from hopc.ir.substitution import InconsistentBinding, bind, substitute


@irdl_op_definition
class AutogradFunctionOp(IRDLOperation):
    """A custom ``torch.autograd.Function`` call (Note [custom autograd functions]).

        def autograd_function(forward, backward, *inputs):
            return forward(*inputs)         # outputs, then the values saved for backward

    Example (``Scale.apply(x)`` saving ``x``: forward ``x * 2``, backward ``g * x``)::

        hop.subgraph @subgraph_0 {
        ^bb0(%a: !hop.tensor<[4], f32>):
          %m = aten.mul.Scalar(%a) {other = 2 : i64} : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
          hop.yield %m, %a : !hop.tensor<[4], f32>, !hop.tensor<[4], f32>
        }
        hop.subgraph @subgraph_1 {
        ^bb0(%g: !hop.tensor<[4], f32>, %a: !hop.tensor<[4], f32>):
          %d = aten.mul.Tensor(%g, %a) : (!hop.tensor<[4], f32>, !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
          hop.yield %d : !hop.tensor<[4], f32>
        }
        %y, %s = hop.autograd_function @subgraph_0(%x) backward @subgraph_1
                 {gradients = array<i64: 0>, output_count = 1 : i64}
                 : (!hop.tensor<[4], f32>) -> (!hop.tensor<[4], f32>, !hop.tensor<[4], f32>)

    Restrictions: the call of ``@forward`` verifies as a ``hop.invoke_subgraph``
    would (Note [subgraph symbols]), a size the forward defines named by a symbol of
    the call's own (Note [call result symbols]); ``@backward`` takes the types of the
    first ``output_count`` results (the cotangents), then of the others (the saved
    values), and yields, for each position in ``gradients`` (increasing), a
    value of that operand's type.
    """

    name = "hop.autograd_function"
    callee = prop_def(SymbolRefAttr)
    backward = prop_def(SymbolRefAttr)
    output_count = prop_def(IntegerAttr)
    gradients = prop_def(DenseArrayBase)
    inputs = var_operand_def()
    outputs = var_result_def()
    traits = traits_def(CalleeMemoryEffect(), InvokeSubgraphInterface())
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$callee `(` $inputs `)` `backward` $backward attr-dict `:` functional-type($inputs, $outputs)"

    def __init__(self, forward: str, backward: str, inputs: Sequence[SSAValue],
                 result_types: Sequence[Attribute], output_count: int, gradients: Sequence[int]):
        super().__init__(operands=[inputs], result_types=[result_types], properties={
            "callee": SymbolRefAttr(forward), "backward": SymbolRefAttr(backward),
            "output_count": IntegerAttr(output_count, i64),
            "gradients": DenseArrayBase.from_list(i64, list(gradients))})

    @property
    def user_outputs(self) -> Sequence[SSAValue]:
        """The Function's outputs (the results before the saved values)."""
        return self.outputs[:self.output_count.value.data]

    @property
    def saved(self) -> Sequence[SSAValue]:
        """The values the forward saves for the backward (the results after the outputs)."""
        return self.outputs[self.output_count.value.data:]

    @property
    def gradient_positions(self) -> tuple[int, ...]:
        """The operand positions whose gradients ``@backward`` yields, in order."""
        return tuple(self.gradients.get_values())

    def subgraph(self) -> SubgraphOp | None:
        """The forward ``hop.subgraph`` (what ``InvokeSubgraphInterface`` enters), or None."""
        return self._lookup(self.callee)

    def backward_subgraph(self) -> SubgraphOp | None:
        """The backward ``hop.subgraph``, or None."""
        return self._lookup(self.backward)

    def _lookup(self, symbol: SymbolRefAttr) -> SubgraphOp | None:
        found = SymbolTable.lookup_symbol(self, symbol)
        return found if isinstance(found, SubgraphOp) else None

    def verify_(self) -> None:
        forward, backward = self.subgraph(), self.backward_subgraph()
        for role, symbol, found in (("forward", self.callee, forward), ("backward", self.backward, backward)):
            if found is None:
                raise VerifyException(f"'{self.name}' {role} {symbol} is no known hop.subgraph")
        _check_call(f"operands of forward {self.callee}", forward.input_types, self.inputs, "operand")
        renaming = _binding(f"forward {self.callee}", forward.input_types, self.inputs) \
            | fresh_result_symbols(self, forward.body.block, forward.output_types)
        _check_types(f"results of forward {self.callee}", self.outputs,
                     [substitute(t, renaming) for t in forward.output_types], "result")
        count = self.output_count.value.data
        if not 0 <= count <= len(self.outputs):
            raise VerifyException(f"'{self.name}' has {len(self.outputs)} results, fewer than its "
                                  f"{count} outputs")
        backward_inputs = [*self.user_outputs, *self.saved]
        _check_call(f"cotangents and saved values given to backward {self.backward}",
                    backward.input_types, backward_inputs, "value")
        positions = self.gradient_positions
        if list(positions) != sorted(set(positions)) or any(not 0 <= p < len(self.inputs) for p in positions):
            raise VerifyException(f"'{self.name}' gradients {list(positions)} are not increasing "
                                  f"operand positions below {len(self.inputs)}")
        under = _binding(f"backward {self.backward}", backward.input_types, backward_inputs)
        expected = [self.inputs[p] for p in positions]
        gradient_types = [substitute(t, under) for t in backward.output_types]
        if len(gradient_types) != len(expected):
            raise VerifyException(f"'{self.name}' backward {self.backward} yields {len(gradient_types)} "
                                  f"gradients, expected {len(expected)} (one per position in gradients)")
        for position, operand, got in zip(positions, expected, gradient_types, strict=True):
            if got != operand.type:
                raise VerifyException(
                    f"'{self.name}' backward {self.backward} yields a gradient of type {got} for "
                    f"operand #{position} {describe(operand)} of type {operand.type}")


def _binding(what: str, parameter_types: Sequence[Attribute], values: Sequence[SSAValue]) -> dict:
    """The substitution of a subgraph's symbols that ``values`` bind (Note [subgraph symbols])."""
    try:
        return bind(parameter_types, [v.type for v in values])
    except InconsistentBinding as conflict:
        (first, first_dim), (second, second_dim) = conflict.first, conflict.second
        raise VerifyException(
            f"'hop.autograd_function' {what}: values bind symbol {conflict.symbol} inconsistently: "
            f"#{first} {describe(values[first])} to {first_dim}, #{second} {describe(values[second])} "
            f"to {second_dim}") from None


def _check_call(what: str, parameter_types: Sequence[Attribute], values: Sequence[SSAValue],
                role: str) -> None:
    """``values`` have the subgraph's ``parameter_types`` under the substitution they bind."""
    if len(values) != len(parameter_types):
        raise VerifyException(f"'hop.autograd_function' {what}: expected {len(parameter_types)} "
                              f"values, got {len(values)}")
    substitution = _binding(what, parameter_types, values)
    _check_types(what, values, [substitute(t, substitution) for t in parameter_types], role)


def _check_types(what: str, values: Sequence[SSAValue], expected: Sequence[Attribute], role: str) -> None:
    if len(values) != len(expected):
        raise VerifyException(f"'hop.autograd_function' {what}: expected {len(expected)} values, "
                              f"got {len(values)}")
    for index, (value, want) in enumerate(zip(values, expected, strict=True)):
        if value.type != want:
            raise VerifyException(f"'hop.autograd_function' {what}: {role} #{index} {describe(value)} "
                                  f"has type {value.type}, expected {want}")


OPERATIONS = (AutogradFunctionOp,)
"""The ops of this module that the ``hop`` dialect registers (``hopc.dialects.hops.operations``)."""
