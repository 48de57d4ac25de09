"""The joint of one ATen op, whose trace is its derivative (``hopc.passes.autograd.derivatives``).

``derivative_joint`` builds the function that ``op_derivative`` traces (the
op, then ``torch.autograd.grad`` of the results with a tangent) over the
op's types in pattern names, with its inputs: the operands, the tangents and
the size carriers (Note [size carriers] in
``hopc.passes.autograd.derivatives``). One trace runs it alone, or a batch
beside others (Note [batched derivative traces] in
``hopc.passes.autograd.batched_derivatives``). The Notes cited here without
a module are in ``hopc.passes.autograd.derivatives``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial

import torch
from xdsl.dialects.builtin import i1
from xdsl.ir import Attribute

from hopc.dialects.aten import AtenOp
from hopc.ir.dims import is_float_symbol_name
from hopc.ir.substitution import parameters, substitute
from hopc.ir.types import SymIntType, TensorType
from hopc.passes.autograd.derivative_graphs import differentiated_schema
from hopc.passes.autograd.differentiable_forms import DIFFERENTIABLE_FORMS
from hopc.passes.autograd.masked_gradients import defined_gradient_outputs
from hopc.torch_bridge.aten_call import call_arguments, fake_attribute_value, overload_of
from hopc.torch_bridge.torch_symbolic import FakeShapes, SymbolFacts


@dataclass(frozen=True)
class DerivativeJoint:
    """What one op's derivative trace runs: the joint (see the module docstring) and its inputs."""

    op: AtenOp
    renaming: Mapping[str, str]
    """The op's symbols -> the pattern names its types are in here."""
    function: Callable[..., object]
    """``function(shapes, *tensors)``: the joint, as ``trace`` calls it with ``pass_shapes``."""
    inputs: list[TensorType | SymIntType]
    """The operands, the tangents, then the size carriers (Note [size carriers])."""
    requires_grad: list[bool]
    result_types: list[Attribute]
    """The op's result types, in pattern names."""
    differentiated: tuple[int, ...]
    tangent_results: tuple[int, ...]
    facts: Mapping[str, SymbolFacts]
    assumptions: tuple[str, ...]
    carrier_count: int

    @property
    def what(self) -> str:
        return f"the derivative of {self.op.name}"


def derivative_joint(op: AtenOp, renaming: Mapping[str, str], differentiated: Sequence[int],
                     tangent_results: Sequence[int], facts: Mapping[str, SymbolFacts],
                     assumptions: Sequence[str]) -> DerivativeJoint:
    """The joint of ``op`` whose trace is its derivative, over the op's types in pattern names."""
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
            same_sizes(flat[index], tangent, shapes)
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

    return DerivativeJoint(op, renaming, joint, inputs, [i in differentiated for i in range(len(inputs))], result_types,
                           tuple(differentiated), tuple(tangent_results), facts, tuple(assumptions),
                           len(carriers))


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


def same_sizes(output: torch.Tensor, tangent: torch.Tensor, shapes: FakeShapes) -> None:
    """Tells the trace that a tangent has its output's sizes (Note [data-dependent tangents])."""
    for output_size, tangent_size in zip(output.shape, tangent.shape, strict=True):
        shapes.assume(output_size == tangent_size)
        shapes.identify(output_size, tangent_size)
