"""Keeping ``wrap`` and ``checkpoint`` bodies as regions through ATen tracing.

Note [kept regions]
~~~~~~~~~~~~~~~~~~~
Dynamo's graph keeps ``wrap(body, *xs)`` and
``checkpoint(body, *xs, use_reentrant=False)`` (as
``tag_activation_checkpoint``) as HOP calls with subgraphs. Tracing that graph
down to ATen with ``make_fx`` would lose them: ``wrap`` calls its body
directly, bypassing the dispatcher, and ``tag_activation_checkpoint`` either
needs checkpoint context that Dynamo's export mode does not record or is
desugared by AOT tracing. So before tracing, ``keep_regions`` retargets both to
two private HOPs, ``hopc_wrap`` and ``hopc_checkpoint``, whose only job is to
survive pre-dispatch tracing: under the proxy mode they trace the body into its
own graph and record one call node, like ``invoke_subgraph`` does; everywhere
else they run the body. The importer turns them into ``hop.wrap`` and
``hop.checkpoint``. Checkpoint's options (``use_reentrant``, ``context_fn``...)
concern the backward pass, which the captured level does not have yet, so the
private HOP does not carry them.
"""

from __future__ import annotations

import torch
import torch.fx
import torch.utils._pytree as pytree
from torch._C import DispatchKey
from torch._higher_order_ops.utils import reenter_make_fx, register_fake
from torch._higher_order_ops.wrap import tag_activation_checkpoint, wrap
from torch._ops import HigherOrderOperator
from torch.fx.experimental.proxy_tensor import ProxyTorchDispatchMode, track_tensor_tree

from hopc.frontend.nested_graphs import rewrite_nested_graphs


class KeptRegionOperator(HigherOrderOperator):
    """``name(body, *operands) == body(*operands)``, kept as one node by ATen tracing."""

    def __init__(self, name: str):
        super().__init__(name)
        self.py_impl(ProxyTorchDispatchMode)(self._trace)
        self.py_impl(DispatchKey.CompositeExplicitAutograd)(self._run)
        self.py_autograd_impl(self._below_autograd)
        register_fake(self, self._run)

    def __call__(self, body: torch.fx.GraphModule, *operands: object) -> object:
        return super().__call__(body, *operands)

    @staticmethod
    def _run(body: torch.fx.GraphModule, *operands: object) -> object:
        return body(*operands)

    def _below_autograd(self, body: torch.fx.GraphModule, *operands: object) -> object:
        with torch._C._AutoDispatchBelowAutograd():
            return self(body, *operands)

    def _trace(self, mode: ProxyTorchDispatchMode, body: torch.fx.GraphModule,
               *operands: object) -> object:
        traced_body = reenter_make_fx(body)(*operands)
        tracer = mode.tracer
        qualified_name = tracer.get_fresh_qualname(f"{self._name}_body")
        tracer.root.register_module(qualified_name, traced_body)
        proxy_arguments = pytree.tree_map(tracer.unwrap_proxy, (traced_body, *operands))
        result_proxy = tracer.create_proxy("call_function", self, proxy_arguments, {})
        result = self(body, *operands)
        return track_tensor_tree(result, result_proxy, constant=None, tracer=tracer)


hopc_wrap = KeptRegionOperator("hopc_wrap")
hopc_checkpoint = KeptRegionOperator("hopc_checkpoint")

_REPLACEMENTS = {wrap: hopc_wrap, tag_activation_checkpoint: hopc_checkpoint}


def keep_regions(graph_module: torch.fx.GraphModule) -> None:
    """Retargets wrap and checkpoint calls, in every nested graph, to the kept-region HOPs.

    Only the graphs that had such a call are recompiled.
    """
    rewrite_nested_graphs(graph_module, _keep_regions_of)


def _keep_regions_of(module: torch.fx.GraphModule) -> bool:
    retargeted = False
    for original, replacement in _REPLACEMENTS.items():
        for node in module.graph.find_nodes(op="call_function", target=original):
            node.target = replacement
            node.kwargs = {}
            retargeted = True
    return retargeted
