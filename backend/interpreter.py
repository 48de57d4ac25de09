"""The reference interpreter: runs a hop-level module on PyTorch CPU tensors.

Every pass is tested against it (run before, run after, compare), so it does
the obvious thing at every op and nothing clever:

- an ATen op calls ``torch.ops.aten.<name>.<overload>`` on the very tensors it
  is given: in-place ops and views alias and mutate exactly as in eager mode,
  including the caller's arguments;
- a region op runs its regions as its docstring in ``hopc.dialects.hop`` says,
  binding block arguments to the operand values themselves (no copies);
- ops on shape symbols compute on Python ints and bools.

Shape symbols have values in a scoped environment (Note [interpreter symbol
scopes]). After each op, every result is checked against its declared type:
rank, dtype and each dimension that can be evaluated. A mismatch, a failed
``hop.assert``, an op without semantics or an error inside torch raises an
``InterpreterError`` located at the op.

Note [interpreter symbol scopes]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
Each run of a block (the entry function, each call of a region, each loop
iteration) gets a child scope of the scope of the op that runs it. Entering
a block binds the symbols its arguments' types name and that are not yet
bound: a dimension that is a single symbol takes the argument's size, a
``!hop.symint<s>`` argument its value. ``hop.item`` binds its symbol, and a
result dimension that is a single unbound symbol (an unbacked size such as
``nonzero``'s) takes the first size observed. Bindings made inside a block
vanish when it returns, so a loop body may bind a different ``u1`` on each
iteration; a region op's result types are checked in the enclosing scope,
which binds there any symbol they introduce.

A ``hop.invoke_subgraph`` runs a body that calls of other sizes share (Note
[subgraph symbols] in ``hopc.dialects.hop``). The body's scope is a child of
the call's in which the subgraph's parameters are bound afresh from the
operands, shadowing the caller's bindings of the same names (the caller's
``s0`` is not the parameter ``s0`` of a call at another size); every other
symbol reads the caller's binding. The body sees no SSA value of the caller,
and the call's results are checked in the caller's scope, in its symbols.
"""

from __future__ import annotations

import operator
from collections import ChainMap
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import torch
from xdsl.dialects.builtin import ModuleOp
from xdsl.dialects.func import FuncOp, ReturnOp
from xdsl.ir import Operation, Region, SSAValue

from hopc.backend.interpreter_ops import bind_parameters, call_aten, match_types
from hopc.dialects import hop
from hopc.dialects.aten import AtenOp
from hopc.ir.diagnostics import HopcError, op_error
from hopc.ir.symbolic import UnboundSymbolError
from hopc.ir.torch_values import dtype_of, evaluate_dim
from hopc.ir.types import TensorType


class InterpreterError(HopcError):
    """The program failed, or a value did not match its IR type, at run time."""


def _error(op: Operation, message: str) -> InterpreterError:
    located = op_error(op, message)
    return InterpreterError(located.message, located.location)


@dataclass(frozen=True)
class _Frame:
    """The values visible while a block runs: SSA values and shape symbols.

    Invariant: a child frame sees every binding of its parents; what it binds
    itself is dropped with it (Note [interpreter symbol scopes]).
    """

    values: ChainMap[SSAValue, object]
    symbols: ChainMap[str, int]

    def child(self) -> _Frame:
        return _Frame(self.values.new_child(), self.symbols.new_child())

    def get(self, values: Sequence[SSAValue]) -> list[object]:
        return [self.values[v] for v in values]


def run_module(module: ModuleOp, args: Sequence[object], *,
               function: str | None = None) -> list[object]:
    """Runs the entry function of ``module`` on ``args``; returns its results.

    The entry is the single public ``func.func``, or the one named
    ``function``. ``args`` has one value per entry argument (parameters and
    buffers included): a tensor for a tensor argument, an int for a
    ``!hop.symint`` one. Mutations of the tensors are visible to the caller.
    """
    entry = _entry_function(module, function)
    return _run_region(entry.body, list(args), _Frame(ChainMap(), ChainMap()), entry)


def _entry_function(module: ModuleOp, name: str | None) -> FuncOp:
    functions = [op for op in module.ops if isinstance(op, FuncOp)]
    if name is not None:
        candidates = [f for f in functions if f.sym_name.data == name]
        wanted = f"a func.func named @{name}"
    else:
        candidates = [f for f in functions
                      if f.sym_visibility is None or f.sym_visibility.data == "public"]
        wanted = "exactly one public func.func"
    if len(candidates) != 1:
        raise _error(module, f"has no entry function: expected {wanted}, found {len(candidates)}")
    return candidates[0]


def _run_region(region: Region, args: list[object], frame: _Frame,
                owner: Operation) -> list[object]:
    """Runs the single block of ``region`` on ``args``; returns what its terminator returns."""
    if len(region.blocks) != 1:
        raise _error(owner, f"region has {len(region.blocks)} blocks, expected one")
    block = region.blocks.first
    if len(block.args) != len(args):
        raise _error(owner, f"region takes {len(block.args)} arguments, got {len(args)}")
    frame = frame.child()
    frame.values.update(zip(block.args, args))
    _check(owner, "argument", block.args, args, frame)
    for op in block.ops:
        if isinstance(op, hop.YieldOp | ReturnOp):
            return frame.get(op.operands)
        results = _run_op(op, frame)
        if len(results) != len(op.results):
            raise _error(op, f"produced {len(results)} values for {len(op.results)} results")
        frame.values.update(zip(op.results, results))
        _check(op, "result", op.results, results, frame)
    raise _error(owner, "region ends without a terminator")


def _check(op: Operation, kind: str, ssa_values: Sequence[SSAValue], values: Sequence[object],
           frame: _Frame) -> None:
    mismatch = match_types(values, [v.type for v in ssa_values], frame.symbols)
    if mismatch is not None:
        index, reason = mismatch
        hint = ssa_values[index].name_hint
        raise _error(op, f"{kind} #{index}{f' (%{hint})' if hint else ''} {reason}")


def _run_op(op: Operation, frame: _Frame) -> Sequence[object]:
    runner = _run_aten if isinstance(op, AtenOp) else _RUNNERS.get(type(op))
    if runner is None:
        raise _error(op, "has no semantics in the reference interpreter")
    try:
        return runner(op, frame)
    except (RuntimeError, ValueError, TypeError, IndexError, ZeroDivisionError,
            UnboundSymbolError) as error:
        raise _error(op, f"failed: {error}") from error


# --------------------------------------------------------------------------- ATen


def _run_aten(op: AtenOp, frame: _Frame) -> list[object]:
    return call_aten(op, frame.values.__getitem__, frame.symbols)


# --------------------------------------------------------------------------- region ops


def _run_call(op: hop.WrapOp | hop.CheckpointOp, frame: _Frame) -> list[object]:
    return _run_region(op.body, frame.get(op.inputs), frame, op)


def _run_cond(op: hop.CondOp, frame: _Frame) -> list[object]:
    taken = op.then_region if bool(frame.values[op.predicate]) else op.else_region
    return _run_region(taken, frame.get(op.inputs), frame, op)


def _run_while(op: hop.WhileOp, frame: _Frame) -> list[object]:
    carried, additional = frame.get(op.carried), frame.get(op.additional)
    while bool(_run_region(op.cond_region, carried + additional, frame, op)[0]):
        carried = _run_region(op.body_region, carried + additional, frame, op)
    return carried


def _run_scan(op: hop.ScanOp, frame: _Frame) -> list[object]:
    carry, xs, additional = frame.get(op.init), frame.get(op.xs), frame.get(op.additional)
    length = _scanned_length(op, xs)
    steps = reversed(range(length)) if op.is_reverse else range(length)
    stepped: list[list[object]] = [[] for _ in range(length)]  # outputs by index, not step
    for index in steps:
        outputs = _run_region(op.body, carry + [x[index] for x in xs] + additional, frame, op)
        carry, stepped[index] = outputs[: len(carry)], outputs[len(carry):]
    return carry + _stack(op, stepped, op.outputs[len(carry):], frame)


def _run_map(op: hop.MapOp, frame: _Frame) -> list[object]:
    xs, additional = frame.get(op.xs), frame.get(op.additional)
    stepped = [_run_region(op.body, [x[index] for x in xs] + additional, frame, op)
               for index in range(_scanned_length(op, xs))]
    return _stack(op, stepped, op.outputs, frame)


def _scanned_length(op: hop.ScanOp | hop.MapOp, xs: list[object]) -> int:
    lengths = {x.size(0) for x in xs}
    if len(lengths) != 1:
        raise _error(op, f"scanned operands differ in dim 0: {sorted(lengths)}")
    return lengths.pop()


def _stack(op: Operation, stepped: list[list[object]], results: Sequence[SSAValue],
           frame: _Frame) -> list[object]:
    """Stacks each output over the steps along a new dim 0 (empty when there are no steps)."""
    if stepped:
        return [torch.stack(column) for column in zip(*stepped, strict=True)]
    empties = []
    for result in results:
        assert isinstance(result.type, TensorType)
        shape = [evaluate_dim(dim, frame.symbols) for dim in result.type.shape]
        empties.append(torch.empty(shape, dtype=dtype_of(result.type.element_type)))
    return empties


def _run_invoke_subgraph(op: hop.InvokeSubgraphOp, frame: _Frame) -> list[object]:
    """Runs the subgraph in a scope of its own: its parameters bound afresh, no caller values."""
    subgraph = op.subgraph()
    if subgraph is None:
        raise _error(op, f"calls unknown subgraph {op.callee}")
    args = frame.get(op.inputs)
    scope = _Frame(ChainMap(), frame.symbols.new_child())
    bind_parameters(args, subgraph.input_types, scope.symbols)
    return _run_region(subgraph.body, args, scope, op)


# --------------------------------------------------------------------------- shape symbols


def _run_sym_size(op: hop.SymSizeOp, frame: _Frame) -> list[object]:
    return [frame.values[op.input].size(op.dim.value.data)]


def _run_sym_constant(op: hop.SymConstantOp, frame: _Frame) -> list[object]:
    return [evaluate_dim(op.result.type.value, frame.symbols)]


_SYM_BINARY_FUNCTIONS: dict[type[Operation], Callable[[int, int], int | bool]] = {
    hop.SymAddOp: operator.add, hop.SymSubOp: operator.sub, hop.SymMulOp: operator.mul,
    hop.SymFloorDivOp: operator.floordiv, hop.SymModOp: operator.mod,
    hop.SymMaxOp: max, hop.SymMinOp: min,
    hop.SymEqOp: operator.eq, hop.SymNeOp: operator.ne, hop.SymLtOp: operator.lt,
    hop.SymLeOp: operator.le, hop.SymGtOp: operator.gt, hop.SymGeOp: operator.ge,
}
"""Python's own operators: ``//`` and ``%`` round as the IR's expressions do."""


def _run_sym_binary(op: Operation, frame: _Frame) -> list[object]:
    return [_SYM_BINARY_FUNCTIONS[type(op)](frame.values[op.lhs], frame.values[op.rhs])]


def _run_item(op: hop.ItemOp, frame: _Frame) -> list[object]:
    value = int(frame.values[op.input].item())
    frame.symbols[op.result.type.value] = value
    return [value]


def _run_assert(op: hop.AssertOp, frame: _Frame) -> list[object]:
    if not frame.values[op.condition]:
        raise _error(op, f"assertion failed: {op.message.data}")
    return []


_RUNNERS: dict[type[Operation], Callable[[Operation, _Frame], Sequence[object]]] = {
    hop.WrapOp: _run_call,
    hop.CheckpointOp: _run_call,
    hop.CondOp: _run_cond,
    hop.WhileOp: _run_while,
    hop.ScanOp: _run_scan,
    hop.MapOp: _run_map,
    hop.InvokeSubgraphOp: _run_invoke_subgraph,
    hop.SymSizeOp: _run_sym_size,
    hop.SymConstantOp: _run_sym_constant,
    **dict.fromkeys(_SYM_BINARY_FUNCTIONS, _run_sym_binary),
    hop.ItemOp: _run_item,
    hop.AssertOp: _run_assert,
}
