"""Fresh shape symbols for the backward rules, and cloning ops under a renaming of symbols.

A rule that gives a HOP result a size no operand names (a cond's residual
slots, Note [cond residual slots] in ``hopc.passes.autograd.hops.cond``) takes
a fresh unbacked symbol from ``fresh_symbol``: a name unique in the module
being differentiated (``JointBuilder.module``), declared there at once
(``hop.symbol @u7 unbacked [0, oo]``).

``clone_substituted`` clones an op, its regions included, renaming shape
symbols in every type and attribute (``hopc.ir.substitution``): how a region
body moves to where its own symbols have other names.
"""

from __future__ import annotations

from itertools import count

from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.traits import SymbolTable

from hopc.dialects.hop_symbols import SymbolOp
from hopc.ir.substitution import Substitution, substitute


def fresh_symbol(module: ModuleOp) -> str:
    """A new size symbol ``u<N>`` (range ``[0, oo]``, no hint), declared in ``module`` at once."""
    declared = [op for op in module.ops if isinstance(op, SymbolOp)]
    taken = {op.symbol for op in declared}
    name = next(f"u{n}" for n in count() if f"u{n}" not in taken
                and SymbolTable.lookup_symbol(module, f"u{n}") is None)
    declaration = SymbolOp(name, "unbacked", 0, None)
    if declared:
        module.body.block.insert_op_after(declaration, declared[-1])
    elif module.body.block.first_op is not None:
        module.body.block.insert_op_before(declaration, module.body.block.first_op)
    else:
        module.body.block.add_op(declaration)
    return name


def clone_substituted(op: Operation, mapping: dict[SSAValue, SSAValue],
                      substitution: Substitution) -> Operation:
    """``op`` cloned with operands through ``mapping`` and ``substitution`` applied to every
    result, block-argument type, property and attribute, at any depth; ``mapping`` gets the
    new results and block arguments."""
    if not substitution:
        return op.clone(value_mapper=mapping)
    regions = []
    for region in op.regions:
        new_region = Region()
        for block in region.blocks:
            new_block = Block(arg_types=[substitute(a.type, substitution) for a in block.args])
            for argument, new_argument in zip(block.args, new_block.args, strict=True):
                new_argument.name_hint = argument.name_hint
                mapping[argument] = new_argument
            new_region.add_block(new_block)
            for nested in block.ops:
                new_block.add_op(clone_substituted(nested, mapping, substitution))
        regions.append(new_region)
    new = op.create(operands=[mapping.get(v, v) for v in op.operands],
                    result_types=[substitute(r.type, substitution) for r in op.results],
                    properties={k: substitute(v, substitution) for k, v in op.properties.items()},
                    attributes={k: substitute(v, substitution) for k, v in op.attributes.items()},
                    location=op.location, regions=regions)
    for result, new_result in zip(op.results, new.results, strict=True):
        new_result.name_hint = result.name_hint
        mapping[result] = new_result
    return new
