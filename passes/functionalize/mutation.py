"""In-place and ``out=`` ATen ops as their functional forms.

``aten.add_.Tensor(x, y)`` computes ``aten.add.Tensor(x, y)`` and writes it to
``x``; ``aten.add.out(a, b, out)`` computes ``aten.add.Tensor(a, b)`` and writes
it to ``out``. The functional overload comes from the schema registry: the
same name without ``_`` (or without the ``out`` overload) whose arguments are
the op's minus its ``out=`` ones. Its results are the new values of the
mutated arguments, in order.

An in-place op keeps its ``self``'s dtype: when type promotion makes the
functional result wider (``f32.add_(f64)``), a ``_to_copy`` casts it back, as
PyTorch's own functionalization copies the result into ``self``.
"""

from __future__ import annotations

from xdsl.ir import Attribute, SSAValue

from hopc.dialects import aten_schema
from hopc.dialects.aten import AtenOp
from hopc.dialects.aten_schema import Schema
from hopc.ir.diagnostics import op_error
from hopc.ir.types import DTYPES, TensorType
from hopc.passes.functionalize.aliases import AliasState
from hopc.passes.functionalize.views import build

_NOT_PROMOTING = frozenset({"aten.copy", "aten.index_put", "aten.index_copy", "aten.masked_scatter",
                            "aten.scatter.src", "aten.scatter.value", "aten.scatter_add",
                            "aten.scatter.reduce", "aten.scatter.value_reduce",
                            "aten.scatter_reduce.two"})
"""Functional forms whose result has ``self``'s dtype whatever their other operands'."""

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
    promoted = _promoted_types(functional, groups, result_types) if not schema.is_out_variant \
        else result_types
    new = build(functional.op_name, groups, properties, promoted, op)
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


# --------------------------------------------------------------------------- type promotion

_CATEGORY = {"bool": 0, "uint8": 1, "int8": 1, "int16": 1, "int32": 1, "int64": 1,
             "float16": 2, "bfloat16": 2, "float32": 2, "float64": 2,
             "complex64": 3, "complex128": 3}
_WIDTH = {"bool": 1, "uint8": 8, "int8": 8, "int16": 16, "int32": 32, "int64": 64,
          "float16": 16, "bfloat16": 16, "float32": 32, "float64": 64,
          "complex64": 64, "complex128": 128}


def promote_types(a: str, b: str) -> str:
    """``torch.promote_types`` on dtype names."""
    if a == b:
        return a
    if _CATEGORY[a] < _CATEGORY[b]:
        a, b = b, a
    if _CATEGORY[a] != _CATEGORY[b]:
        if a == "complex64" and b == "float64":
            return "complex128"
        return a
    if {a, b} == {"uint8", "int8"}:
        return "int16"
    if {a, b} == {"float16", "bfloat16"}:
        return "float32"
    return a if _WIDTH[a] >= _WIDTH[b] else b


_COMPLEX_OF = {"float16": "complex32", "bfloat16": "complex64", "float32": "complex64",
               "float64": "complex128"}


def _combine_categories(higher: str | None, lower: str | None) -> str | None:
    """c10's ``combine_categories``: ``higher`` wins unless ``lower`` is of a higher category."""
    if higher is None:
        return lower
    if lower is None or _CATEGORY[higher] == 3:
        return higher
    if _CATEGORY[lower] == 3:
        return _COMPLEX_OF.get(higher, lower) if _CATEGORY[higher] == 2 else lower
    if _CATEGORY[higher] == 2:
        return higher
    if higher == "bool" or _CATEGORY[lower] == 2:
        return promote_types(higher, lower)
    return higher


def result_type(types: list[TensorType]) -> str:
    """``torch.result_type`` of tensors: dimensioned ones first, then 0-d ones of a higher category."""
    dimensioned = zero_dim = None
    for t in types:
        if t.rank:
            dimensioned = t.dtype_name if dimensioned is None else promote_types(dimensioned, t.dtype_name)
        else:
            zero_dim = t.dtype_name if zero_dim is None else promote_types(zero_dim, t.dtype_name)
    return _combine_categories(dimensioned, zero_dim)


def _promoted_types(functional: Schema, groups: list[list[SSAValue]],
                    result_types: list[Attribute]) -> list[Attribute]:
    """The functional op's result types under type promotion of its single tensor operands."""
    if functional.op_name in _NOT_PROMOTING or len(result_types) != 1:
        return result_types
    wanted = result_types[0]
    tensors = [g[0].type for arg, g in zip(functional.operand_arguments, groups)
               if arg.is_tensor and len(g) == 1 and isinstance(g[0].type, TensorType)]
    if not isinstance(wanted, TensorType) or len(tensors) < 2:
        return result_types
    promoted = result_type(tensors)
    if promoted == wanted.dtype_name or promoted not in DTYPES:
        return result_types
    return [TensorType(wanted.shape, DTYPES[promoted])]
