"""The CPU-checkable logic of the ``cuda`` executor's graphs (Note [graph recordings] in
``hopc.backend.cuda.graphs``), with a fake graph API.

``FakeGraphs`` records by running the segment's body (as a capture runs it once)
and replays by running it again on the recording's own inputs, writing the
results into the recorded outputs (a real replay writes the same addresses);
its conditional nodes test their predicates as the device would
(``fake_cuda_graphs``). So keying by sizes, the pool per device, copying inputs
in, re-recording on a moved parameter, the size warning, warm-up before capture,
the choice of conditional-node implementation and the lifetime of what a node
reads run here as they would on a GPU; ``test_cuda_graphs_generated.py`` runs the
generated code.
"""

from __future__ import annotations

import gc
import sys
import types
import warnings
import weakref

import torch
from fake_cuda_graphs import FakeGraph, FakeGraphs

from hopc.backend.cuda import CudaGraphSizeWarning, graphs
from hopc.backend.cuda.conditional_nodes import (
    BindingsConditionalNodes,
    TorchConditionalNodes,
    conditional_nodes_for,
)

CPU = torch.device("cpu")


def _segment(pools, in_place=(), bodies=0) -> graphs.GraphSegment:
    """A segment keyed by dim 0 of operand 0."""
    return graphs.GraphSegment(pools, CPU, ((0, 0),), frozenset(in_place), bodies)


def _scale(x: torch.Tensor, w: torch.Tensor) -> list[object]:
    return [x * w + 1]


# --------------------------------------------------------------------------- keys and pools


def test_one_recording_per_size_then_replays():
    api = FakeGraphs()
    segment = _segment(graphs.GraphPools(api))
    w = torch.tensor(2.0)
    for n in (3, 5, 3, 5, 3):
        x = torch.arange(float(n))
        assert torch.equal(segment(_scale, [x, w])[0], x * 2 + 1)
    assert [r.sizes for r in segment.recordings.values()] == [(3,), (5,)]
    assert api.recorded == 2
    assert [r.graph.replays for r in segment.recordings.values()] == [2, 1]


def test_every_graph_of_a_device_shares_one_pool():
    api = FakeGraphs()
    pools = graphs.GraphPools(api)
    first, second = _segment(pools), _segment(pools)
    w = torch.tensor(2.0)
    for segment in (first, second):
        for n in (2, 4):
            segment(_scale, [torch.ones(n), w])
    recorded = [*first.recordings.values(), *second.recordings.values()]
    assert len(recorded) == 4 and len({id(r.pool) for r in recorded}) == 1
    assert api.pools_made == 1


def test_replay_reads_the_new_input_values_and_returns_fresh_outputs():
    segment = _segment(graphs.GraphPools(FakeGraphs()))
    w = torch.tensor(3.0)
    segment(_scale, [torch.zeros(4), w])
    first = segment(_scale, [torch.ones(4), w])[0]
    second = segment(_scale, [torch.full((4,), 2.0), w])[0]
    assert torch.equal(first, torch.full((4,), 4.0)) and torch.equal(second, torch.full((4,), 7.0))


def test_a_parameter_is_read_in_place_and_rerecorded_when_it_moves():
    segment = _segment(graphs.GraphPools(FakeGraphs()), in_place=[1])
    w = torch.tensor(2.0)
    x = torch.ones(4)
    segment(_scale, [x, w])
    w.fill_(5.0)  # same storage: the recording reads it where it is
    assert torch.equal(segment(_scale, [x, w])[0], torch.full((4,), 6.0))
    assert segment.rerecords == 0
    moved = torch.tensor(7.0)
    assert torch.equal(segment(_scale, [x, moved])[0], torch.full((4,), 8.0))
    assert segment.rerecords == 1
    assert torch.equal(segment(_scale, [x, moved])[0], torch.full((4,), 8.0))
    assert segment.rerecords == 1


def test_more_sizes_than_the_limit_warn_once():
    segment = _segment(graphs.GraphPools(FakeGraphs()))
    w = torch.tensor(1.0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for n in range(1, graphs.SIZE_WARNING_LIMIT + 3):
            segment(_scale, [torch.ones(n), w])
    sizes = [w for w in caught if issubclass(w.category, CudaGraphSizeWarning)]
    assert len(sizes) == 1 and str(graphs.SIZE_WARNING_LIMIT) in str(sizes[0].message)


def test_no_warning_within_the_limit():
    segment = _segment(graphs.GraphPools(FakeGraphs()))
    with warnings.catch_warnings():
        warnings.simplefilter("error", CudaGraphSizeWarning)
        for n in range(1, graphs.SIZE_WARNING_LIMIT + 1):
            segment(_scale, [torch.ones(n), torch.tensor(1.0)])


# --------------------------------------------------------------------------- conditional nodes


def test_a_cond_records_only_once_both_branches_ran_and_then_tests_on_the_device():
    api = FakeGraphs()
    segment = _segment(graphs.GraphPools(api), bodies=2)

    def body(x: torch.Tensor, p: torch.Tensor) -> list[object]:
        return segment.run_if(0, p, lambda a: [a.sin()], lambda a: [a.cos()], [x], [torch.empty(x.shape)])

    x = torch.linspace(-1, 1, 5)

    def run(taken: bool) -> torch.Tensor:
        return segment(body, [x, torch.tensor(taken)])[0]

    assert torch.equal(run(True), x.sin())
    assert api.recorded == 0  # the else branch has not run: its kernels are not warm
    assert torch.equal(run(False), x.cos())
    assert api.recorded == 0
    assert torch.equal(run(True), x.sin())
    recording, = segment.recordings.values()
    assert api.recorded == 1 and recording.conditional_nodes == 2
    assert torch.equal(run(False), x.cos())
    assert torch.equal(run(True), x.sin())
    assert recording.graph.replays == 2


def test_a_while_runs_on_the_device_with_a_trip_count_from_data():
    api = FakeGraphs()
    segment = _segment(graphs.GraphPools(api), bodies=2)

    def body(x: torch.Tensor, n: torch.Tensor) -> list[object]:
        i = torch.zeros((), dtype=torch.int64)
        return segment.run_while(0, lambda i, v, n: [i < n], lambda i, v, n: [i + 1, v * 0.5 + 1],
                                 [i, x], [n])

    def expected(x: torch.Tensor, steps: int) -> torch.Tensor:
        for _ in range(steps):
            x = x * 0.5 + 1
        return x

    x = torch.ones(3)
    for steps in (3, 5, 0, 2, 1):
        count, value = segment(body, [x, torch.tensor(steps)])
        assert int(count) == steps and torch.allclose(value, expected(x, steps))
    recording, = segment.recordings.values()
    assert api.recorded == 1 and recording.conditional_nodes == 1 and recording.graph.replays == 3


def test_conditional_node_implementation_follows_torch_features():
    class Torch211:
        pass

    class Torch212:
        def begin_capture_to_if_node(self, predicate): ...

    class Torch214(Torch212):
        def begin_capture_to_while_node(self, predicate): ...

    kinds = {name: {kind: type(nodes) for kind, nodes in conditional_nodes_for(cls).items()}
             for name, cls in (("2.11", Torch211), ("2.12", Torch212), ("2.14", Torch214))}
    assert kinds["2.11"] == {"if": BindingsConditionalNodes, "while": BindingsConditionalNodes}
    assert kinds["2.12"] == {"if": TorchConditionalNodes, "while": BindingsConditionalNodes}
    assert kinds["2.14"] == {"if": TorchConditionalNodes, "while": TorchConditionalNodes}


def test_torch_conditional_nodes_call_the_capture_methods_in_order():
    calls = []

    class Graph:
        def begin_capture_to_while_node(self, predicate):
            calls.append(("begin while", bool(predicate)))

        def set_conditional_handle_for_current_node(self, predicate):
            calls.append(("set", bool(predicate)))

        def end_capture_to_conditional_node(self):
            calls.append(("end",))

    TorchConditionalNodes().while_node(Graph(), None, torch.tensor(True), lambda: torch.tensor(False))
    assert calls == [("begin while", True), ("set", False), ("end",)]


def _fake_cuda_bindings(monkeypatch) -> list[tuple]:
    """``cuda.bindings``'s driver faked for ``BindingsConditionalNodes.set_condition``; the
    kernel launches it is asked for are appended to the returned list."""
    launches: list[tuple] = []
    driver = types.SimpleNamespace(cuModuleLoadData=lambda image: (0, "module"),
                                   cuModuleGetFunction=lambda module, name: (0, name),
                                   cuLaunchKernel=lambda *arguments: launches.append(arguments) or (0,))
    bindings = types.ModuleType("cuda.bindings")
    bindings.driver = driver
    cuda = types.ModuleType("cuda")
    cuda.bindings = bindings
    monkeypatch.setitem(sys.modules, "cuda", cuda)
    monkeypatch.setitem(sys.modules, "cuda.bindings", bindings)
    monkeypatch.setattr(torch.cuda, "current_stream", lambda: types.SimpleNamespace(cuda_stream=0))
    return launches


def test_a_bindings_predicate_lives_as_long_as_the_graph_that_reads_it(monkeypatch):
    launches = _fake_cuda_bindings(monkeypatch)
    nodes = BindingsConditionalNodes()
    handle = types.SimpleNamespace(getPtr=lambda: 1)
    graph, other_graph = FakeGraph(), FakeGraph()
    predicate, other_predicate = torch.tensor(True), torch.tensor(False)
    nodes.set_condition(graph, handle, predicate)
    nodes.set_condition(other_graph, handle, other_predicate)
    watched, other_watched = weakref.ref(predicate), weakref.ref(other_predicate)
    del predicate, other_predicate
    gc.collect()
    assert len(launches) == 2 and watched() is not None  # a replay of the graph reads it
    del graph  # as a dropped recording releases its graph
    gc.collect()
    assert watched() is None and other_watched() is not None


# --------------------------------------------------------------------------- generated code
