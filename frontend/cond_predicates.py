"""``torch.cond`` predicates that are one-element tensors of any dtype, made scalar booleans.

``torch.cond(pred, ...)`` takes a Python bool, a ``SymBool``, or any tensor
with one element, which it reads as ``bool(pred)``: ``torch.tensor(1)``,
``(x.sum() > 0).int()``, ``torch.ones(1, 1)``. ``hop.cond`` takes a scalar
boolean (``!hop.tensor<[], i1>`` or ``!hop.symbool``), so before the graph is
traced to ATen ``boolean_predicates`` rewrites, in every nested graph, a
tensor predicate that is not a 0-d ``bool`` tensor into

    pred != 0                 (aten.ne.Scalar: a bool tensor, bool(pred) elementwise)
    .reshape([])              (aten.reshape, when pred is not 0-d: its one element)

which is ``bool(pred)`` as a 0-d ``bool`` tensor. A predicate with more than
one element is left as it is: PyTorch's own tracing of ``cond`` rejects it.
"""

from __future__ import annotations

import torch
import torch.fx

from hopc.frontend.nested_graphs import rewrite_nested_graphs

_aten = torch.ops.aten


def boolean_predicates(graph_module: torch.fx.GraphModule) -> None:
    """Makes every ``cond`` predicate of every nested graph a 0-d bool tensor.

    Only the graphs that had such a predicate are recompiled.
    """
    rewrite_nested_graphs(graph_module, _boolean_predicates_of)


def _boolean_predicates_of(module: torch.fx.GraphModule) -> bool:
    rewritten = False
    for node in module.graph.find_nodes(op="call_function", target=torch.ops.higher_order.cond):
        predicate = node.args[0]
        example = _example(predicate)
        if example is None or example.numel() != 1 or (
                example.dtype == torch.bool and example.dim() == 0):
            continue
        graph = module.graph
        with graph.inserting_before(node):
            boolean = graph.call_function(_aten.ne.Scalar, (predicate, 0))
            boolean.meta = dict(node.meta)
            if example.dim() != 0:
                boolean = graph.call_function(_aten.reshape.default, (boolean, []))
                boolean.meta = dict(node.meta)
        node.update_arg(0, boolean)
        rewritten = True
    return rewritten


def _example(value: object) -> torch.Tensor | None:
    """The tensor an FX argument stands for (Dynamo's ``example_value``, or ``val``), if any."""
    if not isinstance(value, torch.fx.Node):
        return None
    for key in ("example_value", "val"):
        example = value.meta.get(key)
        if isinstance(example, torch.Tensor):
            return example
    return None
