"""Probes CUDA-graph conditional nodes on the device's torch, made by hand through cuda.bindings.

    python -P scripts/cond_node_probe.py

torch 2.11 has no ``CUDAGraph.begin_capture_to_if_node`` / ``begin_capture_to_while_node``
(they arrive in 2.12 / 2.14), so a node is added during torch's own stream capture the way
NeMo's ``with_conditional_node`` does (nemo/core/utils/cuda_python_utils.py), with a
set-condition kernel written as PTX, as XLA ships it
(xla/stream_executor/cuda/command_buffer_kernels.cc): nothing to compile with NVRTC.

Prints one line per check, ``probe <check>: ok ...`` or ``probe <check>: FAILED ...``
(NOTES-gpu.md section 2):

- ``while``: a WHILE node running ``x = x * 0.5 + 1; i += 1`` while ``i < n``, with ``n`` read
  from a device tensor at replay, at trip counts 0, 1, 100 and 1,000, and its replay time
  against the eager host loop (which reads the predicate on the host every step);
- ``if``: a pair of IF nodes (``pred``, ``not pred``) choosing ``sin`` or ``cos`` of x by the
  sign of its sum, both ways;
- ``allocation in a body``: a body that allocates, its allocations routed to the graph's
  pool with torch's private ``_cuda_beginAllocateCurrentStreamToPool``;
- ``hopc's while``: the ``while`` check's loop, its predicate allocated in the body, through
  hopc's own ``BindingsConditionalNodes`` (``hopc.backend.cuda.conditional_nodes``), which
  adds the node through the driver API with either bindings, where the checks above use the
  runtime API with CUDA 13's.

Exits 0 when every check passed, 1 otherwise; without CUDA it says so and exits 0.

The set-condition PTX is a copy of ``hopc.backend.cuda.conditional_nodes.SET_CONDITION_PTX`` on
purpose: the first three checks must run where hopc itself does not import.
"""

from __future__ import annotations

import ctypes
import sys
import time
from collections.abc import Callable

import numpy as np
import torch

SET_CONDITION_PTX = r"""
.version 8.0
.target sm_90
.address_size 64
.extern .func cudaGraphSetConditional(.param .b64 handle, .param .b32 value);
.visible .entry hopc_set_condition(.param .u64 p_handle, .param .u64 p_pred)
{
	.reg .pred %p<2>; .reg .b16 %rs<2>; .reg .b32 %r<2>; .reg .b64 %rd<4>;
	ld.param.u64 %rd1, [p_handle];
	ld.param.u64 %rd2, [p_pred];
	cvta.to.global.u64 %rd3, %rd2;
	ld.global.u8 %rs1, [%rd3];
	setp.ne.s16 %p1, %rs1, 0;
	selp.u32 %r1, 1, 0, %p1;
	{
	.param .b64 param0;
	st.param.b64 [param0+0], %rd1;
	.param .b32 param1;
	st.param.b32 [param1+0], %r1;
	call.uni cudaGraphSetConditional, (param0, param1);
	}
	ret;
}
"""
"""``handle = *pred != 0``: one thread reads a bool on the device and sets the node's condition."""

WHILE_TRIP_COUNTS = (0, 1, 100, 1000)
TIMED_CALLS = 20


def checked(result: object) -> object:
    """The values a cuda.bindings call returns after its error code; raises on an error."""
    values = result if isinstance(result, tuple) else (result,)
    if int(values[0]) != 0:
        raise RuntimeError(f"CUDA error {values[0]!r}")
    rest = values[1:]
    return rest[0] if len(rest) == 1 else rest


class ConditionalNodes:
    """IF and WHILE nodes added by hand to the graph torch is capturing (cuda.bindings 12 or 13)."""

    def __init__(self):
        from cuda.bindings import __version__ as bindings_version
        from cuda.bindings import driver, runtime

        self.driver, self.runtime = driver, runtime
        self.bindings_version = bindings_version
        self.edge_data = int(bindings_version.split(".")[0]) >= 13  # CUDA 13's graph calls take edge data
        torch.zeros(1, device="cuda")  # makes torch's primary context current on this thread
        self._ptx = ctypes.create_string_buffer(SET_CONDITION_PTX.encode())
        module = checked(driver.cuModuleLoadData(ctypes.addressof(self._ptx)))
        self.set_condition_kernel = checked(driver.cuModuleGetFunction(module, b"hopc_set_condition"))

    def set_condition(self, handle: object, pred: torch.Tensor) -> None:
        """Captures ``handle = pred`` (a 0-d bool CUDA tensor) on torch's current stream."""
        pred_pointer = np.array([pred.data_ptr()], dtype=np.uint64)
        arguments = np.array([handle.getPtr(), pred_pointer.ctypes.data], dtype=np.uint64)
        stream = torch.cuda.current_stream().cuda_stream
        checked(self.driver.cuLaunchKernel(self.set_condition_kernel, 1, 1, 1, 1, 1, 1, 0, stream,
                                           arguments.ctypes.data, 0))

    def body(self, pred: torch.Tensor, kind: str, pool: object = None) -> ConditionalBody:
        """``with nodes.body(pred, "while") as body:`` captures its block as an IF/WHILE node's body."""
        return ConditionalBody(self, pred, kind, pool)


class ConditionalBody:
    """The body of one conditional node, captured on a stream of its own while its block runs.

    On entry: a handle in the capturing graph, set from ``pred``; the node, made the parent
    stream's only dependency; the body's capture begun on a new stream, made current. On exit
    the body's capture ends and the parent stream is current again. ``pool``, when given, is
    the graph's pool, into which the body's allocations are routed meanwhile."""

    def __init__(self, nodes: ConditionalNodes, pred: torch.Tensor, kind: str, pool: object):
        self.nodes, self.pred, self.kind, self.pool = nodes, pred, kind, pool

    def __enter__(self) -> ConditionalBody:
        runtime = self.nodes.runtime
        self.parent = torch.cuda.current_stream()
        status, _, graph, *_ = checked(runtime.cudaStreamGetCaptureInfo(self.parent.cuda_stream))
        if status != runtime.cudaStreamCaptureStatus.cudaStreamCaptureStatusActive:
            raise RuntimeError("a conditional body needs a stream that is capturing")
        self.handle = checked(runtime.cudaGraphConditionalHandleCreate(graph, 0, 0))
        self.nodes.set_condition(self.handle, self.pred)
        dependencies = checked(runtime.cudaStreamGetCaptureInfo(self.parent.cuda_stream))[3]
        add_node = self._add_node_with_edge_data if self.nodes.edge_data else self._add_node_through_driver
        body = add_node(graph, dependencies)
        self.stream = torch.cuda.Stream()
        checked(runtime.cudaStreamBeginCaptureToGraph(
            self.stream.cuda_stream, body, None, None, 0,
            runtime.cudaStreamCaptureMode.cudaStreamCaptureModeThreadLocal))
        torch.cuda.set_stream(self.stream)
        self._route_allocations_to_pool()
        return self

    def _add_node_with_edge_data(self, graph: object, dependencies: list) -> object:
        """CUDA 13 bindings: the node added by the runtime API, whose calls take edge data; its body."""
        runtime = self.nodes.runtime
        parameters = runtime.cudaGraphNodeParams()
        parameters.type = runtime.cudaGraphNodeType.cudaGraphNodeTypeConditional
        parameters.conditional.handle = self.handle
        parameters.conditional.type = (runtime.cudaGraphConditionalNodeType.cudaGraphCondTypeWhile
                                       if self.kind == "while" else
                                       runtime.cudaGraphConditionalNodeType.cudaGraphCondTypeIf)
        parameters.conditional.size = 1
        node = checked(runtime.cudaGraphAddNode(graph, dependencies, None, len(dependencies), parameters))
        replace = runtime.cudaStreamUpdateCaptureDependenciesFlags.cudaStreamSetCaptureDependencies
        checked(runtime.cudaStreamUpdateCaptureDependencies(self.parent.cuda_stream, [node], None, 1, replace))
        return parameters.conditional.phGraph_out[0]

    def _add_node_through_driver(self, graph: object, dependencies: list) -> object:
        """CUDA 12 bindings: the node added by the driver API, as NeMo does (the runtime's
        ``cudaGraphAddNode`` was broken in bindings before 12.4); its body."""
        driver, runtime = self.nodes.driver, self.nodes.runtime
        parameters = driver.CUgraphNodeParams()
        parameters.type = driver.CUgraphNodeType.CU_GRAPH_NODE_TYPE_CONDITIONAL
        parameters.conditional.handle = self.handle
        parameters.conditional.type = (driver.CUgraphConditionalNodeType.CU_GRAPH_COND_TYPE_WHILE
                                       if self.kind == "while" else
                                       driver.CUgraphConditionalNodeType.CU_GRAPH_COND_TYPE_IF)
        parameters.conditional.size = 1
        parameters.conditional.ctx = checked(driver.cuCtxGetCurrent())
        node = checked(driver.cuGraphAddNode(graph, dependencies, len(dependencies), parameters))
        replace = runtime.cudaStreamUpdateCaptureDependenciesFlags.cudaStreamSetCaptureDependencies
        checked(runtime.cudaStreamUpdateCaptureDependencies(self.parent.cuda_stream, [node], 1, replace))
        return parameters.conditional.phGraph_out[0]

    def update(self, pred: torch.Tensor) -> None:
        """For a WHILE body: the value the node tests before its next iteration."""
        self.nodes.set_condition(self.handle, pred)

    def __exit__(self, *exception: object) -> bool:
        try:
            checked(self.nodes.runtime.cudaStreamEndCapture(self.stream.cuda_stream))
        finally:
            torch.cuda.set_stream(self.parent)
            self._route_allocations_to_pool()
        return False

    def _route_allocations_to_pool(self) -> None:
        """The current stream's allocations into ``pool`` (private torch API, as 2.12+ does in C++)."""
        if self.pool is not None:
            device = torch.cuda.current_device()
            torch._C._cuda_endAllocateToPool(device, self.pool)
            torch._C._cuda_beginAllocateCurrentStreamToPool(device, self.pool)


def microseconds_per_call(function: Callable[[], object]) -> float:
    for _ in range(3):
        function()
    torch.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(TIMED_CALLS):
        function()
    torch.cuda.synchronize()
    return (time.perf_counter() - start) / TIMED_CALLS * 1e6


def probe_while(nodes: ConditionalNodes) -> str:
    x = torch.randn(16, device="cuda")
    i = torch.zeros((), dtype=torch.int64, device="cuda")
    n = torch.tensor(0, device="cuda")
    again = torch.empty((), dtype=torch.bool, device="cuda")
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph, stream=torch.cuda.Stream()):
        torch.lt(i, n, out=again)
        with nodes.body(again, "while") as loop:
            x.mul_(0.5).add_(1.0)
            i.add_(1)
            torch.lt(i, n, out=again)
            loop.update(again)
    start = torch.randn(16, device="cuda")
    wrong = wrong_trip_counts(graph, x, i, n, start)
    if wrong:
        return "FAILED " + "; ".join(wrong)

    def eager_loop() -> torch.Tensor:
        value, step = start.clone(), torch.zeros((), dtype=torch.int64, device="cuda")
        while bool(step < n):
            value = value * 0.5 + 1.0
            step = step + 1
        return value

    def replay() -> None:
        i.zero_()
        graph.replay()

    n.fill_(100)
    return (f"ok at {', '.join(map(str, WHILE_TRIP_COUNTS))} steps; 100 steps: graph "
            f"{microseconds_per_call(replay):.0f} us, eager loop {microseconds_per_call(eager_loop):.0f} us")


def wrong_trip_counts(graph: torch.cuda.CUDAGraph, x: torch.Tensor, i: torch.Tensor, n: torch.Tensor,
                      start: torch.Tensor) -> list[str]:
    """The trip counts of ``WHILE_TRIP_COUNTS`` at which a replay of ``x = x * 0.5 + 1; i += 1``
    while ``i < n`` from ``x = start`` ran another count of steps or computed another ``x``."""
    wrong = []
    for trip_count in WHILE_TRIP_COUNTS:
        n.fill_(trip_count)
        x.copy_(start)
        i.zero_()
        graph.replay()
        expected = start.clone()
        for _ in range(trip_count):
            expected = expected * 0.5 + 1.0
        if int(i) != trip_count or not torch.allclose(x, expected):
            wrong.append(f"{trip_count} steps: {int(i)} ran")
    return wrong


def probe_hopc_while(nodes: ConditionalNodes) -> str:
    from hopc.backend.cuda.conditional_nodes import BindingsConditionalNodes

    x, start = torch.randn(16, device="cuda"), torch.randn(16, device="cuda")
    i = torch.zeros((), dtype=torch.int64, device="cuda")
    n = torch.tensor(0, device="cuda")
    pool = torch.cuda.graph_pool_handle()
    graph = torch.cuda.CUDAGraph()

    def step() -> torch.Tensor:
        x.mul_(0.5).add_(1.0)
        i.add_(1)
        return i < n

    with torch.cuda.graph(graph, pool=pool, stream=torch.cuda.Stream(), capture_error_mode="thread_local"):
        BindingsConditionalNodes().while_node(graph, pool, i < n, step)
    wrong = wrong_trip_counts(graph, x, i, n, start)
    return "FAILED " + "; ".join(wrong) if wrong else f"ok at {', '.join(map(str, WHILE_TRIP_COUNTS))} steps"


def probe_if(nodes: ConditionalNodes) -> str:
    x = torch.randn(8, 16, device="cuda")
    out = torch.empty_like(x)
    pred = torch.empty((), dtype=torch.bool, device="cuda")
    not_pred = torch.empty_like(pred)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph, stream=torch.cuda.Stream()):
        torch.gt(x.sum(), 0, out=pred)
        torch.logical_not(pred, out=not_pred)
        with nodes.body(pred, "if"):
            torch.sin(x, out=out)
        with nodes.body(not_pred, "if"):
            torch.cos(x, out=out)
    wrong = []
    for sign in (1.0, -1.0):
        x.copy_(sign * torch.rand(8, 16, device="cuda"))
        graph.replay()
        if not torch.allclose(out, x.sin() if sign > 0 else x.cos()):
            wrong.append("then" if sign > 0 else "else")
    return f"FAILED the {' and '.join(wrong)} branch" if wrong else "ok, both branches"


def probe_allocation_in_body(nodes: ConditionalNodes) -> str:
    pool = torch.cuda.graph_pool_handle()
    x = torch.randn(1024, device="cuda")
    pred = torch.ones((), dtype=torch.bool, device="cuda")
    out = torch.empty_like(x)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph, pool=pool, stream=torch.cuda.Stream()), nodes.body(pred, "if", pool=tuple(pool)):
        out.copy_(x.sin() * 2)  # x.sin() allocates inside the body
    graph.replay()
    return "ok" if torch.allclose(out, x.sin() * 2) else "FAILED: wrong values"


PROBES = {"while": probe_while, "if": probe_if, "allocation in a body": probe_allocation_in_body,
          "hopc's while": probe_hopc_while}


def main() -> int:
    if not torch.cuda.is_available():
        print("probe: no CUDA device; nothing probed")
        return 0
    nodes = ConditionalNodes()
    _, driver_version = nodes.driver.cuDriverGetVersion()
    print(f"probe: torch {torch.__version__} (CUDA {torch.version.cuda}), driver API {driver_version}, "
          f"cuda.bindings {nodes.bindings_version}, {torch.cuda.get_device_name()}")
    failures = 0
    for name, probe in PROBES.items():
        try:
            line = probe(nodes)
        except Exception as error:  # a probe reports what failed, and the next one runs
            line = f"FAILED {type(error).__name__}: {str(error)[:300]}"
        failures += line.startswith("FAILED")
        print(f"probe {name}: {line}", flush=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
