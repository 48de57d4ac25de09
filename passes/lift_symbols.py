"""Lifts the free shape symbols of every HOP region into ``!hop.symint`` block arguments.

Invariant after the pass (the symbol-closed level): every shape symbol that a
region uses is bound by that region (Note [where a symbol is bound] in
``lift_symbols_analysis``): by a ``!hop.symint<s>`` block argument, by an op
of the region that defines it, or, in a ``func.func`` or ``hop.subgraph``
body, by the shapes of its arguments. Each region gets one argument per
symbol it lacks, after its original arguments, in the order first needed
(Note [lifted symbol ordering]); its HOP passes the enclosing block's binding
of the symbol, lifted in turn into that block where it is free there, up to
the function. The lifted symbols are new operands of each HOP, so its regions
stay isolated (Note [isolated regions] in ``hopc.dialects.hop_interface``), as
every region already is. This is PyTorch's lifting of free symbols of HOP
subgraphs (PR 138363) as an IR pass. A subgraph, parametric in the symbols its
arguments bind (Note [subgraph symbols] in ``hopc.dialects.hops.subgraph``), gets
arguments only for the other symbols it uses, which mean the same at every
call; each call passes its own binding of them.

Assumes a verified module at the captured or functional level whose backed
symbols are whole dimensions of the entry function's arguments. A symbol that
no enclosing block binds is a located error naming it.

Before::

    func.func @f(%p: !hop.tensor<[], i1>, %x: !hop.tensor<[s0], f32>) -> ... {
      %r = hop.cond %p (%x) : ... then {
      ^bb0(%a: !hop.tensor<[s0], f32>):
        %z = aten.zeros() {size = [#hop.expr<2*s0>]} : () -> !hop.tensor<[2*s0], f32>
        ...

After::

    func.func @f(%p: !hop.tensor<[], i1>, %x: !hop.tensor<[s0], f32>) -> ... {
      %s0 = hop.sym_size %x[0] : !hop.tensor<[s0], f32> -> !hop.symint<s0>
      %r = hop.cond %p (%x, %s0) : ... then {
      ^bb0(%a: !hop.tensor<[s0], f32>, %s0_1: !hop.symint<s0>):
        ...
"""

from __future__ import annotations

from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.dialects.func import FuncOp
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass

from hopc.dialects.hop import SubgraphOp, SymSizeOp
from hopc.dialects.hop_interface import append_invariant_operands, hop_interface
from hopc.dialects.hop_module_structure import declared_symbols
from hopc.ir.diagnostics import op_error
from hopc.ir.dims import is_float_symbol_name
from hopc.ir.types import SymFloatType, SymIntType
from hopc.passes.lift_symbols_analysis import (
    binds_by_shape,
    free_symbols,
    plain_symbol,
    whole_dimensions,
)


class LiftSymbolsPass(ModulePass):
    """Makes every HOP region bind the shape symbols it uses (lifted !hop.symint arguments)."""

    name = "lift-symbols"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        _SymbolLifter(op).run()


def _lifted_type(symbol: str) -> Attribute:
    return SymFloatType(symbol) if is_float_symbol_name(symbol) else SymIntType(symbol)


# Note [where lifted operands go]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# Lifted symbols are loop-invariant inputs: each HOP's
# ``HopRegionInterface.invariant_operands`` (``inputs`` of cond, wrap,
# checkpoint and invoke_subgraph, ``additional`` of while, scan and map) reach
# each region unchanged, as its last block arguments. Appending there appends
# to the block arguments of every region of the op, so the verifiers'
# operand/argument correspondence holds. Sibling regions (cond's branches, while's cond and body) get the same
# lifted arguments: the union of their needs, in region order.


@dataclass
class _Bindings:
    """How one block binds each symbol at the current point of a walk over it.

    ``values`` holds SSA values of the block; ``pending`` holds symbols known
    as a whole dimension of a tensor of the block, made a ``hop.sym_size``
    (once, right after the tensor's definition or at the top of the block for
    an argument) the first time a HOP needs it.
    """

    block: Block
    values: dict[str, SSAValue] = field(default_factory=dict)
    pending: dict[str, tuple[SSAValue, int]] = field(default_factory=dict)
    last_size_of: dict[SSAValue, Operation] = field(default_factory=dict)
    last_size_at_top: Operation | None = None

    @classmethod
    def of_arguments(cls, region: Region, lifted: dict[str, SSAValue]) -> _Bindings:
        bindings = cls(region.block, dict(lifted))
        for arg in region.block.args:
            if (name := plain_symbol(arg.type)) is not None:
                bindings.values.setdefault(name, arg)
            elif binds_by_shape(region):
                bindings.note_dimensions(arg)
        return bindings

    def note_dimensions(self, tensor: SSAValue) -> None:
        for dim, name in whole_dimensions(tensor.type):
            if name not in self.values and name not in self.pending:
                self.pending[name] = (tensor, dim)

    def note_results(self, op: Operation) -> None:
        for result in op.results:
            name = plain_symbol(result.type)
            if name is not None and name not in self.values:
                self.values[name] = result
                self.pending.pop(name, None)
            self.note_dimensions(result)

    def value(self, symbol: str) -> SSAValue:
        """The block's value for ``symbol``, materializing a pending ``hop.sym_size``."""
        if symbol in self.values:
            return self.values[symbol]
        tensor, dim = self.pending.pop(symbol)
        size = SymSizeOp(tensor, dim)
        size.result.name_hint = symbol
        if isinstance(tensor.owner, Operation):
            self.block.insert_op_after(size, self.last_size_of.get(tensor, tensor.owner))
            self.last_size_of[tensor] = size
        elif self.last_size_at_top is not None:
            self.block.insert_op_after(size, self.last_size_at_top)
            self.last_size_at_top = size
        else:
            first = self.block.first_op
            assert first is not None, "a block ends with its terminator"
            self.block.insert_op_before(size, first)
            self.last_size_at_top = size
        self.values[symbol] = size.result
        return size.result


class _SymbolLifter:
    """Computes each region's needs on the unchanged module, then rewrites top-down."""

    def __init__(self, module: ModuleOp):
        self.module = module
        self.backed = frozenset(name for name, symbol in declared_symbols(module).items()
                                if symbol.kind.data == "backed")
        self._free: dict[Region, dict[str, Operation]] = {}
        self._in_progress: set[Region] = set()

    def needs(self, region: Region) -> tuple[str, ...]:
        """The symbols lifted into ``region`` (Note [lifted symbol ordering])."""
        return tuple(self._free_in(region))

    def _free_in(self, region: Region) -> dict[str, Operation]:
        if region not in self._free:
            if region in self._in_progress:
                raise op_error(region.parent_op(), "invokes itself; a cycle of subgraphs "
                                                   "cannot lift symbols")
            self._in_progress.add(region)
            self._free[region] = free_symbols(region, self.backed, self.op_needs)
            self._in_progress.discard(region)
        return self._free[region]

    def op_needs(self, op: Operation) -> tuple[str, ...]:
        """What the regions of ``op`` (or the subgraph it invokes) need from its block:
        the union over the regions it enters from its operands (Note [where lifted
        operands go]; a subgraph's body is entered by its calls)."""
        interface = hop_interface(op)
        if interface is None:
            return ()
        union: dict[str, None] = {}
        for entry in interface.entries(op):
            union.update(dict.fromkeys(self.needs(entry.region)))
        return tuple(union)

    def run(self) -> None:
        roots = [op for op in self.module.ops
                 if isinstance(op, (FuncOp, SubgraphOp)) and op.body.blocks]
        for root in roots:  # every need is computed before anything changes
            free = self._free_in(root.body)
            if isinstance(root, FuncOp) and free:
                name, user = next(iter(free.items()))
                raise op_error(user, f"uses shape symbol '{name}', which @{root.sym_name.data} "
                                     "does not bind: no argument has it as a whole dimension "
                                     f"or as !hop.symint<{name}>, and no op before defines it")
        for root in roots:
            lifted = self._add_arguments(root.body, self.needs(root.body))
            self._rewrite(root.body, _Bindings.of_arguments(root.body, lifted))

    @staticmethod
    def _add_arguments(region: Region, symbols: tuple[str, ...]) -> dict[str, SSAValue]:
        lifted: dict[str, SSAValue] = {}
        for symbol in symbols:
            arg = region.block.insert_arg(_lifted_type(symbol), len(region.block.args))
            arg.name_hint = symbol
            lifted[symbol] = arg
        return lifted

    def _rewrite(self, region: Region, bindings: _Bindings) -> None:
        for op in list(region.block.ops):
            symbols = self.op_needs(op)
            if symbols:
                append_invariant_operands(op, [bindings.value(symbol) for symbol in symbols])
            for inner in op.regions:
                lifted = self._add_arguments(inner, symbols)
                self._rewrite(inner, _Bindings.of_arguments(inner, lifted))
            bindings.note_results(op)
