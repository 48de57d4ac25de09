"""The ``form-cuda-graphs`` pass: a CUDA module's launches grouped into ``kernel.graph`` segments.

After it, in a kernel-level module for CUDA (``kernel.device = "cuda"``),
every maximal run of ops of one block that one CUDA graph can capture
(``capture_obstacle`` in ``hopc.dialects.kernel_capture``) and that holds a launch
is one ``kernel.graph``; a ``hop.cond`` or ``hop.while`` in it carries
``kernel.conditional_node``. It assumes a planned module (after
``plan-memory``) and changes nothing in a CPU module or above the kernel
level. A second run changes nothing.

Before::

    %a = kernel.launch @sin(%x) ...
    %u = hop.item %t ...
    %b = kernel.launch @fill(%a, %u) ...

After::

    %a = kernel.graph(%x) ... { ... kernel.launch @sin ... kernel.yield }
    %u = hop.item %t ...
    %b = kernel.graph(%a, %u) ... { ... kernel.launch @fill ... kernel.yield }

Note [cuda graph segments]
~~~~~~~~~~~~~~~~~~~~~~~~~~
A CUDA graph replays recorded device work with no host code in between,
so it cannot hold anything the host must see while it runs: a read of a
device value (``hop.item``, a launch whose result sizes depend on data such
as ``aten.nonzero``, a ``hop.cond`` or ``hop.while`` whose predicate the
host tests), nor host work whose outcome changes from call to call (RNG
state ops, calls into other functions). Those end a segment and the next
segment starts after them; they run on the host between replays, and the
blocks of a host region op that is not captured get segments of their own.

What a segment captures is fixed by its operands' shapes and symbol values
(its key): allocation sizes, grids, symbol arithmetic (which a graph
captures as the constants it had while recording). So the runtime records
one graph per key, all in one memory pool per device
(``hopc.backend.cuda.graphs``). A symbol read on the host before a
segment, an unbacked one included, is an operand like any other: an
allocation sized by it belongs to the segment after the read, keyed by it.

Operands that are the function's parameters or buffers (``hop.parameter``,
``hop.buffer``) are ``in_place``: a recording reads them where they are;
every other tensor operand is copied into the recording's own input.

Note [conditional nodes]
~~~~~~~~~~~~~~~~~~~~~~~~
A ``hop.cond`` on a 0-d bool tensor is captured as two IF nodes (the
predicate and its negation, as PyTorch's own ``torch.cond`` capture does),
each writing the cond's results into buffers allocated before them; a
``hop.while`` whose cond region yields such a tensor is captured as a
WHILE node, its carried values in buffers the body's yields are copied
into. The device tests the predicate at replay, so no host read remains.
Bodies hold only what a conditional node may hold: launches, allocations,
symbol arithmetic and further nodes, and no random numbers (PyTorch
refuses RNG in conditional bodies). A cond whose results have sizes the
taken branch decides, a while that carries a symbol, and a cond on a shape
expression are not captured.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, StringAttr
from xdsl.dialects.func import FuncOp
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.traits import IsTerminator

from hopc.dialects.hop_function_signature import function_signature
from hopc.dialects.hop_module import BUFFER, PARAMETER
from hopc.dialects.kernel import (
    CONDITIONAL_NODE,
    DEVICE_ATTRIBUTE,
    GraphOp,
    KernelOp,
    LaunchOp,
    YieldOp,
    module_device,
)
from hopc.dialects.kernel_capture import capture_obstacle, conditional_node_kind


class FormCudaGraphsPass(ModulePass):
    """Groups a CUDA module's launches into kernel.graph segments between host syncs."""

    name = "form-cuda-graphs"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        form_cuda_graphs(op)


def form_cuda_graphs(module: ModuleOp) -> ModuleOp:
    """``module`` in place with its launches in ``kernel.graph`` segments (see the module
    docstring), where it is a kernel-level module for CUDA; returned."""
    if DEVICE_ATTRIBUTE not in module.attributes or module_device(module) != "cuda":
        return module
    for function in module.ops:
        if isinstance(function, FuncOp):
            form_function_graphs(function)
    return module


def form_function_graphs(function: FuncOp) -> None:
    """The segments of one function, whatever its module's device (Note [cuda graph segments])."""
    block = function.body.block
    roles = function_signature(function).arguments
    in_place = frozenset(block.args[index] for index, role in enumerate(roles) if role.kind in (PARAMETER, BUFFER))
    _form_block(block, in_place)


def _form_block(block: Block, in_place: frozenset[SSAValue]) -> None:
    """Outlines each maximal run of capturable ops of ``block``; recurses into host region ops."""
    run: list[Operation] = []
    for op in list(block.ops):
        if op.has_trait(IsTerminator, value_if_unregistered=False):
            break
        if capture_obstacle(op) is None:
            run.append(op)
            continue
        _outline(run, in_place)
        run = []
        if not isinstance(op, GraphOp | KernelOp):
            for region in op.regions:
                for inner in region.blocks:
                    _form_block(inner, frozenset())
    _outline(run, in_place)


def _outline(run: Sequence[Operation], in_place: frozenset[SSAValue]) -> None:
    """``run`` (ops in a row of one block) moved into one ``kernel.graph`` where it launches anything:
    the values it reads from before it are the graph's operands, those read after it its results."""
    if not any(isinstance(inner, LaunchOp) for op in run for inner in op.walk()):
        return
    inside = set(run)
    operands = _read_from_outside(run, inside)
    results = [r for op in run for r in op.results if any(not _within(use.operation, inside) for use in r.uses)]
    block = Block(arg_types=[v.type for v in operands])
    graph = GraphOp(operands, [r.type for r in results], Region(block),
                    in_place=[index for index, value in enumerate(operands) if value in in_place])
    run[0].parent_block().insert_op_before(graph, run[0])
    for op in run:
        op.detach()
        block.add_op(op)
    block.add_op(YieldOp(*results))
    for value, argument in zip(operands, block.args, strict=True):
        value.replace_uses_with_if(argument, lambda use: use.operation is not graph
                                   and graph.is_ancestor(use.operation))
    for value, result in zip(results, graph.results, strict=True):
        value.replace_uses_with_if(result, lambda use: not graph.is_ancestor(use.operation))
    for op in graph.walk():
        kind = conditional_node_kind(op)
        if kind is not None:
            op.attributes[CONDITIONAL_NODE] = StringAttr(kind)


def _read_from_outside(run: Sequence[Operation], inside: set[Operation]) -> list[SSAValue]:
    """The values that ops of ``run`` (or ops nested in them) read and that ``run`` does not
    define, in order of first read."""
    read: dict[SSAValue, None] = {}
    for op in run:
        for inner in op.walk():
            for operand in inner.operands:
                if not _defined_within(operand, inside):
                    read.setdefault(operand)
    return list(read)


def _defined_within(value: SSAValue, inside: set[Operation]) -> bool:
    owner = value.owner
    op = owner if isinstance(owner, Operation) else owner.parent_op()
    return op is not None and _within(op, inside)


def _within(op: Operation, inside: set[Operation]) -> bool:
    """Whether ``op`` is one of ``inside`` or nested in one."""
    while op is not None:
        if op in inside:
            return True
        op = op.parent_op()
    return False
