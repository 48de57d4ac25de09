"""Where shape symbols are used and bound in a region: shared by ``lift-symbols`` and its checker.

Note [where a symbol is bound]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
A region *uses* a shape symbol when the symbol occurs in the type of one of
its block arguments, in the type of an operand or result of an op directly in
its block, or in an op's properties or attributes (``#hop.expr<s0>`` in an
ATen size list, at any depth of nesting in arrays and dictionaries). A region *binds* a symbol

- by a block argument of type ``!hop.symint<s>`` (the plain symbol, not an
  expression over it), or ``!hop.symfloat<s>`` for a float symbol;
- in a ``func.func`` or ``hop.subgraph`` body only: also by an argument
  whose tensor type has ``s`` as a whole dimension. The caller's tensors
  carry the sizes, so the entry function and the shared subgraphs, which
  are parametric in the symbols their arguments bind (Note [subgraph
  symbols] in ``hopc.dialects.hop``), are the regions whose tensor arguments
  bind symbols; the regions of other HOPs never do, and get ``!hop.symint``
  arguments instead, as PyTorch lifts free symbols of HOP subgraphs even
  where a placeholder's shape holds them;
- by definition: the first use of a symbol that is not declared ``backed``
  is a result of an op directly in the block, whose type (or that of
  another result of the op: a call's ``[4*u2]`` and ``[u2]``) is
  ``!hop.symint<s>`` or ``!hop.symfloat<s>`` (``hop.item``) or a tensor with ``s`` as a whole
  dimension (an unbacked size, such as ``nonzero``'s, or a HOP result
  carrying one out of its body, under a name of its own at each call: Note
  [call result symbols] in ``hopc.dialects.hop_call_results``).

A symbol that a region uses and does not bind is *free* there. A region is
symbol-closed when nothing is free in it; each region is judged on its own,
since the operands a HOP passes to its regions are values of the enclosing
block, whose types that block must bind.

Note [lifted symbol ordering]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
The free symbols of a region come in the order first needed, walking the
region as it runs: the block arguments' types, then op by op, for each op its
properties, what its own regions (or the subgraph it invokes) need from it,
and its results' types. Within a type, dimensions go left to right and the
symbols of an expression in the order its canonical text names them. Lifted arguments follow the region's original
ones, so a region's arguments read O1, O2, ..., then X1, X2, ..., the
order PyTorch gives the lifted free symbols of a HOP subgraph (PR 138363).

Only symbols are lifted: every SSA value a region reads is already an operand
of its HOP (Note [isolated regions] in ``hopc.dialects.hop_interface``), so an
operand's type was needed where the value was defined or came in.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from xdsl.dialects.func import FuncOp
from xdsl.ir import Attribute, Operation, Region

from hopc.dialects.hop import SubgraphOp
from hopc.ir.symbol_uses import symbols_of_attribute
from hopc.ir.types import SymFloatType, SymIntType, TensorType


def plain_symbol(type_: Attribute) -> str | None:
    """``s`` for ``!hop.symint<s>`` (``zuf0`` for ``!hop.symfloat<zuf0>``); None for any other
    type, compound expressions included."""
    if isinstance(type_, SymIntType | SymFloatType) and isinstance(type_.value, str) \
            and type_.value.isidentifier():
        return type_.value
    return None


def whole_dimensions(type_: Attribute) -> list[tuple[int, str]]:
    """(index, symbol) for each dimension of a tensor type that is a single symbol."""
    if not isinstance(type_, TensorType):
        return []
    return [(index, dim) for index, dim in enumerate(type_.shape)
            if isinstance(dim, str) and dim.isidentifier()]


def _defines(type_: Attribute, name: str) -> bool:
    return plain_symbol(type_) == name or any(dim == name for _, dim in whole_dimensions(type_))


def binds_by_shape(region: Region) -> bool:
    """Whether ``region``'s tensor arguments bind their whole dimensions: a function's or
    a subgraph's body (Note [where a symbol is bound])."""
    return isinstance(region.parent_op(), FuncOp | SubgraphOp)


def argument_bindings(region: Region) -> set[str]:
    """The symbols a region's block arguments bind (Note [where a symbol is bound])."""
    bound = {name for arg in region.block.args if (name := plain_symbol(arg.type))}
    if binds_by_shape(region):
        bound |= {name for arg in region.block.args for _, name in whole_dimensions(arg.type)}
    return bound


def free_symbols(region: Region, backed: frozenset[str],
              nested_needs: Callable[[Operation], Iterable[str]] | None = None) -> dict[str, Operation]:
    """The symbols ``region`` uses and does not bind, in first-needed order, each with its
    first user.

    The user of a symbol in a block argument's type is the region's owner.
    With ``nested_needs`` (the symbols each op's own regions need from it) the
    result is what must be lifted into the region; without, it is what is
    free in the region itself (Note [where a symbol is bound]).
    """
    block = region.block
    owner = region.parent_op()
    assert owner is not None
    bound = argument_bindings(region)
    free: dict[str, Operation] = {}

    def need(names: Iterable[str], user: Operation) -> None:
        for name in names:
            if name not in bound and name not in free:
                free[name] = user

    for arg in block.args:
        need(symbols_of_attribute(arg.type), owner)
    for op in block.ops:
        for attribute in (*op.properties.values(), *op.attributes.values()):
            need(symbols_of_attribute(attribute), op)
        if nested_needs is not None:
            need(nested_needs(op), op)
        for result in op.results:  # one result may define what another has in an expression
            for name in symbols_of_attribute(result.type):
                if name not in bound and name not in free and name not in backed \
                        and _defines(result.type, name):
                    bound.add(name)
        for result in op.results:
            need(symbols_of_attribute(result.type), op)
    return free
