"""One walk over a Dynamo graph and the graphs nested in it (HOP bodies), rewriting each."""

from __future__ import annotations

from collections.abc import Callable

import torch.fx


def rewrite_nested_graphs(graph_module: torch.fx.GraphModule,
                          rewrite: Callable[[torch.fx.GraphModule], bool]) -> None:
    """Applies ``rewrite`` to ``graph_module`` and every graph module nested in it.

    ``rewrite`` returns whether it changed the graph; only those graphs are
    recompiled. The nested graphs are listed before the first rewrite, so a
    rewrite may add submodules without being applied to them.
    """
    for module in list(graph_module.modules()):
        if isinstance(module, torch.fx.GraphModule) and rewrite(module):
            module.recompile()
