"""``torch.no_grad()`` inside a program hopc differentiates: what runs without grad reads detached values.

Note [no-grad spans]
~~~~~~~~~~~~~~~~~~~~
Dynamo and the ATen trace keep a grad-mode switch as a
``torch._C._set_grad_enabled(False)`` node, and the import drops it (it
changes no forward value). Autograd records nothing between a switch off and
the switch back on, so every value made there is a constant to the backward.
``detach_no_grad_spans`` says so in the graph, before the import: each tensor
that a node in such a span reads from outside it is read through an
``aten.detach``. A value made in the span then depends on no differentiated
value (``aten.detach_copy`` stops gradients, Note [functional derivatives]
in ``hopc.passes.autograd.derivative_graphs``), and a tensor the span changes in
place (``w.add_(1)`` in a hand-written SGD step) is changed through its
detached alias: functionalize gives it a new value that takes no gradient,
which the call copies back without recording it (Note [training call]).

A span may change in place only what takes no gradient: a tensor it made, or
an input that does not require grad (a buffer). Eager changes a tensor that
requires grad (``w.mul_(0.5)`` on a parameter) without moving its place in the
autograd graph, so later uses of the new value send gradients to it as if it
were the old one; the functional module has no op for that, so such a change
is a located error.

Each graph module is rewritten on its own (a HOP's subgraph starts in grad
mode; a HOP called inside a span reads detached operands, so nothing in it
is differentiated either).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

import torch
import torch.fx

from hopc.fx_import.errors import unsupported


def detach_no_grad_spans(graph_module: torch.fx.GraphModule, requires_grad: Sequence[bool]) -> None:
    """Detaches what the no-grad spans of ``graph_module`` and its subgraphs read (Note [no-grad spans]).

    ``requires_grad`` says which of ``graph_module``'s placeholders require grad;
    a subgraph's placeholders are taken to.
    """
    for module in graph_module.modules():
        if not isinstance(module, torch.fx.GraphModule):
            continue
        placeholders = module.graph.find_nodes(op="placeholder")
        unchangeable = {p for p, r in zip(placeholders, requires_grad, strict=True) if r} \
            if module is graph_module else set(placeholders)
        if _detach_spans(module.graph, unchangeable):
            module.recompile()


def _detach_spans(graph: torch.fx.Graph, requiring_grad: set[torch.fx.Node]) -> bool:
    """Rewrites ``graph``'s no-grad spans; whether it has any. ``requiring_grad``: placeholders
    that require grad (every other tensor not made in a span may too)."""
    enabled, changed = True, False
    made_without_grad: set[torch.fx.Node] = set()
    for node in list(graph.nodes):
        if node.op == "call_function" and node.target is torch._C._set_grad_enabled:
            enabled, changed = bool(node.args[0]), True
            continue
        if enabled or node.op != "call_function":
            continue
        for changed_value in _written(node):
            if changed_value not in made_without_grad and \
                    (changed_value.op != "placeholder" or changed_value in requiring_grad):
                raise unsupported(node, "an in-place change under torch.no_grad() of a tensor that may "
                                        "require grad (hopc cannot keep its place in the autograd graph); "
                                        "change a .detach()ed copy, or outside the compiled program")
        detached: dict[torch.fx.Node, torch.fx.Node] = {}
        read = functools.partial(_read_detached, graph, node, made_without_grad, detached)
        node.args = torch.fx.map_arg(node.args, read)
        node.kwargs = torch.fx.map_arg(node.kwargs, read)
        made_without_grad.add(node)
    return changed


def _read_detached(graph: torch.fx.Graph, user: torch.fx.Node, made_without_grad: set[torch.fx.Node],
                   detached: dict[torch.fx.Node, torch.fx.Node], value: torch.fx.Node) -> torch.fx.Node:
    """``value`` as ``user`` (in a no-grad span) reads it: through one ``aten.detach`` per value,
    unless the span made it or it is not a tensor."""
    if value in made_without_grad or not isinstance(value.meta.get("val"), torch.Tensor):
        return value
    if value not in detached:
        with graph.inserting_before(user):
            detached[value] = graph.call_function(torch.ops.aten.detach.default, (value,))
        detached[value].meta.update(val=value.meta["val"], stack_trace=user.meta.get("stack_trace"))
    return detached[value]


def _written(node: torch.fx.Node) -> list[torch.fx.Node]:
    """The graph values ``node`` changes in place (its schema's written arguments)."""
    schema = getattr(node.target, "_schema", None)
    if schema is None or not schema.is_mutable:
        return []
    written = []
    for position, argument in enumerate(schema.arguments):
        if argument.alias_info is None or not argument.alias_info.is_write:
            continue
        value = node.args[position] if position < len(node.args) else node.kwargs.get(argument.name)
        written.extend(v for v in (value if isinstance(value, list | tuple) else [value])
                       if isinstance(v, torch.fx.Node))
    return written
