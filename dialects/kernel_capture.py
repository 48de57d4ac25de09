"""What one CUDA graph may capture: the rules ``kernel.graph``'s verifier and the
``form-cuda-graphs`` pass share (Note [cuda graph segments] and Note [conditional nodes] in
``hopc.passes.form_cuda_graphs``).

Invariant: an op for which ``capture_obstacle`` is None has no host read of a device value
and no result size decided by data, so a recording made at one key of sizes replays it
exactly at that key.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import StringAttr
from xdsl.ir import Operation, SSAValue
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from hopc.dialects.hop_module import GetConstantOp
from hopc.dialects.hop_yield import yield_of
from hopc.dialects.hops.control_flow import CondOp, WhileOp
from hopc.dialects.kernel import CONDITIONAL_NODE, AllocOp, LaunchOp
from hopc.ir.types import SymBoolType, SymFloatType, SymIntType, TensorType, free_symbols_of_types


def check_capturable(op: Operation) -> None:
    """Raise a VerifyException where ``kernel.graph`` may not hold ``op`` (a body's own op)."""
    obstacle = capture_obstacle(op)
    if obstacle is not None:
        raise VerifyException(f"'kernel.graph' cannot capture '{op.name}': {obstacle}")
    expected = conditional_node_kind(op)
    marked = op.attributes.get(CONDITIONAL_NODE)
    if expected is not None and (not isinstance(marked, StringAttr) or marked.data != expected):
        raise VerifyException(f"'kernel.graph' holds '{op.name}' without {CONDITIONAL_NODE} = \"{expected}\"")


def conditional_node_kind(op: Operation) -> str | None:
    """``"if"`` for a ``hop.cond``, ``"while"`` for a ``hop.while``: the conditional node a graph
    captures it as (Note [conditional nodes] in ``hopc.passes.form_cuda_graphs``); None for any
    other op."""
    if isinstance(op, CondOp):
        return "if"
    if isinstance(op, WhileOp):
        return "while"
    return None


def capture_obstacle(op: Operation, in_conditional_body: bool = False) -> str | None:
    """Why one CUDA graph cannot capture ``op`` (Note [cuda graph segments] in
    ``hopc.passes.form_cuda_graphs``); None where it can.
    ``in_conditional_body``: ``op`` is in the body of a conditional node, where PyTorch refuses
    random numbers."""
    if isinstance(op, AllocOp):
        return None
    if isinstance(op, LaunchOp):
        return _launch_obstacle(op, in_conditional_body)
    if _is_symbol_arithmetic(op) or isinstance(op, GetConstantOp):
        return None  # a constant's storage is the same at every call: a graph reads it in place
    if isinstance(op, CondOp):
        if not isinstance(op.predicate.type, TensorType):
            return "its predicate is a shape expression, not a tensor a conditional node can test"
        fresh = _fresh_sizes(op.inputs, op.outputs)
        if fresh:
            return f"its results have sizes the taken branch decides ({', '.join(sorted(fresh))})"
        if not all(isinstance(r.type, TensorType) for r in op.outputs):
            return "it returns a symbol, which a conditional node cannot choose"
        return _regions_obstacle(op)
    if isinstance(op, WhileOp):
        condition = yield_of(op.cond_region).values
        if not condition or not isinstance(condition[0].type, TensorType):
            return "its condition is a shape expression, not a tensor a conditional node can test"
        if not all(isinstance(v.type, TensorType) for v in op.carried):
            return "it carries a symbol, which a graph cannot change from one iteration to the next"
        return _regions_obstacle(op)
    return ("only launches, allocations, constants, symbol arithmetic, and conds and whiles on tensor "
            "predicates are captured")


def _fresh_sizes(operands: Sequence[SSAValue], results: Sequence[SSAValue]) -> set[str]:
    """The symbols in ``results``' types that no operand's type has: sizes decided by data."""
    return free_symbols_of_types([r.type for r in results]) - free_symbols_of_types([v.type for v in operands])


def _launch_obstacle(op: LaunchOp, in_conditional_body: bool) -> str | None:
    kernel = op.kernel()
    if kernel is None:
        return f"it launches unknown kernel {op.callee}"
    if in_conditional_body and any(getattr(inner, "is_random", False) for inner in kernel.computation):
        return "it draws random numbers inside a conditional node, which PyTorch refuses"
    fresh = _fresh_sizes(op.arguments, op.outputs)
    if fresh:
        return f"its result sizes ({', '.join(sorted(fresh))}) depend on data, read on the host"
    if not all(isinstance(r.type, TensorType) for r in op.outputs):
        return "it returns a value read on the host"
    return None


def _is_symbol_arithmetic(op: Operation) -> bool:
    """A pure op on shape symbols (``hop.sym_size``, ``hop.sym_add``, ...): host arithmetic whose
    value the graph's key fixes."""
    return (not op.regions and op.has_trait(Pure) and bool(op.results)
            and all(isinstance(r.type, SymIntType | SymFloatType | SymBoolType) for r in op.results))


def _regions_obstacle(op: Operation) -> str | None:
    for region in op.regions:
        for inner in region.block.ops:
            if inner is region.block.last_op:
                continue
            obstacle = capture_obstacle(inner, in_conditional_body=True)
            if obstacle is not None:
                return f"its body holds '{inner.name}', which cannot be captured: {obstacle}"
    return None
