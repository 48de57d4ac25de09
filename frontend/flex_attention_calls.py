"""``flex_attention`` calls made importable: their sizes guarded equal, their block tables dropped.

Note [flex attention sizes]
~~~~~~~~~~~~~~~~~~~~~~~~~~~
Eager's math (Note [flex attention semantics] in ``hopc.dialects.hops.flex_attention``)
needs query, key and value to share their batch, key and value their heads
and length, query and key their last size; otherwise it raises. The HOP's fake
kernel compares none of these sizes, so when they vary between calls Dynamo
gives each tensor its own symbols (the key's length ``s1``, the value's
``s2``), and ``hop.flex_attention``'s verifier, which compares the types,
would refuse the op. ``guard_equal_sizes`` asks the frame's ``ShapeEnv``
whether each such pair is equal, as eager's matmul would when Dynamo traced
it: where the sizes are equal at this call that installs a guard, which
Dynamo checks before every call of the compiled code and recompiles where it
fails, and a replacement (``s2`` becomes ``s1``), so every type the importer
reads afterwards names one symbol. Where they differ at this call (eager
raises), the call is refused, located.

Note [flex attention block tables]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
``hop.flex_attention`` reads only the block mask's ``mask_mod`` (its last
entry), never its block tables. A call without ``block_mask`` makes its default
(every block kept; its ``mask_mod`` keeps every score, as eager's does) inside
the program, and so does ``create_block_mask`` called inside it, both under
``vmap``, whose trace leaves tensor constants that cannot be read outside it
(torch 2.11's trace leaves ``_add_batch_dim`` calls instead, equally unreadable).
``drop_block_tables`` replaces every block table of every call by None and
erases what then computes nothing read; then what reads such a constant or call,
directly or through others, where none of it is returned or writes a tensor
outside it (the tables' dead leftovers: none could run). A constant that
something else still reads is refused at its first reader: it is not the
tables'.
"""

from __future__ import annotations

import torch
import torch.fx
from torch._functorch import predispatch
from torch.fx.experimental import symbolic_shapes
from torch.fx.experimental.symbolic_shapes import guard_bool

from hopc.frontend.nested_graphs import rewrite_nested_graphs
from hopc.fx_import.errors import unsupported

_FLEX_ATTENTION = torch.ops.higher_order.flex_attention
_SIZE_HINT = getattr(symbolic_shapes, "guarding_hint_or_throw", None) or symbolic_shapes.size_hint
"""A size's value in the example (torch 2.11 has only ``size_hint``)."""

_EQUAL_SIZES = (("key", 1, "query", 0, 0), ("value", 2, "query", 0, 0), ("key", 1, "query", 0, 3),
                ("value", 2, "key", 1, 1), ("value", 2, "key", 1, 2))
"""``(role, argument, other role, other argument, dim)``: the sizes eager's math needs equal."""


def guard_equal_sizes(graph_module: torch.fx.GraphModule) -> None:
    """Guards the sizes of every ``flex_attention`` call that eager's math needs equal
    (Note [flex attention sizes]); refuses a call where they differ."""
    for module in graph_module.modules():
        if isinstance(module, torch.fx.GraphModule):
            for node in module.graph.find_nodes(op="call_function", target=_FLEX_ATTENTION):
                _guard_call(node)


def _guard_call(node: torch.fx.Node) -> None:
    examples = [_example(argument) for argument in node.args[:3]]
    if not all(isinstance(e, torch.Tensor) and e.dim() == 4 for e in examples):
        return  # the importer's verifier reports what is not 4-d
    for role, argument, other_role, other_argument, dim in _EQUAL_SIZES:
        size, other = examples[argument].size(dim), examples[other_argument].size(dim)
        if not guard_bool(size == other):
            size, other = _SIZE_HINT(size), _SIZE_HINT(other)
            raise unsupported(node, f"flex_attention whose {role} has size {size} in dim {dim} and whose "
                                    f"{other_role} {other} (eager's math needs them equal)")


def drop_block_tables(graph_module: torch.fx.GraphModule) -> None:
    """Replaces the block tables of every ``flex_attention`` call by None and erases what
    then computes nothing read, and what reads a tensor escaped from ``vmap`` (Note [flex
    attention block tables])."""
    rewrite_nested_graphs(graph_module, _drop_block_tables_of)


def _drop_block_tables_of(module: torch.fx.GraphModule) -> bool:
    calls = module.graph.find_nodes(op="call_function", target=_FLEX_ATTENTION)
    for node in calls:
        *tables, mask_mod = node.args[4]
        kept = [None if isinstance(entry, torch.fx.Node) else entry for entry in tables]
        node.update_arg(4, (*kept, mask_mod))
    if not calls:
        return False
    module.graph.eliminate_dead_code()
    _erase_escaped_from_vmap(module)
    module.graph.eliminate_dead_code()
    return True


def _erase_escaped_from_vmap(module: torch.fx.GraphModule) -> None:
    """Erases every node that reads a tensor made under ``vmap`` (the trace of a block mask
    made in the program), directly or through others, where none of them is
    returned or writes a tensor outside them: none of them can run, and nothing else reads
    them. Refuses the first reader where one is read."""
    readers: dict[torch.fx.Node, None] = {}
    pending = [node for node in module.graph.nodes if _made_under_vmap(module, node)]
    while pending:
        node = pending.pop()
        if node not in readers:
            readers[node] = None
            pending.extend(node.users)
    if any(node.op == "output" or any(w not in readers for w in _written(node)) for node in readers):
        first = next(node for node in readers if node.op == "call_function")
        raise unsupported(first, "reading a tensor made under vmap inside the program (make it outside "
                                 "the compiled program and pass it in)")
    for node in reversed(list(module.graph.nodes)):
        if node in readers:
            module.graph.erase_node(node)


def _written(node: torch.fx.Node) -> list[torch.fx.Node]:
    """The nodes whose tensors ``node``, an in-place or ``out=`` ATen op, writes."""
    target = node.target
    if not isinstance(target, torch._ops.OpOverload):
        return []
    values = dict(zip((a.name for a in target._schema.arguments), node.args, strict=False)) | node.kwargs
    written: list[torch.fx.Node] = []
    for argument in target._schema.arguments:
        if argument.alias_info is not None and argument.alias_info.is_write:
            torch.fx.node.map_arg(values.get(argument.name), written.append)
    return written


def _made_under_vmap(module: torch.fx.GraphModule, node: torch.fx.Node) -> bool:
    """Whether ``node`` is a tensor constant escaped from ``vmap``, or a call of ``_add_batch_dim``
    (what torch 2.11's trace of ``vmap`` records)."""
    if node.op == "get_attr":
        value = getattr(module, node.target, None)
        return isinstance(value, torch.Tensor) and torch._C._functorch.is_functorch_wrapped_tensor(value)
    return node.op == "call_function" and node.target is predispatch._add_batch_dim


def _example(value: object) -> object:
    """The value an FX argument stands for (Dynamo's ``example_value``, or ``val``)."""
    if not isinstance(value, torch.fx.Node):
        return None
    return value.meta.get("example_value", value.meta.get("val"))
