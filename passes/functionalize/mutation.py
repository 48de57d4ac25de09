"""In-place and ``out=`` ATen ops as their functional forms.

``aten.add_.Tensor(x, y)`` computes ``aten.add.Tensor(x, y)`` and writes it to
``x``; ``aten.add.out(a, b, out)`` computes ``aten.add.Tensor(a, b)`` and writes
it to ``out``. The functional overload comes from the schema registry: the
same name without ``_`` (or without the ``out`` overload) whose arguments are
the op's minus its ``out=`` ones. Its results are the new values of the
mutated arguments, in order.

An in-place op keeps its ``self``'s dtype: when type promotion makes the
functional result wider (``f32.add_(f64)``), a ``_to_copy`` casts it back, as
PyTorch's own functionalization copies the result into ``self``. The
functional op's types come from the tracer (``build_aten_from_groups``); an
``out=`` op's from its ``out`` arguments, which it resizes.
"""

from __future__ import annotations

from xdsl.ir import Attribute, SSAValue

from hopc.dialects import aten_schema
from hopc.dialects.aten import AtenOp
from hopc.dialects.aten_schema import Schema
from hopc.ir.diagnostics import op_error
from hopc.passes.functionalize.aliases import AliasState
from hopc.passes.functionalize.views import build

VALUE_PRESERVING_IN_PLACE = frozenset({"aten.detach_"})
"""In-place ops that change only autograd metadata: functionally, their result is ``self``."""


def functionalize_mutation(state: AliasState, op: AtenOp) -> None:
    """Replaces in-place/out= ``op`` by its functional form and writes the mutated values."""
    schema = op.SCHEMA
    functional = aten_schema.functional_variant(schema)
    if functional is None:
        raise op_error(op, "changes its arguments in place and has no functional form in ATen")
    groups: list[list[SSAValue]] = []
    mutated: list[SSAValue] = []
    for argument, values in op.operand_groups():
        if argument.is_mutated:
            mutated += values
        if not (argument.is_mutated and argument.kwarg_only):
            groups.append([state.read(v, op) for v in values])
    result_types = _result_types(op, functional, mutated)
    names = {a.name for a in functional.attribute_arguments}
    properties = {k: v for k, v in op.properties.items()
                  if k in names or k.removesuffix("_nones") in names}
    if schema.is_out_variant:
        new = build(functional.op_name, groups, properties, result_types, op)
    else:
        # The tracer loads torch and sympy: only a module with an in-place op pays for them.
        from hopc.dialects.aten_builders import build_aten_from_groups

        new = build_aten_from_groups(functional.op_name, groups, properties, origin=op)
    state.insert(new)
    new_values = list(new.results)
    for value, result in zip(new_values, op.results):
        if result.name_hint:
            value.name_hint = result.name_hint
    for index, (value, wanted) in enumerate(zip(new_values, result_types)):
        if value.type != wanted:
            cast = build("aten._to_copy", [[value]], {"dtype": wanted.element_type}, [wanted], op)
            new_values[index] = state.insert(cast)
    for value, new_value in zip(mutated, new_values, strict=True):
        state.write(value, new_value, op)
    for index, result in enumerate(op.results):
        source = op.aliased_operand(index)
        if source is not None:
            state.aliases[result] = state.alias_of(source)


def _result_types(op: AtenOp, functional: Schema, mutated: list[SSAValue]) -> list[Attribute]:
    """One per mutated value: its type (in-place), or the op's result type (out=, which resizes)."""
    returns = functional.returns
    if any(r.is_tensor_list for r in returns):
        count_matches = len(returns) == 1
    else:
        count_matches = len(returns) == len(mutated)
    if not count_matches:
        raise op_error(op, f"changes {len(mutated)} arguments in place, but its functional form "
                           f"'{functional.op_name}' returns {len(returns)} values")
    if op.SCHEMA.is_out_variant and len(op.results) == len(mutated):
        return [r.type for r in op.results]
    return [v.type for v in mutated]
