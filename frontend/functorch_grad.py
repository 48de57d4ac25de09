"""``torch.func.grad`` inside a program: its gradient traced as plain ATen ops.

Note [functorch grad regions]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
Dynamo records ``torch.func.grad(f)(w)`` (and ``grad_and_value``, ``vjp``)
inline, as the calls functorch makes to run it:

    _grad_increment_nesting()        enter grad level 1
    w1 = _wrap_for_grad(w, 1)        w seen at level 1
    _set_tensor_requires_grad(w1)
    loss = f(w1)
    g, = _autograd_grad((loss,), [w1], create_graph=True)
    g0 = _unwrap_for_grad(g, 1)      back to level 0
    _grad_decrement_nesting()

Retraced in pre-dispatch mode (Note [pre-dispatch capture]) this goes wrong
twice: functorch's wrappers are invisible to the tracer, and even with plain
autograd in their place the backward ops read tensors that autograd saved as
detached copies, made below the pre-dispatch tracer, so the tracer would
take them for constants. With one grad level functorch's transform is
ordinary reverse-mode autograd on a fresh leaf, so
``retarget_functorch_grad`` cuts each region (the nodes strictly between the
entry and the exit) out into a graph of its own, in which
``_wrap_for_grad`` and ``_unwrap_for_grad`` are ``detach``, and replaces it
by one call, ``grad_region(region, *inputs)``. That call traces the region
the way AOTAutograd traces a joint graph, below autograd (``make_fx``
without pre-dispatch, where the tracer sees every saved tensor), and runs
the resulting ATen graph, which the outer trace records op by op. The
captured program thus computes the gradient with ATen ops
(``nll_loss_backward``, ``mm``, ...), in every graph of the module, scan and
map bodies included. A nested transform (``grad(grad(f))``) is refused,
located.
"""

from __future__ import annotations

import operator

import torch
import torch.fx
from torch._functorch import predispatch
from torch.fx.experimental.proxy_tensor import disable_proxy_modes_tracing, make_fx

from hopc.frontend.errors import unsupported
from hopc.frontend.locations import is_torch_source, node_location
from hopc.frontend.nested_graphs import rewrite_nested_graphs

_functorch = torch._C._functorch
_ENTER = _functorch._grad_increment_nesting
_EXIT = _functorch._grad_decrement_nesting
_LEVEL_CHANGES = frozenset({_functorch._wrap_for_grad, _functorch._unwrap_for_grad,
                            predispatch._unwrap_for_grad})


def _leave_level(tensor: torch.Tensor, level: int) -> torch.Tensor:
    """Stands for ``_wrap_for_grad`` and ``_unwrap_for_grad``: a new autograd leaf."""
    return tensor.detach()


def grad_region(region: torch.fx.GraphModule, *inputs: object) -> tuple:
    """``region(*inputs)``, traced below autograd, then run (Note [functorch grad regions])."""
    with disable_proxy_modes_tracing():
        traced = make_fx(region, tracing_mode="real", _allow_non_fake_inputs=True)(*inputs)
    return traced(*inputs)


def retarget_functorch_grad(graph_module: torch.fx.GraphModule) -> None:
    """Replaces each grad region, in every nested graph, by a ``grad_region`` call.

    Raises ``HopcError`` at the user's line for a nested transform. Only the
    graphs that had a region are recompiled.
    """
    rewrite_nested_graphs(graph_module, _grad_regions_of)


def _grad_regions_of(module: torch.fx.GraphModule) -> bool:
    entries = list(module.graph.find_nodes(op="call_function", target=_ENTER))
    for index, entry in enumerate(entries):
        _cut_region(module, entry, f"_grad_region_{index}")
    return bool(entries)


def _user_node(entry: torch.fx.Node) -> torch.fx.Node:
    """The first node from ``entry`` on that the user's own line produced, else ``entry``."""
    node = entry
    while node.op != "output":
        location = node_location(node)
        if location is not None and not is_torch_source(location.file):
            return node
        node = node.next
    return entry


def _cut_region(module: torch.fx.GraphModule, entry: torch.fx.Node, name: str) -> None:
    """Moves the nodes between ``entry`` and its exit into submodule ``name``, called once."""
    nodes = []
    node = entry.next
    while node.target is not _EXIT:
        if node.op == "output" or node.target is _ENTER:
            raise unsupported(_user_node(entry), "a torch.func transform nested in another")
        nodes.append(node)
        node = node.next
    exit_node, inside = node, set(nodes)
    inputs = list(dict.fromkeys(
        i for n in nodes for i in n.all_input_nodes if i not in inside))
    outputs = [n for n in nodes if any(user not in inside for user in n.users)]
    region = torch.fx.Graph()
    copies = {i: region.placeholder(i.name) for i in inputs}
    for n in nodes:
        copies[n] = region.node_copy(n, copies.__getitem__)
        if n.target in _LEVEL_CHANGES:
            copies[n].target = _leave_level
    region.output(tuple(copies[n] for n in outputs))
    module.add_submodule(name, torch.fx.GraphModule(module, region))
    graph = module.graph
    with graph.inserting_before(exit_node):
        body = graph.get_attr(name)
        call = graph.call_function(grad_region, (body, *inputs))
        call.meta = dict(exit_node.meta)
        for index, output in enumerate(outputs):
            result = graph.call_function(operator.getitem, (call, index))
            result.meta = dict(output.meta)
            output.replace_all_uses_with(result, lambda user: user not in inside)
    for n in [exit_node, *reversed(nodes), entry]:
        graph.erase_node(n)
