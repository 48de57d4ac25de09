"""Splits a joint block into a forward and a backward block by a min-cut.

The joint (``hopc.passes.autograd.joint``) reads: forward ops, then backward
ops. The backward reads some forward values; each is either saved (the
forward returns it, the backward takes it) or recomputed in the backward from
other values. ``choose_saved`` picks the set of saved values of least total
size, as PyTorch's ``min_cut_rematerialization_partition`` does:

Note [min-cut partition]
~~~~~~~~~~~~~~~~~~~~~~~~
A flow network has two nodes per forward value ``v``, ``v.in -> v.out`` with
capacity its size in bytes (sizes evaluated at the symbols' hints; an op's
result a byte or two more, so that a tie saves what it comes from: ``_tie_bytes``), and an
infinite edge ``u.out -> v.in`` for each operand ``u`` of ``v``'s op. The
source feeds, infinitely, the block's arguments and every value whose op may
not be recomputed (below); every forward value a backward op reads feeds the
sink. A minimum cut separates what the forward computes from what the
backward needs; the cut ``v.in -> v.out`` edges are the saved values.

Which ops may be recomputed is Note [recompute policy] in
``hopc.passes.autograd.recompute``: pure ops, and of those the forward needs
too (computing them twice), only cheap ones, so an elementary function such
as GELU's tanh is saved.

``split`` then builds the two blocks by cloning: the forward is every forward
op, returning the outputs and the saved values; the backward takes the saved
values and the cotangents and holds the recomputed forward ops, then the
backward ops that a gradient depends on or that have an effect (an ATen
derivative also computes the gradients of operands that are not
differentiated; what only those read is neither saved nor recomputed).
Symbols the backward mentions but its arguments do not bind are saved as
``!hop.symint`` values (read with ``hop.sym_size`` where an argument's
dimension binds one), so the backward is symbol-closed.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import sympy
import torch
from xdsl.ir import Attribute, Block, BlockArgument, Operation, SSAValue
from xdsl.traits import MemoryEffectKind, is_side_effect_free, only_has_effect

from hopc.dialects import hop
from hopc.dialects.aten import AtenOp
from hopc.ir import symbolic, symbolic_print
from hopc.ir.dims import Dim, canonical_dim
from hopc.ir.substitution import parameters
from hopc.ir.symbol_uses import symbols_mentioned_by, symbols_of_attribute
from hopc.ir.types import SymFloatType, SymIntType, TensorType
from hopc.passes.autograd.recompute import recomputable_ops
from hopc.torch_bridge.aten_builders import symbol_facts
from hopc.torch_bridge.torch_symbolic import SymbolFacts
from hopc.torch_bridge.torch_values import dtype_of


def _element_bytes(type_: TensorType) -> int:
    return torch.empty((), dtype=dtype_of(type_.element_type)).element_size()


def saved_bytes(types: Sequence[Attribute]) -> Dim:
    """The total size in bytes of values of ``types``, an expression where sizes are symbolic.

    A value that is not a tensor (a ``!hop.symint``, an RNG state) counts 8 bytes.
    """
    total = sympy.Integer(0)
    for type_ in types:
        if isinstance(type_, TensorType):
            count = sympy.Mul(*(sympy.Integer(d) if isinstance(d, int) else symbolic.parse_expr(d)
                                for d in type_.shape))
            total += count * _element_bytes(type_)
        else:
            total += 8
    return canonical_dim(symbolic_print.print_expr(sympy.expand(total)))


def size_in_bytes(value: SSAValue, facts: dict[str, SymbolFacts]) -> int:
    """The size of ``value`` at the symbols' hints (a size value counts 1 byte)."""
    type_ = value.type
    if not isinstance(type_, TensorType):
        return 1
    hints = {name: facts.get(name, SymbolFacts()).example() for name in type_.free_symbols()}
    count = 1
    for dim in type_.shape:
        count *= dim if isinstance(dim, int) else max(int(symbolic.evaluate(symbolic.parse_expr(dim), hints)), 0)
    return max(count, 1) * _element_bytes(type_)


def choose_saved(forward_ops: Sequence[Operation], arguments: Sequence[SSAValue], outputs: Iterable[SSAValue],
                 needed: Iterable[SSAValue]) -> list[SSAValue]:
    """The forward values to save so that the backward can compute ``needed``, the forward
    computing ``outputs`` (Note [min-cut partition])."""
    needed = list(dict.fromkeys(needed))
    if not needed:
        return []
    import networkx  # here, not at the top: 0.05 s that a first call without autograd need not pay

    facts = symbol_facts([*arguments, *needed])
    graph = networkx.DiGraph()
    for value in arguments:
        graph.add_edge("source", ("in", value))
        graph.add_edge(("in", value), ("out", value), capacity=size_in_bytes(value, facts))
    recomputable = recomputable_ops(forward_ops, outputs)
    for op in forward_ops:
        for result in op.results:
            graph.add_edge(("in", result), ("out", result), capacity=size_in_bytes(result, facts) + _tie_bytes(op))
            if op not in recomputable:
                graph.add_edge("source", ("in", result))
            for operand in op.operands:
                graph.add_edge(("out", operand), ("in", result))
    for value in needed:
        graph.add_edge(("out", value), "sink")
    _, (source_side, _) = networkx.minimum_cut(graph, "source", "sink")
    values = [*arguments, *(r for op in forward_ops for r in op.results)]
    return [v for v in values if ("in", v) in source_side and ("out", v) not in source_side]


def _tie_bytes(op: Operation) -> int:
    """What a result of ``op`` costs to save beyond its size, so that a tie goes to the value
    it comes from: one byte more than an argument of the same size (save the argument), and a
    ``_copy`` view's two (save the viewed value: a linear's backward reads ``t_copy(x)``, which
    the backward recomputes from a saved ``x`` at no cost once ``convert-hop-to-kernel`` makes
    it a view for the product that reads it; saved, it was a copy in the forward)."""
    return 2 if isinstance(op, AtenOp) and op.SCHEMA.is_view_copy else 1


@dataclass
class Split:
    """A joint block split in two (see the module docstring).

    ``forward`` takes the joint's primal arguments and ends without a
    terminator; ``forward_results`` are the outputs then the saved values.
    ``backward`` takes the saved values then the cotangents; ``backward_results``
    are the gradients. ``saved_count`` counts the saved values.
    """

    forward: Block
    forward_results: list[SSAValue]
    backward: Block
    backward_results: list[SSAValue]
    saved_count: int


def split(joint: Block, primal_count: int, backward_ops: Sequence[Operation],
          outputs: Sequence[SSAValue], gradients: Sequence[SSAValue]) -> Split:
    """Splits ``joint`` (primal arguments first, then cotangents) into forward and backward blocks."""
    in_backward = set(backward_ops)
    forward_ops = [op for op in joint.ops if op not in in_backward]
    backward_ops = _contributing(backward_ops, gradients)
    primals = list(joint.args[:primal_count])
    cotangents = list(joint.args[primal_count:])
    forward_values = set(primals) | {r for op in forward_ops for r in op.results}
    read = [v for op in backward_ops for v in op.operands if v in forward_values]
    read += [v for v in gradients if v in forward_values]
    saved = choose_saved(forward_ops, primals, outputs, read)

    forward = Block(arg_types=[a.type for a in primals])
    _copy_names(primals, forward.args)
    mapping: dict[SSAValue, SSAValue] = dict(zip(primals, forward.args))
    for op in forward_ops:
        forward.add_op(op.clone(value_mapper=mapping))
    recomputed = _recomputed(forward_ops, saved, [*backward_ops], gradients, forward_values)
    symbols = _unbound_symbols([*recomputed, *backward_ops], [*saved, *cotangents])
    saved += [_symbol_value(symbol, forward, mapping, forward_ops, primals) for symbol in symbols]

    backward = Block(arg_types=[v.type for v in [*saved, *cotangents]])
    _copy_names([*saved, *cotangents], backward.args)
    inner: dict[SSAValue, SSAValue] = dict(zip([*saved, *cotangents], backward.args))
    for op in [*recomputed, *backward_ops]:
        backward.add_op(op.clone(value_mapper=inner))
    return Split(forward, [mapping[v] for v in [*outputs, *saved]], backward,
                 [inner.get(g, g) for g in gradients], len(saved))


def _contributing(backward_ops: Sequence[Operation], gradients: Sequence[SSAValue]) -> list[Operation]:
    """The backward ops that a gradient depends on (through values or symbols: an op that
    binds a symbol a kept op mentions is kept) or that have effects, in order."""
    needed = set(gradients)
    symbols = {s for g in gradients for s in symbols_of_attribute(g.type)}
    kept: list[Operation] = []
    for op in reversed(backward_ops):
        if any(r in needed for r in op.results) or not _only_reads(op) or _bound_by(op) & symbols:
            kept.append(op)
            for nested in op.walk():
                needed.update(nested.operands)
                symbols.update(symbols_mentioned_by(nested))
    return kept[::-1]


def _only_reads(op: Operation) -> bool:
    """Whether ``op`` at most reads; a subgraph call in it counts as writing (in a joint, which is
    not inside the module, its callee and so its effects are unknown)."""
    if any(isinstance(nested, hop.InvokeSubgraphOp) for nested in op.walk()):
        return False
    return is_side_effect_free(op) or only_has_effect(op, MemoryEffectKind.READ)


def _copy_names(values: Sequence[SSAValue], arguments: Sequence[BlockArgument]) -> None:
    for value, argument in zip(values, arguments, strict=True):
        argument.name_hint = value.name_hint


def _recomputed(forward_ops: Sequence[Operation], saved: Sequence[SSAValue],
                backward_ops: Sequence[Operation], gradients: Sequence[SSAValue],
                forward_values: set[SSAValue]) -> list[Operation]:
    """The forward ops the backward reruns, in forward order."""
    kept = set(saved)
    pending = [v for op in backward_ops for v in op.operands] + list(gradients)
    chosen: set[Operation] = set()
    while pending:
        value = pending.pop()
        if value in kept or value not in forward_values:
            continue
        kept.add(value)
        owner = value.owner
        assert isinstance(owner, Operation), f"an unsaved block argument {value} is needed"
        if owner not in chosen:
            chosen.add(owner)
            pending.extend(owner.operands)
    return [op for op in forward_ops if op in chosen]


def _unbound_symbols(ops: Sequence[Operation], arguments: Sequence[SSAValue]) -> list[str]:
    """Symbols that ``ops`` (at any depth) or the types of ``arguments`` mention and neither
    ``arguments`` nor an op of ``ops`` at or before the mention binds.

    An argument's type can mention a symbol it does not bind: a saved predicate
    ``!hop.symbool<Gt(u0, 2)>`` of a cond needs ``u0`` bound too. A symbol an op binds again after
    an earlier mention is unbound there: a checkpoint's recompute binds the forward's sizes again
    (Note [checkpoint recompute] in ``hopc.passes.autograd.hops.checkpoint``), after the
    backward of a later op has used them. What an op binds: ``_bound_by``.
    """
    bound = set(parameters([a.type for a in arguments]))
    unbound = dict.fromkeys(s for a in arguments for s in symbols_of_attribute(a.type) if s not in bound)
    for op in ops:
        bound |= _bound_by(op)
        for nested in op.walk():
            unbound.update(dict.fromkeys(s for s in symbols_mentioned_by(nested) if s not in bound))
    return list(unbound)


def _bound_by(op: Operation) -> set[str]:
    """The symbols ``op`` (at any depth) binds: that of a ``!hop.symint`` or ``!hop.symfloat``
    result, and, for an op without regions, a symbol its result types have that neither its
    operands' types nor its properties do (a data-dependent size; a HOP's result sizes come from
    its regions)."""
    bound: set[str] = set()
    for nested in op.walk():
        bound.update(r.type.value for r in nested.results if isinstance(r.type, SymIntType | SymFloatType))
        if nested.regions:
            continue
        inputs = [*(v.type for v in nested.operands), *nested.properties.values()]
        given = {s for attribute in inputs for s in symbols_of_attribute(attribute)}
        bound.update(s for r in nested.results for s in symbols_of_attribute(r.type) if s not in given)
    return bound


def _symbol_value(symbol: str, forward: Block, mapping: dict[SSAValue, SSAValue],
                  forward_ops: Sequence[Operation], primals: Sequence[BlockArgument]) -> SSAValue:
    """A value of ``!hop.symint<symbol>`` the forward computes, read from the size of an argument
    or of an op's result if need be (a data-dependent size, such as a subgraph call's, Note [call
    result symbols] in ``hopc.dialects.hop_call_results``).

    The value is one of the joint's, or a new one of ``forward`` mapped to itself in ``mapping``.
    """
    values = [*primals, *(r for op in forward_ops for r in op.results)]
    for value in values:
        if isinstance(value.type, SymIntType | SymFloatType) and value.type.value == symbol:
            return value  # a float symbol under a rounding: ceil(zuf0) (Note [rounding expressions])
    for value in values:
        type_ = value.type
        if isinstance(type_, TensorType) and symbol in type_.shape:
            size = hop.SymSizeOp(mapping[value], type_.shape.index(symbol))
            forward.add_op(size)
            mapping[size.results[0]] = size.results[0]
            return size.results[0]
    raise AssertionError(f"no forward value binds symbol {symbol}")
