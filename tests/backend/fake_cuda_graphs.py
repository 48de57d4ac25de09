"""A fake CUDA graph API for the ``cuda`` executor's CPU-checkable logic (Note [graph
recordings] in ``hopc.backend.cuda.graphs``).

``FakeGraphs`` records by running the segment's body (as a capture runs it once)
and replays by running it again on the recording's own inputs, writing the
results into the recorded outputs (a real replay writes the same addresses);
its conditional nodes test their predicates as the device would.
"""

from __future__ import annotations

import torch

from hopc.backend.cuda import graphs


class FakeGraph:
    def __init__(self) -> None:
        self.replays = 0
        self.rerun = None


class FakeNodes:
    """Conditional nodes that test their predicate when the fake graph runs."""

    def if_node(self, graph, pool, predicate, body) -> None:
        if bool(predicate):
            body()

    def while_node(self, graph, pool, predicate, step) -> None:
        while bool(predicate):
            predicate = step()


class FakeGraphs:
    def __init__(self) -> None:
        self.pools_made = 0
        self.recorded = 0

    def new_pool(self, device):
        self.pools_made += 1
        return ("pool", device, self.pools_made)

    def new_stream(self, device):
        return ("stream", device)

    def record(self, pool, stream, run):
        self.recorded += 1
        graph = FakeGraph()
        outputs = run(graph)

        def rerun() -> None:
            for output, value in zip(outputs, run(graph), strict=True):
                if isinstance(output, torch.Tensor):
                    output.copy_(value)

        graph.rerun = rerun
        return graph, outputs

    def replay(self, graph) -> None:
        graph.replays += 1
        graph.rerun()

    def conditional_nodes(self):
        return {"if": FakeNodes(), "while": FakeNodes()}


def install_fake_pools(monkeypatch) -> graphs.GraphPools:
    """Graph pools over ``FakeGraphs``, made the process's default for the test."""
    pools = graphs.GraphPools(FakeGraphs())
    monkeypatch.setattr(graphs, "default_pools", lambda: pools)
    return pools
