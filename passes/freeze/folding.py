"""Constant folding with PyTorch's own kernels, into every HOP region.

``ConstantFolder.fold_block(block)`` rewrites, in ``block`` and every region
nested in it:

- a composite ATen op reading a constant (``aten.linear``'s weight) to its
  decomposition, so the layout work on the constant folds (Note [prepared
  layouts] in ``layouts.py``);
- an ATen op whose tensor operands all read constants (``hop.get_constant``)
  to a ``hop.get_constant`` of a new constant, its value computed by the
  kernel the reference interpreter calls (``call_aten``), where it may fold
  (Note [what folds]);
- a HOP's loop-invariant operand that reads a constant to a
  ``hop.get_constant`` in each region it enters (Note [folding through
  regions]); the unread block argument is dropped afterwards by ``dce``;
- a HOP result that every region yielding it yields as one constant to that
  constant;
- a ``hop.cond`` whose predicate is known to its taken branch
  (``InlineCondWithConstantPredicate``), and a ``hop.while`` whose condition
  is false on entry to its initial carried values (Note [while false on
  entry]).

Invariant: values are only replaced by equal values (the interpreter's kernel
on the same constants), and no folded constant exceeds ``max_constant_bytes``.

Note [what folds]
~~~~~~~~~~~~~~~~~
An ATen op folds when every tensor operand reads a constant (an op without
tensor operands, a factory like ``arange``, counts), it draws no random
numbers (``is_random``), it neither writes nor aliases (the module is
functional), every result is a tensor whose type has static sizes (an op
with a symbolic or data-dependent result size never folds, nor one with a
symbolic argument), and each result fits in ``max_constant_bytes`` (checked
on the type, before the kernel runs). The kernel runs on the constants'
values under ``torch.no_grad()``; an op whose kernel raises (a branch that
would fail if it were taken, say an index out of range in the branch not
taken) or gives a value that does not match its result type is left as it
is: folding never makes a program fail that did not.

Note [folding through regions]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
A region reads a constant only through its HOP's operand (Note [isolated
regions]), so a constant operand is made a ``hop.get_constant`` of the same
constant inside the region, where the ops reading it can fold. Only the
operands that reach every run of every region unchanged qualify
(``HopRegionInterface.invariant_operands``: a cond's inputs, the additional
operands of a while, scan or map, a wrap's or checkpoint's inputs); a loop's
carried values and a scan's or map's sliced ``xs`` change from run to run.
So a loop-invariant computation on constants in a while body folds once, at
compile time. A shared ``hop.subgraph`` is entered by ``subgraphs.py`` only
where every call passes the same constant.

Note [while false on entry]
~~~~~~~~~~~~~~~~~~~~~~~~~~~
A while's condition region first runs on the initial carried values. Where
those that it reads are constants, a copy of the region with them bound is
folded; if it then yields a known False, the loop runs no iteration: the
while becomes the copy's ops (run once, as the condition is) and its results
the initial carried values, as ``RemoveWhileWithFalseCondition`` rewrites a
condition that is always False.
"""

from __future__ import annotations

import torch
from xdsl.dialects.builtin import ArrayAttr
from xdsl.dialects.func import ReturnOp
from xdsl.ir import Attribute, Block, BlockArgument, Operation
from xdsl.pattern_rewriter import PatternRewriter

from hopc.dialects.aten import AtenOp
from hopc.dialects.hop import CondOp, GetConstantOp, InvokeSubgraphOp, WhileOp
from hopc.dialects.hop_interface import HopRegionInterface, hop_interface
from hopc.ir.types import ExprAttr, TensorType
from hopc.passes.canonicalization.hop import (
    InlineCondWithConstantPredicate,
    known_truth,
    replace_with_region,
)
from hopc.passes.freeze.constant_table import ConstantTable, constant_name
from hopc.passes.freeze.layouts import prepare_layout
from hopc.torch_bridge.aten_call import call_aten
from hopc.torch_bridge.runtime_types import match_types
from hopc.torch_bridge.torch_values import dtype_of


class ConstantFolder:
    """Folds constants into the blocks it is given (see the module docstring).

    ``changed`` says whether anything was rewritten since it was last reset;
    ``folded`` counts the ATen ops folded.
    """

    def __init__(self, table: ConstantTable, max_constant_bytes: int):
        self.table = table
        self.max_constant_bytes = max_constant_bytes
        self.changed = False
        self.folded = 0
        self._entry_tried: dict[WhileOp, tuple[str | None, ...]] = {}
        self._folded_before: dict[tuple, list[str] | None] = {}
        """(op name, properties, operand constants) -> the constants of its results: one op on the
        same constants, in two regions, folds once and reads the same constants."""

    def fold_block(self, block: Block) -> None:
        op = block.first_op
        while op is not None:
            following = op.next_op
            if isinstance(op, AtenOp):
                self._fold_aten(op)
            elif isinstance(op, InvokeSubgraphOp):
                self._replace_constant_results(op)
            elif op.regions and (interface := hop_interface(op)) is not None:
                self._fold_hop(op, interface)
            op = following

    def bind(self, argument: BlockArgument, name: str) -> None:
        """Makes every use of ``argument`` read ``hop.constant @name`` instead."""
        if not argument.uses:
            return
        block = argument.block
        read = GetConstantOp(name, argument.type)
        block.insert_op_before(read, block.first_op)  # a region's block ends with its terminator
        argument.replace_all_uses_with(read.results[0])
        self.changed = True

    # ----------------------------------------------------------------- ATen ops

    def _fold_aten(self, op: AtenOp) -> None:
        operands = [v for _, group in op.operand_groups() for v in group]
        names = [constant_name(v) for v in operands]
        if None in names and prepare_layout(op, self.table.module):
            self.changed = True  # its decomposition, before it, folds in the next sweep
            return
        if None in names or not self._may_fold(op) or _is_output_copy(op):
            return
        key = (op.name, tuple(sorted(op.properties.items())), tuple(names))
        if key not in self._folded_before:
            self._folded_before[key] = self._evaluate(op, names)
        if self._folded_before[key] is None:
            return
        block = op.parent_block()
        assert block is not None
        for result, name in zip(op.results, self._folded_before[key], strict=True):
            read = GetConstantOp(name, result.type)
            read.location = op.location
            block.insert_op_before(read, op)
            result.replace_all_uses_with(read.results[0])
        block.erase_op(op)
        self.folded += 1
        self.changed = True

    def _evaluate(self, op: AtenOp, names: list[str]) -> list[str] | None:
        """The constants holding ``op``'s results on the constants ``names``, or None where it
        does not fold (Note [what folds])."""
        try:
            with torch.no_grad():
                values = call_aten(op, self.table.value_of, {})
        except Exception:  # Note [what folds]: the op stays, to fail (or not) at run time
            return None
        types = [r.type for r in op.results]
        if len(values) != len(types) or match_types(values, types, {}) is not None \
                or any(not isinstance(v, torch.Tensor) or v.device.type != "cpu" for v in values):
            return None
        inputs = {self.table.tensor(name).untyped_storage().data_ptr() for name in names}
        # a kernel may return its input: constants share no memory
        return [self.table.add(v.clone() if v.untyped_storage().data_ptr() in inputs else v) for v in values]

    def _may_fold(self, op: AtenOp) -> bool:
        """The checks of Note [what folds] that the types and properties can answer."""
        if op.is_random or op.mutated_operands() or op.is_view:
            return False
        if any(_symbolic(attribute) for attribute in op.properties.values()):
            return False
        sizes = [_static_bytes(r.type) for r in op.results]
        return all(size is not None and size <= self.max_constant_bytes for size in sizes)

    # ----------------------------------------------------------------- HOPs

    def _fold_hop(self, op: Operation, interface: type[HopRegionInterface]) -> None:
        entries = interface.entries(op)
        for position in interface.invariant_operands(op):
            name = constant_name(op.operands[position])
            if name is not None:
                for entry in entries:
                    for argument in entry.arguments_of(position):
                        self.bind(argument, name)
        for region in op.regions:
            self.fold_block(region.block)
        self._replace_constant_results(op)
        if isinstance(op, CondOp):
            rewriter = PatternRewriter(op)
            InlineCondWithConstantPredicate(self.table.value_of).match_and_rewrite(op, rewriter)
            self.changed |= rewriter.has_done_action
        elif isinstance(op, WhileOp):
            self._remove_if_false_on_entry(op)

    def _replace_constant_results(self, op: Operation) -> None:
        """Each used result that every region yielding it yields as one constant reads that constant."""
        interface = hop_interface(op)
        assert interface is not None
        entries = interface.entries(op)
        block = op.parent_block()
        for index, result in enumerate(op.results):
            yielding = [e for e in entries if index in e.results]
            if not result.uses or not yielding or \
                    any(index < e.carried or index in e.stacked for e in yielding):
                continue
            yielded = [e.region.block.last_op.operands[index] for e in yielding]
            names = {constant_name(v) for v in yielded}
            if len(names) != 1 or None in names or any(v.type != result.type for v in yielded):
                continue
            read = GetConstantOp(names.pop(), result.type)
            block.insert_op_before(read, op)
            result.replace_all_uses_with(read.results[0])
            self.changed = True

    def _remove_if_false_on_entry(self, op: WhileOp) -> None:
        """Note [while false on entry]; tried again only when other carried values became constants."""
        known = tuple(constant_name(v) for v in op.carried)
        if self._entry_tried.get(op) == known:
            return
        self._entry_tried[op] = known
        region = op.cond_region.clone()
        changed, folded = self.changed, self.folded
        for argument, name in zip(region.block.args, known):
            if name is not None:
                self.bind(argument, name)
        self.fold_block(region.block)
        self.changed, self.folded = changed, folded
        if known_truth(region.block.last_op.operands[0], self.table.value_of) is False:
            replace_with_region(PatternRewriter(op), op, region, (*op.carried, *op.additional),
                                results=tuple(op.carried))
            self.changed = True


def _is_output_copy(op: AtenOp) -> bool:
    """Whether ``op`` copies a value that only ``func.return`` reads (Note [output copies stay])."""
    return op.name == "aten.clone" and all(isinstance(use.operation, ReturnOp) for use in op.results[0].uses)


def _symbolic(attribute: Attribute) -> bool:
    if isinstance(attribute, ExprAttr):
        return True
    return isinstance(attribute, ArrayAttr) and any(_symbolic(a) for a in attribute.data)


def _static_bytes(type_: Attribute) -> int | None:
    """The bytes of a tensor of ``type_``; None for another type or a symbolic size."""
    if not isinstance(type_, TensorType) or not all(isinstance(d, int) for d in type_.shape):
        return None
    count = 1
    for dim in type_.shape:
        count *= dim
    return count * dtype_of(type_.element_type).itemsize
