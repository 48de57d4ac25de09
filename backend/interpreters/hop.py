"""The reference interpreter's ``hop`` ops that are not HOPs: shape symbols, constants, asserts.

Ops on shape symbols compute on Python ints and bools; ``hop.get_constant``
gives each read its own copy of its constant's tensor (``constant_value``'s),
so nothing a program or caller does to it reaches a shared tensor. The HOPs
run by their rules in ``hopc.backend.hops``.

Note [converted constants]
~~~~~~~~~~~~~~~~~~~~~~~~~~
Prepared code (generated host code, a planned function) converts each
constant it reads to a tensor once and keeps it, shared by every run
(``constant_value``). The code that keeps a tensor owns it: the tensor goes
when the last code holding it does, by reference counting alone, as the
blobs go with their artifact (Note [owned blobs] in ``hopc.ir.resources``).
So the cache that lets the functions of one module (a training call's
forward and backward) share one conversion holds it weakly: it is keyed by
the ``hop.constant`` op, which lives in the IR's reference cycles (parent
and neighbour links) until Python's cycle collector frees it, and a strong
value there would live as long, however long ago its code was dropped (a
refreeze's old constants piled up, 2 MB a refreeze of a 2 MiB model, while
the collector did not run). Nor may what holds the tensor sit in a
reference cycle: generated code reads its constants as closure variables,
not as globals of a namespace that holds the function too (Note [generated
host code] in ``hopc.backend.host.codegen``), and a planned function's
steps are closures over them. The reference interpreter holds no
conversion: each read converts where no prepared code holds one.
"""

from __future__ import annotations

import weakref

import torch
from xdsl.ir import Attribute, Operation

from hopc.backend.interpreter import INTERPRETER_RULES, Frame, interpreter_error
from hopc.dialects import hop
from hopc.dialects.hop_scalars import SYM_ONE_OPERAND_OPS
from hopc.ir.types import SymFloatType
from hopc.torch_bridge.tensor_constants import constant_tensor
from hopc.torch_bridge.torch_values import evaluate_dim

_CONVERTED: weakref.WeakKeyDictionary[hop.ConstantOp, tuple[Attribute, weakref.ref[torch.Tensor]]] = \
    weakref.WeakKeyDictionary()
"""Each ``hop.constant`` converted so far -> its value attribute then, and that conversion
while some code holds it (Note [converted constants])."""


def constant_value(op: hop.GetConstantOp) -> torch.Tensor:
    """The tensor ``op`` reads, shared: the conversion some code holds already (made again
    only when the ``hop.constant``'s value attribute is replaced), else a new one. The caller
    keeps it for as long as it needs it (Note [converted constants]) and must not let it be
    written."""
    constant = op.referenced()
    if not isinstance(constant, hop.ConstantOp):
        raise interpreter_error(op, f"reads @{op.symbol}, which is not a hop.constant of the module")
    cached = _CONVERTED.get(constant)
    tensor = cached[1]() if cached is not None and cached[0] is constant.value else None
    if tensor is None:
        tensor = constant_tensor(constant)
        _CONVERTED[constant] = (constant.value, weakref.ref(tensor))
    return tensor


@INTERPRETER_RULES.register(hop.GetConstantOp)
def run_get_constant(op: hop.GetConstantOp, frame: Frame) -> list[object]:
    return [constant_value(op).clone()]


# --------------------------------------------------------------------------- shape symbols


@INTERPRETER_RULES.register(hop.SymSizeOp)
def run_sym_size(op: hop.SymSizeOp, frame: Frame) -> list[object]:
    return [frame.values[op.input].size(op.dim.value.data)]


@INTERPRETER_RULES.register(hop.SymConstantOp)
def run_sym_constant(op: hop.SymConstantOp, frame: Frame) -> list[object]:
    return [evaluate_dim(op.result.type.value, frame.symbols)]


@INTERPRETER_RULES.register(*hop.SYM_OPERATOR_OPS)
def run_sym_binary(op: hop.SymBinaryOp, frame: Frame) -> list[object]:
    """The op's Python operator: ``//`` and ``%`` round as the IR's expressions do."""
    return [op.OPERATOR(frame.values[op.lhs], frame.values[op.rhs])]


@INTERPRETER_RULES.register(*SYM_ONE_OPERAND_OPS)
def run_sym_unary(op: Operation, frame: Frame) -> list[object]:
    """What the op's ``OPERATOR`` computes in eager (Note [one operator per sym op])."""
    return [op.OPERATOR(frame.values[op.operand])]


@INTERPRETER_RULES.register(hop.SymIteOp)
def run_sym_ite(op: hop.SymIteOp, frame: Frame) -> list[object]:
    chosen = op.then_value if frame.values[op.condition] else op.else_value
    return [frame.values[chosen]]


@INTERPRETER_RULES.register(hop.ItemOp)
def run_item(op: hop.ItemOp, frame: Frame) -> list[object]:
    """Binds the read's symbol: a float, or an int (a boolean reads as 0 or 1)."""
    read = frame.values[op.input].item()
    value = float(read) if isinstance(op.result.type, SymFloatType) else int(read)
    frame.symbols[op.result.type.value] = value
    return [value]


@INTERPRETER_RULES.register(hop.AssertOp)
def run_assert(op: hop.AssertOp, frame: Frame) -> list[object]:
    if not frame.values[op.condition]:
        raise interpreter_error(op, f"assertion failed: {op.message.data}")
    return []
