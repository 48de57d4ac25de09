"""Constants into a shared ``hop.subgraph``: only where every call passes the same one.

A subgraph's body is shared by all its calls (``hop.invoke_subgraph``), so a
constant may replace one of its arguments only when every call passes that
very constant there; the argument is then dropped from the subgraph and the
operand from every call, which ``dce`` leaves alone (calls share the
signature). The argument's type must be the constant's: a subgraph argument
of symbolic type binds its symbols per call (Note [subgraph symbols]), which
a constant's static type would not.

    hop.subgraph @f { ^bb0(%x, %w): ... %w ... }
    hop.invoke_subgraph @f(%a, %c)   hop.invoke_subgraph @f(%b, %c)     // %c = get_constant @w
  ->
    hop.subgraph @f { ^bb0(%x): %w = hop.get_constant @w ... }
    hop.invoke_subgraph @f(%a)       hop.invoke_subgraph @f(%b)
"""

from __future__ import annotations

from xdsl.dialects.builtin import ModuleOp

from hopc.dialects.hop import InvokeSubgraphOp, SubgraphOp
from hopc.passes.freeze.constant_table import constant_name
from hopc.passes.freeze.folding import ConstantFolder


def enter_shared_constants(module: ModuleOp, subgraph: SubgraphOp, folder: ConstantFolder) -> None:
    """Binds each argument of ``subgraph`` that every call passes the same constant (module docstring)."""
    calls = [op for op in module.walk() if isinstance(op, InvokeSubgraphOp)
             and op.callee.root_reference.data == subgraph.sym_name.data]
    if not calls:
        return
    block = subgraph.body.block
    for position in reversed(range(len(block.args))):
        names = {constant_name(call.inputs[position]) for call in calls}
        argument = block.args[position]
        if len(names) != 1 or None in names or calls[0].inputs[position].type != argument.type:
            continue
        folder.bind(argument, names.pop())
        block.erase_arg(argument)
        for call in calls:
            call.operands = [v for index, v in enumerate(call.operands) if index != position]
        folder.changed = True
