"""Batch norm in training mode, whose running-statistics update its schema hides, made functional.

``aten.batch_norm(x, w, b, mean, var) {training = true}`` normalizes ``x`` by
its batch statistics and updates ``mean`` and ``var`` in place (Note
[undeclared writes] in ``hopc.dialects.aten``). Functionally it is
``aten._native_batch_norm_legit_functional``, the form PyTorch's own
functionalization uses, whose last two results are the updated statistics::

    %y = aten.batch_norm(%x, %w, %b, %mean, %var) {training = true, momentum = 1.000000e-01 : f64, ...}

becomes::

    %y, %save_mean, %save_invstd, %mean_out, %var_out = aten._native_batch_norm_legit_functional(
        %x, %w, %b, %mean, %var) {training = true, momentum = 1.000000e-01 : f64, eps = ...}

and ``%mean_out`` / ``%var_out`` are written to ``%mean`` / ``%var`` (so a
buffer's update is copied back). ``aten.native_batch_norm`` maps the same way
(its three results are the first three). The other ops with undeclared writes
(cudnn/miopen kernels, ``_batch_norm_impl_index``, ``instance_norm``) are a
located error.

Result types follow PyTorch's CPU kernel: the saved statistics have the
running statistics' element type and the channel count ``x.shape[1]``. They
are not traced (``hopc.torch_bridge.aten_builders``): the meta kernel gives the
saved statistics ``x``'s element type, which differs under mixed precision.
"""

from __future__ import annotations

from xdsl.ir import Attribute, SSAValue

from hopc.dialects.aten import AtenOp
from hopc.ir.diagnostics import op_error
from hopc.ir.types import TensorType
from hopc.passes.functionalize.aliases import AliasState
from hopc.passes.functionalize.views import build

_FUNCTIONAL_FORM = "aten._native_batch_norm_legit_functional"
_REWRITTEN = frozenset({"aten.batch_norm", "aten.native_batch_norm"})
_KEPT_PROPERTIES = ("training", "momentum", "eps")


def functionalize_running_stats(state: AliasState, op: AtenOp) -> None:
    """Replaces training-mode ``op`` by its functional form and writes the new statistics."""
    if op.SCHEMA.op_name not in _REWRITTEN:
        raise op_error(op, "updates its running statistics in place without declaring it in its "
                           "schema, and hopc has no functional form for it")
    if len(op.undeclared_writes()) != 2:
        raise op_error(op, "updates one running statistic but not the other; PyTorch needs both "
                           "running_mean and running_var, or neither")
    groups = [[state.read(v, op) for v in values] for _, values in op.operand_groups()]
    x, mean, var = groups[0][0], groups[3][0], groups[4][0]
    properties = {name: op.properties[name] for name in _KEPT_PROPERTIES if name in op.properties}
    new = build(_FUNCTIONAL_FORM, groups, properties, _result_types(x, mean, var), op)
    state.insert(new)
    for old, value in zip(op.results, new.results):
        value.name_hint = old.name_hint
        old.replace_all_uses_with(value)
    old_mean, old_var = op.mutated_operands()
    state.write(old_mean, new.results[3], op)
    state.write(old_var, new.results[4], op)


def _result_types(x: SSAValue, mean: SSAValue, var: SSAValue) -> list[Attribute]:
    """``(y, save_mean, save_invstd, mean_out, var_out)``, as PyTorch's CPU kernel gives them."""
    x_type, mean_type = x.type, mean.type
    assert isinstance(x_type, TensorType) and isinstance(mean_type, TensorType)
    saved = TensorType((x_type.shape[1],), mean_type.element_type)
    return [x_type, saved, saved, mean_type, var.type]
