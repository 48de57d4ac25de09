"""xDSL's ``SymbolTable.lookup_symbol`` at the cost of a dictionary lookup.

xDSL walks the ops of the nearest symbol table (the module) until it meets
the name, so looking up the kernel of every ``kernel.launch`` (its verifier,
``plan-memory``, code generation, the interpreter) costs the launches times
the kernels: quadratic in a module whose kernels differ.
``lookup_symbol(op, reference)`` keeps, per symbol-table block, a table of
its symbols by name (Note [symbol lookup table]).

Note [symbol lookup table]
~~~~~~~~~~~~~~~~~~~~~~~~~~
The table maps each name to the first op of the block that declares it, as
xDSL's walk finds it. An entry is trusted only while its op is still in that
block under that name; otherwise (an op erased, moved or renamed, a symbol
added since) one walk of the block rebuilds the table. The answer is then
xDSL's wherever a block declares each name once, which the ``SymbolTable``
verifier requires; with two ops of one name, an entry may stay on the one
xDSL would find second. Tables are held weakly by their block: a module
dropped takes its table along.
"""

from __future__ import annotations

from weakref import WeakKeyDictionary

from xdsl.dialects.builtin import SymbolRefAttr
from xdsl.ir import Block, Operation
from xdsl.traits import SymbolOpInterface, SymbolTable

_TABLES: WeakKeyDictionary[Block, dict[str, Operation]] = WeakKeyDictionary()


def lookup_symbol(op: Operation, reference: SymbolRefAttr) -> Operation | None:
    """``SymbolTable.lookup_symbol(op, reference)`` (module docstring)."""
    anchor: Operation | None = op
    while anchor is not None and not anchor.has_trait(SymbolTable):
        anchor = anchor.parent_op()
    if anchor is None or reference.nested_references.data:
        return SymbolTable.lookup_symbol(op, reference)
    block = anchor.regions[0].block
    name = reference.root_reference.data
    table = _TABLES.get(block)
    found = table.get(name) if table is not None else None
    if found is None or found.parent is not block or _symbol_name(found) != name:
        table = _TABLES[block] = _symbols(block)
        found = table.get(name)
    return found


def _symbols(block: Block) -> dict[str, Operation]:
    table: dict[str, Operation] = {}
    for op in block.ops:
        if (name := _symbol_name(op)) is not None:
            table.setdefault(name, op)
    return table


def _symbol_name(op: Operation) -> str | None:
    symbol = op.get_trait(SymbolOpInterface)
    attribute = symbol.get_sym_attr_name(op) if symbol is not None else None
    return attribute.data if attribute is not None else None
