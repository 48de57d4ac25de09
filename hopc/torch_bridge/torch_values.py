"""Conversions between the attributes of ATen ops and the Python values torch takes.

An ATen op stores each non-tensor argument as an attribute (see the docstring
of ``hopc.dialects.aten``); the schema type of the argument says how to read
it. The two directions are inverses on what IR can hold:

    value_of_attribute(arg, attribute_of_value(arg, v), {}) == v

for ints, bools, floats, strings, dtypes, devices, layouts, memory formats,
``None`` and lists of these, where ``arg.type`` admits ``v``. A symbolic
integer or float (``torch.SymInt``, ``torch.SymFloat``) becomes
``#hop.expr<...>`` and reads back as the value of that expression under the
given symbol values (a Python float for a float expression).

Only code that runs torch imports this module (the interpreter, the
frontend); the parser never does, so importing sympy here costs nothing extra.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import cache

import sympy
import torch
from xdsl.dialects.builtin import (
    ArrayAttr,
    FloatAttr,
    IntegerAttr,
    StringAttr,
    f64,
    i1,
    i64,
)
from xdsl.ir import Attribute

from hopc.dialects.aten_schema import Argument
from hopc.ir import symbolic
from hopc.ir.dims import Dim, canonical_dim, dim_symbols
from hopc.ir.symbolic import UnboundSymbolError
from hopc.ir.types import DTYPE_NAME_BY_ELEMENT_TYPE, DTYPES, ExprAttr, NoneAttr, dim_attribute

_INT64_RANGE = range(-(2**63), 2**63)


def dtype_of(element_type: Attribute) -> torch.dtype:
    """The torch dtype of an element type in ``DTYPES``; ValueError for others."""
    name = DTYPE_NAME_BY_ELEMENT_TYPE.get(element_type)
    if name is None:
        raise ValueError(f"{element_type} is not the element type of a torch dtype")
    return getattr(torch, name)


def element_type_of(dtype: torch.dtype) -> Attribute:
    """The element type of a torch dtype; ValueError for dtypes IR cannot hold."""
    name = str(dtype).removeprefix("torch.")
    if name not in DTYPES:
        raise ValueError(f"dtype {dtype} has no element type (supported: {', '.join(DTYPES)})")
    return DTYPES[name]


@cache
def _expression(text: str) -> sympy.Basic:
    return symbolic.parse_expr(text)


def is_evaluable(dim: Dim, symbols: Mapping[str, int | float]) -> bool:
    """Whether every symbol ``dim`` mentions has a value in ``symbols``."""
    return all(name in symbols for name in dim_symbols(dim))


def evaluate_dim(dim: Dim, symbols: Mapping[str, int | float]) -> int | float | bool:
    """The value of a dimension or expression (a float for a float one) under ``symbols``.

    Raises ``UnboundSymbolError`` when a symbol it mentions has no value.
    """
    if isinstance(dim, int):
        return dim
    if dim.isidentifier() and dim not in ("True", "False"):
        if dim not in symbols:
            raise UnboundSymbolError(dim)
        return symbols[dim]
    return symbolic.evaluate(_expression(dim), symbols)


# --------------------------------------------------------------------------- attribute -> value


def _split_list_type(schema_type: str) -> tuple[str, int | None] | None:
    """``int[2]`` -> ("int", 2), ``SymInt[]`` -> ("SymInt", None); None if not a list."""
    if not schema_type.endswith("]"):
        return None
    element, _, size = schema_type[:-1].partition("[")
    return element, int(size) if size else None


def value_of_attribute(argument: Argument, attribute: Attribute,
                       symbols: Mapping[str, int]) -> object:
    """The Python value to pass to torch for ``argument``, stored as ``attribute``.

    ``#hop.expr`` attributes are evaluated under ``symbols`` (UnboundSymbolError
    if one is missing); ValueError for an attribute the schema type cannot hold.
    """
    return _value(argument.type.removesuffix("?"), attribute, symbols, argument)


def _value(schema_type: str, attribute: Attribute, symbols: Mapping[str, int],
           argument: Argument) -> object:
    if isinstance(attribute, NoneAttr):
        return None
    list_type = _split_list_type(schema_type)
    if list_type is not None:
        if not isinstance(attribute, ArrayAttr):
            raise _cannot_read(argument, attribute)
        return [_value(list_type[0], element, symbols, argument) for element in attribute.data]
    if schema_type == "ScalarType":
        if attribute not in DTYPE_NAME_BY_ELEMENT_TYPE:
            raise _cannot_read(argument, attribute)
        return dtype_of(attribute)
    if isinstance(attribute, ExprAttr):
        return evaluate_dim(attribute.value, symbols)
    if isinstance(attribute, IntegerAttr):
        value = attribute.value.data
        if schema_type == "bool" or attribute.type == i1:
            return bool(value)
        return float(value) if schema_type == "float" else value
    if isinstance(attribute, FloatAttr):
        return float(attribute.value.data)
    if isinstance(attribute, StringAttr):
        return _value_of_string(schema_type, attribute.data, argument)
    raise _cannot_read(argument, attribute)


def _value_of_string(schema_type: str, text: str, argument: Argument) -> object:
    if schema_type == "Device":
        try:
            return torch.device(text)
        except RuntimeError:
            raise ValueError(f"argument '{argument.name}' ({argument.type}): "
                             f"'{text}' is not a torch Device") from None
    expected = {"Layout": torch.layout, "MemoryFormat": torch.memory_format}.get(schema_type)
    if expected is None:
        return text
    value = getattr(torch, text, None)
    if not isinstance(value, expected):
        raise ValueError(f"argument '{argument.name}' ({argument.type}): "
                         f"'{text}' is not a torch {schema_type}")
    return value


def _cannot_read(argument: Argument, attribute: Attribute) -> ValueError:
    return ValueError(f"argument '{argument.name}' ({argument.type}) cannot be {attribute}")


# --------------------------------------------------------------------------- value -> attribute


def attribute_of_value(argument: Argument, value: object,
                       symbol_text: Callable[[object], str] | None = None) -> Attribute:
    """The attribute that stores ``value`` for ``argument``.

    ``symbol_text`` gives the expression text of a ``torch.SymInt`` (supplied by
    the frontend, which knows the shape environment). Raises ValueError, naming
    the argument, for a value the schema type or the IR cannot hold.
    """
    schema_type = argument.type
    if value is None:
        if not schema_type.endswith("?"):
            raise _cannot_hold(argument, value)
        return NoneAttr()
    return _attribute(schema_type.removesuffix("?"), value, symbol_text, argument)


def _attribute(schema_type: str, value: object, symbol_text: Callable[[object], str] | None,
               argument: Argument) -> Attribute:
    list_type = _split_list_type(schema_type)
    if list_type is not None:
        element_type, size = list_type
        if size is not None and isinstance(value, int | torch.SymInt) and not isinstance(value, bool):
            value = [value] * size  # ``int[2]`` takes one int for all entries, as in torch
        if not isinstance(value, list | tuple):
            raise _cannot_hold(argument, value)
        return ArrayAttr([_attribute(element_type, v, symbol_text, argument) for v in value])
    if isinstance(value, torch.SymInt) and schema_type in ("int", "SymInt", "Scalar") or \
            isinstance(value, torch.SymFloat) and schema_type in ("float", "Scalar"):
        if symbol_text is None:
            raise ValueError(f"argument '{argument.name}' ({argument.type}) is symbolic "
                             "but no symbol_text was given")
        return dim_attribute(canonical_dim(symbol_text(value)))
    if isinstance(value, bool) and schema_type in ("bool", "Scalar"):
        return IntegerAttr(int(value), i1)
    if isinstance(value, int) and not isinstance(value, bool):
        if schema_type == "float":
            return FloatAttr(float(value), f64)
        if schema_type in ("int", "SymInt", "Scalar") and value in _INT64_RANGE:
            return IntegerAttr(value, i64)
    if isinstance(value, float) and schema_type in ("float", "Scalar"):
        return FloatAttr(value, f64)
    if isinstance(value, torch.dtype) and schema_type == "ScalarType":
        return element_type_of(value)
    if isinstance(value, torch.device | str) and schema_type == "Device":
        return StringAttr(str(torch.device(value)))
    if isinstance(value, torch.layout) and schema_type == "Layout" or \
            isinstance(value, torch.memory_format) and schema_type == "MemoryFormat":
        return StringAttr(str(value).removeprefix("torch."))
    if isinstance(value, str) and schema_type == "str":
        return StringAttr(value)
    raise _cannot_hold(argument, value)


def _cannot_hold(argument: Argument, value: object) -> ValueError:
    return ValueError(f"argument '{argument.name}' ({argument.type}) cannot be stored as an "
                      f"attribute: {value!r} of type {type(value).__name__}")

