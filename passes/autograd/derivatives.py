"""The derivative of one ATen op, traced by PyTorch and cached.

``op_derivative(op, differentiated, tangent_results)`` traces, with the op
tracer (``hopc.torch_bridge.op_tracer.trace``), the joint of one op::

    def joint(*primals, *tangents):
        outputs = op(*primals)
        return outputs, torch.autograd.grad(outputs[tangent_results], primals[differentiated], tangents)

over fake tensors sized by the module's symbols, with ``backed_size_oblivious``
on and no guard allowed (inside a Dynamo frame, where that trace fails, it is
traced again in the frame's ``ShapeEnv``, installing its guards there: Note
[derivatives in a frame]; for an op with unbacked symbols, again with them
unbacked: Note [data-dependent derivatives] in
``hopc.passes.autograd.derivative_facts``), then makes that graph hold no
view, no in-place op and no ZeroTensor (views become their ``_copy`` variants, as everywhere at
the functional level: Note [functional derivatives] in
``hopc.passes.autograd.derivative_graphs``). The result is PyTorch's own
derivative formula as ATen ops, never a hand-written table. A
CompositeImplicitAutograd op (``linear``, ``matmul``) decomposes in the trace,
and its traced forward replaces it (Note [joint of an op] in
``hopc.passes.autograd.joint``). The derivatives a block's joint will ask
for are traced before its walk, in one ``make_fx`` run, into the same cache
(Note [batched derivative traces] in ``hopc.passes.autograd.batched_derivatives``).

Note [data-dependent tangents]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
An op with a data-dependent size (``index`` with a mask, ``nonzero``) gives
its output a fresh unbacked size in the trace, while the IR names it by the
op's result symbol, which the tangent's type uses. ``torch._check(fresh ==
ours)`` records the equality as a replacement in the trace's ``ShapeEnv``
(not a guard), so autograd accepts the tangent, and sizes map back to ours
through it.

Note [size carriers]
~~~~~~~~~~~~~~~~~~~~
A symbol that an op's attributes mention but none of its tensors has as a
dimension (``mul.Scalar(x, s1)`` where x is ``[s0]``) must still be an input
of the trace, or ``make_fx`` cannot record the size. Such symbols enter as
extra placeholders, ``[p1]`` boolean tensors whose only use is their size;
the importer binds them to no value, and the sizes become attributes.

Note [anomaly mode in traces]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
Under ``torch.autograd.detect_anomaly()`` autograd checks each gradient it
computes for NaN, a data-dependent test that a trace over fake tensors cannot
decide. A derivative is traced with anomaly mode off: the trace computes no
values to check, and whether it is on cannot change the derivative. The
user's backward still runs under it, which checks the gradients the compiled
backward returns as eager checks those of any ``autograd.Function``.

Note [derivative cache key]
~~~~~~~~~~~~~~~~~~~~~~~~~~~
A derivative is cached by what can change it: the op, its properties, its
operand types (dtypes and shapes), the symbolic dimension pattern (symbols
renamed ``p0, p1, ...`` in order of appearance, with their declared ranges, as
in Note [trace cache key] of ``hopc.torch_bridge.op_result_types``), which operands are
differentiated and which results have a cotangent. The cached graph's sizes
are in pattern names; the caller renames them back (``op_derivative``'s
second result).

Note [derivatives in a frame]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
A derivative traced in a ``ShapeEnv`` of its own holds for every value of the
op's symbols, so it is cached for every module. Some formulas guard on a
size (``unfold``'s, ``max_pool2d``'s with ``ceil_mode``, ``view`` to
``(2, 3, -1, 2)``, ``select`` at a symbolic index), or hold only under a fact
Dynamo guarded while tracing the forward (``squeeze`` of a size that is 1 at
this call). When hopc compiles a Dynamo frame (a ``TracingContext`` with a
fake mode is active: the backend compile), such a derivative is traced again
in the frame's ``ShapeEnv``, each of the op's symbols the frame's SymInt of
the same name (Note [frame guards] in ``hopc.torch_bridge.op_tracer``): its guards are
the frame's, so the compiled code runs only where they hold, and Dynamo
recompiles elsewhere, as for AOTAutograd's backward. That derivative is
never cached: it holds the frame's ``ShapeEnv`` and only holds under the
frame's guards (each such op is traced again; they are few).

A gradient whose sizes equal its operand's only under such a guard
(``glu``'s ``2*(s0//2)`` for ``s0``, which autograd's check of the
gradient's shape guards) is expanded to the operand's sizes (an ``expand``
of equal sizes), so that the module's types agree. So is a result whose
sizes the frame's facts make equal to the ones its op declares, though the
trace writes them otherwise: Dynamo's ``view(x, [2, -1])`` of ``[s0, s1]``
splits ``s0`` and declares ``[2, s1*(s0//2)]`` (guarding that ``s0`` is even),
where PyTorch's meta kernel gives ``[2, s0*s1//2]``, equal only under that
guard. A guard that fixes one of the op's symbols (to a number or to another
symbol) would make the derivative's sizes disagree with the module's, which
keeps the symbol: that is refused, located at the op. Outside a frame, or
where a symbol is not the frame's (one hopc made, a float symbol), the first
trace's error stands.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import sympy
import torch
import torch.fx
from torch.fx.experimental.symbolic_shapes import ShapeEnv

from hopc.dialects.aten import AtenOp
from hopc.ir.diagnostics import HopcError, location_of
from hopc.ir.substitution import substitute
from hopc.passes.autograd.custom_operator_derivatives import check_custom_autograd, no_custom_autograd
from hopc.passes.autograd.derivative_facts import (
    block_assertions,
    defined_symbols,
    in_names,
    traced_facts,
    unbacked_pattern_symbols,
)
from hopc.passes.autograd.derivative_graphs import materialize_zero_tensors, views_to_copies
from hopc.passes.autograd.derivative_joint import DerivativeJoint, derivative_joint, same_sizes
from hopc.torch_bridge.aten_builders import symbol_facts
from hopc.torch_bridge.op_result_types import compare_result_types, symbol_pattern
from hopc.torch_bridge.op_tracer import Frame, TracedFunction, check_no_symbol_fixed, dynamo_frame, trace
from hopc.torch_bridge.torch_symbolic import FakeShapes, SymbolFacts


@dataclass(frozen=True)
class OpDerivative:
    """The joint FX graph of one op (see the module docstring), its sizes in pattern names.

    Placeholders: one per tensor operand (flattened, in schema order), then one
    tangent per result with a cotangent. The output is ``(outputs, gradients)``:
    every result of the op, and one gradient (or None, where PyTorch's formula
    gives none) per operand of ``differentiated``, in order.
    """

    graph: torch.fx.GraphModule
    differentiated: tuple[int, ...]
    """The operands the gradients are of: those asked for, less any the op has no derivative in."""
    shape_env: ShapeEnv
    """The trace's: it knows the equalities the trace learned (Note [data-dependent tangents])."""
    torch_names: Mapping[sympy.Symbol, str]
    """Each torch symbol of the graph -> its pattern name (``p0``...)."""
    carrier_count: int
    """Placeholders after the tangents that only carry sizes (Note [size carriers])."""


_CACHE: dict[tuple, OpDerivative] = {}

def op_derivative(op: AtenOp, differentiated: Sequence[int], tangent_results: Sequence[int]
                  ) -> tuple[OpDerivative, dict[str, str]]:
    """The derivative of ``op`` (cached), and the renaming from pattern names to the op's symbols.

    ``differentiated`` are flattened operand indices (each a differentiable
    tensor), ``tangent_results`` result indices (each a differentiable
    tensor). Raises a HopcError located at ``op`` naming it where PyTorch has
    no derivative or the trace fails (Note [trace guards]).
    """
    key, renaming, pattern_facts = derivative_key(op, differentiated, tangent_results)
    back = {canonical: name for name, canonical in renaming.items()}
    derivative = _CACHE.get(key)
    if derivative is not None:
        return derivative, back
    check_custom_autograd(op)
    try:
        derivative = _CACHE[key] = _differentiable_trace(op, renaming, list(differentiated),
                                                         tangent_results, pattern_facts, (), None)
        return derivative, back
    except HopcError as error:
        failure = error  # traced again outside this handler, so that its guard is not taken for theirs
    unbacked = unbacked_pattern_symbols(op, renaming)
    if unbacked:
        return _data_dependent_derivative(op, key, renaming, list(differentiated), tangent_results,
                                          pattern_facts, unbacked), back
    frame = dynamo_frame(renaming, pattern_facts)
    if frame is None:
        raise failure
    derivative = _differentiable_trace(op, renaming, list(differentiated), tangent_results,
                                       pattern_facts, (), frame)
    check_no_symbol_fixed(f"the derivative of {op.name}", frame, back, location_of(op))
    return derivative, back


def derivative_key(op: AtenOp, differentiated: Sequence[int], tangent_results: Sequence[int]
                   ) -> tuple[tuple, dict[str, str], dict[str, SymbolFacts]]:
    """The cache key of ``op``'s derivative (Note [derivative cache key]), the renaming of its
    symbols to pattern names, and each pattern name's facts."""
    groups = [[v.type for v in group] for _, group in op.operand_groups()]
    properties = dict(op.properties)
    results = [[r.type for r in op.results]]  # a data-dependent size is named by the result's symbol
    renaming = symbol_pattern([*groups, *results], properties)
    facts = symbol_facts([*op.operands, *op.results])
    pattern_facts = {canonical: facts.get(name, SymbolFacts()) for name, canonical in renaming.items()}
    key = (op.name, tuple(sorted((k, substitute(v, renaming)) for k, v in properties.items())),
           tuple(tuple(substitute(t, renaming) for t in g) for g in [*groups, *results]),
           tuple((f.lower, f.upper) for f in pattern_facts.values()),
           tuple(differentiated), tuple(tangent_results))
    return key, renaming, pattern_facts


def is_cached(key: tuple) -> bool:
    """Whether the derivative of ``key`` (``derivative_key``'s) is traced already."""
    return key in _CACHE


def cache_derivative(key: tuple, derivative: OpDerivative) -> None:
    """Caches ``derivative`` under ``key``: the first trace ``op_derivative`` makes of it, made
    beside others (Note [batched derivative traces] in ``hopc.passes.autograd.batched_derivatives``)."""
    _CACHE[key] = derivative


def _data_dependent_derivative(op: AtenOp, key: tuple, renaming: Mapping[str, str], differentiated: list[int],
                               tangent_results: Sequence[int], facts: Mapping[str, SymbolFacts],
                               unbacked: frozenset[str]) -> OpDerivative:
    """The derivative traced with ``unbacked`` symbols unbacked, under the facts its block
    asserts (Note [data-dependent derivatives] in
    ``hopc.passes.autograd.derivative_facts``); cached by them. A located HopcError, in
    the op's symbols, where that trace still needs a fact."""
    assumptions = block_assertions(op, renaming, unbacked)
    key = (*key, unbacked, assumptions)
    derivative = _CACHE.get(key)
    if derivative is not None:
        return derivative
    unbacked_facts, values = traced_facts(facts, unbacked, frozenset(renaming[name] for name in defined_symbols(op)))
    assumptions = (*assumptions, *values)
    try:
        derivative = _CACHE[key] = _differentiable_trace(op, renaming, differentiated, tangent_results,
                                                         unbacked_facts, assumptions, None)
    except HopcError as error:
        back = {canonical: name for name, canonical in renaming.items()}
        known = ", ".join(assumptions) or "none"
        raise HopcError(in_names(f"{error.message} (traced with {', '.join(sorted(unbacked))} unbacked, "
                                 f"knowing the asserts of its block on them: {known}; "
                                 "Note [data-dependent derivatives])", back), error.location) from None
    return derivative


_NOT_DIFFERENTIABLE = re.compile(r"is not differentiable with respect to argument '(\w+)'")


def _differentiable_trace(op: AtenOp, renaming: Mapping[str, str], differentiated: list[int],
                          tangent_results: Sequence[int], facts: Mapping[str, SymbolFacts],
                          assumptions: Sequence[str], frame: Frame | None) -> OpDerivative:
    """The trace, leaving out the operands PyTorch says the op is not differentiable in.

    (``running_mean`` of a training-mode batch norm: an input that is active
    because it was computed from differentiated values, but has no derivative.)
    """
    while True:
        try:
            return _trace_derivative(op, renaming, differentiated, tangent_results, facts, assumptions, frame)
        except HopcError as error:
            fewer = differentiable_without(op, differentiated, error)
            if fewer is None:
                raise
            differentiated = fewer


def differentiable_without(op: AtenOp, differentiated: Sequence[int], error: HopcError) -> list[int] | None:
    """``differentiated`` less the operands that ``error`` (a trace's) says ``op`` is not
    differentiable in; None where it names none of them."""
    match = _NOT_DIFFERENTIABLE.search(error.message)
    if match is None:
        return None
    dropped = set(_operand_offsets(op).get(match[1], ()))
    if not dropped & set(differentiated):
        return None
    return [i for i in differentiated if i not in dropped]


def _operand_offsets(op: AtenOp) -> dict[str, range]:
    """Each tensor argument's name -> the flattened operand indices passed for it."""
    offsets, start = {}, 0
    for argument, group in op.operand_groups():
        offsets[argument.name] = range(start, start + len(group))
        start += len(group)
    return offsets


def _trace_derivative(op: AtenOp, renaming: Mapping[str, str], differentiated: Sequence[int],
                      tangent_results: Sequence[int], facts: Mapping[str, SymbolFacts],
                      assumptions: Sequence[str], frame: Frame | None) -> OpDerivative:
    joint = derivative_joint(op, renaming, differentiated, tangent_results, facts, assumptions)
    location = location_of(op)
    try:
        autograd = trace(joint.function, joint.inputs, what=joint.what, requires_grad=joint.requires_grad,
                         symbols=facts, location=location, pass_shapes=True, frame=frame)
    except HopcError as error:
        if op.SCHEMA.is_custom and "no autograd formula" in error.message:
            raise no_custom_autograd(op) from None
        if "not implemented" in error.message or "does not require grad" in error.message:
            raise HopcError(f"{op.name} has no derivative in PyTorch "
                            f"({error.message.rsplit(': ', 1)[-1]})", location) from None
        raise
    return finished_derivative(joint, autograd, frame)


def finished_derivative(joint: DerivativeJoint, autograd: TracedFunction, frame: Frame | None) -> OpDerivative:
    """The derivative from the trace of ``joint``: its results checked against the op's types,
    made functional (Note [functional derivatives]). A located HopcError where they disagree."""
    location = location_of(joint.op)
    compare_result_types(joint.op.name, autograd.result_types[:len(joint.result_types)], joint.result_types,
                         frozenset(), location)
    materialize_zero_tensors(autograd.graph)
    if views_to_copies(autograd.graph):
        autograd.graph.graph.eliminate_dead_code()
        autograd.graph.recompile()
        return OpDerivative(autograd.graph, joint.differentiated, autograd.shapes.shape_env,
                            dict(autograd.shapes.torch_names), joint.carrier_count)
    functionalized = torch.func.functionalize(autograd.graph, remove="mutations_and_views")
    count = len(joint.op.operands)
    tangents = slice(count, count + len(joint.tangent_results))

    def functional_joint(shapes: FakeShapes, *tensors: torch.Tensor) -> object:
        for assumption in joint.assumptions:
            shapes.assume(shapes.size(assumption))
        outputs, gradients = functionalized(*tensors)
        for index, tangent in zip(joint.tangent_results, tensors[tangents], strict=True):
            same_sizes(outputs[index], tangent, shapes)
        return outputs, gradients

    functional = trace(functional_joint, joint.inputs, what=joint.what, symbols=joint.facts, location=location,
                       pass_shapes=True, frame=frame)
    functional.graph.graph.eliminate_dead_code()
    functional.graph.recompile()
    return OpDerivative(functional.graph, joint.differentiated, functional.shapes.shape_env,
                        dict(functional.shapes.torch_names), joint.carrier_count)
