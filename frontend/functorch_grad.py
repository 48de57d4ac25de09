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

Note [gradients through a grad region]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
functorch's ``grad`` differentiates with ``create_graph=True``: the gradient
it returns is itself a differentiable function of the region's inputs, and
eager sends an outer ``backward`` through it (a loss on a gradient, a scan
that accumulates ``grad_and_value`` of a chunked loss). hopc's autograd
differentiates the traced ATen graph, which is that function, provided that
only what eager does not differentiate at the outer level stops gradients
there. The trace below autograd holds ``aten.detach`` for three reasons:

- the level changes (``_wrap_for_grad``, ``_unwrap_for_grad``): to the outer
  level both are the identity (the level-1 wrapper of a tensor that requires
  grad passes gradients to it);
- autograd's saved outputs (``detach(tanh)``, read by ``tanh_backward``): with
  ``create_graph`` eager unpacks them with their history, so they are the
  identity too;
- the user's ``detach`` inside the region, and the reads of a
  ``torch.no_grad()`` span's results after it: these stop gradients at every
  level.

So, before the trace, the user's detaches become ``stop_gradient`` (an
``aten.detach_copy`` of a detached tensor, which stops the inner gradient
and, as ``detach_copy``, hopc's), as does every value a no-grad span makes
and the region reads after the span; after the trace every ``aten.detach``
left becomes an ``aten.alias``, the identity. An in-place change inside a no-grad
span of a region is refused, located: which level's history it joins is
not expressible in the traced graph.
"""

from __future__ import annotations

import operator

import torch
import torch.fx
from torch._functorch import predispatch
from torch.fx.experimental.proxy_tensor import disable_proxy_modes_tracing, make_fx

from hopc.frontend.nested_graphs import rewrite_nested_graphs
from hopc.fx_import.errors import unsupported
from hopc.fx_import.locations import node_location
from hopc.ir.diagnostics import is_torch_source

_functorch = torch._C._functorch
_ENTER = _functorch._grad_increment_nesting
_EXIT = _functorch._grad_decrement_nesting
_LEVEL_CHANGES = frozenset({_functorch._wrap_for_grad, _functorch._unwrap_for_grad,
                            # torch 2.11's predispatch module has no _unwrap_for_grad
                            getattr(predispatch, "_unwrap_for_grad", _functorch._unwrap_for_grad)})


_RETARGETED = {torch.ops.aten.detach.default: torch.ops.aten.alias.default,
               torch.ops.aten._efficientzerotensor.default: torch.ops.aten.zeros.default}
"""What ``grad_region`` makes of ops of the trace."""


def _leave_level(tensor: torch.Tensor, level: int) -> torch.Tensor:
    """Stands for ``_wrap_for_grad`` and ``_unwrap_for_grad``: a new autograd leaf
    (an ``aten.detach`` in the trace, which ``grad_region`` makes the identity)."""
    return tensor.detach()


def stop_gradient(tensor: torch.Tensor) -> torch.Tensor:
    """``tensor.detach()`` at every level: the inner autograd's and hopc's
    (Note [gradients through a grad region])."""
    return torch.ops.aten.detach_copy.default(tensor.detach())


def grad_region(region: torch.fx.GraphModule, *inputs: object) -> tuple:
    """``region(*inputs)``, traced below autograd, then run (Note [functorch grad regions]).

    Every ``aten.detach`` of the trace becomes an ``aten.alias``: what stops
    gradients there is a ``stop_gradient`` (Note [gradients through a grad region]);
    every ``_efficientzerotensor`` a ``zeros`` (Note [materialized zeros] in
    ``hopc.passes.autograd.derivative_graphs``).
    """
    with disable_proxy_modes_tracing():
        traced = make_fx(region, tracing_mode="real", _allow_non_fake_inputs=True)(*inputs)
    for old, new in _RETARGETED.items():
        for node in traced.graph.find_nodes(op="call_function", target=old):
            node.target = new
    traced.recompile()
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
        if _is_detach(n):
            copies[n] = region.call_function(stop_gradient, (copies[n.args[0]],))
            copies[n].meta = dict(n.meta)
            continue
        copies[n] = region.node_copy(n, copies.__getitem__)
        if n.target in _LEVEL_CHANGES:
            copies[n].target = _leave_level
    region.output(tuple(copies[n] for n in outputs))
    _stop_no_grad_results(region)
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


_DETACHES = frozenset({torch.detach, torch.Tensor.detach, torch.ops.aten.detach.default})


def _is_detach(node: torch.fx.Node) -> bool:
    """Whether ``node`` is the user's ``x.detach()`` (a method call or a function)."""
    if node.op == "call_method":
        return node.target == "detach"
    return node.op == "call_function" and node.target in _DETACHES


def _changes_in_place(node: torch.fx.Node) -> bool:
    """Whether ``node`` (a Dynamo node) changes a tensor in place: ``x.add_(1)``, ``x[i] = v``."""
    if node.target is operator.setitem:
        return True
    schema = getattr(node.target, "_schema", None)
    if schema is not None:
        return schema.is_mutable
    name = node.target if isinstance(node.target, str) else getattr(node.target, "__name__", "")
    return node.op in ("call_method", "call_function") and name.endswith("_") and not name.startswith("_")


def _stop_no_grad_results(region: torch.fx.Graph) -> None:
    """Reads every tensor a no-grad span of ``region`` makes through a ``stop_gradient`` after
    the span; an in-place change in a span is a located error
    (Note [gradients through a grad region])."""
    enabled = True
    made_without_grad: dict[torch.fx.Node, torch.fx.Node | None] = {}
    for node in list(region.nodes):
        if node.op == "call_function" and node.target is torch._C._set_grad_enabled:
            enabled = bool(node.args[0])
            continue
        if not enabled:
            if node.op != "placeholder" and _changes_in_place(node):
                raise unsupported(node, "an in-place change under torch.no_grad() inside a "
                                        "torch.func transform")
            made_without_grad[node] = None
            continue
        for value in node.all_input_nodes:
            if value not in made_without_grad or \
                    not isinstance(value.meta.get("example_value"), torch.Tensor):
                continue
            if made_without_grad[value] is None:
                with region.inserting_before(node):
                    stopped = region.call_function(stop_gradient, (value,))
                stopped.meta = dict(value.meta)
                made_without_grad[value] = stopped
            node.replace_input_with(value, made_without_grad[value])
