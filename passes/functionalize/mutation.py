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
functional op of an in-place op has ``self``'s type where that is certain
(Note [in-place result types]), else the tracer's (``build_aten_from_groups``);
an ``out=`` op's types are its ``out`` arguments', which it resizes.

Note [in-place result types]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~
The tracer loads torch and sympy, seconds for a module that otherwise needs
neither, so the functional form of an in-place op is typed without it where
its type is certainly ``self``'s. ``KEEPS_SELF_TYPE`` lists pointwise
functional forms with the dtypes of ``self`` for which that holds, and the
type is ``self``'s when, besides:

- every other tensor operand has ``self``'s dtype (or, for an operand the
  rule names, one of the dtypes it lists: a ``masked_fill`` mask is bool) and
  broadcasts to ``self``'s shape unchanged (each trailing size equal or 1), so
  neither promotion nor broadcasting changes the result; for ``lerp``,
  ``addcmul`` and ``addcdiv`` it has ``self``'s shape, as PyTorch traces their
  broadcasting on static sizes only;
- every ``Scalar`` is an int, or a float where ``self`` is a float (a float
  makes an integer tensor's result a float; a bool, a complex or a symbolic
  scalar goes to the tracer); any other non-tensor argument is a ``bool``;
- an op with optional arguments is given one (``clamp`` needs a bound).

The dtypes per rule: ``_FLOATS`` where an integer ``self`` would give a
float (``div``, ``sin``) or PyTorch rejects one; ``_FLOATS | _INTEGERS``
where integers stay integers (``add``, ``clamp``); bool ``self`` only where
the value is written, not computed (``copy``, ``zero``). Comparisons and
logical ops (``eq_``, ``logical_and_``), which return bool, are not listed.
Whatever is not certain is traced. ``tests/test_functionalize_inplace_types.py``
compares every rule with the tracer over dtype, scalar and shape combinations.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from xdsl.dialects.builtin import FloatAttr, IntegerAttr, i1, i64
from xdsl.ir import Attribute, SSAValue

from hopc.dialects import aten_schema
from hopc.dialects.aten import AtenOp
from hopc.dialects.aten_schema import Argument, Schema
from hopc.ir.diagnostics import op_error
from hopc.ir.dims import Dim
from hopc.ir.types import DTYPES, NoneAttr, TensorType
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
    if schema.is_out_variant or [in_place_result_type(functional, groups, properties)] == result_types:
        new = build(functional.op_name, groups, properties, result_types, op)
    else:
        # The tracer loads torch and sympy: only an op whose type is uncertain pays for them.
        from hopc.torch_bridge.aten_builders import build_aten_from_groups

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


# --------------------------------------------------------------------------- in-place result types

_FLOATS = frozenset(DTYPES[name] for name in ("float16", "bfloat16", "float32", "float64"))
_INTEGERS = frozenset(DTYPES[name] for name in ("uint8", "int8", "int16", "int32", "int64"))
_BOOL = frozenset({DTYPES["bool"]})


@dataclass(frozen=True)
class KeepsSelfType:
    """A pointwise functional form whose result has ``self``'s type (Note [in-place result types])."""

    self_dtypes: frozenset[Attribute]
    """The dtypes of ``self`` for which it is certain."""
    free_operands: Mapping[str, frozenset[Attribute]] = field(default_factory=dict)
    """Operands whose dtype need not be ``self``'s, each with the dtypes it may have."""
    broadcasts: bool = True
    """Whether other operands may broadcast; if not, they must have ``self``'s shape."""


def _rules(rule: KeepsSelfType, *names: str) -> dict[str, KeepsSelfType]:
    return dict.fromkeys(names, rule)


KEEPS_SELF_TYPE: dict[str, KeepsSelfType] = {
    **_rules(KeepsSelfType(_FLOATS | _INTEGERS),
             "aten.add.Tensor", "aten.add.Scalar", "aten.sub.Tensor", "aten.sub.Scalar",
             "aten.subtract.Tensor", "aten.subtract.Scalar", "aten.mul.Tensor", "aten.mul.Scalar",
             "aten.multiply.Tensor", "aten.multiply.Scalar", "aten.neg", "aten.negative",
             "aten.abs", "aten.absolute", "aten.clamp", "aten.clamp.Tensor", "aten.clamp_min",
             "aten.clamp_min.Tensor", "aten.clamp_max", "aten.clamp_max.Tensor", "aten.clip",
             "aten.clip.Tensor", "aten.relu", "aten.sign", "aten.square", "aten.fill.Scalar"),
    **_rules(KeepsSelfType(_FLOATS),
             "aten.div.Tensor", "aten.div.Scalar", "aten.divide.Tensor", "aten.divide.Scalar",
             "aten.true_divide.Tensor", "aten.true_divide.Scalar", "aten.reciprocal",
             "aten.pow.Tensor_Scalar", "aten.pow.Tensor_Tensor", "aten.sqrt", "aten.rsqrt",
             "aten.exp", "aten.exp2", "aten.expm1", "aten.log", "aten.log2", "aten.log10",
             "aten.log1p", "aten.sin", "aten.cos", "aten.tan", "aten.asin", "aten.acos",
             "aten.atan", "aten.sinh", "aten.cosh", "aten.tanh", "aten.asinh", "aten.acosh",
             "aten.atanh", "aten.atan2", "aten.sigmoid", "aten.erf", "aten.erfc",
             "aten.ceil", "aten.floor", "aten.round", "aten.trunc", "aten.frac",
             "aten.hardtanh", "aten.leaky_relu", "aten.elu", "aten.celu", "aten.selu",
             "aten.silu", "aten.mish", "aten.hardsigmoid", "aten.hardswish", "aten.relu6",
             "aten.threshold"),
    **_rules(KeepsSelfType(_FLOATS, broadcasts=False),
             "aten.lerp.Scalar", "aten.lerp.Tensor", "aten.addcmul", "aten.addcdiv"),
    "aten.masked_fill.Scalar": KeepsSelfType(_FLOATS | _INTEGERS, {"mask": _BOOL}),
    "aten.copy": KeepsSelfType(_FLOATS | _INTEGERS | _BOOL, {"src": _FLOATS | _INTEGERS | _BOOL}),
    "aten.zero": KeepsSelfType(_FLOATS | _INTEGERS | _BOOL),
}
"""Functional forms of in-place ops, by name, typed without the tracer (Note [in-place result types])."""


def in_place_result_type(functional: Schema, groups: Sequence[Sequence[SSAValue]],
                         properties: Mapping[str, Attribute]) -> TensorType | None:
    """The type of ``functional`` on ``groups`` where it is certainly ``self``'s, else None.

    ``groups`` has one operand list per tensor argument, ``self``'s first;
    ``properties`` the non-tensor arguments given (Note [in-place result types]).
    """
    rule = KEEPS_SELF_TYPE.get(functional.op_name)
    if rule is None or len(groups[0]) != 1:
        return None
    self_type = groups[0][0].type
    if not isinstance(self_type, TensorType) or self_type.element_type not in rule.self_dtypes:
        return None
    same = frozenset({self_type.element_type})
    given_optional = False
    for argument, group in zip(functional.operand_arguments[1:], groups[1:], strict=True):
        dtypes = rule.free_operands.get(argument.name, same)
        given_optional |= argument.is_optional_tensor and bool(group)
        for value in group:
            if not (isinstance(value.type, TensorType) and value.type.element_type in dtypes):
                return None
            shape = value.type.shape
            if not (_broadcasts_to(shape, self_type.shape) if rule.broadcasts
                    else shape == self_type.shape):
                return None
    for argument in functional.attribute_arguments:
        attribute = properties.get(argument.name)
        if not _keeps_dtype(argument, attribute, self_type.element_type):
            return None
        given_optional |= argument.type == "Scalar?" and attribute not in (None, NoneAttr())
    if given_optional or not any(a.type.endswith("?") for a in functional.arguments):
        return self_type
    return None  # ``clamp`` with neither bound: PyTorch rejects it, the tracer reports it


def _broadcasts_to(shape: tuple[Dim, ...], target: tuple[Dim, ...]) -> bool:
    """Whether broadcasting ``shape`` with ``target`` gives ``target``: each trailing size equal or 1."""
    return len(shape) <= len(target) and \
        all(size in (1, wanted) for size, wanted in zip(reversed(shape), reversed(target)))


def _keeps_dtype(argument: Argument, attribute: Attribute | None, self_dtype: Attribute) -> bool:
    """Whether ``argument``, given as ``attribute`` (None: its default), leaves ``self_dtype`` alone."""
    if argument.type == "bool":
        return attribute is None or isinstance(attribute, IntegerAttr) and attribute.type == i1
    if argument.type not in ("Scalar", "Scalar?"):
        return False
    if attribute is None:
        if argument.default is None:  # required, yet not given: the tracer reports it
            return False
        if argument.default == "None":
            return True
        is_integer = argument.default.removeprefix("-").isdigit()
    elif isinstance(attribute, NoneAttr):
        return argument.type == "Scalar?"
    elif isinstance(attribute, IntegerAttr) and attribute.type == i64:
        is_integer = True
    elif isinstance(attribute, FloatAttr):
        is_integer = False
    else:  # a bool, or a symbolic scalar
        return False
    return self_dtype in _FLOATS or is_integer and self_dtype in _INTEGERS
