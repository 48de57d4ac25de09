"""0-d integer tensors that host code keeps as Python ints and bools (Note [host scalars]).

Note [host scalars]
~~~~~~~~~~~~~~~~~~~
A ``while_loop`` counts its steps in a 0-d int64 tensor (``i < 100``, ``i + 1``;
an int carry becomes one: Note [int carries] in
``hopc.frontend.while_int_carries``). As tensors, each step costs two ATen
calls, their allocations and a read of the predicate, more than the step's
own work for a small body. Host code keeps such values as Python ints (and
bools): ``host_scalars(function)`` is the set of values that can be
(``HostScalars``). A value is one when it is a 0-d integer or boolean tensor and

- it is the result of a launch of a pointwise kernel whose every op has a
  Python form (``SCALAR_OPS``: integer arithmetic, comparisons, logic, with
  concrete scalar attributes) and whose every tensor operand is one, or it
  is a carried value of a ``hop.while`` (its block arguments and result)
  whose body yields one for it (the value entering the loop is converted
  once, ``int(t)``, where it is a tensor);
- every use of it is one of those: an operand of such a launch, the body's
  yield of such a carry, a loop's or a cond's predicate (``if v:``), or
  none at all.

A 0-d floating-point result of any other launch (``x.sum()``) is one too,
read once as a Python float (``.item()``) after its launch, when every use
of it compares it with a scalar (``x.sum() > 0`` feeding a cond), its
comparison's scalar rounded to the tensor's dtype first, as PyTorch
compares (``ops_scalars``): one ATen call and a tensor-to-bool read fewer.

The largest such set is found by starting from every candidate and
removing values that break a rule until none does. Python ints do not wrap
at 2**63 as int64 tensors do; no counter gets there.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects.builtin import FloatAttr, IntegerAttr
from xdsl.dialects.func import FuncOp
from xdsl.ir import Block, Operation, SSAValue

from hopc.dialects import hop
from hopc.dialects.aten import AtenOp
from hopc.dialects.kernel import GraphOp, KernelOp, LaunchOp
from hopc.ir.types import TensorType

SCALAR_OPS: dict[str, str] = {
    "aten.add.Tensor": "({self} + {alpha}{other})", "aten.add.Scalar": "({self} + {alpha}{other})",
    "aten.sub.Tensor": "({self} - {alpha}{other})", "aten.sub.Scalar": "({self} - {alpha}{other})",
    "aten.mul.Tensor": "({self} * {other})", "aten.mul.Scalar": "({self} * {other})",
    "aten.neg": "(-{self})",
    "aten.eq.Tensor": "({self} == {other})", "aten.eq.Scalar": "({self} == {other})",
    "aten.ne.Tensor": "({self} != {other})", "aten.ne.Scalar": "({self} != {other})",
    "aten.lt.Tensor": "({self} < {other})", "aten.lt.Scalar": "({self} < {other})",
    "aten.le.Tensor": "({self} <= {other})", "aten.le.Scalar": "({self} <= {other})",
    "aten.gt.Tensor": "({self} > {other})", "aten.gt.Scalar": "({self} > {other})",
    "aten.ge.Tensor": "({self} >= {other})", "aten.ge.Scalar": "({self} >= {other})",
    "aten.logical_not": "(not {self})",
    "aten.logical_and": "(bool({self}) and bool({other}))",
    "aten.logical_or": "(bool({self}) or bool({other}))",
}
"""ATen op -> its Python form on ints and bools, over the names of its schema arguments
(``alpha`` is ``"k * "``, or nothing where it is 1)."""

_INTEGRAL = frozenset({"bool", "int8", "int16", "int32", "int64", "uint8"})
FLOATING = frozenset({"float16", "bfloat16", "float32", "float64"})
_COMPARISONS = frozenset({"aten.eq.Scalar", "aten.ne.Scalar", "aten.lt.Scalar", "aten.le.Scalar",
                          "aten.gt.Scalar", "aten.ge.Scalar"})


ScalarKernels = dict[Operation, KernelOp]
"""A function's launches of a pointwise kernel every op of which has a Python form -> the kernel."""


@dataclass(frozen=True)
class HostScalars:
    """The host scalars of one function (Note [host scalars]), worked out once for its code.

    Invariant: ``read`` is a subset of ``values``; ``python_launches`` are the
    launches of a scalar kernel (pointwise, every op with a Python form) whose
    first result is in ``values``.
    """

    values: frozenset[SSAValue]
    """The values host code keeps as Python ints, bools and floats."""
    read: frozenset[SSAValue]
    """Those read once, as a Python float (``.item()``), from the 0-d tensor of a launch."""
    python_launches: frozenset[Operation]
    """The launches host code writes as Python expressions (``ops_scalars``)."""

    def __contains__(self, value: SSAValue) -> bool:
        return value in self.values


def host_scalars(function: FuncOp) -> HostScalars:
    """The values of ``function`` (nested regions included) that host code keeps as Python
    ints, bools and floats (Note [host scalars]), each scalar launch's kernel looked up once."""
    scalar_kernels = _scalar_kernels(function)
    candidates = {value for op in function.walk() if not _in_cuda_graph(op) for value in _defined_by(op)
                  if _integral_0d(value) or _is_read_candidate(value, scalar_kernels)}
    changed = True
    while changed:
        changed = False
        for value in list(candidates):
            if value in candidates and not _stays(value, candidates, scalar_kernels):
                candidates -= _tied(value)
                changed = True
    return HostScalars(
        frozenset(candidates),
        frozenset(value for value in candidates if _is_read_candidate(value, scalar_kernels)),
        frozenset(launch for launch in scalar_kernels if launch.outputs and launch.outputs[0] in candidates))


def _in_cuda_graph(op: Operation) -> bool:
    """Whether ``op`` is a ``kernel.graph`` or inside one: a graph replays device work only, so
    none of its values is a host scalar (Note [cuda graph segments] in
    ``hopc.passes.form_cuda_graphs``)."""
    while op is not None:
        if isinstance(op, GraphOp):
            return True
        op = op.parent_op()
    return False


def _scalar_kernels(function: FuncOp) -> ScalarKernels:
    """The scalar launches of ``function`` (nested regions included), each kernel looked up once."""
    return {op: kernel for op in function.walk() if (kernel := _scalar_kernel(op)) is not None}


def _scalar_kernel(op: Operation) -> KernelOp | None:
    """The kernel ``op`` launches where it is pointwise and every op of it has a Python form."""
    if not isinstance(op, LaunchOp) or (kernel := op.kernel()) is None or kernel.kind.data != "pointwise":
        return None
    if all(isinstance(inner, AtenOp) and inner.name in SCALAR_OPS and _concrete(inner)
           for inner in kernel.computation):
        return kernel
    return None


def _is_read_candidate(value: SSAValue, scalar_kernels: ScalarKernels) -> bool:
    """Whether ``value`` is a 0-d floating-point result of a launch that host code could read
    as a Python float (Note [host scalars])."""
    type_ = value.type
    return (isinstance(type_, TensorType) and type_.rank == 0 and type_.dtype_name in FLOATING
            and isinstance(value.owner, LaunchOp) and value.owner not in scalar_kernels)


def _defined_by(op: Operation) -> list[SSAValue]:
    values = list(op.results)
    for region in op.regions:
        if not isinstance(op, KernelOp):
            for block in region.blocks:
                values += block.args
    return values


def _integral_0d(value: SSAValue) -> bool:
    type_ = value.type
    return isinstance(type_, TensorType) and type_.rank == 0 and type_.dtype_name in _INTEGRAL


def _concrete(op: AtenOp) -> bool:
    """Whether every non-tensor argument is a concrete int, float or bool (no ``#hop.expr``)."""
    return all(isinstance(attribute, IntegerAttr | FloatAttr) for attribute in op.properties.values())


def _tied(value: SSAValue) -> set[SSAValue]:
    """The values that are one carry with ``value``: a while's result and its two block
    arguments (all or none of them are host scalars)."""
    carry = _carry_of(value)
    if carry is None:
        return {value}
    loop, index = carry
    return {loop.results[index], loop.cond_region.block.args[index], loop.body_region.block.args[index]}


def _carry_of(value: SSAValue) -> tuple[hop.WhileOp, int] | None:
    owner = value.owner
    if isinstance(owner, hop.WhileOp):
        return owner, owner.results.index(value)
    if isinstance(owner, Block) and isinstance(owner.parent_op(), hop.WhileOp):
        loop = owner.parent_op()
        if value.index < len(loop.carried):  # type: ignore[attr-defined]
            return loop, value.index  # type: ignore[attr-defined]
    return None


def _stays(value: SSAValue, candidates: set[SSAValue], scalar_kernels: ScalarKernels) -> bool:
    """Whether ``value`` may stay a host scalar while ``candidates`` are."""
    owner = value.owner
    if _is_read_candidate(value, scalar_kernels):
        return value.uses.get_length() > 0 and all(
            _single_op_kernel(use.operation, scalar_kernels) in _COMPARISONS and use.operation.outputs[0] in candidates
            for use in value.uses)
    carry = _carry_of(value)
    if carry is not None:
        loop, index = carry
        yielded = loop.body_region.block.last_op.operands[index]
        if yielded not in candidates:
            return False
    elif isinstance(owner, Block) or not (owner in scalar_kernels and all(
            v in candidates for v in owner.arguments if isinstance(v.type, TensorType))):
        return False
    return all(_scalar_use(use.operation, use.index, candidates, scalar_kernels) for use in value.uses)


def _single_op_kernel(op: Operation, scalar_kernels: ScalarKernels) -> str | None:
    """The name of the one op of a scalar launch's kernel, or None."""
    kernel = scalar_kernels.get(op)
    if kernel is None:
        return None
    computation = kernel.computation
    return computation[0].name if len(computation) == 1 else None


def _scalar_use(user: Operation, index: int, candidates: set[SSAValue], scalar_kernels: ScalarKernels) -> bool:
    if user in scalar_kernels:
        return all(result in candidates for result in user.results)
    if isinstance(user, hop.CondOp):
        return index == 0
    if isinstance(user, hop.YieldOp):
        loop = user.parent_op()
        if isinstance(loop, hop.WhileOp):
            if user.parent_region() is loop.cond_region:
                return True
            return loop.results[index] in candidates
    return False
