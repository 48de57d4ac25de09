"""Conditional nodes (IF, WHILE) in a CUDA graph being captured (Note [conditional nodes] in
``hopc.passes.form_cuda_graphs``).

Two implementations of one interface, ``ConditionalNodes``:

- ``TorchConditionalNodes``: ``torch.cuda.CUDAGraph``'s own methods,
  ``begin_capture_to_if_node`` (torch >= 2.12) and ``begin_capture_to_while_node``
  with ``set_conditional_handle_for_current_node`` (torch >= 2.14), each closed
  by ``end_capture_to_conditional_node``;
- ``BindingsConditionalNodes``: for a torch without them (2.11), the node
  inserted by hand into torch's own capture through ``cuda-bindings`` (a
  dependency of torch 2.11 on Linux), as NeMo's ``with_conditional_node``
  does: a handle created in the capturing graph, set from the predicate by a
  one-thread kernel (hand-written PTX calling ``cudaGraphSetConditional``, as
  XLA ships it), the node added after the capture's current dependencies, and
  the body captured on a stream of its own into the node's body graph, its
  allocations routed to the graph's pool.

``conditional_nodes_for(graph_class)`` picks, for each kind, the first that
the installed torch supports (a feature check, never a version number).
"""

from __future__ import annotations

import ctypes
from collections.abc import Callable
from typing import Protocol
from weakref import WeakKeyDictionary

import torch

Step = Callable[[], torch.Tensor]
"""One run of a WHILE node's body: returns the predicate for the next iteration (a 0-d bool
tensor on the device)."""


class ConditionalNodes(Protocol):
    """IF and WHILE nodes of the graph being captured; ``predicate`` is a 0-d bool CUDA tensor,
    tested by the device at every replay."""

    def if_node(self, graph: object, pool: object, predicate: torch.Tensor, body: Callable[[], None]) -> None:
        """Captures ``body()`` as the body of an IF node on ``predicate``."""
        ...

    def while_node(self, graph: object, pool: object, predicate: torch.Tensor, step: Step) -> None:
        """Captures ``step()`` as the body of a WHILE node entered while ``predicate`` holds and
        repeated while the predicate ``step`` returns holds."""
        ...


class TorchConditionalNodes:
    """Conditional nodes through ``torch.cuda.CUDAGraph``'s methods (torch >= 2.12 for IF, 2.14
    for WHILE), which also route the body's allocations to the graph's pool."""

    def if_node(self, graph: object, pool: object, predicate: torch.Tensor, body: Callable[[], None]) -> None:
        graph.begin_capture_to_if_node(predicate)
        try:
            body()
        finally:
            graph.end_capture_to_conditional_node()

    def while_node(self, graph: object, pool: object, predicate: torch.Tensor, step: Step) -> None:
        graph.begin_capture_to_while_node(predicate)
        try:
            graph.set_conditional_handle_for_current_node(step())
        finally:
            graph.end_capture_to_conditional_node()


class BindingsConditionalNodes:
    """Conditional nodes through ``cuda-bindings`` during torch's capture (torch 2.11), imported
    when first used (see the module docstring)."""

    def __init__(self) -> None:
        self._set_condition: object | None = None
        self._kernel_source: ctypes.Array[ctypes.c_char] | None = None
        """The PTX image ``hopc_set_condition`` was loaded from, kept as long as the kernel."""
        self._kept: WeakKeyDictionary[object, list[object]] = WeakKeyDictionary()
        """Per graph, the launch argument arrays and predicates its nodes read at replay: released
        with the graph (when its recording goes), not kept for the process's life."""

    def if_node(self, graph: object, pool: object, predicate: torch.Tensor, body: Callable[[], None]) -> None:
        with _CapturedBody(self, graph, "if", predicate, pool):
            body()

    def while_node(self, graph: object, pool: object, predicate: torch.Tensor, step: Step) -> None:
        with _CapturedBody(self, graph, "while", predicate, pool) as node:
            self.set_condition(graph, node.handle, step())

    def set_condition(self, graph: object, handle: object, predicate: torch.Tensor) -> None:
        """Captures ``handle = predicate`` on torch's current stream, into ``graph``."""
        import numpy as np
        from cuda.bindings import driver

        pointer = np.array([predicate.data_ptr()], dtype=np.uint64)
        arguments = np.array([handle.getPtr(), pointer.ctypes.data], dtype=np.uint64)
        self._kept.setdefault(graph, []).extend([pointer, arguments, predicate])
        _checked(driver.cuLaunchKernel(self._kernel(), 1, 1, 1, 1, 1, 1, 0,
                                       torch.cuda.current_stream().cuda_stream, arguments.ctypes.data, 0))

    def _kernel(self) -> object:
        if self._set_condition is None:
            from cuda.bindings import driver

            self._kernel_source = ctypes.create_string_buffer(SET_CONDITION_PTX.encode())
            module = _checked(driver.cuModuleLoadData(ctypes.addressof(self._kernel_source)))
            self._set_condition = _checked(driver.cuModuleGetFunction(module, b"hopc_set_condition"))
        return self._set_condition


class _CapturedBody:
    """``with _CapturedBody(nodes, graph, kind, predicate, pool):`` captures its block as the body
    of a new IF or WHILE node of ``graph``, which torch is capturing on the current stream."""

    def __init__(self, nodes: BindingsConditionalNodes, graph: object, kind: str, predicate: torch.Tensor,
                 pool: object):
        self.nodes, self.graph, self.kind, self.predicate, self.pool = nodes, graph, kind, predicate, pool

    def __enter__(self) -> _CapturedBody:
        from cuda.bindings import driver, runtime

        parent = torch.cuda.current_stream()
        info = _checked(runtime.cudaStreamGetCaptureInfo(parent.cuda_stream))
        capturing = info[2]
        self.handle = _checked(runtime.cudaGraphConditionalHandleCreate(capturing, 0, 0))
        self.nodes.set_condition(self.graph, self.handle, self.predicate)
        dependencies = _checked(runtime.cudaStreamGetCaptureInfo(parent.cuda_stream))[3]
        parameters = driver.CUgraphNodeParams()
        parameters.type = driver.CUgraphNodeType.CU_GRAPH_NODE_TYPE_CONDITIONAL
        parameters.conditional.handle = self.handle
        kinds = driver.CUgraphConditionalNodeType
        parameters.conditional.type = (kinds.CU_GRAPH_COND_TYPE_WHILE if self.kind == "while"
                                       else kinds.CU_GRAPH_COND_TYPE_IF)
        parameters.conditional.size = 1
        parameters.conditional.ctx = _checked(driver.cuCtxGetCurrent())
        replace = runtime.cudaStreamUpdateCaptureDependenciesFlags.cudaStreamSetCaptureDependencies
        if _bindings_major() >= 13:  # CUDA 13's bindings take edge data after the dependencies
            node = _checked(driver.cuGraphAddNode(capturing, dependencies, None, len(dependencies), parameters))
            _checked(runtime.cudaStreamUpdateCaptureDependencies(parent.cuda_stream, [node], None, 1, replace))
        else:
            node = _checked(driver.cuGraphAddNode(capturing, dependencies, len(dependencies), parameters))
            _checked(runtime.cudaStreamUpdateCaptureDependencies(parent.cuda_stream, [node], 1, replace))
        body = parameters.conditional.phGraph_out[0]
        self.parent, self.stream = parent, _stream_not_capturing()
        _checked(runtime.cudaStreamBeginCaptureToGraph(self.stream.cuda_stream, body, None, None, 0,
                                                       runtime.cudaStreamCaptureMode.cudaStreamCaptureModeThreadLocal))
        torch.cuda.set_stream(self.stream)
        self._allocate_to_pool()
        return self

    def __exit__(self, *exception: object) -> bool:
        from cuda.bindings import runtime

        try:
            _checked(runtime.cudaStreamEndCapture(self.stream.cuda_stream))
        finally:
            torch.cuda.set_stream(self.parent)
            self._allocate_to_pool()
        return False

    def _allocate_to_pool(self) -> None:
        """The current stream's allocations into the graph's pool (torch's private API, which
        PyTorch 2.12+ calls itself around a conditional body)."""
        device = torch.cuda.current_device()
        torch._C._cuda_endAllocateToPool(device, self.pool)
        torch._C._cuda_beginAllocateCurrentStreamToPool(device, self.pool)


POOL_STREAMS = 32
"""Streams of each priority in torch's per-device pool (``kStreamsPerPool``), handed out in turn."""


def _stream_not_capturing() -> torch.cuda.Stream:
    """A new stream of torch's pool that no capture is using: the pool hands out its streams in
    turn, so that every ``POOL_STREAMS``-th ``torch.cuda.Stream()`` is the graph's own capture
    stream (or an enclosing body's), on which a body's capture could not begin."""
    from cuda.bindings import runtime

    for _ in range(POOL_STREAMS):
        stream = torch.cuda.Stream()
        status = _checked(runtime.cudaStreamIsCapturing(stream.cuda_stream))
        if status == runtime.cudaStreamCaptureStatus.cudaStreamCaptureStatusNone:
            return stream
    raise RuntimeError(f"all {POOL_STREAMS} streams of torch's pool are capturing")


def _checked(result: object) -> object:
    """The values of a cuda-bindings call; a RuntimeError for an error code."""
    result = result if isinstance(result, tuple) else (result,)
    if int(result[0]) != 0:
        raise RuntimeError(f"CUDA error {result[0]!r}")
    rest = result[1:]
    return rest[0] if len(rest) == 1 else rest


def _bindings_major() -> int:
    from cuda.bindings import __version__

    return int(__version__.split(".")[0])


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
"""``hopc_set_condition(handle, predicate)``: sets a conditional handle from a 0-d bool tensor
(one thread); for sm_90 (H100/H200), loaded from memory, so nothing needs NVRTC."""


def conditional_nodes_for(graph_class: type) -> dict[str, ConditionalNodes]:
    """The implementation of each node kind (``"if"``, ``"while"``) for ``graph_class``
    (``torch.cuda.CUDAGraph``): torch's own where the class has its capture method,
    cuda-bindings otherwise."""
    bindings = BindingsConditionalNodes()
    torch_nodes = TorchConditionalNodes()
    return {
        "if": torch_nodes if hasattr(graph_class, "begin_capture_to_if_node") else bindings,
        "while": torch_nodes if hasattr(graph_class, "begin_capture_to_while_node") else bindings,
    }
