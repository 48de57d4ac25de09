"""Substituting expressions for shape symbols: how a call binds the symbols of a subgraph.

A substitution maps shape-symbol names to dimensions (an int, or canonical
expression text) and replaces all of them at once, so ``{s0: s1, s1: s0}``
swaps the two::

    !hop.tensor<[s0, s1 + 1], f32>   ->   !hop.tensor<[s1, s0 + 1], f32>

Symbols it does not map stay as they are. Results are canonical (Note
[expression text] in ``symbolic.py``), so substituted types compare with
``==``. ``parameters`` and ``bind`` are the two halves of Note [subgraph
symbols] in ``hopc.dialects.hop``: which symbols a signature binds, and what
a call's operand types bind them to.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr
from xdsl.ir import Attribute

from hopc.ir.dims import Dim, canonical_dim, dim_symbols
from hopc.ir.types import ExprAttr, SymBoolType, SymFloatType, SymIntType, TensorType, dim_attribute

Substitution = Mapping[str, Dim]
"""Symbol name -> the dimension it stands for."""

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _bound_positions(type_: Attribute) -> list[tuple[int, str]]:
    """(position, symbol) for each symbol a value of ``type_`` binds by itself.

    A tensor binds each dimension that is a single symbol (position = the
    dimension's index); a ``!hop.symint<s>`` binds ``s`` (position 0).
    """
    if isinstance(type_, TensorType):
        return [(index, dim) for index, dim in enumerate(type_.shape)
                if isinstance(dim, str) and dim.isidentifier()]
    if isinstance(type_, SymIntType | SymFloatType) and str(type_.value).isidentifier():
        return [(0, type_.value)]
    return []


def parameters(types: Sequence[Attribute]) -> tuple[str, ...]:
    """The symbols that values of ``types`` bind, in order of first appearance."""
    return tuple(dict.fromkeys(name for type_ in types for _, name in _bound_positions(type_)))


class InconsistentBinding(ValueError):
    """Two arguments bind one parameter to different dimensions."""

    def __init__(self, symbol: str, first: tuple[int, Dim], second: tuple[int, Dim]):
        super().__init__(f"{symbol} is bound to {first[1]} by argument #{first[0]} and to "
                         f"{second[1]} by argument #{second[0]}")
        self.symbol = symbol
        self.first = first
        """(argument index, dimension) of the first binding."""
        self.second = second
        """(argument index, dimension) of the conflicting one."""


def bind(parameter_types: Sequence[Attribute],
         argument_types: Sequence[Attribute]) -> dict[str, Dim]:
    """What ``argument_types`` bind the parameters of ``parameter_types`` to, position by position.

    Each symbol that a parameter type binds (``parameters``) maps to the
    argument's dimension at the same place, an int or any expression. A pair
    of types whose kinds or ranks differ binds nothing (comparing the types
    under the substitution reports it). Raises ``InconsistentBinding`` where
    one symbol would map to two different dimensions.
    """
    substitution: dict[str, Dim] = {}
    first_binding: dict[str, int] = {}
    for index, (parameter, argument) in enumerate(zip(parameter_types, argument_types)):
        if isinstance(parameter, TensorType) and isinstance(argument, TensorType):
            if parameter.rank != argument.rank:
                continue
            dims = argument.shape
        elif isinstance(parameter, SymIntType | SymFloatType) and type(argument) is type(parameter):
            dims = (argument.value,)
        else:
            continue
        for position, symbol in _bound_positions(parameter):
            dim = dims[position]
            if symbol in substitution and substitution[symbol] != dim:
                raise InconsistentBinding(symbol, (first_binding[symbol], substitution[symbol]),
                                          (index, dim))
            substitution.setdefault(symbol, dim)
            first_binding.setdefault(symbol, index)
    return substitution


def is_identity(substitution: Substitution) -> bool:
    """Whether ``substitution`` maps every symbol to itself (changes nothing)."""
    return all(name == dim for name, dim in substitution.items())


def substitute_dim(dim: Dim, substitution: Substitution) -> Dim:
    """``dim`` with every symbol of ``substitution`` replaced, in canonical form."""
    if isinstance(dim, int) or dim_symbols(dim).isdisjoint(substitution):
        return dim
    if dim in substitution:
        return substitution[dim]
    text = _NAME.sub(lambda m: f"({substitution[m[0]]})" if m[0] in substitution else m[0], dim)
    return canonical_dim(text)


def substitute(attribute: Attribute, substitution: Substitution) -> Attribute:
    """``attribute`` with ``substitution`` applied to every dimension in it.

    Handles tensor types, ``!hop.symint``/``!hop.symbool``, ``#hop.expr``
    (an ``i64`` integer attribute where the result is an int, as ATen ops
    spell static arguments), and arrays and dictionaries of these; other
    attributes mention no symbol and come back as they are.
    """
    if not substitution:
        return attribute
    if isinstance(attribute, TensorType):
        return TensorType([substitute_dim(d, substitution) for d in attribute.shape],
                          attribute.element_type)
    if isinstance(attribute, SymIntType | SymFloatType | SymBoolType):
        return type(attribute)(substitute_dim(attribute.value, substitution))
    if isinstance(attribute, ExprAttr):
        return dim_attribute(substitute_dim(attribute.value, substitution))
    if isinstance(attribute, ArrayAttr):
        return ArrayAttr([substitute(a, substitution) for a in attribute.data])
    if isinstance(attribute, DictionaryAttr):
        return DictionaryAttr({k: substitute(a, substitution) for k, a in attribute.data.items()})
    return attribute
