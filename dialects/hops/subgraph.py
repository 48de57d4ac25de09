"""``hop.subgraph`` and ``hop.invoke_subgraph``: a named body, and its calls by symbol.

A ``hop.subgraph`` is a module-level symbol holding one body, PyTorch's
``nested_compile_region``; each ``hop.invoke_subgraph`` calls it by symbol
(``@name``), at whatever sizes its operands have (Note [subgraph symbols]).
The region facts of a call are those of the subgraph's body, run once on the
call's operands (``InvokeSubgraphInterface``, which ``hop.autograd_function``
shares), and so are its memory effects (``CalleeMemoryEffect``).

Note [subgraph symbols]
~~~~~~~~~~~~~~~~~~~~~~~
A ``hop.subgraph`` is parametric in the shape symbols that its arguments
bind, exactly as the entry function's arguments bind theirs: each symbol
that is a whole dimension of a tensor argument's type, or the symbol of a
``!hop.symint<s>`` argument (``hopc.ir.substitution.parameters``). Each
``hop.invoke_subgraph`` binds them from its operands' types, position by
position, to any expression of the caller (an integer included); every
other symbol maps to itself. The call verifies when this is one consistent
substitution S (each parameter maps to one caller expression), each operand
type is S(its argument type), and each result type is S(the yielded type).
So one subgraph serves every call of a ``nested_compile_region``, whatever
sizes the calls have:

    hop.subgraph @f { ^bb0(%a: !hop.tensor<[s0, 3], f32>): ... }       // over s0
    %p = hop.invoke_subgraph @f(%x) : (!hop.tensor<[s1, 3], f32>) -> ...  // s0 -> s1
    %q = hop.invoke_subgraph @f(%y) : (!hop.tensor<[4, 3], f32>) -> ...   // s0 -> 4

At run time each call binds the parameters afresh from the operands' sizes
(Note [interpreter symbol scopes] in ``hopc.backend.interpreter``);
``lift-symbols`` lets a subgraph's arguments bind its parameters, as a
function's do (Note [where a symbol is bound] in ``lift_symbols_analysis``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence, Set

from xdsl.dialects.builtin import ModuleOp, SymbolNameConstraint, SymbolRefAttr
from xdsl.ir import Attribute, Operation, Region
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    prop_def,
    region_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.traits import (
    EffectInstance,
    HasParent,
    IsolatedFromAbove,
    MemoryEffect,
    RecursiveMemoryEffect,
    SingleBlockImplicitTerminator,
    SymbolOpInterface,
    get_effects,
)
from xdsl.utils.exceptions import VerifyException

from hopc.dialects.hop_call_results import fresh_result_symbols
from hopc.dialects.hop_common import describe
from hopc.dialects.hop_interface import (
    HopRegionInterface,
    NoOperand,
    RegionEntry,
    RunCount,
    operands_in_order,
)
from hopc.dialects.hop_yield import YieldOp, check_values, yield_of
from hopc.dialects.hops.single_body import SingleBodyInterface
from hopc.ir.dims import Dim
from hopc.ir.substitution import InconsistentBinding, bind, substitute
from hopc.ir.symbol_table import lookup_symbol


class SubgraphInterface(HopRegionInterface):
    """``hop.subgraph``: its body runs once per call, on the call's operands; it has
    none of its own (``NoOperand`` feeds each parameter; its calls answer for them:
    ``InvokeSubgraphInterface``)."""

    @classmethod
    def entries(cls, op: Operation) -> tuple[RegionEntry, ...]:
        body = op.regions[0]
        parameters = body.blocks[0].args if body.blocks else ()
        return (RegionEntry(body, tuple(NoOperand() for _ in parameters), RunCount.ONCE),)

    @classmethod
    def invariant_operands(cls, op: Operation) -> range:
        return range(0)

    def verify(self, op: Operation) -> None:
        """Nothing more: the op is ``IsolatedFromAbove``, a module-level symbol whose body
        has no outer value to read (``HasParent`` reports one placed anywhere else)."""


class InvokeSubgraphInterface(SingleBodyInterface):
    """``hop.invoke_subgraph``: the callee's body runs once on ``inputs`` (no entry when the
    callee is unknown). The region is the callee's, shared by all its calls, and not among
    the op's own ``regions``: a pass that rewrites regions leaves it to the subgraph."""

    @classmethod
    def entries(cls, op: Operation) -> tuple[RegionEntry, ...]:
        callee = op.subgraph()
        if callee is None:
            return ()
        return (RegionEntry(callee.body, operands_in_order(range(len(op.operands))), RunCount.ONCE,
                            results=range(len(op.results))),)


class CalleeMemoryEffect(MemoryEffect):
    """A call has the memory effects of its callee's body (``RecursiveMemoryEffect`` through
    the symbol): a call of a subgraph that only reads only reads. Unknown (None) where the
    callee is unknown, an op of the body has unknown effects, or subgraphs call in a cycle."""

    @classmethod
    def get_effects(cls, op: Operation) -> Set[EffectInstance] | None:
        return _call_effects(op, frozenset())


def _call_effects(call: Operation, calling: frozenset[Region]) -> Set[EffectInstance] | None:
    entries = InvokeSubgraphInterface.entries(call)
    if not entries or entries[0].region in calling:
        return None
    body = entries[0].region
    effects: set[EffectInstance] = set()
    for inner in body.walk():
        if inner.has_trait(RecursiveMemoryEffect):
            continue  # its nested ops are walked
        found = (_call_effects(inner, calling | {body}) if inner.has_trait(CalleeMemoryEffect)
                 else get_effects(inner))
        if found is None:
            return None
        effects |= found
    return effects


def _under(renaming: dict[str, Dim]) -> str:
    """`` under s0 -> s1, u8 -> u9``: the symbols ``renaming`` changes, for a message."""
    changed = [f"{name} -> {dim}" for name, dim in renaming.items() if name != dim]
    return " under " + ", ".join(changed) if changed else ""


@irdl_op_definition
class SubgraphOp(IRDLOperation):
    """A named body shared by every ``hop.invoke_subgraph`` of it (``nested_compile_region``).

    Its signature is its block arguments' types and its yield's types, over
    the symbols its arguments bind (Note [subgraph symbols]).
    """

    name = "hop.subgraph"
    sym_name = prop_def(SymbolNameConstraint())
    body = region_def("single_block")
    traits = traits_def(SymbolOpInterface(), RecursiveMemoryEffect(), IsolatedFromAbove(),
                        HasParent(ModuleOp), SingleBlockImplicitTerminator(YieldOp),
                        SubgraphInterface())
    assembly_format = "$sym_name attr-dict-with-keyword $body"

    @property
    def input_types(self) -> list[Attribute]:
        return [a.type for a in self.body.block.args]

    @property
    def output_types(self) -> list[Attribute]:
        return [v.type for v in yield_of(self.body).values]

    def substitution_for(self, operand_types: Sequence[Attribute]) -> dict[str, Dim]:
        """What a call with ``operand_types`` binds the parameters to (Note [subgraph symbols]).

        Raises ``InconsistentBinding`` where two operands disagree.
        """
        return bind(self.input_types, operand_types)

    def result_types_for(self, operand_types: Sequence[Attribute],
                         renaming: Mapping[str, Dim] | None = None) -> list[Attribute]:
        """The result types of a call with ``operand_types``: the yields' under its substitution,
        and the sizes the body defines under ``renaming`` (Note [call result symbols])."""
        substitution = self.substitution_for(operand_types) | dict(renaming or {})
        return [substitute(t, substitution) for t in self.output_types]


@irdl_op_definition
class InvokeSubgraphOp(IRDLOperation):
    """Calls a ``hop.subgraph`` by symbol: ``hop.invoke_subgraph @f(%x) : (T) -> U``.

        def invoke_subgraph(subgraph, *inputs):
            return subgraph(*inputs)

    Effects: those of the subgraph's body (``CalleeMemoryEffect``), so a call
    of a subgraph that only reads is dead once its results are unused.
    Restrictions: the operands bind the subgraph's symbols consistently, and
    the types are the subgraph's under that substitution (Note [subgraph symbols]),
    but for the sizes its body defines, which the results name afresh (Note
    [call result symbols] in ``hopc.dialects.hop_call_results``).
    """

    name = "hop.invoke_subgraph"
    callee = prop_def(SymbolRefAttr)
    inputs = var_operand_def()
    outputs = var_result_def()
    traits = traits_def(CalleeMemoryEffect(), InvokeSubgraphInterface())
    assembly_format = "$callee `(` $inputs `)` attr-dict `:` functional-type($inputs, $outputs)"

    def subgraph(self) -> SubgraphOp | None:
        found = lookup_symbol(self, self.callee)  # by a table (Note [symbol lookup table])
        return found if isinstance(found, SubgraphOp) else None

    def verify_(self) -> None:
        subgraph = self.subgraph()
        if subgraph is None:
            raise VerifyException(f"'hop.invoke_subgraph' calls unknown subgraph {self.callee}")
        try:
            substitution = subgraph.substitution_for([v.type for v in self.inputs])
        except InconsistentBinding as conflict:
            (first, first_dim), (second, second_dim) = conflict.first, conflict.second
            raise VerifyException(
                f"'hop.invoke_subgraph' operands bind symbol {conflict.symbol} of {self.callee} "
                f"inconsistently: operand #{first} {describe(self.inputs[first])} to {first_dim}, "
                f"operand #{second} {describe(self.inputs[second])} to {second_dim}"
            ) from None
        check_values(f"'hop.invoke_subgraph' operands of {self.callee}{_under(substitution)}",
                      self.inputs, [substitute(t, substitution) for t in subgraph.input_types],
                      "operand")
        renaming = substitution | fresh_result_symbols(self, subgraph.body.block, subgraph.output_types)
        check_values(f"'hop.invoke_subgraph' results of {self.callee}{_under(renaming)}",
                      self.outputs, [substitute(t, renaming) for t in subgraph.output_types],
                      "result")


OPERATIONS = (SubgraphOp, InvokeSubgraphOp)
"""The ops of this module that the ``hop`` dialect registers (``hopc.dialects.hops.operations``)."""
