"""Recordings of ``kernel.graph`` segments: one CUDA graph per size, one memory pool per device.

Note [graph recordings]
~~~~~~~~~~~~~~~~~~~~~~~
Each ``kernel.graph`` of a generated function is a ``GraphSegment``, called
by the generated code with the segment's body (a function of its own) and
its operands. A call:

1. computes the key: the shape of each tensor operand and the value of
   each other one, which fix what the body does (Note [cuda graph segments]
   in ``hopc.passes.form_cuda_graphs``); a recording reports its sizes as
   the values of the shape symbols the operands bind (``symbol_binders`` of
   the body's arguments);
2. with no recording for the key, runs the body as it is (warm-up: Triton
   compiles and autotunes each kernel's size class, which synchronizes and
   so must happen before any capture; conds and whiles read their
   predicates on the host). Once every conditional body of the segment has
   run in a warm-up of that key, it records: the operands are copied into
   tensors of the recording's own, allocated outside the pool (``in_place``
   operands, the parameters and buffers, are used where they are, their
   addresses kept), and the body is captured on the device's side stream
   into the device's pool, its conds and whiles as conditional nodes
   (``conditional_nodes``). The warm-up's results are returned;
3. with a recording, copies the operands in, replays, and returns clones of
   the recorded outputs (symbol outputs as recorded: the key fixes them). An
   ``in_place`` operand whose address changed since the recording (a
   parameter replaced by ``load_state_dict`` with ``assign=True``, a
   ``.to()``) drops the recording and records again.

All recordings of a device share one pool (``torch.cuda.graph_pool_handle``)
and one side stream, as Inductor's cudagraph trees and the serving engines
do. PyTorch allows graphs to share a pool when they replay in the order
they were captured; here any order occurs, which is safe only because no
recording's memory is read after another replay: outputs are cloned at once
and inputs live outside the pool. A segment that records more than
``SIZE_WARNING_LIMIT`` sizes warns once (``CudaGraphSizeWarning``), as
Inductor's ``cudagraph_dynamic_shape_warn_limit`` does: each size costs a
capture and pool memory.

A conditional body that never ran in a warm-up (a branch not yet taken) has
kernels not yet compiled or autotuned, which a capture cannot do; running
it on values it was not meant for could fault on the device (an index out
of range), so the segment stays in warm-up for that key until every body
has run.

The CUDA calls go through ``GraphApi`` (``TorchGraphs``: torch.cuda's) and
``ConditionalNodes``, so that everything above is tested on the CPU with
fakes (tests/backend/test_cuda_graphs_logic.py).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

import torch

from hopc.backend.cuda.conditional_nodes import ConditionalNodes, conditional_nodes_for

SIZE_WARNING_LIMIT = 8
"""Sizes a segment records before it warns (Inductor's ``cudagraph_dynamic_shape_warn_limit``)."""


Capture = Callable[[object], list[object]]
"""What a recording captures: ``run(graph) -> outputs``, run once while ``graph`` captures."""


class CudaGraphSizeWarning(UserWarning):
    """A ``kernel.graph`` segment recorded a graph for more than ``SIZE_WARNING_LIMIT`` sizes."""


class GraphApi(Protocol):
    """The CUDA-graph calls a ``GraphSegment`` makes (Note [graph recordings])."""

    def new_pool(self, device: torch.device) -> object:
        """A memory pool handle for ``device``'s recordings."""
        ...

    def new_stream(self, device: torch.device) -> object:
        """The side stream ``device``'s recordings are captured on."""
        ...

    def record(self, pool: object, stream: object, run: Capture) -> tuple[object, list[object]]:
        """A new graph with ``run(graph)`` captured into ``pool`` on ``stream``, and what ``run``
        returned (the recording's outputs)."""
        ...

    def replay(self, graph: object) -> None:
        ...

    def conditional_nodes(self) -> dict[str, ConditionalNodes]:
        """The implementation of each conditional-node kind, ``"if"`` and ``"while"``."""
        ...


class TorchGraphs:
    """``GraphApi`` through ``torch.cuda``: ``graph_pool_handle``, ``CUDAGraph`` captured by
    ``torch.cuda.graph`` in ``thread_local`` mode (as Inductor captures)."""

    def new_pool(self, device: torch.device) -> object:
        with torch.cuda.device(device):
            return torch.cuda.graph_pool_handle()

    def new_stream(self, device: torch.device) -> object:
        return torch.cuda.Stream(device)

    def record(self, pool: object, stream: object, run: Capture) -> tuple[object, list[object]]:
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph, pool=pool, stream=stream, capture_error_mode="thread_local"):
            outputs = run(graph)
        return graph, outputs

    def replay(self, graph: object) -> None:
        graph.replay()

    def conditional_nodes(self) -> dict[str, ConditionalNodes]:
        return conditional_nodes_for(torch.cuda.CUDAGraph)


@dataclass
class DevicePool:
    """The pool and side stream that every recording of one device shares."""

    device: torch.device
    handle: object
    stream: object


class GraphPools:
    """One ``DevicePool`` per device, made when a device first records, and the API they use."""

    def __init__(self, api: GraphApi):
        self.api = api
        self._pools: dict[torch.device, DevicePool] = {}
        self._nodes: dict[str, ConditionalNodes] | None = None

    def pool(self, device: torch.device) -> DevicePool:
        found = self._pools.get(device)
        if found is None:
            found = self._pools[device] = DevicePool(device, self.api.new_pool(device), self.api.new_stream(device))
        return found

    def conditional_nodes(self) -> dict[str, ConditionalNodes]:
        if self._nodes is None:
            self._nodes = self.api.conditional_nodes()
        return self._nodes


_DEFAULT_POOLS: list[GraphPools] = []


def default_pools() -> GraphPools:
    """The process's pools, through ``torch.cuda`` (one pool per device, Note [graph recordings])."""
    if not _DEFAULT_POOLS:
        _DEFAULT_POOLS.append(GraphPools(TorchGraphs()))
    return _DEFAULT_POOLS[0]


@dataclass
class Recording:
    """One graph of a segment: what ``hopc.backend.cuda.recorded_graphs`` lists."""

    sizes: tuple[int | float, ...]
    """The values of the shape symbols the segment's operands bind, for which it was recorded."""
    pool: object
    """The pool handle of its device, shared by every recording there."""
    graph: object
    inputs: list[object]
    """Per operand, what the graph reads: its own tensor, the ``in_place`` operand, or the value."""
    in_place_pointers: dict[int, int]
    outputs: list[object]
    conditional_nodes: int
    """IF and WHILE nodes captured in it (a cond is two IF nodes: its predicate and its negation)."""


Body = Callable[..., list[object]]
"""A segment's body as generated: ``*operands -> results``."""

SizeBinder = tuple[int, int | None]
"""(operand position, dim): a symbol's value is ``operands[position].size(dim)``, or the operand
itself for dim None."""


@dataclass(eq=False)
class GraphSegment:
    """The recordings of one ``kernel.graph`` by key (Note [graph recordings]); called by the
    generated code as ``segment(body, operands)``, its conds and whiles as ``run_if`` and
    ``run_while``."""

    pools: GraphPools
    device: torch.device
    size_binders: tuple[SizeBinder, ...]
    in_place: frozenset[int]
    conditional_bodies: int
    """How many conditional bodies (IF branches, WHILE cond and body regions) the segment holds."""
    recordings: dict[tuple, Recording] = field(default_factory=dict)
    warmed: dict[tuple, set[int]] = field(default_factory=dict)
    """Per key, the conditional bodies that ran in a warm-up."""
    rerecords: int = 0
    warned: bool = False
    _capture: _Capture | None = None
    _warming: set[int] | None = None

    def __call__(self, body: Body, operands: Sequence[object]) -> list[object]:
        key = tuple(operand.shape if isinstance(operand, torch.Tensor) else operand for operand in operands)
        recording = self.recordings.get(key)
        if recording is not None and any(operands[index].data_ptr() != pointer
                                         for index, pointer in recording.in_place_pointers.items()):
            del self.recordings[key]
            self.rerecords += 1
            recording = None
        if recording is None:
            warmed = self.warmed.setdefault(key, set())
            if len(warmed) < self.conditional_bodies:
                return self._warm_up(body, operands, warmed)
            return self._record(key, body, operands)
        inputs = [(mine, given) for index, (mine, given) in enumerate(zip(recording.inputs, operands, strict=True))
                  if index not in self.in_place and isinstance(given, torch.Tensor)]
        if inputs:
            torch._foreach_copy_([mine for mine, _ in inputs], [given for _, given in inputs])
        self.pools.api.replay(recording.graph)
        return [output.clone() if isinstance(output, torch.Tensor) else output for output in recording.outputs]

    def sizes(self, operands: Sequence[object]) -> tuple:
        """The values of the shape symbols the operands bind."""
        return tuple(operands[position] if dim is None else operands[position].size(dim)
                     for position, dim in self.size_binders)

    def _warm_up(self, body: Body, operands: Sequence[object], warmed: set[int]) -> list[object]:
        self._warming = warmed
        try:
            return body(*operands)
        finally:
            self._warming = None

    def _record(self, key: tuple, body: Body, operands: Sequence[object]) -> list[object]:
        inputs = [operand if index in self.in_place or not isinstance(operand, torch.Tensor)
                  else torch.empty_like(operand, memory_format=torch.preserve_format).copy_(operand)
                  for index, operand in enumerate(operands)]
        # What the caller gets, run on the very tensors the capture reads, so that every Triton
        # specialization (alignment, divisibility) the capture launches is compiled already.
        results = _unshared(body(*inputs), [i for i in inputs if isinstance(i, torch.Tensor)], own=None)
        pool = self.pools.pool(self.device)
        captures: list[_Capture] = []

        def run(graph: object) -> list[object]:
            self._capture = capture = _Capture(graph, pool.handle, self.pools.conditional_nodes())
            captures.append(capture)
            try:
                return body(*inputs)
            finally:
                self._capture = None

        graph, outputs = self.pools.api.record(pool.handle, pool.stream, run)
        nodes = captures[0].nodes
        pointers = {index: operands[index].data_ptr() for index in self.in_place}
        self.recordings[key] = Recording(self.sizes(operands), pool.handle, graph, inputs, pointers, outputs, nodes)
        if len(self.recordings) > SIZE_WARNING_LIMIT and not self.warned:
            self.warned = True
            warnings.warn(f"a CUDA graph segment recorded {len(self.recordings)} sizes (more than "
                          f"{SIZE_WARNING_LIMIT}); each costs a capture and pool memory: pad the dynamic "
                          "sizes to a few values, or use executor='triton'", CudaGraphSizeWarning, stacklevel=2)
        return results

    # ------------------------------------------------------------------- conds and whiles

    def run_if(self, index: int, predicate: torch.Tensor, then_body: Body, else_body: Body,
               inputs: Sequence[object], outputs: list[torch.Tensor]) -> list[object]:
        """A ``hop.cond`` of the segment: its branch run (outside a capture), or captured as IF
        nodes on the predicate and its negation, each branch writing ``outputs``. ``index``
        numbers its then-branch (its else-branch is ``index + 1``) among the segment's bodies."""
        capture = self._capture
        if capture is None:
            taken = bool(predicate)
            if self._warming is not None:
                self._warming.add(index if taken else index + 1)
            return (then_body if taken else else_body)(*inputs)
        for condition, branch in ((predicate, then_body), (torch.logical_not(predicate), else_body)):
            capture.if_node(condition, lambda branch=branch: _write(outputs, branch(*inputs)))
        return outputs

    def run_while(self, index: int, cond_body: Body, body: Body, carried: Sequence[torch.Tensor],
                  additional: Sequence[object]) -> list[object]:
        """A ``hop.while`` of the segment: a host loop (outside a capture), or captured as a WHILE
        node whose carried values live in buffers the body's yields are copied into. ``index``
        numbers its body among the segment's bodies (its cond region runs with every loop)."""
        capture = self._capture
        if capture is None:
            state, ran = list(carried), False
            while bool(cond_body(*state, *additional)[0]):
                state, ran = body(*state, *additional), True
            if self._warming is not None and ran:
                self._warming.update((index, index + 1))
            return state if ran else [value.clone() for value in state]
        state = [value.clone() for value in carried]

        def step() -> torch.Tensor:
            _write(state, _unshared(body(*state, *additional), state, own=state))
            return cond_body(*state, *additional)[0]

        capture.while_node(cond_body(*state, *additional)[0], step)
        return state


@dataclass
class _Capture:
    """The graph a segment is capturing, and the conditional nodes captured so far."""

    graph: object
    pool: object
    implementations: dict[str, ConditionalNodes]
    nodes: int = 0

    def if_node(self, predicate: torch.Tensor, body: Callable[[], None]) -> None:
        self.implementations["if"].if_node(self.graph, self.pool, predicate, body)
        self.nodes += 1

    def while_node(self, predicate: torch.Tensor, step: Callable[[], torch.Tensor]) -> None:
        self.implementations["while"].while_node(self.graph, self.pool, predicate, step)
        self.nodes += 1


def _write(targets: Sequence[torch.Tensor], values: Sequence[torch.Tensor]) -> None:
    for target, value in zip(targets, values, strict=True):
        if value is not target:
            target.copy_(value)


def _unshared(values: Sequence[object], buffers: Sequence[torch.Tensor],
              own: Sequence[torch.Tensor] | None) -> list[object]:
    """``values`` with each tensor that shares storage with one of ``buffers`` cloned, except
    where it is its own buffer (``own[i]``, where given): a WHILE body's yields to copy into the
    carried buffers (a body that swaps two carries, or yields a view of one, must not read a
    buffer an earlier copy wrote), or results that would alias a recording's inputs."""
    storages = {buffer.untyped_storage().data_ptr() for buffer in buffers}
    owners = own if own is not None else [None] * len(values)
    return [value.clone() if isinstance(value, torch.Tensor) and value is not owner
            and value.untyped_storage().data_ptr() in storages else value
            for value, owner in zip(values, owners, strict=True)]
