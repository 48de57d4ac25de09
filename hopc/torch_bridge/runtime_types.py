"""Run-time values checked against their IR types: tensors' shapes and dtypes, Python scalars.

``match_types`` checks the values a function or a region receives (the
reference interpreter, the runtime's argument check, freeze's folding) and
binds the shape symbols they are the first to size; ``bind_parameters`` binds
a subgraph's parameters. Both are pure: they take the values they need as
arguments, and a mismatch comes back as a string, which the caller turns into
a located error.
"""

from __future__ import annotations

import math
from collections.abc import MutableMapping, Sequence

import torch
from xdsl.ir import Attribute

from hopc.ir.dims import Dim
from hopc.ir.types import SymBoolType, SymFloatType, SymIntType, TensorType
from hopc.torch_bridge.torch_values import dtype_of, evaluate_dim, is_evaluable


def match_types(values: Sequence[object], types: Sequence[Attribute],
                symbols: MutableMapping[str, int]) -> tuple[int, str] | None:
    """Checks run-time values against their IR types; binds symbols seen for the first time.

    A dimension (or ``!hop.symint``) that is a single symbol without a value
    binds it to the observed size; every dimension that can then be evaluated
    must equal the observed size. Returns the index of the first mismatching
    value and why, or None. Types other than tensors and symbolic scalars are
    not checked.
    """
    for value, type_ in zip(values, types):
        _bind_new_symbols(value, type_, symbols)
    for index, (value, type_) in enumerate(zip(values, types)):
        reason = _mismatch(value, type_, symbols)
        if reason is not None:
            return index, reason
    return None


def _is_symbol(dim: Dim) -> bool:
    return isinstance(dim, str) and dim.isidentifier()


def bind_parameters(values: Sequence[object], types: Sequence[Attribute],
                    symbols: MutableMapping[str, int]) -> None:
    """Binds each symbol that ``types`` bind to the size observed, bound before or not.

    The symbols are those a whole dimension (or ``!hop.symint``) names, a
    subgraph's parameters (Note [subgraph symbols] in ``hopc.dialects.hops.subgraph``);
    ``symbols`` is the call's own scope, whose bindings shadow the caller's.
    Two values binding one symbol differently are left to ``match_types``.
    """
    for value, type_ in zip(values, types):
        for dim, size in _observed_sizes(value, type_):
            symbols[dim] = size


def _observed_sizes(value: object, type_: Attribute) -> list[tuple[str, int]]:
    """(symbol, size) for each part of ``type_`` that is a single symbol, as ``value`` has it."""
    if isinstance(type_, TensorType) and isinstance(value, torch.Tensor) \
            and value.dim() == type_.rank:
        observed = zip(type_.shape, value.shape)
    elif isinstance(type_, SymIntType) and _is_int(value):
        observed = [(type_.value, value)]
    elif isinstance(type_, SymFloatType) and isinstance(value, float):
        return [(type_.value, value)] if _is_symbol(type_.value) else []
    else:
        return []
    return [(dim, int(size)) for dim, size in observed if _is_symbol(dim)]


def _bind_new_symbols(value: object, type_: Attribute, symbols: MutableMapping[str, int]) -> None:
    for dim, size in _observed_sizes(value, type_):
        if dim not in symbols:
            symbols[dim] = size


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _mismatch(value: object, type_: Attribute, symbols: MutableMapping[str, int]) -> str | None:
    if isinstance(type_, TensorType):
        return _tensor_mismatch(value, type_, symbols)
    if isinstance(type_, SymIntType | SymBoolType | SymFloatType):
        expected_kind = {SymIntType: int, SymBoolType: bool, SymFloatType: float}[type(type_)]
        kind_matches = (_is_int(value) if expected_kind is int else
                        isinstance(value, expected_kind))
        if not kind_matches:
            return f"is {value!r}, expected a Python {expected_kind.__name__} for {type_}"
        if is_evaluable(type_.value, symbols) and \
                not _same_value(evaluate_dim(type_.value, symbols), value):
            return f"is {value}, type {type_} says {evaluate_dim(type_.value, symbols)}"
    return None


def _same_value(expected: int | float | bool, value: int | float | bool) -> bool:
    """Equal; floats up to rounding (the type's expression may add in another order)."""
    if isinstance(value, float):
        return math.isclose(expected, value, rel_tol=1e-12, abs_tol=1e-300)
    return expected == value


def _tensor_mismatch(value: object, type_: TensorType,
                     symbols: MutableMapping[str, int]) -> str | None:
    if not isinstance(value, torch.Tensor):
        return f"is {type(value).__name__} {value!r}, expected a tensor of type {type_}"
    shape = list(value.shape)
    if value.dim() != type_.rank:
        return f"has shape {shape}, type {type_} has rank {type_.rank}"
    if value.dtype != dtype_of(type_.element_type):
        return f"has dtype {value.dtype}, type {type_} says {dtype_of(type_.element_type)}"
    expected = [evaluate_dim(d, symbols) if is_evaluable(d, symbols) else d for d in type_.shape]
    if any(isinstance(e, int) and e != size for e, size in zip(expected, shape)):
        return f"has shape {shape}, type {type_} says [{', '.join(map(str, expected))}]"
    return None
