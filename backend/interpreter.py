"""The reference interpreter: runs a hop-level module on PyTorch CPU tensors.

Every pass is tested against it (run before, run after, compare), so it does
the obvious thing at every op and nothing clever:

- an ATen op calls ``torch.ops.aten.<name>.<overload>`` on the very tensors it
  is given: in-place ops and views alias and mutate exactly as in eager mode,
  including the caller's arguments;
- a region op runs its regions as its docstring in ``hopc.dialects.hop`` says,
  binding block arguments to the operand values themselves (no copies);
- ops on shape symbols compute on Python ints and bools.

The core here runs blocks and regions and checks values; what each op does
is a rule of ``INTERPRETER_RULES`` (Note [rule tables] in
``hopc.ir.rule_table``): each HOP kind's in its module of ``hopc.backend.hops``,
every other op's in ``hopc.backend.interpreters`` (``aten`` for every ATen op),
so a new HOP or dialect brings its own implementations without editing this file.

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
[subgraph symbols] in ``hopc.dialects.hops.subgraph``). The body's scope is a child of
the call's in which the subgraph's parameters are bound afresh from the
operands, shadowing the caller's bindings of the same names (the caller's
``s0`` is not the parameter ``s0`` of a call at another size); every other
symbol reads the caller's binding. The body sees no SSA value of the caller,
and the call's results are checked in the caller's scope, in its symbols.
"""

from __future__ import annotations

from collections import ChainMap
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from xdsl.dialects.builtin import ModuleOp
from xdsl.dialects.func import FuncOp
from xdsl.ir import Attribute, Operation, Region, SSAValue
from xdsl.traits import IsTerminator

from hopc.backend.runtime.located_failures import InterpreterError
from hopc.dialects.hop_module import ENTRY_KIND_BY_NAME, EntryOp
from hopc.dialects.hop_module_structure import entry_function
from hopc.ir.diagnostics import op_error
from hopc.ir.rule_table import RuleTable
from hopc.ir.symbolic import UnboundSymbolError
from hopc.torch_bridge.runtime_types import bind_parameters, match_types


def interpreter_error(op: Operation, message: str) -> InterpreterError:
    """An ``InterpreterError`` located at ``op``."""
    located = op_error(op, message)
    return InterpreterError(located.message, located.location)


@dataclass(frozen=True)
class Frame:
    """The values visible while a block runs: SSA values and shape symbols.

    Invariant: a child frame sees every binding of its parents; what it binds
    itself is dropped with it (Note [interpreter symbol scopes]).
    """

    values: ChainMap[SSAValue, object]
    symbols: ChainMap[str, int]

    def child(self) -> Frame:
        return Frame(self.values.new_child(), self.symbols.new_child())

    def get(self, values: Sequence[SSAValue]) -> list[object]:
        return [self.values[v] for v in values]


Implementation = Callable[[Operation, Frame], Sequence[object]]
"""``(op, frame) -> values``, one per result of ``op``."""

INTERPRETER_RULES: RuleTable[Implementation] = RuleTable(
    "interpreter", packages=("hopc.backend.hops", "hopc.backend.interpreters"))
"""Op class -> its implementation (an ``AtenOp`` subclass takes ``AtenOp``'s): each HOP kind's
in its module of ``hopc.backend.hops``, every other op's in ``hopc.backend.interpreters``."""


def run_module(module: ModuleOp, args: Sequence[object], *,
               function: str | None = None) -> list[object]:
    """Runs an entry function of ``module`` on ``args``; returns its results.

    ``function`` is an entry kind (``"backward"``: the function a
    ``hop.entry backward`` names) or a function's symbol name; by default the
    forward entry, which in a module without ``hop.entry`` ops is its single
    public ``func.func`` (Note [entry signature]). A name that is an entry
    kind of the module and the symbol of another function is an error.
    ``args`` has one value per argument (parameters, buffers, saved values
    and cotangents included): a tensor for a tensor argument, an int for a
    ``!hop.symint`` one. Mutations of the tensors are visible to the caller.
    """
    entry = _entry_function(module, function)
    return run_region(entry.body, list(args), Frame(ChainMap(), ChainMap()), entry)


def _entry_function(module: ModuleOp, name: str | None) -> FuncOp:
    if name is None:
        return entry_function(module)
    found = [op for op in module.ops if isinstance(op, FuncOp) and op.sym_name.data == name]
    kinds = {op.kind.data for op in module.ops if isinstance(op, EntryOp)} or {"forward"}
    if name in kinds or (name in ENTRY_KIND_BY_NAME and not found):
        entry = entry_function(module, name)  # a located error when the module has no such entry
        found = [entry, *(op for op in found if op is not entry)]
    if not found:
        raise interpreter_error(module, f"has no entry kind or func.func named {name!r}")
    if len(found) > 1:
        raise interpreter_error(module, f"has two functions called {name!r}: its {name} entry "
                                        f"@{found[0].sym_name.data}, and @{name}")
    return found[0]


def run_region(region: Region, args: list[object], frame: Frame,
               owner: Operation) -> list[object]:
    """Runs the single block of ``region`` on ``args`` in a child of ``frame``.

    Returns the values its terminator returns.
    """
    if len(region.blocks) != 1:
        raise interpreter_error(owner, f"region has {len(region.blocks)} blocks, expected one")
    block = region.blocks.first
    if len(block.args) != len(args):
        raise interpreter_error(owner, f"region takes {len(block.args)} arguments, got {len(args)}")
    frame = frame.child()
    frame.values.update(zip(block.args, args))
    _check(owner, "argument", block.args, args, frame)
    for op in block.ops:
        if op.has_trait(IsTerminator, value_if_unregistered=False):
            return frame.get(op.operands)
        results = _run_op(op, frame)
        if len(results) != len(op.results):
            raise interpreter_error(op, f"produced {len(results)} values for {len(op.results)} results")
        frame.values.update(zip(op.results, results))
        _check(op, "result", op.results, results, frame)
    raise interpreter_error(owner, "region ends without a terminator")


def run_callee(body: Region, input_types: Sequence[Attribute], args: list[object], frame: Frame,
               call: Operation) -> list[object]:
    """Runs a callee's body (a subgraph's, a kernel's) in a scope of its own: its parameters
    bound afresh from ``args`` (Note [subgraph symbols]), no caller values."""
    scope = Frame(ChainMap(), frame.symbols.new_child())
    bind_parameters(args, input_types, scope.symbols)
    return run_region(body, args, scope, call)


def _check(op: Operation, kind: str, ssa_values: Sequence[SSAValue], values: Sequence[object],
           frame: Frame) -> None:
    mismatch = match_types(values, [v.type for v in ssa_values], frame.symbols)
    if mismatch is not None:
        index, reason = mismatch
        hint = ssa_values[index].name_hint
        raise interpreter_error(op, f"{kind} #{index}{f' (%{hint})' if hint else ''} {reason}")


def _run_op(op: Operation, frame: Frame) -> Sequence[object]:
    implementation = INTERPRETER_RULES.get(type(op))
    if implementation is None:
        raise interpreter_error(op, "has no semantics in the reference interpreter")
    try:
        return implementation(op, frame)
    except (RuntimeError, ValueError, TypeError, IndexError, ZeroDivisionError,
            UnboundSymbolError) as error:
        raise interpreter_error(op, f"failed: {error}") from error
