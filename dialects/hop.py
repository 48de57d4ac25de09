"""The ``hop`` dialect: PyTorch's higher-order ops as regions, shape symbols, module structure.

Region ops take every value their body reads as an explicit operand, as
PyTorch's HOP subgraphs do: the body's block arguments mirror the operands, and
``hop.yield`` returns the body's results. Every region is isolated at every
level, and the ops' verifiers reject one that reads an outer value (Note
[isolated regions] in ``hopc.dialects.hop_interface``). Only shape symbols,
names in types rather than values, may stay free in a body until
``lift-symbols`` makes them operands. What a pass needs to know about a HOP's
regions comes from its ``HopRegionInterface``.

This module is the dialect: it registers the ops and types that its sibling
modules define, one family each, and re-exports them, so that ``hop.CondOp``,
``hop.SymSizeOp`` and the others are reached from here. ``HOP_REGION_OPS``
lists the ops with regions of their own, the parents ``hop.yield`` may end a
region of.

Region ops: ``hop.yield`` and the checks of a region against its op, in
``hopc.dialects.hop_yield``; the HOPs themselves, one module each in the
package ``hopc.dialects.hops``, which this dialect registers without naming
them (``hops.operations()``): ``hop.wrap`` and ``hop.checkpoint`` (a body
called once), ``hop.cond`` and ``hop.while``, ``hop.scan`` and ``hop.map`` (a
body run per slice), ``hop.subgraph`` and ``hop.invoke_subgraph`` (Note
[subgraph symbols]), ``hop.autograd_function`` (a call of a forward subgraph
whose backward is another, the user's: Note [custom autograd functions]),
``hop.associative_scan`` (a combine body that takes two slices of each
scanned operand: Note [associative scan semantics]) and ``hop.flex_attention``.
The HOPs hopc had before the package are re-exported here by name (``hop.CondOp``);
a new one is reached from its own module.

Symbols: the shape-symbol ops (``hop.symbol``, ``hop.sym_size``,
``hop.item``, ``hop.assert``) live in ``hopc.dialects.hop_symbols``, the
``hop.sym_*`` arithmetic in ``hopc.dialects.hop_sym_binary`` and
``hopc.dialects.hop_scalars``; this dialect registers them and re-exports
them, so ``hop.SymSizeOp`` and the others are reached from here.

Module structure: the globals (``hop.parameter``, ``hop.buffer``,
``hop.constant``), the entry points (``hop.entry``) and the attributes that
give each entry argument and result its role live in
``hopc.dialects.hop_module`` (Note [entry signature] there); this dialect
registers and re-exports them too.

Random numbers: ``hop.get_rng_state`` and ``hop.set_rng_state`` on the
``!hop.rng_state`` type, which let a recomputed region draw again what it drew
(Note [replaying random ops]), live in ``hopc.dialects.hop_rng``; registered
and re-exported here as well.

"""

from __future__ import annotations

from xdsl.ir import Dialect

from hopc.dialects import hops
from hopc.dialects.hop_module import BufferOp, ConstantOp, EntryOp, GetConstantOp, ParameterOp
from hopc.dialects.hop_rng import GetRngStateOp, RngStateType, SetRngStateOp
from hopc.dialects.hop_scalars import (
    SYM_SCALAR_OPS,
    SymAbsOp,
    SymFloatOp,
    SymIteOp,
    SymNegOp,
    SymNotOp,
    SymPowOp,
    SymSqrtOp,
    SymTrueDivOp,
)
from hopc.dialects.hop_sym_binary import (
    SYM_BINARY_OPS,
    SymAddOp,
    SymBinaryOp,
    SymEqOp,
    SymFloorDivOp,
    SymGeOp,
    SymGtOp,
    SymLeOp,
    SymLtOp,
    SymMaxOp,
    SymMinOp,
    SymModOp,
    SymMulOp,
    SymNeOp,
    SymSubOp,
)
from hopc.dialects.hop_symbols import AssertOp, ItemOp, SymbolOp, SymConstantOp, SymSizeOp
from hopc.dialects.hop_yield import YieldOp
from hopc.dialects.hops.associative_scan import AssociativeScanOp as AssociativeScanOp
from hopc.dialects.hops.autograd_function import AutogradFunctionOp as AutogradFunctionOp
from hopc.dialects.hops.control_flow import CondOp as CondOp
from hopc.dialects.hops.control_flow import WhileOp as WhileOp
from hopc.dialects.hops.flex_attention import FlexAttentionOp as FlexAttentionOp
from hopc.dialects.hops.scan_map import MapOp as MapOp
from hopc.dialects.hops.scan_map import ScanOp as ScanOp
from hopc.dialects.hops.single_body import CheckpointOp as CheckpointOp
from hopc.dialects.hops.single_body import WrapOp as WrapOp
from hopc.dialects.hops.subgraph import InvokeSubgraphOp as InvokeSubgraphOp
from hopc.dialects.hops.subgraph import SubgraphOp as SubgraphOp
from hopc.ir.types import ExprAttr, NoneAttr, SymBoolType, SymFloatType, SymIntType, TensorType

HOPS = hops.operations()
"""Every higher-order op of the dialect (each has a ``HopRegionInterface``)."""

HOP_REGION_OPS = tuple(op for op in HOPS if op.get_irdl_definition().regions)
"""The ops with regions of their own, each ended by ``hop.yield`` (its ``HasParent``)."""

Hop = Dialect(
    "hop",
    [
        YieldOp,
        *HOPS,
        SymbolOp,
        SymSizeOp,
        SymConstantOp,
        *SYM_BINARY_OPS,
        *SYM_SCALAR_OPS,
        ItemOp,
        AssertOp,
        ParameterOp,
        BufferOp,
        ConstantOp,
        GetConstantOp,
        EntryOp,
        GetRngStateOp,
        SetRngStateOp,
    ],
    [TensorType, SymIntType, SymFloatType, SymBoolType, ExprAttr, NoneAttr, RngStateType],
)

SYM_OPERATOR_OPS = tuple(op for op in Hop.operations if issubclass(op, SymBinaryOp))
"""Every binary ``hop.sym_*`` op (of ``hop_symbols`` and ``hop_scalars``): each computes its
Python ``OPERATOR`` (Note [one operator per sym op] in ``hopc.dialects.hop_sym_binary``)."""
