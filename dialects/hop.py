"""The ``hop`` dialect: PyTorch's higher-order ops as regions, shape symbols, module structure.

Region ops take every value their body reads as an explicit operand, as
PyTorch's HOP subgraphs do: the body's block arguments mirror the operands, and
``hop.yield`` returns the body's results. Every region is isolated at every
level, and the ops' verifiers reject one that reads an outer value (Note
[isolated regions] in ``hopc.dialects.hop_interface``). Only shape symbols,
names in types rather than values, may stay free in a body until
``lift-symbols`` makes them operands. What a pass needs to know about a HOP's
regions comes from its ``HopRegionInterface``.

Symbols: the shape-symbol ops (``hop.symbol``, ``hop.sym_size``, the
``hop.sym_*`` arithmetic, ``hop.item``, ``hop.assert``) live in
``hopc.dialects.hop_symbols``; this dialect registers them and re-exports
them, so ``hop.SymSizeOp`` and the others are reached from here.

Module structure: the globals (``hop.parameter``, ``hop.buffer``,
``hop.constant``), the entry points (``hop.entry``) and the attributes that
give each entry argument and result its role live in
``hopc.dialects.hop_module`` (Note [entry signature] there); this dialect
registers and re-exports them too.

Random numbers: ``hop.get_rng_state`` and ``hop.set_rng_state`` on the
``!hop.rng_state`` type, which let a recomputed region draw again what it drew
(Note [replaying random ops]), live in ``hopc.dialects.hop_rng``; registered
and re-exported here as well.

Custom autograd functions: ``hop.autograd_function``, a call of a forward
subgraph whose backward is another, the user's (Note [custom autograd
functions]), lives in ``hopc.dialects.hop_autograd_function``; registered and
re-exported here.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import (
    ModuleOp,
    SymbolNameConstraint,
    SymbolRefAttr,
    UnitAttr,
)
from xdsl.ir import Attribute, Dialect, Operation, Region, SSAValue
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    irdl_op_definition,
    lazy_traits_def,
    operand_def,
    opt_prop_def,
    prop_def,
    region_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.traits import (
    HasParent,
    IsolatedFromAbove,
    IsTerminator,
    Pure,
    RecursiveMemoryEffect,
    SingleBlockImplicitTerminator,
    SymbolOpInterface,
    SymbolTable,
)
from xdsl.utils.exceptions import VerifyException

from hopc.dialects.hop_autograd_function import (  # registered below, and re-exported
    AutogradFunctionOp,
)
from hopc.dialects.hop_common import HopCanonicalizationPatterns, describe
from hopc.dialects.hop_interface import (
    CalleeMemoryEffect,
    CondInterface,
    InvokeSubgraphInterface,
    MapInterface,
    RegionEntry,
    ScanInterface,
    SingleBodyInterface,
    SubgraphInterface,
    WhileInterface,
    hop_interface,
    sliced_type,
    stacked_type,
)
from hopc.dialects.hop_module import (  # registered below, and re-exported: hop.ParameterOp
    BufferOp,
    ConstantOp,
    EntryOp,
    GetConstantOp,
    ParameterOp,
)
from hopc.dialects.hop_rng import (  # registered below, and re-exported: hop.GetRngStateOp
    GetRngStateOp,
    RngStateType,
    SetRngStateOp,
)
from hopc.dialects.hop_scalars import (  # registered below, and re-exported: hop.SymSqrtOp
    SYM_SCALAR_OPS,
    SymAbsOp,
    SymFloatOp,
    SymIteOp,
    SymNegOp,
    SymNotOp,
    SymPowOp,
    SymSqrtOp,
    SymTrueDivOp,
)
from hopc.dialects.hop_symbols import (  # registered below, and re-exported: hop.SymSizeOp
    SYM_BINARY_OPS,
    AssertOp,
    ItemOp,
    SymAddOp,
    SymBinaryOp,
    SymbolOp,
    SymConstantOp,
    SymEqOp,
    SymFloorDivOp,
    SymGeOp,
    SymGtOp,
    SymLeOp,
    SymLtOp,
    SymMaxOp,
    SymMinOp,
    SymModOp,
    SymMulOp,
    SymNeOp,
    SymSizeOp,
    SymSubOp,
)
from hopc.ir.substitution import InconsistentBinding, bind, substitute
from hopc.ir.types import (
    Dim,
    ExprAttr,
    NoneAttr,
    SymBoolType,
    SymFloatType,
    SymIntType,
    TensorType,
    is_scalar_bool,
)

# --------------------------------------------------------------------------- helpers


def _type_list(types: Sequence[Attribute]) -> str:
    return "(" + ", ".join(str(t) for t in types) + ")"


def _check_values(what: str, values: Sequence[SSAValue], expected: Sequence[Attribute],
                  role: str) -> None:
    """Raises a VerifyException naming the first value whose type is not the expected one.

    A value is named by its ``role`` and position in ``values`` (``yielded value #1 %k``).
    """
    actual = [v.type for v in values]
    if len(actual) != len(expected):
        raise VerifyException(f"{what}: expected {len(expected)} values {_type_list(expected)}, "
                              f"got {len(actual)} {_type_list(actual)}")
    for index, (value, want) in enumerate(zip(values, expected)):
        if value.type != want:
            name = f" %{value.name_hint}" if value.name_hint else ""
            raise VerifyException(
                f"{what}: {role} #{index}{name} has type {value.type}, expected {want}"
            )


def _yield_of(region: Region) -> YieldOp:
    terminator = region.block.last_op
    if not isinstance(terminator, YieldOp):
        raise VerifyException("region must end with hop.yield")
    return terminator


def _check_region_signature(op_name: str, region_name: str, region: Region,
                            arg_types: Sequence[Attribute],
                            yield_types: Sequence[Attribute] | None) -> None:
    _check_values(f"'{op_name}' {region_name} region arguments", region.block.args, arg_types,
                  "block argument")
    if yield_types is not None:
        _check_values(f"'{op_name}' {region_name} region yields", _yield_of(region).values,
                      yield_types, "yielded value")


def _check_sliced_body(op: Operation) -> tuple[RegionEntry, Dim]:
    """Checks the body of a scan or map against what its ``RegionEntry`` feeds it (one slice of
    each ``xs``); returns the entry and the dim 0 that all of ``xs`` share (the number of steps)."""
    (entry,) = hop_interface(op).entries(op)
    xs = [op.operands[p] for p in entry.sliced]
    if not xs:
        raise VerifyException(f"'{op.name}' needs at least one operand in xs")
    for x in xs:
        if sliced_type(x.type) is None:
            raise VerifyException(f"'{op.name}' xs operand {describe(x)} has type {x.type}, "
                                  "expected a tensor of rank >= 1")
    first = xs[0]
    length = first.type.shape[0]  # type: ignore[attr-defined]
    for x in xs[1:]:
        if x.type.shape[0] != length:  # type: ignore[attr-defined]
            raise VerifyException(
                f"'{op.name}' xs operands differ in dim 0: {describe(first)} has type "
                f"{first.type}, {describe(x)} has type {x.type}"
            )
    _check_region_signature(op.name, "body", entry.region, entry.argument_types(op), None)
    return entry, length


def _yielded_result_types(op_name: str, entry: RegionEntry, length: Dim) -> list[Attribute]:
    """The result types the body's yields give: each stacked yield's stacked along a new dim 0
    of ``length``, the others' as they are."""
    types = []
    for index, yielded in enumerate(_yield_of(entry.region).values):
        type_ = stacked_type(yielded.type, length) if index in entry.stacked else yielded.type
        if type_ is None:
            raise VerifyException(f"'{op_name}' body yields {describe(yielded)} of type {yielded.type} "
                                  "as a per-step output, expected a tensor")
        types.append(type_)
    return types


# --------------------------------------------------------------------------- terminator


@irdl_op_definition
class YieldOp(IRDLOperation):
    """Returns the results of a HOP region: ``hop.yield %a, %b : T, U``.

    Restrictions: only as the terminator of a hop region op.
    """

    name = "hop.yield"
    values = var_operand_def()
    traits = lazy_traits_def(
        lambda: (
            IsTerminator(),
            Pure(),
            HasParent(CondOp, WhileOp, WrapOp, CheckpointOp, SubgraphOp, ScanOp, MapOp),
        )
    )
    assembly_format = "attr-dict ($values^ `:` type($values))?"

    def __init__(self, *values: SSAValue):
        super().__init__(operands=[values])


# --------------------------------------------------------------------------- region ops


class _SingleBodyHop(IRDLOperation):
    """A HOP with one body called once on its operands; its results are the yields."""

    inputs = var_operand_def()
    outputs = var_result_def()
    body = region_def("single_block")
    traits = traits_def(RecursiveMemoryEffect(), SingleBlockImplicitTerminator(YieldOp),
                        SingleBodyInterface())
    assembly_format = (
        "`(` $inputs `)` attr-dict `:` functional-type($inputs, $outputs) $body"
    )

    def __init__(self, inputs: Sequence[SSAValue], result_types: Sequence[Attribute],
                 body: Region):
        super().__init__(operands=[inputs], result_types=[result_types], regions=[body])

    def verify_(self) -> None:
        _check_region_signature(self.name, "body", self.body,
                                [v.type for v in self.inputs],
                                [r.type for r in self.outputs])


@irdl_op_definition
class WrapOp(_SingleBodyHop):
    """Runs its body once, as a call: PyTorch's ``wrap`` HOP.

        def wrap(body, *inputs):
            return body(*inputs)

    Example::

        %r = hop.wrap(%x) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32> {
        ^bb0(%a: !hop.tensor<[4], f32>):
          %s = aten.sin(%a) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
          hop.yield %s : !hop.tensor<[4], f32>
        }
    """

    name = "hop.wrap"


@irdl_op_definition
class CheckpointOp(_SingleBodyHop):
    """Activation checkpointing: ``torch.utils.checkpoint.checkpoint(body, *inputs)``.

        def checkpoint(body, *inputs):
            return body(*inputs)        # forward: same values as a call

    Recompute semantics: the forward keeps only the operands; the backward runs
    the body again to recreate its intermediates instead of saving them. The
    values are those of a plain call, so the interpreter runs it as one.
    Restrictions: the body is rerun, so it must not mutate its operands once
    functionalized (a non-deterministic body, e.g. dropout, replays its RNG state).
    """

    name = "hop.checkpoint"


@irdl_op_definition
class CondOp(IRDLOperation):
    """``torch.cond``: runs one of two bodies on the same operands.

        def cond(pred, then_body, else_body, *inputs):
            return then_body(*inputs) if pred else else_body(*inputs)

    Example::

        %r = hop.cond %p(%x) : !hop.tensor<[], i1>, (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32> then {
        ^bb0(%a: !hop.tensor<[4], f32>):
          %s = aten.sin(%a) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
          hop.yield %s : !hop.tensor<[4], f32>
        } else {
        ^bb0(%a: !hop.tensor<[4], f32>):
          hop.yield %a : !hop.tensor<[4], f32>
        }

    Restrictions: ``pred`` is a 0-d bool tensor or a ``!hop.symbool``; both
    bodies take the operands' types and yield the result types.
    """

    name = "hop.cond"
    predicate = operand_def()
    inputs = var_operand_def()
    outputs = var_result_def()
    then_region = region_def("single_block")
    else_region = region_def("single_block")
    traits = traits_def(RecursiveMemoryEffect(), SingleBlockImplicitTerminator(YieldOp),
                        HopCanonicalizationPatterns(), CondInterface())
    assembly_format = (
        "$predicate `(` $inputs `)` attr-dict `:` type($predicate) `,` "
        "functional-type($inputs, $outputs) `then` $then_region `else` $else_region"
    )

    def __init__(self, predicate: SSAValue, inputs: Sequence[SSAValue],
                 result_types: Sequence[Attribute], then_region: Region,
                 else_region: Region):
        super().__init__(operands=[predicate, inputs], result_types=[result_types],
                         regions=[then_region, else_region])

    def verify_(self) -> None:
        if not is_scalar_bool(self.predicate.type):
            raise VerifyException(
                f"'hop.cond' predicate {describe(self.predicate)} has type "
                f"{self.predicate.type}, expected a scalar boolean "
                "(!hop.tensor<[], i1> or !hop.symbool)"
            )
        input_types = [v.type for v in self.inputs]
        for region_name, region in (("then", self.then_region), ("else", self.else_region)):
            _check_region_signature(self.name, region_name, region, input_types,
                                    self._expected_yield_types(region))

    def _expected_yield_types(self, region: Region) -> list[Attribute]:
        """The result types, except where a result size is fresh (Note [cond result symbols]).

        Note [cond result symbols]: when the branches produce different
        data-dependent sizes, each result dimension that differs is a fresh
        unbacked symbol that no operand mentions (PyTorch gives cond's outputs
        their own symbols, PR 148206); it names whichever size the taken
        branch yields, so a branch may yield any size there.
        """
        from hopc.ir.types import free_symbols_of_types

        mentioned = free_symbols_of_types([self.predicate.type, *(v.type for v in self.inputs)])
        expected: list[Attribute] = []
        yielded = [v.type for v in _yield_of(region).values]
        for index, result in enumerate(self.outputs):
            result_type, got = result.type, yielded[index] if index < len(yielded) else None
            if (isinstance(result_type, TensorType) and isinstance(got, TensorType)
                    and got.rank == result_type.rank):
                result_type = TensorType(
                    [g if isinstance(r, str) and r.isidentifier() and r not in mentioned else r
                     for r, g in zip(result_type.shape, got.shape)],
                    result_type.element_type)
            expected.append(result_type)
        return expected


@irdl_op_definition
class WhileOp(IRDLOperation):
    """``torch._higher_order_ops.while_loop``: iterates a body while a condition holds.

        def while_loop(cond_body, body, carried, additional):
            if not cond_body(*carried, *additional):
                return [c if body yields its argument k itself else c.clone()
                        for k, c in enumerate(carried)]
            while cond_body(*carried, *additional):
                carried = body(*carried, *additional)
            return carried

    Both regions take the carried values then the additional (loop-invariant)
    ones; ``cond`` yields one scalar boolean, ``body`` yields the carried types.
    A result is a new tensor, as PyTorch's ``while_loop`` returns, also when
    the loop runs no iteration (a copy of the operand), except where the body
    yields its carried argument itself (``yields_own_argument``): that result
    is the operand, changed in place by the body.
    Example (``additional(...)`` and its types are left out when there are none;
    an empty ``additional() : ..., cond`` still parses)::

        %r = hop.while(%x) additional(%w) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>,
            !hop.tensor<[4, 4], f32> cond {
        ^bb0(%a: !hop.tensor<[4], f32>, %m: !hop.tensor<[4, 4], f32>):
          %total = aten.sum(%a) : (!hop.tensor<[4], f32>) -> !hop.tensor<[], f32>
          %go = aten.lt.Scalar(%total) {other = 1.0e+02 : f64} : (!hop.tensor<[], f32>) -> !hop.tensor<[], i1>
          hop.yield %go : !hop.tensor<[], i1>
        } body {
        ^bb0(%a: !hop.tensor<[4], f32>, %m: !hop.tensor<[4, 4], f32>):
          %b = aten.mv(%m, %a) : (!hop.tensor<[4, 4], f32>, !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
          hop.yield %b : !hop.tensor<[4], f32>
        }
    """

    name = "hop.while"
    carried = var_operand_def()
    additional = var_operand_def()
    outputs = var_result_def()
    cond_region = region_def("single_block")
    body_region = region_def("single_block")
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    traits = traits_def(RecursiveMemoryEffect(), SingleBlockImplicitTerminator(YieldOp),
                        HopCanonicalizationPatterns(), WhileInterface())
    assembly_format = (
        "`(` $carried `)` (`additional` `(` $additional^ `)`)? attr-dict `:` "
        "functional-type($carried, $outputs) (`,` type($additional)^)? "
        "`cond` $cond_region `body` $body_region"
    )

    def __init__(self, carried: Sequence[SSAValue], additional: Sequence[SSAValue],
                 cond_region: Region, body_region: Region):
        super().__init__(operands=[carried, additional],
                         result_types=[[v.type for v in carried]],
                         regions=[cond_region, body_region])

    def yields_own_argument(self) -> list[bool]:
        """Per carried value k: whether the body yields its block argument k itself."""
        block = self.body_region.block
        yielded = _yield_of(self.body_region).values
        return [value is argument for value, argument in zip(yielded, block.args, strict=False)]

    def verify_(self) -> None:
        carried_types = [v.type for v in self.carried]
        _check_values("'hop.while' results", self.outputs, carried_types, "result")
        arg_types = carried_types + [v.type for v in self.additional]
        _check_region_signature(self.name, "cond", self.cond_region, arg_types, None)
        _check_region_signature(self.name, "body", self.body_region, arg_types, carried_types)
        condition = _yield_of(self.cond_region).values
        if len(condition) != 1:
            raise VerifyException(
                f"'hop.while' cond region must yield one scalar boolean, yields "
                f"{len(condition)} values {_type_list([v.type for v in condition])}"
            )
        if not is_scalar_bool(condition[0].type):
            raise VerifyException(
                f"'hop.while' cond region yields {describe(condition[0])} of type "
                f"{condition[0].type}, expected a scalar boolean "
                "(!hop.tensor<[], i1> or !hop.symbool)"
            )


@irdl_op_definition
class ScanOp(IRDLOperation):
    """``torch._higher_order_ops.scan`` along dim 0: a fold that also stacks per-step outputs.

        def scan(body, init, xs, additional, reverse=False):
            carry, ys = init, []
            for i in (reversed(range(len(xs[0]))) if reverse else range(len(xs[0]))):
                carry, y = body(*carry, *[x[i] for x in xs], *additional)
                ys.append(y)
            return carry, stack(ys in index order)

    The body takes the carry, one slice of each ``xs`` and the additional
    operands, and yields the next carry then one slice of each output.
    Results: the final carry, then each output stacked along a new dim 0.
    Restrictions: ``xs`` is non-empty and all ``xs`` share their dim 0.
    """

    name = "hop.scan"
    init = var_operand_def()
    xs = var_operand_def()
    additional = var_operand_def()
    outputs = var_result_def()
    reverse = opt_prop_def(UnitAttr)
    body = region_def("single_block")
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    traits = traits_def(RecursiveMemoryEffect(), SingleBlockImplicitTerminator(YieldOp),
                        ScanInterface())
    assembly_format = (
        "(`reverse` $reverse^)? `init` `(` $init `)` `xs` `(` $xs `)` "
        "`additional` `(` $additional `)` attr-dict "
        "`:` `(` type($init) `)` `,` `(` type($xs) `)` `,` `(` type($additional) `)` "
        "`->` type($outputs) $body"
    )

    @property
    def is_reverse(self) -> bool:
        return self.reverse is not None

    def verify_(self) -> None:
        entry, length = _check_sliced_body(self)
        init_types = [v.type for v in self.init]
        _check_values("'hop.scan' body yields (carry)", _yield_of(self.body).values[: len(init_types)],
                      init_types, "yielded value")
        _check_values("'hop.scan' results", self.outputs, _yielded_result_types(self.name, entry, length),
                      "result")


@irdl_op_definition
class MapOp(IRDLOperation):
    """``torch._higher_order_ops.map``: applies the body to each slice along dim 0.

        def map(body, xs, additional):
            return stack([body(*[x[i] for x in xs], *additional) for i in range(len(xs[0]))])

    Results: each yielded value stacked along a new dim 0.
    """

    name = "hop.map"
    xs = var_operand_def()
    additional = var_operand_def()
    outputs = var_result_def()
    body = region_def("single_block")
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    traits = traits_def(RecursiveMemoryEffect(), SingleBlockImplicitTerminator(YieldOp),
                        MapInterface())
    assembly_format = (
        "`xs` `(` $xs `)` `additional` `(` $additional `)` attr-dict "
        "`:` `(` type($xs) `)` `,` `(` type($additional) `)` `->` type($outputs) $body"
    )

    def verify_(self) -> None:
        entry, length = _check_sliced_body(self)
        _check_values("'hop.map' results", self.outputs, _yielded_result_types(self.name, entry, length),
                      "result")


# Note [subgraph symbols]
# ~~~~~~~~~~~~~~~~~~~~~~~
# A ``hop.subgraph`` is parametric in the shape symbols that its arguments
# bind, exactly as the entry function's arguments bind theirs: each symbol
# that is a whole dimension of a tensor argument's type, or the symbol of a
# ``!hop.symint<s>`` argument (``hopc.ir.substitution.parameters``). Each
# ``hop.invoke_subgraph`` binds them from its operands' types, position by
# position, to any expression of the caller (an integer included); every
# other symbol maps to itself. The call verifies when this is one consistent
# substitution S (each parameter maps to one caller expression), each operand
# type is S(its argument type), and each result type is S(the yielded type).
# So one subgraph serves every call of a ``nested_compile_region``, whatever
# sizes the calls have:
#
#     hop.subgraph @f { ^bb0(%a: !hop.tensor<[s0, 3], f32>): ... }       // over s0
#     %p = hop.invoke_subgraph @f(%x) : (!hop.tensor<[s1, 3], f32>) -> ...  // s0 -> s1
#     %q = hop.invoke_subgraph @f(%y) : (!hop.tensor<[4, 3], f32>) -> ...   // s0 -> 4
#
# At run time each call binds the parameters afresh from the operands' sizes
# (Note [interpreter symbol scopes] in ``hopc.backend.interpreter``);
# ``lift-symbols`` lets a subgraph's arguments bind its parameters, as a
# function's do (Note [where a symbol is bound] in ``lift_symbols_analysis``).


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
        return [v.type for v in _yield_of(self.body).values]

    def substitution_for(self, operand_types: Sequence[Attribute]) -> dict[str, Dim]:
        """What a call with ``operand_types`` binds the parameters to (Note [subgraph symbols]).

        Raises ``InconsistentBinding`` where two operands disagree.
        """
        return bind(self.input_types, operand_types)

    def result_types_for(self, operand_types: Sequence[Attribute]) -> list[Attribute]:
        """The result types of a call with ``operand_types``: the yields' under its substitution."""
        substitution = self.substitution_for(operand_types)
        return [substitute(t, substitution) for t in self.output_types]


@irdl_op_definition
class InvokeSubgraphOp(IRDLOperation):
    """Calls a ``hop.subgraph`` by symbol: ``hop.invoke_subgraph @f(%x) : (T) -> U``.

        def invoke_subgraph(subgraph, *inputs):
            return subgraph(*inputs)

    Effects: those of the subgraph's body (``CalleeMemoryEffect``), so a call
    of a subgraph that only reads is dead once its results are unused.
    Restrictions: the operands bind the subgraph's symbols consistently, and
    the types are the subgraph's under that substitution (Note [subgraph symbols]).
    """

    name = "hop.invoke_subgraph"
    callee = prop_def(SymbolRefAttr)
    inputs = var_operand_def()
    outputs = var_result_def()
    traits = traits_def(CalleeMemoryEffect(), InvokeSubgraphInterface())
    assembly_format = "$callee `(` $inputs `)` attr-dict `:` functional-type($inputs, $outputs)"

    def subgraph(self) -> SubgraphOp | None:
        found = SymbolTable.lookup_symbol(self, self.callee)
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
        renamed = {name: dim for name, dim in substitution.items() if name != dim}
        under = "" if not renamed else " under " + ", ".join(
            f"{name} -> {dim}" for name, dim in renamed.items())
        _check_values(f"'hop.invoke_subgraph' operands of {self.callee}{under}", self.inputs,
                      [substitute(t, renamed) for t in subgraph.input_types], "operand")
        _check_values(f"'hop.invoke_subgraph' results of {self.callee}{under}", self.outputs,
                      [substitute(t, renamed) for t in subgraph.output_types], "result")


HOP_REGION_OPS = (CondOp, WhileOp, WrapOp, CheckpointOp, ScanOp, MapOp, SubgraphOp)

Hop = Dialect(
    "hop",
    [
        YieldOp,
        CondOp,
        WhileOp,
        WrapOp,
        CheckpointOp,
        ScanOp,
        MapOp,
        SubgraphOp,
        InvokeSubgraphOp,
        AutogradFunctionOp,
        SymbolOp,
        SymSizeOp,
        SymConstantOp,
        *SYM_BINARY_OPS,
        *SYM_SCALAR_OPS,
        ItemOp,
        AssertOp,
        ParameterOp,
        BufferOp,
        ConstantOp,
        GetConstantOp,
        EntryOp,
        GetRngStateOp,
        SetRngStateOp,
    ],
    [TensorType, SymIntType, SymFloatType, SymBoolType, ExprAttr, NoneAttr, RngStateType],
)

SYM_OPERATOR_OPS = tuple(op for op in Hop.operations if issubclass(op, SymBinaryOp))
"""Every binary ``hop.sym_*`` op (of ``hop_symbols`` and ``hop_scalars``): each computes its
Python ``OPERATOR`` (Note [one operator per sym op] in ``hopc.dialects.hop_symbols``)."""
