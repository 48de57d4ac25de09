"""``while_loop`` carrying Python ints: each carried int travels as a 0-d int64 tensor.

Note [int carries]
~~~~~~~~~~~~~~~~~~
``while_loop(lambda i, x: i < 3, lambda i, x: (i + 1, x + 1), (0, x))``
carries an int that changes every iteration. Dynamo traces it as a ``SymInt``
(a fresh unbacked symbol in each subgraph and for the result), but a
``hop.while`` carry has one type for every iteration, and a ``!hop.symint``
type is one value. So before the graph is traced to ATen,
``tensor_int_carries`` rewrites each loop with carried ints, in every nested
graph, to carry them as 0-d int64 tensors, converting at the loop boundary:

    t = scalar_tensor(i, dtype=int64)              before the loop, per int carry
    cond_fn, body_fn: i = item(t) on entry          the subgraphs see an int again
    body_fn: t' = scalar_tensor(i', dtype=int64)    on each int it returns
    result = item(t_out)                            after the loop: an int again

so the subgraphs compute on ints exactly as they did (as sizes too), and the
program's own uses of the result see an int, which the graph returns as a
Python int where eager returns one. Carried tensors are untouched.

Note [int carries in grad mode]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
The rewrite runs on Dynamo's graph, after Dynamo has traced the loop. In grad
mode, with a carried tensor that requires grad, Dynamo's fake run of the loop
dispatches to PyTorch's own ``while_loop`` autograd kernel, which stacks every
carry and asserts that all are tensors ("all carried_inputs must be tensors
for stack_output"): the trace fails before hopc sees a graph, and eager
PyTorch fails the same way on the same program (PyTorch's
``fx_while_pytree_int_carry`` in grad mode). hopc differentiates the loop
itself and needs no such kernel, but cannot keep Dynamo from running it, so
the failure is refused with a located error saying what to change
(``int_carries_in_grad_mode``): carry the ints as tensors, or run the loop
under ``torch.no_grad()``.
"""

from __future__ import annotations

import operator

import torch
import torch.fx

from hopc.frontend.nested_graphs import rewrite_nested_graphs

_aten = torch.ops.aten
_WHILE = torch.ops.higher_order.while_loop


_STACKED_CARRIES = "all carried_inputs must be tensors for stack_output"
"""What PyTorch's ``while_loop`` autograd kernel asserts (Note [int carries in grad mode])."""


def int_carries_in_grad_mode(error: BaseException) -> str | None:
    """Why hopc refuses a Dynamo failure on a ``while_loop`` with int carries in grad mode,
    or None for any other failure (Note [int carries in grad mode])."""
    if _STACKED_CARRIES not in str(error):
        return None
    return ("a while_loop carrying Python ints in grad mode, with a carried tensor that requires "
            "grad: PyTorch's while_loop autograd kernel, which Dynamo runs to trace the loop, "
            "carries only tensors (eager PyTorch fails the same way); carry the ints as tensors "
            "(torch.tensor(i)) or run the loop under torch.no_grad()")


def tensor_int_carries(graph_module: torch.fx.GraphModule) -> None:
    """Carries every int of every ``while_loop`` of every nested graph as a tensor.

    Only the graphs that changed are recompiled.
    """
    rewrite_nested_graphs(graph_module, _int_carries_of)


def _int_carries_of(module: torch.fx.GraphModule) -> bool:
    loops = [node for node in module.graph.find_nodes(op="call_function", target=_WHILE)
             if _int_positions(node.args[2])]
    for loop in loops:
        _carry_as_tensors(module, loop)
    return bool(loops)


def _is_int(value: object) -> bool:
    if isinstance(value, torch.fx.Node):
        value = value.meta.get("example_value", value.meta.get("val"))
    return isinstance(value, int | torch.SymInt) and not isinstance(value, bool)


def _int_positions(carried: tuple) -> list[int]:
    return [index for index, value in enumerate(carried) if _is_int(value)]


def _carry_as_tensors(module: torch.fx.GraphModule, loop: torch.fx.Node) -> None:
    cond_graph, body_graph, carried, additional = loop.args[:4]
    positions = _int_positions(carried)
    graph = module.graph
    new_carried = list(carried)
    with graph.inserting_before(loop):
        for index in positions:
            new_carried[index] = _as_tensor(graph, carried[index], loop)
    loop.update_arg(2, tuple(new_carried))
    for subgraph in (cond_graph, body_graph):
        _items_on_entry(getattr(module, subgraph.target), positions)
    _tensors_on_exit(getattr(module, body_graph.target), positions)
    for user in list(loop.users):
        if user.target is operator.getitem and user.args[1] in positions:
            with graph.inserting_after(user):
                item = graph.call_function(_aten.item.default, (user,))
                item.meta = dict(user.meta)
            user.replace_all_uses_with(item, lambda use, item=item: use is not item)


def _as_tensor(graph: torch.fx.Graph, value: object, near: torch.fx.Node) -> torch.fx.Node:
    tensor = graph.call_function(_aten.scalar_tensor.default, (value,), {"dtype": torch.int64})
    tensor.meta = {key: near.meta[key] for key in ("stack_trace",) if key in near.meta}
    return tensor


def _items_on_entry(subgraph: torch.fx.GraphModule, positions: list[int]) -> None:
    graph = subgraph.graph
    placeholders = list(graph.find_nodes(op="placeholder"))
    for index in positions:
        placeholder = placeholders[index]
        with graph.inserting_after(placeholders[-1]):
            item = graph.call_function(_aten.item.default, (placeholder,))
        placeholder.replace_all_uses_with(item, lambda use, item=item: use is not item)
        placeholder.meta.pop("example_value", None)
    subgraph.recompile()


def _tensors_on_exit(body: torch.fx.GraphModule, positions: list[int]) -> None:
    graph = body.graph
    output = graph.output_node()
    results = list(output.args[0])
    with graph.inserting_before(output):
        for index in positions:
            results[index] = _as_tensor(graph, results[index], output)
    output.update_arg(0, tuple(results))
    body.recompile()
