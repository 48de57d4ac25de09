"""``--freeze``: the parameters and buffers a program never changes become constants, folded everywhere.

Input: a functional module (``--functionalize``: no op mutates or aliases, a
changed global is a ``{hop.copy_back_to = i}`` result) whose only entry is
its forward. Freezing is for inference: a module with a backward or joint
entry is a located error (freeze before ``--autograd``, or not at all).

Output, the same level: every parameter, buffer and constant argument of the
forward that may be frozen (Note [what freezes] in ``globals.py``) is gone
from the entry, which reads a ``hop.constant`` of the same name instead; every
ATen op whose operands are all constants is folded, in the entry and inside
every cond branch, while body, scan and map body, wrap and checkpoint body
and shared subgraph (Note [folding through regions] in ``folding.py``), with
PyTorch's own kernels, each new constant at most ``max_constant_bytes`` (Note
[what folds]); a cond on a known predicate is its taken branch, and a while
false on entry is gone (Note [while false on entry]); a user output that is a
constant is returned as a copy (the constant is shared by every call); then
``dce`` drops what folding left unread (HOP operands among them), and the
constants nothing reads are erased (Note [constants declared last]). Each
global kept as an argument says why in ``{hop.not_frozen = "..."}``; with
``report=true`` the pass also writes what it froze, kept and folded to stderr.

Before::

    hop.parameter @w = dense_resource<w> : tensor<4x8xf32> : !hop.tensor<[4, 8], f32>
    func.func @forward(%x: !hop.tensor<[2, 8], f32>,
                       %w: !hop.tensor<[4, 8], f32> {hop.parameter = @w}) -> !hop.tensor<[2, 4], f32> {
      %t = aten.t_copy(%w) : (!hop.tensor<[4, 8], f32>) -> !hop.tensor<[8, 4], f32>
      %y = aten.mm(%x, %t) : (!hop.tensor<[2, 8], f32>, !hop.tensor<[8, 4], f32>) -> !hop.tensor<[2, 4], f32>
      func.return %y : !hop.tensor<[2, 4], f32>
    }

After::

    hop.constant @folded = dense_resource<folded> : tensor<8x4xf32> : !hop.tensor<[8, 4], f32>
    func.func @forward(%x: !hop.tensor<[2, 8], f32>) -> !hop.tensor<[2, 4], f32> {
      %t = hop.get_constant @folded : !hop.tensor<[8, 4], f32>
      %y = aten.mm(%x, %t) : (!hop.tensor<[2, 8], f32>, !hop.tensor<[8, 4], f32>) -> !hop.tensor<[2, 4], f32>
      func.return %y : !hop.tensor<[2, 4], f32>
    }
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from dataclasses import dataclass

import torch
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.dialects.func import FuncOp
from xdsl.passes import ModulePass

from hopc.dialects.hop import BufferOp, ConstantOp, EntryOp, ParameterOp, SubgraphOp
from hopc.dialects.hop_function_signature import function_signature
from hopc.dialects.hop_module_structure import entry_functions
from hopc.ir.diagnostics import op_error
from hopc.ir.resources import BlobOwner
from hopc.passes.dce import DeadCodeEliminationPass
from hopc.passes.freeze.constant_table import ConstantTable, constant_name
from hopc.passes.freeze.folding import ConstantFolder
from hopc.passes.freeze.globals import freeze_arguments
from hopc.passes.freeze.subgraphs import enter_shared_constants
from hopc.passes.verify_functional import verify_functional
from hopc.torch_bridge.aten_builders import build_aten

DEFAULT_MAX_CONSTANT_BYTES = 64 << 20
"""The largest value one folded constant may hold (64 MiB); an op with a larger result stays."""


@dataclass(frozen=True)
class FreezeReport:
    """What ``freeze`` did: the globals it froze, those it kept (and why), the ops it folded."""

    frozen: tuple[str, ...]
    kept: dict[str, str]
    folded: int
    """ATen ops evaluated at compile time (each time one folded, in any region)."""

    def lines(self) -> list[str]:
        """The report, one remark per line."""
        lines = [f"freeze: froze {', '.join(f'@{name}' for name in self.frozen) or 'nothing'}"]
        lines += [f"freeze: kept @{name}: {why}" for name, why in self.kept.items()]
        return [*lines, f"freeze: folded {self.folded} ATen ops"]


@dataclass(frozen=True)
class FreezePass(ModulePass):
    """Turns the parameters and buffers the program never changes into constants and folds them."""

    name = "freeze"

    max_constant_bytes: int = DEFAULT_MAX_CONSTANT_BYTES
    """The largest folded constant, in bytes (``freeze{max-constant-bytes=1024}``)."""
    report: bool = False
    """Write what was frozen, kept and folded to stderr (``freeze{report=true}``)."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        report = freeze(op, max_constant_bytes=self.max_constant_bytes)
        if self.report:
            sys.stderr.write("".join(f"{line}\n" for line in report.lines()))


def freeze(module: ModuleOp, values: Mapping[str, torch.Tensor] | None = None, *,
           max_constant_bytes: int = DEFAULT_MAX_CONSTANT_BYTES,
           blob_owner: BlobOwner | None = None) -> FreezeReport:
    """Runs ``--freeze`` on ``module`` in place (module docstring).

    ``values`` gives parameters, buffers and constants by name, over the
    values their ops carry; a parameter or buffer with neither stays an
    argument. The blobs of the constants it declares are held by
    ``blob_owner`` where one is given (a compiled artifact's: Note [owned
    blobs] in ``hopc.ir.resources``), else for good. Raises a located
    ``HopcError`` for a module it cannot freeze.
    """
    entry = _forward_entry(module)
    verify_functional(module)
    values = dict(values or {})
    _check_names(module, entry, values)
    table = ConstantTable(module, blob_owner)
    frozen, kept = freeze_arguments(module, entry, values, table)
    folder = ConstantFolder(table, max_constant_bytes)
    _fold(module, entry, folder)
    _copy_constant_outputs(entry)
    DeadCodeEliminationPass().apply(Context(), module)
    table.finish()
    return FreezeReport(tuple(frozen), kept, folder.folded)


def _forward_entry(module: ModuleOp) -> FuncOp:
    entries = entry_functions(module)
    for op in module.ops:
        if isinstance(op, EntryOp) and op.kind.data != "forward":
            raise op_error(op, f"freeze: the module has a {op.kind.data} entry; freezing is for "
                               "inference: freeze the functional forward, before --autograd")
    return entries["forward"]


def _check_names(module: ModuleOp, entry: FuncOp, values: Mapping[str, torch.Tensor]) -> None:
    declared = {op.symbol for op in module.ops if isinstance(op, ParameterOp | BufferOp | ConstantOp)}
    unknown = sorted(values.keys() - declared)
    if unknown:
        raise op_error(entry, f"freeze: a value is given for @{unknown[0]}, which is no parameter, "
                              "buffer or constant of the module")


def _fold(module: ModuleOp, entry: FuncOp, folder: ConstantFolder) -> None:
    """Folds the entry and every subgraph until nothing changes: a subgraph's constant result
    folds on in its callers, and a constant from a caller folds on in the subgraph."""
    subgraphs = [op for op in module.ops if isinstance(op, SubgraphOp)]
    folder.changed = True
    while folder.changed:
        folder.changed = False
        folder.fold_block(entry.body.block)
        for subgraph in subgraphs:
            enter_shared_constants(module, subgraph, folder)
            folder.fold_block(subgraph.body.block)


def _copy_constant_outputs(entry: FuncOp) -> None:
    """Returns a copy of each user output that reads a constant: every call shares the constant,
    and eager gives a fresh tensor the caller may change. A later freeze leaves the copy as it
    is (Note [output copies stay] in ``folding.py``)."""
    returned = entry.get_return_op()
    assert returned is not None
    copies = {}
    operands = list(returned.operands)
    for index in function_signature(entry).user_outputs:
        value = operands[index]
        if constant_name(value) is None:
            continue
        if value not in copies:
            copies[value] = build_aten("aten.clone", [value], origin=returned)
            entry.body.block.insert_op_before(copies[value], returned)
        operands[index] = copies[value].results[0]
    returned.operands = operands
