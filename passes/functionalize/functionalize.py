"""Removes mutation and aliasing: every value is produced once and never changed.

Establishes (for every region, at any depth): no op has a mutable or aliasing
schema — no in-place op, no ``out=`` op, no view; views are their copying
forms (``aten.select.int`` -> ``aten.select_copy.int``). The entry function
returns the final value of each input or buffer the program changed, marked
``{hop.copy_back_to = i}``; a HOP whose body changed an operand returns its
final value as a result. ``--verify-functional`` checks the first part.

Assumes a verified module at the captured level: every value a region reads,
one it changes in place included, is an operand of its HOP (Note [isolated
regions] in ``hopc.dialects.hop_interface``), and each base tensor (an
input, or the result of an op that is not a view) is dense and row-major.

Before::

    func.func @f(%x: !hop.tensor<[4, 4], f32>) -> !hop.tensor<[4], f32> {
      %row = aten.select.int(%x) {dim = 0 : i64, index = 0 : i64} : (...) -> !hop.tensor<[4], f32>
      %0 = aten.add_.Scalar(%row) {other = 1 : i64} : (...) -> !hop.tensor<[4], f32>
      %col = aten.select.int(%x) {dim = 1 : i64, index = 0 : i64} : (...) -> !hop.tensor<[4], f32>
      func.return %col : !hop.tensor<[4], f32>
    }

After::

    func.func @f(%x: !hop.tensor<[4, 4], f32>) -> (!hop.tensor<[4], f32>,
                 !hop.tensor<[4, 4], f32> {hop.copy_back_to = 0 : i64}) {
      %row = aten.select_copy.int(%x) {dim = 0 : i64, index = 0 : i64} : ...
      %0 = aten.add.Scalar(%row) {other = 1 : i64} : ...
      %1 = aten.select_scatter(%x, %0) {dim = 0 : i64, index = 0 : i64} : ...
      %col = aten.select_copy.int(%1) {dim = 1 : i64, index = 0 : i64} : ...
      func.return %col, %1 : ...
    }

Note [view replay]
~~~~~~~~~~~~~~~~~~
Each tensor value of the original program is a chain of views of one storage
(``aliases``). An in-place op on a value computes its
functional form (``mutation``), then writes the result back to
the base by scattering it through the chain, innermost view first
(``select_scatter``, ``slice_scatter``, ``diagonal_scatter``,
``as_strided_scatter``; ``view_copy`` back to the input's shape, or the
transpose back, for views that keep every element), and the result becomes
the base's current value. A later read of the base or of any view of it —
made before or after the write, including the in-place op's own result —
replays the view's copying form on that current value (once per write: reads
are cached). So every read sees exactly what PyTorch's aliasing would show; a
read of a view's layout (``storage_offset``, ``stride``) is eager's value,
from its type (Note [layout reads of views] in ``layout_reads.py``).
Ops are built lazily: a view nobody reads costs nothing, and a module without
mutation or views comes out unchanged. A write through a view with no inverse
(``expand``, ``unfold``) is a located error, as is an in-place op with no
functional form.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.dialects.func import FuncOp
from xdsl.ir import Block, Operation, SSAValue
from xdsl.passes import ModulePass

from hopc.dialects import hop
from hopc.dialects.aten import AtenOp
from hopc.dialects.hop_module_structure import entry_function, entry_signature
from hopc.ir.diagnostics import op_error
from hopc.ir.rule_table import RuleTable
from hopc.passes.functionalize.aliases import AliasState, describe
from hopc.passes.functionalize.hops.common import HopRule, functionalize_subgraph
from hopc.passes.functionalize.layout import Layout, LayoutRules
from hopc.passes.functionalize.layout_reads import reads_layout_of_view, replace_layout_read
from hopc.passes.functionalize.mutation import VALUE_PRESERVING_IN_PLACE, functionalize_mutation
from hopc.passes.functionalize.regions import BlockResult, HopEffects, yield_sources
from hopc.passes.functionalize.running_stats import functionalize_running_stats
from hopc.passes.functionalize.signature import add_copy_back_results

FUNCTIONALIZE_RULES: RuleTable[HopRule] = RuleTable("functionalize",
                                                    packages=("hopc.passes.functionalize.hops",))
"""HOP op class -> how functionalize rewrites it; one module per kind in
``hopc.passes.functionalize.hops`` (Note [rule tables] in ``hopc.ir.rule_table``)."""


@dataclass(frozen=True)
class FunctionalizePass(ModulePass):
    """Removes in-place ops, out= ops and views, in every region; inputs changed become results."""

    name = "functionalize"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        Functionalizer(op).run()


@dataclass
class Functionalizer:
    """Rewrites the module's functions and subgraphs, one block at a time, in program order."""

    module: ModuleOp
    state: AliasState = field(init=False)
    _subgraphs: dict[hop.SubgraphOp, HopEffects | None] = field(default_factory=dict)

    def __post_init__(self) -> None:
        bounds = {s.symbol: s.value_range[0] or 0 for s in self.module.ops
                  if isinstance(s, hop.SymbolOp)}
        self.state = AliasState(LayoutRules(bounds))

    def run(self) -> None:
        entry = entry_function(self.module)
        for op in list(self.module.ops):
            if isinstance(op, hop.SubgraphOp):
                self.subgraph_effects(op, op)
        for op in list(self.module.ops):
            if isinstance(op, FuncOp) and op.body.blocks:
                self._functionalize_function(op, op is entry)

    def _functionalize_function(self, function: FuncOp, is_entry: bool) -> None:
        if is_entry:
            self._set_entry_layouts(function)
        result = self.functionalize_block(function.body.block)
        changed = {index: root.storage for index, root in result.mutated.items()}
        if changed and not is_entry:
            index, storage = next(iter(changed.items()))
            raise op_error(storage.mutated_by,
                           f"changes {describe(function.body.block.args[index])}, an argument of "
                           f"@{function.sym_name.data}, in place; only the entry function's "
                           "arguments can be copied back")
        add_copy_back_results(function, {i: s.current for i, s in changed.items()},
                              {i: s.mutated_by for i, s in changed.items()})

    def _set_entry_layouts(self, function: FuncOp) -> None:
        """Entry arguments with ``hop.strides`` have that layout; the others are row-major."""
        rules = self.state.layouts.rules
        for index, strides in entry_signature(self.module).strides.items():
            argument = function.body.block.args[index]
            sizes = tuple(rules.expression(d) for d in argument.type.shape)
            self.state.layout_origins[argument] = Layout(
                sizes, tuple(rules.expression(d) for d in strides), rules.expression(0))

    def subgraph_effects(self, subgraph: hop.SubgraphOp, user: Operation) -> HopEffects:
        """The effects of calling ``subgraph``, functionalizing it on first use."""
        if subgraph in self._subgraphs:
            effects = self._subgraphs[subgraph]
            if effects is None:
                raise op_error(user, f"calls subgraph @{subgraph.sym_name.data} recursively")
            return effects
        self._subgraphs[subgraph] = None
        effects = self._subgraphs[subgraph] = functionalize_subgraph(self, subgraph)
        return effects

    # ------------------------------------------------------------------- blocks

    def functionalize_block(self, block: Block, operands: Sequence[SSAValue] | None = (),
                            unknown_layouts: Collection[int] = ()) -> BlockResult:
        """Rewrites ``block`` in place; reports what it changed and what it yields.

        ``operands`` are the values the block's arguments stand for (see
        ``AliasState.entering``).
        """
        state = self.state
        with state.entering(block, operands, unknown_layouts) as roots:
            replaced: list[Operation] = []
            layout_reads: list[Operation] = []
            terminator = block.last_op
            for op in list(block.ops):
                if op is terminator:
                    break
                state.cursor = op
                if reads_layout_of_view(state, op):
                    layout_reads.append(op)
                elif self._functionalize_op(op):
                    replaced.append(op)
            sources = yield_sources(state, roots, list(terminator.operands))
            yielded = [state.aliases.get(v) for v in terminator.operands]
            state.cursor = terminator
            terminator.operands = [state.read(v, terminator) for v in terminator.operands]
            for op in reversed(replaced):
                block.detach_op(op).drop_all_references()  # results are unused but by layout reads
            for read in layout_reads:  # now that no view is left in scope to take a size from
                replace_layout_read(read)
        return BlockResult(block, roots, sources, terminator, yielded)

    def _functionalize_op(self, op: Operation) -> bool:
        """Rewrites one op; True when it is to be erased (its results are now aliases)."""
        if isinstance(op, AtenOp):
            if op.name in VALUE_PRESERVING_IN_PLACE:  # only autograd metadata changes
                self.state.aliases[op.results[0]] = self.state.alias_of(op.operands[0])
                return True
            if op.undeclared_writes():
                functionalize_running_stats(self.state, op)
                return True
            if op.SCHEMA.is_mutating:
                functionalize_mutation(self.state, op)
                return True
            if not op.SCHEMA.is_functional:
                self.state.register_view(op)
                return True
        rewrite = FUNCTIONALIZE_RULES.get(type(op))
        if rewrite is not None:
            rewrite(self, op)
            return False
        if op.regions:
            raise op_error(op, "has regions that functionalize does not know how to rewrite")
        state = self.state  # an operand in neither map is a row-major base, which decides nothing
        origins = [state.alias_of(v) for v in op.operands
                   if v in state.aliases or v in state.layout_origins]
        if origins:
            state.layout_origins.update(dict.fromkeys(op.results, origins))
        values = [state.read(v, op) for v in op.operands]
        if any(new is not old for new, old in zip(values, op.operands)):
            op.operands = values
        return False
