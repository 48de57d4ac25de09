"""The module's constants as the freeze pass sees them: values by name, new ones, dead ones.

``tensor(name)`` is the value of a constant, declared or to be declared;
``freeze_global`` and ``add`` give out names for new values; ``finish``
declares the new constants that some ``hop.get_constant`` reads and erases
every constant nothing reads (Note [constants declared last]).

Note [constants declared last]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
Folding makes many values that later folding consumes (a frozen weight, its
transpose, its bf16 cast): only the last is read at run time. A declared
``hop.constant`` keeps a copy of its bytes, and a ``dense_resource`` blob
lives as long as the process, or as its owner (Note [one blob store], Note
[owned blobs]), so the table holds new
values as tensors while the pass runs and declares, at the end, only those
still read. Until ``finish`` a ``hop.get_constant`` may name a constant the
module does not declare yet; the pass verifies nothing before then.
"""

from __future__ import annotations

import re

import torch
from xdsl.dialects.builtin import ModuleOp, SymbolRefAttr
from xdsl.dialects.func import FuncOp
from xdsl.ir import Operation, SSAValue
from xdsl.traits import SymbolOpInterface

from hopc.dialects.hop import BufferOp, ConstantOp, GetConstantOp, ParameterOp, SymbolOp
from hopc.ir.resources import BlobOwner
from hopc.torch_bridge.tensor_constants import SYMBOL_NAME, constant_op, constant_tensor

_GLOBAL_OPS = (SymbolOp, ParameterOp, BufferOp, ConstantOp)
"""The module-level declarations that new constants follow."""


class ConstantTable:
    """Reads and adds the constants of ``module`` (module docstring); values are cached per name."""

    def __init__(self, module: ModuleOp, blob_owner: BlobOwner | None = None):
        self.module = module
        self.blob_owner = blob_owner
        """Holds the blobs of the constants ``finish`` declares; None: they live for good
        (Note [owned blobs] in ``hopc.ir.resources``)."""
        self._declared = {op.symbol: op for op in module.ops if isinstance(op, ConstantOp)}
        self._names = {op.sym_name.data for op in module.ops if op.get_trait(SymbolOpInterface)}
        self._new: dict[str, torch.Tensor] = {}
        """Values to declare if read, by name."""
        self._replaced: dict[str, Operation] = {}
        """New name -> the parameter or buffer whose value it holds (and whose place it takes)."""
        self._tensors: dict[str, torch.Tensor] = {}
        self._counter = 0

    def tensor(self, name: str) -> torch.Tensor:
        """The value of the constant ``name``."""
        if name not in self._tensors:
            self._tensors[name] = self._new.get(name)
            if self._tensors[name] is None:
                self._tensors[name] = constant_tensor(self._declared[name])
        return self._tensors[name]

    def value_of(self, value: SSAValue) -> torch.Tensor | None:
        """The value of ``value`` where it is a ``hop.get_constant`` result, else None."""
        name = constant_name(value)
        return None if name is None else self.tensor(name)

    def freeze_global(self, op: ParameterOp | BufferOp | ConstantOp, tensor: torch.Tensor) -> str:
        """The name of a constant holding ``tensor``, to replace the global ``op``: its own where
        that is a bare symbol name (``lin.weight``), else a fresh one (``_0.weight`` for ``0.weight``)."""
        self._declared.pop(op.symbol, None)
        name = op.symbol if SYMBOL_NAME.fullmatch(op.symbol) else self._fresh(
            "_" + re.sub(r"[^A-Za-z0-9_$.]", "_", op.symbol))
        self._new[name] = tensor
        self._replaced[name] = op
        return name

    def add(self, tensor: torch.Tensor) -> str:
        """The name of a new constant holding ``tensor`` (a folded value): ``folded_<n>``."""
        name = self._fresh("folded")
        self._new[name] = tensor
        return name

    def _fresh(self, stem: str) -> str:
        name = stem
        while name in self._names:
            name = f"{stem}_{self._counter}"
            self._counter += 1
        self._names.add(name)
        return name

    def finish(self) -> None:
        """Declares the new constants that are read and erases the constants nothing reads
        (no ``hop.get_constant``, no entry argument's role)."""
        read = {op.symbol for op in self.module.walk() if isinstance(op, GetConstantOp)}
        for function in self.module.ops:
            if isinstance(function, FuncOp) and function.arg_attrs is not None:
                read |= {value.root_reference.data for attributes in function.arg_attrs.data
                         for value in attributes.data.values() if isinstance(value, SymbolRefAttr)}
        block = self.module.body.block
        for name, op in self._replaced.items():
            if name in read:
                block.insert_op_before(constant_op(name, self._new[name], self.blob_owner), op)
            block.erase_op(op)
        for name, op in self._declared.items():
            if name not in read:
                block.erase_op(op)
        anchor = next((op for op in reversed(list(block.ops)) if isinstance(op, _GLOBAL_OPS)), None)
        for name, tensor in self._new.items():
            if name in read and name not in self._replaced:
                new = constant_op(name, tensor, self.blob_owner)
                if anchor is None:
                    block.insert_op_before(new, block.first_op)
                else:
                    block.insert_op_after(new, anchor)
                anchor = new


def constant_name(value: SSAValue) -> str | None:
    """The constant that ``value`` reads, where it is a ``hop.get_constant`` result."""
    owner = value.owner
    return owner.symbol if isinstance(owner, GetConstantOp) else None
