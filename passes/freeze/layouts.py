"""Weight layouts prepared once: a composite op reading a constant is decomposed, so its layout work folds.

Note [prepared layouts]
~~~~~~~~~~~~~~~~~~~~~~~
``aten.linear(x, w, b)`` is a CompositeImplicitAutograd op: every call
transposes ``w`` inside the op (``addmm(b, x, w.t())``). A composite op with
an operand that reads a constant is replaced by the ATen ops PyTorch runs for
it (``decompose``: its trace, views as copies), so the part that depends on
the constants alone (``t_copy(w)``, a cast) is an op of its own, which folding
then computes once: the frozen module reads the transposed weight that ``mm``
and ``addmm`` want. Ops that are no composite, or read no constant, are left
as they are; an op whose trace fails is left too (it still runs as it is).

So is an op with an operand of rank above 2 that is no constant: PyTorch
decomposes a linear of a ``[b, t, d]`` input into reshapes around ``mm``,
views in eager but copies at the functional level (``view_copy``), which
cost more than the transposition they would save (measured on the
transformer block of ``bench/freeze.py``: 8 more ops, 10% slower).
"""

from __future__ import annotations

import torch
from xdsl.dialects.builtin import ModuleOp

from hopc.dialects.aten import AtenOp
from hopc.ir.diagnostics import HopcError
from hopc.ir.types import TensorType
from hopc.passes.freeze.constant_table import constant_name
from hopc.torch_bridge.aten_call import overload_of


def prepare_layout(op: AtenOp, module: ModuleOp) -> bool:
    """Decomposes ``op`` where it is a composite reading a constant (Note [prepared layouts]);
    whether it did."""
    operands = [v for _, group in op.operand_groups() for v in group]
    if all(constant_name(v) is None for v in operands) or op.is_random or not _composite(op):
        return False
    if any(constant_name(v) is None and isinstance(v.type, TensorType) and v.type.rank > 2 for v in operands):
        return False
    from hopc.passes.autograd.aten_rule import decompose  # derivative tracing, loaded only where it runs

    try:
        decompose(op, module)
    except HopcError:
        return False
    return True


def _composite(op: AtenOp) -> bool:
    """Whether PyTorch implements ``op`` by other ATen ops (CompositeImplicitAutograd)."""
    return torch._C._dispatch_has_kernel_for_dispatch_key(overload_of(op.SCHEMA).name(),
                                                           "CompositeImplicitAutograd")
