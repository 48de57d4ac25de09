"""Which shape symbols a type, an attribute or an op mentions by name: the one walker.

A symbol is mentioned by a dimension of a ``!hop.tensor`` and by the
expression of a ``!hop.symint``, ``!hop.symfloat``, ``!hop.symbool`` or
``#hop.expr`` (every expression attribute of ``hopc.ir.types``, one added
later included), at any depth inside the parameters of a parametrized
attribute (``FunctionType``, a new type with attribute parameters), an array
or a dictionary. An op mentions the symbols of its result types, of its
regions' block-argument types, and of its properties and attributes; an
operand's type is mentioned by the op or block that defines the operand.

Names come in textual order, first mention first, each once, which
``lift-symbols`` keeps when it lifts them (Note [lifted symbol ordering]).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from functools import cache

from xdsl.ir import Attribute, Operation, ParametrizedAttribute

from hopc.ir.dims import Dim, dim_symbols
from hopc.ir.types import ExpressionData, TensorType

_NAMES = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@cache
def symbols_of_dim(dim: Dim) -> tuple[str, ...]:
    """The symbols of one dimension or expression, in the order its text names them."""
    if isinstance(dim, int):
        return ()
    symbols = dim_symbols(dim)
    return tuple(dict.fromkeys(name for name in _NAMES.findall(dim) if name in symbols))


@cache
def symbols_of_attribute(attribute: Attribute) -> tuple[str, ...]:
    """The shape symbols a type or attribute mentions, at any depth, in textual order."""
    if isinstance(attribute, TensorType):
        names: Iterable[str] = (name for dim in attribute.shape for name in symbols_of_dim(dim))
    elif isinstance(attribute, ExpressionData):
        names = symbols_of_dim(attribute.value)
    else:
        names = (name for nested in _nested_attributes(attribute)
                 for name in symbols_of_attribute(nested))
    return tuple(dict.fromkeys(names))


def _nested_attributes(attribute: Attribute) -> Iterable[Attribute]:
    """The attributes inside a parametrized attribute, an array or a dictionary."""
    if isinstance(attribute, ParametrizedAttribute):
        return attribute.parameters
    data = getattr(attribute, "data", None)
    if isinstance(data, Mapping):
        data = tuple(data.values())
    if isinstance(data, tuple):
        return [part for part in data if isinstance(part, Attribute)]
    return ()


def _mentioning_attributes(op: Operation) -> Iterator[Attribute]:
    yield from op.result_types
    for region in op.regions:
        for block in region.blocks:
            for argument in block.args:
                yield argument.type
    yield from op.properties.values()
    yield from op.attributes.values()


def symbols_mentioned_by(op: Operation) -> tuple[str, ...]:
    """The shape symbols ``op`` itself mentions (not the ops inside it), each once.

    In the order of its result types, block-argument types, properties and
    attributes, and textual within each.
    """
    names = (name for attribute in _mentioning_attributes(op)
             for name in symbols_of_attribute(attribute))
    return tuple(dict.fromkeys(names))
