"""What a subgraph call's caller asserts of its operands, copied into the body it differentiates.

Note [assertions a caller checks]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
A derivative trace may assume only what the block of the traced op asserts
(Note [trace assertions] in ``hopc.torch_bridge.op_tracer``). What Dynamo
learns of a caller's sizes while tracing a ``nested_compile_region`` body it
asserts in the caller, before the call: ``(x * w)[:k]`` passed to a body that
computes ``rows * w`` is ``[u3, s27]`` at the call (the slice is defined
before the assertion, so its type keeps ``u3``: Note [reads the trace learned
about] in ``hopc.fx_import.shape_symbols``), the body's broadcast makes Dynamo
assert ``Eq(u3, s77)`` in the caller, and the body's parameter, typed as the
call's operand, is ``[u3, s27]``. The body's own block asserts nothing, so
the derivative of its ``mul`` would assume ``Eq(u3, s77)`` unchecked.

So the pair a call is differentiated with
(``hopc.passes.autograd.hops.invoke_subgraph``) is made from a copy of the
body that first asserts what the caller asserted of the call's operands
before the call: each ``hop.assert`` before the call in its block whose
condition shape arithmetic (pure ops with scalar results and no region:
``hop.sym_size``, ``hop.sym_eq``...) computes from the call's operands alone,
copied with each operand read as the body's argument and each type in the
body's symbols (only where each symbol of the caller it mentions is what the
call binds exactly one symbol of the body to). The copies keep the caller's
message and location. The forward subgraph then checks them itself each time
it runs, so whichever call runs it, its derivative assumes only what its own
block checks. The pair is keyed by the copied conditions: calls whose
callers check the same conditions (in the body's symbols) share one, and for
those the copies never fail first, their callers having just checked the
same. A call whose caller asserts nothing of its operands gets the body
alone, whose trace is refused where it needs an assertion (a located error
at the body's op). The subgraph itself, which calls that are not
differentiated run, is unchanged.
"""

from __future__ import annotations

from collections.abc import Mapping

from xdsl.ir import Block, Operation, SSAValue
from xdsl.traits import is_side_effect_free

from hopc.dialects import hop
from hopc.ir.dims import Dim
from hopc.ir.substitution import substitute
from hopc.ir.symbol_uses import symbols_of_attribute
from hopc.ir.types import SymBoolType, SymFloatType, SymIntType
from hopc.passes.autograd.regions import cloned_block


def body_checking_caller_assertions(call: hop.InvokeSubgraphOp, callee: hop.SubgraphOp
                                    ) -> tuple[Block, tuple[str, ...]]:
    """``callee``'s body, or a copy of it that first asserts what ``call``'s caller asserted of
    its operands before it, and those conditions in the body's symbols (Note [assertions a
    caller checks])."""
    body = callee.body.block
    assertions = _assertions_before(call)
    if not assertions:
        return body, ()
    checking = cloned_block(body)
    names = _body_symbols(callee.substitution_for([v.type for v in call.inputs]))
    available: dict[SSAValue, SSAValue] = {}
    for value, argument in zip(call.inputs, checking.args, strict=True):
        available.setdefault(value, argument)
    copies: list[Operation] = []
    for assertion in assertions:
        trial, copied = dict(available), []
        condition = _copy_of(assertion.condition, trial, names, copied)
        if condition is None:
            continue
        check = hop.AssertOp.create(operands=[condition], properties=dict(assertion.properties),
                                    attributes=dict(assertion.attributes))
        check.location = assertion.location
        available = trial
        copies += [*copied, check]
    if not copies:
        return body, ()
    checking.insert_ops_before(copies, checking.first_op)
    conditions = (op.condition.type.value for op in copies if isinstance(op, hop.AssertOp))
    return checking, tuple(dict.fromkeys(conditions))


def _body_symbols(substitution: Mapping[str, Dim]) -> dict[str, str]:
    """Each symbol of the caller that a call's ``substitution`` binds exactly one of the body's
    symbols to -> that symbol of the body."""
    bound_to: dict[Dim, list[str]] = {}
    for parameter, dim in substitution.items():
        bound_to.setdefault(dim, []).append(parameter)
    return {dim: parameters[0] for dim, parameters in bound_to.items()
            if isinstance(dim, str) and dim.isidentifier() and len(parameters) == 1}


def _assertions_before(call: Operation) -> list[hop.AssertOp]:
    """The ``hop.assert`` ops before ``call`` in its block."""
    block = call.parent_block()
    if block is None:
        return []
    assertions = []
    for op in block.ops:
        if op is call:
            break
        if isinstance(op, hop.AssertOp):
            assertions.append(op)
    return assertions


def _copy_of(value: SSAValue, available: dict[SSAValue, SSAValue], names: Mapping[str, str],
             copied: list[Operation]) -> SSAValue | None:
    """``value`` computed from ``available`` (caller value -> its copy) by copies of the
    ``hop.sym_*`` ops that compute it, appended to ``copied``, their types in ``names``; None
    where an op is not one or a type mentions a symbol ``names`` does not map."""
    if value in available:
        return available[value]
    op = value.owner
    if not isinstance(op, Operation) or not _computes_symbols(op) \
            or not _mentioned_symbols(op) <= names.keys():
        return None
    operands = [_copy_of(operand, available, names, copied) for operand in op.operands]
    if any(operand is None for operand in operands):
        return None
    copy = op.create(operands=operands, result_types=[substitute(r.type, names) for r in op.results],
                     properties={k: substitute(v, names) for k, v in op.properties.items()},
                     attributes=dict(op.attributes))
    copy.location = op.location
    copied.append(copy)
    available.update(zip(op.results, copy.results, strict=True))
    return available[value]


def _mentioned_symbols(op: Operation) -> set[str]:
    """The symbols ``op``'s result types and properties mention."""
    attributes = [*(r.type for r in op.results), *op.properties.values()]
    return {name for attribute in attributes for name in symbols_of_attribute(attribute)}


def _computes_symbols(op: Operation) -> bool:
    """Whether ``op`` is shape arithmetic: pure, with no region, its results symbolic scalars."""
    return not op.regions and is_side_effect_free(op) \
        and all(isinstance(r.type, SymIntType | SymBoolType | SymFloatType) for r in op.results)
