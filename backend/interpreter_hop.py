"""The reference interpreter's ``hop`` dialect: region ops, shape-symbol ops, constants.

A region op runs its regions as its docstring in ``hopc.dialects.hop`` says,
binding block arguments to the operand values themselves (no copies); ops on
shape symbols compute on Python ints and bools; ``hop.get_constant`` gives
each read its own copy of its constant's tensor (``constant_value``'s), so
nothing a program or caller does to it reaches a shared tensor.

Note [converted constants]
~~~~~~~~~~~~~~~~~~~~~~~~~~
Prepared code (generated host code, a planned function) converts each
constant it reads to a tensor once and keeps it, shared by every run
(``constant_value``). The code that keeps a tensor owns it: the tensor goes
when the last code holding it does, by reference counting alone, as the
blobs go with their artifact (Note [owned blobs] in ``hopc.ir.resources``).
So the cache that lets the functions of one module (a training call's
forward and backward) share one conversion holds it weakly: it is keyed by
the ``hop.constant`` op, which lives in the IR's reference cycles (parent
and neighbour links) until Python's cycle collector frees it, and a strong
value there would live as long, however long ago its code was dropped (a
refreeze's old constants piled up, 2 MB a refreeze of a 2 MiB model, while
the collector did not run). Nor may what holds the tensor sit in a
reference cycle: generated code reads its constants as closure variables,
not as globals of a namespace that holds the function too (Note [generated
host code] in ``hopc.backend.host.codegen``), and a planned function's
steps are closures over them. The reference interpreter holds no
conversion: each read converts where no prepared code holds one.
"""

from __future__ import annotations

import math
import operator
import weakref
from collections import ChainMap
from collections.abc import Callable, Sequence

import torch
from xdsl.ir import Attribute, Operation, Region, SSAValue

from hopc.backend.interpreter import Frame, interpreter_error, run_region
from hopc.backend.interpreter_registry import impl, register_impls
from hopc.dialects import hop
from hopc.dialects.hop_interface import Operand, RunCount, hop_interface
from hopc.ir.types import SymFloatType, TensorType
from hopc.torch_bridge.runtime_types import bind_parameters
from hopc.torch_bridge.tensor_constants import constant_tensor
from hopc.torch_bridge.torch_values import dtype_of, evaluate_dim

_SYM_UNARY_FUNCTIONS: dict[type[Operation], Callable[[int | float], float]] = {
    hop.SymFloatOp: float, hop.SymSqrtOp: math.sqrt,
    hop.SymNegOp: operator.neg, hop.SymAbsOp: abs, hop.SymNotOp: operator.not_,
}
"""What ``sym_float(n)``, ``math.sqrt(n)``, ``-n``, ``abs(n)`` and ``not c`` compute in eager."""


_CONVERTED: weakref.WeakKeyDictionary[hop.ConstantOp, tuple[Attribute, weakref.ref[torch.Tensor]]] = \
    weakref.WeakKeyDictionary()
"""Each ``hop.constant`` converted so far -> its value attribute then, and that conversion
while some code holds it (Note [converted constants])."""


def constant_value(op: hop.GetConstantOp) -> torch.Tensor:
    """The tensor ``op`` reads, shared: the conversion some code holds already (made again
    only when the ``hop.constant``'s value attribute is replaced), else a new one. The caller
    keeps it for as long as it needs it (Note [converted constants]) and must not let it be
    written."""
    constant = op.referenced()
    if not isinstance(constant, hop.ConstantOp):
        raise interpreter_error(op, f"reads @{op.symbol}, which is not a hop.constant of the module")
    cached = _CONVERTED.get(constant)
    tensor = cached[1]() if cached is not None and cached[0] is constant.value else None
    if tensor is None:
        tensor = constant_tensor(constant)
        _CONVERTED[constant] = (constant.value, weakref.ref(tensor))
    return tensor


def run_callee(body: Region, input_types: Sequence[Attribute], args: list[object], frame: Frame,
               call: Operation) -> list[object]:
    """Runs a callee's body (a subgraph's, a kernel's) in a scope of its own: its parameters
    bound afresh from ``args`` (Note [subgraph symbols]), no caller values."""
    scope = Frame(ChainMap(), frame.symbols.new_child())
    bind_parameters(args, input_types, scope.symbols)
    return run_region(body, args, scope, call)


def skipped_while_results(op: hop.WhileOp, carried: list[object]) -> list[object]:
    """What a ``hop.while`` that runs no iteration returns: a copy of each carried tensor,
    but the operand itself where the body yields its own argument (``hop.WhileOp``)."""
    return [value.clone() if isinstance(value, torch.Tensor) and not own else value
            for value, own in zip(carried, op.yields_own_argument(), strict=True)]


def run_sliced(op: Operation, body: Callable[..., list[object]], carry: list[object], xs: list[torch.Tensor],
               additional: list[object], reverse: bool, empty: Callable[[], list[object]]) -> list[object]:
    """Runs ``body`` once per slice along dim 0 of ``xs`` (the last slice first where
    ``reverse``) on the carry, slice ``i`` of each of ``xs``, then ``additional``; the first
    ``len(carry)`` outputs of a run are the next run's carry. Returns the last carry, then
    each other output stacked over the slices in index order, or ``empty()`` where there are
    no slices: ``hop.scan``, and ``hop.map`` with no carry (their ``RegionEntry``'s ``Slice``
    arguments and ``stacked`` yields). The interpreter and generated host code both run it."""
    lengths = {x.size(0) for x in xs}
    if len(lengths) != 1:
        raise interpreter_error(op, f"scanned operands differ in dim 0: {sorted(lengths)}")
    length = lengths.pop()
    stepped: list[list[object]] = [[] for _ in range(length)]  # outputs by index, not step
    for index in reversed(range(length)) if reverse else range(length):
        outputs = body(*carry, *[x[index] for x in xs], *additional)
        carry, stepped[index] = outputs[:len(carry)], outputs[len(carry):]
    if not stepped:
        return carry + empty()
    return carry + [torch.stack(column) for column in zip(*stepped, strict=True)]


def run_associative_scan(op: Operation, combine: Callable[..., list[object]], xs: list[torch.Tensor],
                         additional: list[object]) -> list[object]:
    """The inclusive scan of ``xs`` along dim 0, left to right: slice 0 of each, then ``combine``
    of the previous slices of the results and slice ``i`` of ``xs`` (then ``additional``), stacked
    (Note [associative scan semantics]). The interpreter and generated host code both run it."""
    lengths = {x.size(0) for x in xs}
    if len(lengths) != 1:
        raise interpreter_error(op, f"scanned operands differ in dim 0: {sorted(lengths)}")
    length = lengths.pop()
    if length == 0:
        raise interpreter_error(op, "scans no slices; PyTorch's associative_scan needs at least one")
    combined = [x[0] for x in xs]
    steps = [combined]
    for index in range(1, length):
        combined = combine(*combined, *[x[index] for x in xs], *additional)
        steps.append(combined)
    return [torch.stack(column) for column in zip(*steps, strict=True)]


def _empty_results(results: Sequence[SSAValue], frame: Frame) -> list[object]:
    """An empty tensor of each result's type, its sizes evaluated in ``frame``."""
    empties = []
    for result in results:
        assert isinstance(result.type, TensorType)
        shape = [evaluate_dim(dim, frame.symbols) for dim in result.type.shape]
        empties.append(torch.empty(shape, dtype=dtype_of(result.type.element_type)))
    return empties


def _body(op: hop.ScanOp | hop.MapOp | hop.AssociativeScanOp, frame: Frame) -> Callable[..., list[object]]:
    return lambda *arguments: run_region(op.body, list(arguments), frame, op)


@register_impls
class HopImpls:
    # ----------------------------------------------------------------------- region ops

    @impl(hop.WrapOp, hop.CheckpointOp)
    def run_once(self, op: Operation, frame: Frame) -> list[object]:
        """A HOP whose one region runs once (``RunCount.ONCE``) on its operands, as a call."""
        (entry,) = hop_interface(op).entries(op)
        assert entry.runs is RunCount.ONCE and all(isinstance(s, Operand) for s in entry.arguments)
        return run_region(entry.region, [frame.values[op.operands[s.index]] for s in entry.arguments],
                          frame, op)

    @impl(hop.CondOp)
    def run_cond(self, op: hop.CondOp, frame: Frame) -> list[object]:
        taken = op.then_region if bool(frame.values[op.predicate]) else op.else_region
        return run_region(taken, frame.get(op.inputs), frame, op)

    @impl(hop.WhileOp)
    def run_while(self, op: hop.WhileOp, frame: Frame) -> list[object]:
        carried, additional = frame.get(op.carried), frame.get(op.additional)
        if not bool(run_region(op.cond_region, carried + additional, frame, op)[0]):
            return skipped_while_results(op, carried)
        while True:
            carried = run_region(op.body_region, carried + additional, frame, op)
            if not bool(run_region(op.cond_region, carried + additional, frame, op)[0]):
                return carried

    @impl(hop.ScanOp)
    def run_scan(self, op: hop.ScanOp, frame: Frame) -> list[object]:
        return run_sliced(op, _body(op, frame), frame.get(op.init), frame.get(op.xs), frame.get(op.additional),
                          op.is_reverse, lambda: _empty_results(op.outputs[len(op.init):], frame))

    @impl(hop.MapOp)
    def run_map(self, op: hop.MapOp, frame: Frame) -> list[object]:
        return run_sliced(op, _body(op, frame), [], frame.get(op.xs), frame.get(op.additional), False,
                          lambda: _empty_results(op.outputs, frame))

    @impl(hop.AssociativeScanOp)
    def run_associative_scan_op(self, op: hop.AssociativeScanOp, frame: Frame) -> list[object]:
        return run_associative_scan(op, _body(op, frame), frame.get(op.xs), frame.get(op.additional))

    @impl(hop.InvokeSubgraphOp, hop.AutogradFunctionOp)
    def run_invoke_subgraph(self, op: hop.InvokeSubgraphOp | hop.AutogradFunctionOp,
                            frame: Frame) -> list[object]:
        """Runs the subgraph in a scope of its own: its parameters bound afresh, no caller values."""
        subgraph = op.subgraph()
        if subgraph is None:
            raise interpreter_error(op, f"calls unknown subgraph {op.callee}")
        return run_callee(subgraph.body, subgraph.input_types, frame.get(op.inputs), frame, op)

    @impl(hop.GetConstantOp)
    def run_get_constant(self, op: hop.GetConstantOp, frame: Frame) -> list[object]:
        return [constant_value(op).clone()]

    # ----------------------------------------------------------------------- shape symbols

    @impl(hop.SymSizeOp)
    def run_sym_size(self, op: hop.SymSizeOp, frame: Frame) -> list[object]:
        return [frame.values[op.input].size(op.dim.value.data)]

    @impl(hop.SymConstantOp)
    def run_sym_constant(self, op: hop.SymConstantOp, frame: Frame) -> list[object]:
        return [evaluate_dim(op.result.type.value, frame.symbols)]

    @impl(*hop.SYM_OPERATOR_OPS)
    def run_sym_binary(self, op: hop.SymBinaryOp, frame: Frame) -> list[object]:
        """The op's Python operator: ``//`` and ``%`` round as the IR's expressions do."""
        return [op.OPERATOR(frame.values[op.lhs], frame.values[op.rhs])]

    @impl(*_SYM_UNARY_FUNCTIONS)
    def run_sym_unary(self, op: Operation, frame: Frame) -> list[object]:
        return [_SYM_UNARY_FUNCTIONS[type(op)](frame.values[op.operand])]

    @impl(hop.SymIteOp)
    def run_sym_ite(self, op: hop.SymIteOp, frame: Frame) -> list[object]:
        chosen = op.then_value if frame.values[op.condition] else op.else_value
        return [frame.values[chosen]]

    @impl(hop.ItemOp)
    def run_item(self, op: hop.ItemOp, frame: Frame) -> list[object]:
        """Binds the read's symbol: a float, or an int (a boolean reads as 0 or 1)."""
        read = frame.values[op.input].item()
        value = float(read) if isinstance(op.result.type, SymFloatType) else int(read)
        frame.symbols[op.result.type.value] = value
        return [value]

    @impl(hop.AssertOp)
    def run_assert(self, op: hop.AssertOp, frame: Frame) -> list[object]:
        if not frame.values[op.condition]:
            raise interpreter_error(op, f"assertion failed: {op.message.data}")
        return []
