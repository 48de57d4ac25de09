"""Lowers a functional module to the kernel level: ATen ops fused into launched kernels.

Invariant after the pass (the kernel level, Note [kernel level] in
``hopc.dialects.kernel``): no ATen op is left at host level; every one is in
the body of a ``kernel.kernel`` that a ``kernel.launch`` runs, in every
function, every HOP region and every ``hop.subgraph`` (pointwise and
reduction ops whose values nothing reads are dead, and erased). Host structure (entry
functions, HOPs as host control flow, shape-symbol ops, constants) is
unchanged, and so is the order of everything outside the fused ops. The
module attribute ``kernel.device`` names the target device.

Assumes a verified module at the functional and symbol-closed levels (after
``functionalize`` and ``lift-symbols``; forward and backward functions of
``autograd`` and the output of ``freeze`` alike). Launches carry no buffers
yet: ``plan-memory`` gives them some.

Steps: each ``hop.flex_attention`` becomes a wrap of ATen ops (``flex_attention``);
small pointwise ``hop.cond``s become selects where the device makes
that profitable (Note [conds as selects]); a keepdim sum viewed without its
kept dimensions becomes a sum that drops them (``kept_dimensions``), and a
sum of slice gradients tiling a dimension a ``cat`` (``slice_gradients``),
and an ``addmm`` of a transposed weight a ``linear`` (``linear``);
``*_copy`` views read only by ATen ops of their block become real views,
and reshapes to their operand's own shape go, and so do clones of dense values
that nothing else reads (``views``); then the ATen ops of each block
are grouped (Note [fusion groups]) and each group is outlined into a kernel
(``outline``), in that order (Note [rewrite order]). Which ops a generated
kernel may hold is the Triton emitter's to say
(``hopc.backend.triton.ops.can_emit``, which ``hopc.registry.CAN_GENERATE``
names, so that this pass imports no backend); the others are ``extern`` kernels,
one op each, run by their library.

Note [conds as selects]
~~~~~~~~~~~~~~~~~~~~~~~
A ``hop.cond`` at host level reads its predicate on the host: on CUDA that
is a device synchronization (and a CUDA graph cannot hold it), so a small
cond with pointwise branches is cheaper as a select that fuses with its
neighbours (``cond_to_select``). On the CPU reading a 0-d tensor costs
about a microsecond and running only the taken branch is cheaper than
running both, so the rewrite is off there. ``conds-as-selects`` forces it
(``always``/``never``); the default, ``auto``, decides by device.

Note [rewrite order]
~~~~~~~~~~~~~~~~~~~~
Each rewrite before fusion is a sweep run to a fixed point, in the order of
the steps above, because most depend on the others' results: ``cond_to_select``
inlines branch ops the later rewrites match (an ``add`` of slice gradients);
``TransposeOfTranspose`` makes a ``view_copy`` or an ``add`` read a ``sum`` or
a ``slice_backward`` directly, and removes ``t_copy``s that
``AddmmOfTransposeToLinear`` would match; that one must see a ``t_copy``
before ``ViewCopyToView`` makes it a view (as it would a ``view_copy`` of a
keepdim sum); ``IdentityReshape`` matches the reshapes ``ViewCopyToView``
makes, and erasing one can give its operand the readers that let
``ViewCopyToView`` fire. ``CloneOfDense`` comes last: the views the others
make decide which operands of a clone are dense (a reshape of an op's
result), and a clone is no reader that lets them fire. Only ``DropKeptDimensions`` and
``SliceGradientsToCat`` share a sweep: they match different ops (a
``view_copy`` of a ``sum``, an ``add`` of ``slice_backward``s), make ops
neither matches (a ``sum``, a ``cat``), and the op each makes reads what the
ops it erases read, as often, so neither makes, removes or changes the uses
of a match of the other, and the result is the same in either order.

Before::

    %s = aten.sin(%x) : (!hop.tensor<[s0, 16], f32>) -> !hop.tensor<[s0, 16], f32>
    %r = aten.mul.Tensor(%s, %w) : (!hop.tensor<[s0, 16], f32>, !hop.tensor<[16], f32>) -> !hop.tensor<[s0, 16], f32>

After::

    kernel.kernel @pointwise_sin_mul_Tensor "pointwise" {
    ^bb0(%x: !hop.tensor<[s0, 16], f32>, %w: !hop.tensor<[16], f32>, %0: !hop.symint<s0>):
      %s = aten.sin(%x) ...
      %r = aten.mul.Tensor(%s, %w) ...
      kernel.yield %r : !hop.tensor<[s0, 16], f32>
    }
    ...
    %n = hop.sym_size %x[0] : !hop.tensor<[s0, 16], f32> -> !hop.symint<s0>
    %r = kernel.launch @pointwise_sin_mul_Tensor(%x, %w, %n) : (...) -> !hop.tensor<[s0, 16], f32>
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from xdsl.builder import Builder
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, StringAttr
from xdsl.ir import Block
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import GreedyRewritePatternApplier, PatternRewriteWalker
from xdsl.rewriter import InsertPoint

from hopc.dialects.aten import AtenOp
from hopc.dialects.kernel import DEVICE_ATTRIBUTE, KernelOp
from hopc.dialects.kernel_buffer import DEVICES
from hopc.dialects.symbol_scope import SymbolScope
from hopc.ir.diagnostics import HopcError
from hopc.passes.convert_hop_to_kernel.cond_to_select import CondToSelect
from hopc.passes.convert_hop_to_kernel.flex_attention import FlexAttentionToWrap
from hopc.passes.convert_hop_to_kernel.fusion import fusion_groups
from hopc.passes.convert_hop_to_kernel.kept_dimensions import DropKeptDimensions
from hopc.passes.convert_hop_to_kernel.linear import AddmmOfTransposeToLinear
from hopc.passes.convert_hop_to_kernel.outline import KernelTable, outline
from hopc.passes.convert_hop_to_kernel.slice_gradients import SliceGradientsToCat
from hopc.passes.convert_hop_to_kernel.views import (
    CloneOfDense,
    IdentityReshape,
    TransposeOfTranspose,
    ViewCopyToView,
)
from hopc.registry import CAN_GENERATE, load

CONDS_AS_SELECTS = ("auto", "always", "never")
"""The values of ``conds-as-selects`` (Note [conds as selects]): by device, always, never."""


def check_conds_as_selects(value: str, option: str = "conds-as-selects") -> None:
    """A HopcError, naming ``option``, where ``value`` is not one of ``CONDS_AS_SELECTS``."""
    if value not in CONDS_AS_SELECTS:
        raise HopcError(f"{option} is one of {', '.join(CONDS_AS_SELECTS)}, not '{value}'")


def convert_to_kernel(module: ModuleOp, device: str = "cpu", conds_as_selects: str = "auto",
                      can_generate: Callable[[AtenOp], bool] | None = None) -> None:
    """Lowers ``module`` in place to the kernel level for ``device`` (the module docstring)."""
    if device not in DEVICES:
        raise HopcError(f"convert-hop-to-kernel: unknown device '{device}' (expected one of "
                        f"{', '.join(DEVICES)})")
    check_conds_as_selects(conds_as_selects, "convert-hop-to-kernel: conds-as-selects")
    if can_generate is None:
        can_generate = load(CAN_GENERATE)
    PatternRewriteWalker(FlexAttentionToWrap()).rewrite_module(module)
    if conds_as_selects == "always" or (conds_as_selects == "auto" and device == "cuda"):
        PatternRewriteWalker(CondToSelect()).rewrite_module(module)
    order_independent = [DropKeptDimensions(), SliceGradientsToCat()]  # Note [rewrite order]
    PatternRewriteWalker(GreedyRewritePatternApplier(order_independent, dce_enabled=False)).rewrite_module(module)
    PatternRewriteWalker(TransposeOfTranspose()).rewrite_module(module)
    PatternRewriteWalker(AddmmOfTransposeToLinear()).rewrite_module(module)
    PatternRewriteWalker(ViewCopyToView()).rewrite_module(module)
    PatternRewriteWalker(IdentityReshape()).rewrite_module(module)
    PatternRewriteWalker(CloneOfDense()).rewrite_module(module)
    table = KernelTable(module)
    for block in _host_blocks(module):
        builder = Builder(InsertPoint.at_start(block))
        groups = fusion_groups(block, can_generate)
        scope = SymbolScope(block, moving={op for group in groups for op in group.ops[:-1]})
        for group in groups:
            outline(group, table, scope, builder)
    module.attributes[DEVICE_ATTRIBUTE] = StringAttr(device)


def _host_blocks(module: ModuleOp) -> list[Block]:
    """Every block that runs on the host: function and subgraph bodies, HOP regions; not kernels."""
    blocks: list[Block] = []
    for op in module.body.block.ops:
        if isinstance(op, KernelOp):
            continue
        for inner in op.walk():
            for region in inner.regions:
                blocks.extend(region.blocks)
    return blocks


@dataclass(frozen=True)
class ConvertHopToKernelPass(ModulePass):
    """Fuses ATen ops into kernels launched from host code: the kernel level."""

    name = "convert-hop-to-kernel"

    device: str = "cpu"
    """The target device: ``cpu`` or ``cuda``."""
    conds_as_selects: str = "auto"
    """Small pointwise conds as selects: ``auto`` (by device), ``always``, ``never``."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        convert_to_kernel(op, self.device, self.conds_as_selects)
