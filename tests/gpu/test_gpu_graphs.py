"""The ``cuda`` executor's CUDA graphs: one per size, one pool, control flow kept on the device.

``hopc.backend.cuda.recorded_graphs(compiled)`` lists the graphs a compiled program
recorded, each with the sizes it was recorded for (``.sizes``, the values of the symbols
its entry binds), the memory pool it was recorded into (``.pool``) and how many
conditional nodes (IF, WHILE) it holds (``.conditional_nodes``).
"""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F
from cuda_harness import DEVICE, assert_close, fresh_on_device
from torch._higher_order_ops.while_loop import while_loop

import hopc


def recorded_graphs(compiled: object) -> list:
    from hopc.backend.cuda import recorded_graphs

    return recorded_graphs(compiled)


class Mlp(torch.nn.Module):
    def __init__(self, width: int = 32):
        super().__init__()
        torch.manual_seed(0)
        self.up, self.down = torch.nn.Linear(width, 4 * width), torch.nn.Linear(4 * width, width)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.down(F.gelu(self.up(x)))


class Branches(torch.nn.Module):
    """Branches too big to become selects (matrix products), chosen by the sign of a sum."""

    def __init__(self, width: int = 16):
        super().__init__()
        torch.manual_seed(0)
        self.weight = torch.nn.Parameter(torch.randn(width, width))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.cond(x.sum() > 0, lambda x: (x @ self.weight).relu(), lambda x: (x @ self.weight.t()).tanh(),
                          (x,))


class CountedLoop(torch.nn.Module):
    """``h = tanh(h @ w)``, ``steps`` times, a trip count read on the device; the count of steps
    run, and h. The map contracts (``w``'s norm is about 1/2), so that rounding differences
    shrink over a thousand steps instead of growing."""

    def __init__(self, width: int = 16):
        super().__init__()
        torch.manual_seed(0)
        self.weight = torch.nn.Parameter(torch.randn(width, width) / (4 * width**0.5))

    def forward(self, h: torch.Tensor, steps: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        def body(i, h):
            return i + 1, torch.tanh(h @ self.weight)

        start = torch.zeros((), dtype=torch.int64, device=h.device)
        return while_loop(lambda i, h: i < steps, body, (start, h))


def test_one_graph_per_size_all_in_one_pool_outputs_kept():
    model = fresh_on_device(Mlp())
    compiled = hopc.compile(fresh_on_device(model), executor="cuda", dynamic=True)
    calls = []
    with torch.no_grad():
        for batch in (8, 4, 8, 16, 4, 16, 8):
            x = torch.randn(batch, 32, device=DEVICE)
            calls.append((compiled(x), model(x)))
            assert_close(*calls[-1])
    for actual, expected in calls:  # later replays (of the same pool) overwrote no earlier output
        assert_close(actual, expected, "an earlier call's output")
    graphs = recorded_graphs(compiled)
    assert sorted(graph.sizes for graph in graphs) == sorted({graph.sizes for graph in graphs})
    assert len(graphs) == 3, [graph.sizes for graph in graphs]
    assert all(graph.pool == graphs[0].pool for graph in graphs)


def test_a_cond_is_an_if_node_and_both_branches_replay():
    model = fresh_on_device(Branches())
    compiled = hopc.compile(fresh_on_device(model), executor="cuda")
    with torch.no_grad():
        for sign in (1.0, -1.0, 1.0, -1.0):
            x = sign * torch.rand(8, 16, device=DEVICE)
            assert_close(compiled(x), model(x), f"the branch of sign {sign}")
    (graph,) = recorded_graphs(compiled)
    assert graph.conditional_nodes >= 1


@pytest.mark.parametrize("steps", [[0, 1, 1000], [1000, 1, 0]], ids=["rising", "falling"])
def test_a_while_loop_is_a_while_node_at_any_trip_count(steps):
    model = fresh_on_device(CountedLoop())
    compiled = hopc.compile(fresh_on_device(model), executor="cuda")
    h = torch.randn(4, 16, device=DEVICE)
    with torch.no_grad():
        for count in steps:
            trips = torch.tensor(count, device=DEVICE)
            assert_close(compiled(h, trips), model(h, trips), f"{count} steps")
    (graph,) = recorded_graphs(compiled)  # one graph served every trip count: the loop ran on the device
    assert graph.conditional_nodes >= 1


def test_a_conditional_body_never_captures_on_a_capturing_stream():
    """torch's pool hands out its streams in turn, so that a body's new stream would, every
    ``POOL_STREAMS``-th time, be the very stream the graph is captured on."""
    from hopc.backend.cuda.conditional_nodes import POOL_STREAMS, _stream_not_capturing

    capturing, x = torch.cuda.Stream(), torch.zeros(4, device=DEVICE)
    with torch.cuda.graph(torch.cuda.CUDAGraph(), stream=capturing):
        x.add_(1)
        streams = [_stream_not_capturing() for _ in range(POOL_STREAMS + 1)]
    assert capturing.cuda_stream not in {stream.cuda_stream for stream in streams}
