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
``hopc.passes.autograd.joint``).

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
from functools import partial

import sympy
import torch
import torch.fx
from torch.fx.experimental.symbolic_shapes import ShapeEnv
from xdsl.dialects.builtin import i1

from hopc.dialects.aten import AtenOp
from hopc.ir.diagnostics import HopcError, location_of
from hopc.ir.dims import is_float_symbol_name
from hopc.ir.substitution import parameters, substitute
from hopc.ir.types import SymIntType, TensorType
from hopc.passes.autograd.custom_operator_derivatives import check_custom_autograd, no_custom_autograd
from hopc.passes.autograd.derivative_facts import (
    block_assertions,
    defined_symbols,
    in_names,
    traced_facts,
    unbacked_pattern_symbols,
)
from hopc.passes.autograd.derivative_graphs import differentiated_schema, materialize_zero_tensors, views_to_copies
from hopc.passes.autograd.differentiable_forms import DIFFERENTIABLE_FORMS
from hopc.passes.autograd.masked_gradients import defined_gradient_outputs
from hopc.torch_bridge.aten_builders import symbol_facts
from hopc.torch_bridge.aten_call import call_arguments, fake_attribute_value, overload_of
from hopc.torch_bridge.op_result_types import compare_result_types, symbol_pattern
from hopc.torch_bridge.op_tracer import Frame, check_no_symbol_fixed, dynamo_frame, trace
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
            match = _NOT_DIFFERENTIABLE.search(error.message)
            if match is None:
                raise
            offsets = _operand_offsets(op)
            dropped = set(offsets.get(match[1], ()))
            if not dropped & set(differentiated):
                raise
            differentiated = [i for i in differentiated if i not in dropped]


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
    location = location_of(op)
    result_types = [substitute(r.type, renaming) for r in op.results]
    schema = differentiated_schema(op.SCHEMA, result_types, any(f.unbacked for f in facts.values()))
    groups = [[substitute(v.type, renaming) for v in group] for _, group in op.operand_groups()]
    properties = {k: substitute(v, renaming) for k, v in op.properties.items()
                  if not k.endswith("_nones")}
    nones = {argument.name: op.tensor_list_nones(argument) for argument, _ in op.operand_groups()}
    operand_types: list[TensorType] = [t for group in groups for t in group]
    tangent_types = [result_types[i] for i in tangent_results]
    carriers = _size_carriers([*operand_types, *tangent_types], facts)
    inputs = [*operand_types, *tangent_types, *carriers]
    count, tangent_count = len(operand_types), len(tangent_types)
    overload = overload_of(schema)

    def joint(shapes: FakeShapes, *tensors: torch.Tensor) -> object:
        primals, tangents = tensors[:count], tensors[count:count + tangent_count]
        for assumption in assumptions:  # Note [data-dependent derivatives]
            shapes.assume(shapes.size(assumption))
        remaining = iter(primals)
        operands = {argument.name: [next(remaining) for _ in group]
                    for argument, group in zip(schema.operand_arguments, groups, strict=True)}
        args, kwargs = call_arguments(schema, operands, properties, nones, partial(fake_attribute_value, shapes))
        outputs = DIFFERENTIABLE_FORMS.get(overload, overload)(*args, **kwargs)  # Note [differentiable forms]
        flat = list(outputs) if isinstance(outputs, tuple | list) else [outputs]
        if shapes.in_frame and len(flat) == len(result_types):
            flat = [_declared(output, declared, shapes) for output, declared in zip(flat, result_types)]
        for index, tangent in zip(tangent_results, tangents, strict=True):
            _same_sizes(flat[index], tangent, shapes)
        # An output that does not depend differentiably on the inputs (``zeros_like``)
        # takes no tangent; with none left, every gradient is None.
        used = [(flat[i], t) for i, t in zip(tangent_results, tangents, strict=True) if flat[i].requires_grad]
        if not used:
            return flat, [None] * len(differentiated)
        # Note [masked gradient outputs]; Note [anomaly mode in traces]
        with defined_gradient_outputs(), torch.autograd.set_detect_anomaly(False):
            gradients = torch.autograd.grad([o for o, _ in used], [primals[i] for i in differentiated],
                                            [t for _, t in used], allow_unused=True)
        if shapes.in_frame:
            return flat, [_sized_as(g, primals[i]) for g, i in zip(gradients, differentiated, strict=True)]
        return flat, list(gradients)

    what = f"the derivative of {op.name}"
    flags = [i in differentiated for i in range(len(inputs))]
    try:
        autograd = trace(joint, inputs, what=what, requires_grad=flags,
                         symbols=facts, location=location, pass_shapes=True, frame=frame)
    except HopcError as error:
        if op.SCHEMA.is_custom and "no autograd formula" in error.message:
            raise no_custom_autograd(op) from None
        if "not implemented" in error.message or "does not require grad" in error.message:
            raise HopcError(f"{op.name} has no derivative in PyTorch "
                            f"({error.message.rsplit(': ', 1)[-1]})", location) from None
        raise
    compare_result_types(op.name, autograd.result_types[:len(result_types)], result_types,
                         frozenset(), location)
    materialize_zero_tensors(autograd.graph)
    if views_to_copies(autograd.graph):
        autograd.graph.graph.eliminate_dead_code()
        autograd.graph.recompile()
        return OpDerivative(autograd.graph, tuple(differentiated), autograd.shapes.shape_env,
                            dict(autograd.shapes.torch_names), len(carriers))
    functionalized = torch.func.functionalize(autograd.graph, remove="mutations_and_views")

    def functional_joint(shapes: FakeShapes, *tensors: torch.Tensor) -> object:
        for assumption in assumptions:
            shapes.assume(shapes.size(assumption))
        outputs, gradients = functionalized(*tensors)
        for index, tangent in zip(tangent_results, tensors[count:count + tangent_count], strict=True):
            _same_sizes(outputs[index], tangent, shapes)
        return outputs, gradients

    functional = trace(functional_joint, inputs, what=what, symbols=facts, location=location,
                       pass_shapes=True, frame=frame)
    functional.graph.graph.eliminate_dead_code()
    functional.graph.recompile()
    return OpDerivative(functional.graph, tuple(differentiated), functional.shapes.shape_env,
                        dict(functional.shapes.torch_names), len(carriers))


def _size_carriers(types: Sequence[TensorType], facts: Mapping[str, SymbolFacts]
                   ) -> list[TensorType | SymIntType]:
    """One ``[p]`` tensor per symbol no operand or tangent has as a dimension, the SymInt
    itself for an unbacked one (Note [size carriers])."""
    bound = set(parameters(types))
    return [SymIntType(name) if facts[name].unbacked else TensorType([name], i1)
            for name in facts if name not in bound and not is_float_symbol_name(name)]


def _sized_as(gradient: torch.Tensor | None, primal: torch.Tensor) -> torch.Tensor | None:
    """``gradient`` with ``primal``'s size expressions, which autograd guarded equal to its
    own (``2*(s0//2)`` for ``s0``) in a frame's trace (Note [derivatives in a frame])."""
    return None if gradient is None else _with_sizes(gradient, list(primal.shape))


def _declared(output: object, declared: object, shapes: FakeShapes) -> object:
    """A traced output with the sizes its op's result type declares, which the frame's facts
    make equal to the trace's own (Note [derivatives in a frame])."""
    if not isinstance(output, torch.Tensor) or not isinstance(declared, TensorType) \
            or output.dim() != declared.rank:
        return output  # compare_result_types reports a different rank
    return _with_sizes(output, [shapes.size(d) for d in declared.shape])


def _with_sizes(tensor: torch.Tensor, sizes: list[int | torch.SymInt]) -> torch.Tensor:
    """``tensor`` with the size expressions ``sizes``, each equal to its own: itself, or an
    ``expand`` of equal sizes (never a broadcast: the equality is checked, in a frame a guard)."""
    if [_expression(s) for s in tensor.shape] == [_expression(s) for s in sizes]:
        return tensor
    for size, wanted in zip(tensor.shape, sizes, strict=True):
        torch._check(size == wanted, lambda size=size, wanted=wanted: f"the trace's size {size} is not {wanted}")
    return tensor.expand(sizes)


def _expression(size: int | torch.SymInt) -> object:
    return size.node.expr if isinstance(size, torch.SymInt) else size


def _same_sizes(output: torch.Tensor, tangent: torch.Tensor, shapes: FakeShapes) -> None:
    """Tells the trace that a tangent has its output's sizes (Note [data-dependent tangents])."""
    for output_size, tangent_size in zip(output.shape, tangent.shape, strict=True):
        shapes.assume(output_size == tangent_size)
        shapes.identify(output_size, tangent_size)
