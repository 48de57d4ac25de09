"""Typed builders of ATen ops: passes name the op and its arguments, the tracer gives the types.

::

    total = build_aten("aten.add.Tensor", [x, y], alpha=2, origin=op)
    rows = build_aten("aten.slice.Tensor", [x], dim=0, start=1, end="s0 - 1")
    picked = build_aten("aten.index.Tensor", [x, [None, i]])

Operands come one per tensor argument of the schema, in order: an
``SSAValue`` for a ``Tensor``, an ``SSAValue`` or None for a ``Tensor?``, a
list for a ``Tensor[]`` (with None entries for a ``Tensor?[]``). Attributes
are the non-tensor arguments by schema name, as IR attributes or Python
values (an expression string for a symbolic int). The result types come from
``hopc.torch_bridge.op_result_types`` (cached), with the hints and ranges that the
enclosing module's ``hop.symbol`` ops declare (Note [trace hints] in
``hopc.torch_bridge.op_tracer``); a failed trace is a HopcError located at ``origin``.
The new op is not inserted anywhere.

Note [symbol facts cache]
~~~~~~~~~~~~~~~~~~~~~~~~~
Every op a pass builds asks for the hints and ranges of its module's
symbols (``symbol_facts``); reading them off every ``hop.symbol`` op each
time makes a pass that builds an op per op of the module quadratic in its
size (autograd declares new symbols as it goes). So the facts are kept per
module with the ``hop.symbol`` ops they were read from, and read again
whenever the module's declarations are no longer those very ops, in that
order: a declaration added, erased or replaced is seen at the next call, by
a walk of the module's top-level ops, the facts being its ops' properties.
A ``hop.symbol`` op is never edited in place (every pass builds a new one).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from itertools import count
from weakref import WeakKeyDictionary

from xdsl.dialects.builtin import ArrayAttr, IntegerAttr, i64
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.traits import SymbolTable

from hopc.dialects.aten import AtenOp
from hopc.dialects.aten_op_classes import op_class
from hopc.dialects.aten_schema import Argument
from hopc.dialects.hop_symbols import SymbolOp
from hopc.ir.diagnostics import HopcError, location_of
from hopc.ir.dims import canonical_dim
from hopc.ir.types import TensorType, dim_attribute
from hopc.torch_bridge.op_result_types import SHARED_TRACER, OpTracer, compare_result_types
from hopc.torch_bridge.torch_symbolic import SymbolFacts
from hopc.torch_bridge.torch_values import attribute_of_value

Operand = SSAValue | None | Sequence[SSAValue | None]
"""What ``build_aten`` takes for one tensor argument."""


_DETACHED_SCOPE: ContextVar[Operation | None] = ContextVar("detached_scope", default=None)


@contextmanager
def symbols_of(module: Operation) -> Iterator[None]:
    """Within it, values in blocks not (yet) inside a module take ``module``'s symbol declarations.

    A pass that builds new blocks before attaching them (autograd's joints)
    keeps the hints and ranges of the module it works on.
    """
    token = _DETACHED_SCOPE.set(module)
    try:
        yield
    finally:
        _DETACHED_SCOPE.reset(token)


def symbol_facts(values: Sequence[SSAValue]) -> dict[str, SymbolFacts]:
    """The hint and range of each symbol the module around ``values`` declares.

    Values in a detached block take those of the module of the innermost
    ``symbols_of`` scope; without one, none (empty). Read off the declarations
    once for as long as they stay the same ops (Note [symbol facts cache]).
    """
    table = next((t for t in map(_symbol_table_of, values) if t is not None), _DETACHED_SCOPE.get())
    if table is None:
        return {}
    declarations = tuple(op for op in table.regions[0].block.ops if isinstance(op, SymbolOp))
    cached = _FACTS_CACHE.get(table)
    if cached is None or cached[0] != declarations:  # ops compare by identity
        facts = {op.symbol: SymbolFacts(op.hint_value, *op.value_range) for op in declarations}
        cached = _FACTS_CACHE[table] = (declarations, facts)
    return dict(cached[1])


def unbacked_symbols(values: Sequence[SSAValue]) -> frozenset[str]:
    """The symbols that the module around ``values`` (found as by ``symbol_facts``) declares unbacked."""
    table = next((t for t in map(_symbol_table_of, values) if t is not None), _DETACHED_SCOPE.get())
    if table is None:
        return frozenset()
    return frozenset(op.symbol for op in table.regions[0].block.ops
                     if isinstance(op, SymbolOp) and op.kind.data == "unbacked")


_FACTS_CACHE: WeakKeyDictionary[Operation, tuple[tuple[SymbolOp, ...], dict[str, SymbolFacts]]] = \
    WeakKeyDictionary()
"""Module -> its ``hop.symbol`` ops and their facts when last read (Note [symbol facts cache])."""


def _symbol_table_of(value: SSAValue) -> Operation | None:
    owner = value.owner
    op = owner.parent_op() if isinstance(owner, Block) else owner
    while op is not None and not op.has_trait(SymbolTable):
        op = op.parent_op()
    return op


def build_aten_from_groups(name: str, groups: Sequence[Sequence[SSAValue]],
                           properties: Mapping[str, Attribute], *,
                           origin: Operation | None = None,
                           fresh_symbol: Callable[[], str] | None = None,
                           tracer: OpTracer = SHARED_TRACER) -> AtenOp:
    """``name`` on one operand list per tensor argument and its properties, typed by the tracer.

    ``properties`` are the op's, ``<arg>_nones`` included; the op is located at ``origin``.
    """
    cls = op_class(name)
    location = location_of(origin)
    if cls is None:
        raise HopcError(f"{name}: ATen has no such op", location)
    schema = cls.SCHEMA
    operand_types = [[v.type for v in group] for group in groups]
    for group in operand_types:
        for type_ in group:
            if not isinstance(type_, TensorType):
                raise HopcError(f"{name}: an operand has type {type_}, not a tensor type", location)
    nones = {a.name: _positions(properties[f"{a.name}_nones"])
             for a in schema.operand_arguments if f"{a.name}_nones" in properties}
    arguments = {k: v for k, v in properties.items() if not k.endswith("_nones")}
    values = [v for group in groups for v in group]
    result_types = tracer.result_types(schema, operand_types, arguments,
                                       symbols=symbol_facts(values), fresh_symbol=fresh_symbol,
                                       tensor_list_nones=nones, location=location)
    new = cls.build_from_groups(groups, dict(properties), result_types)
    if origin is not None:
        new.location = origin.location
    return new


def _positions(attribute: Attribute) -> list[int]:
    assert isinstance(attribute, ArrayAttr)
    return [a.value.data for a in attribute.data if isinstance(a, IntegerAttr)]


def build_aten(name: str, operands: Sequence[Operand], *, origin: Operation | None = None,
               fresh_symbol: Callable[[], str] | None = None, tracer: OpTracer = SHARED_TRACER,
               **attributes: object) -> AtenOp:
    """``name`` (``"aten.add.Tensor"``) on ``operands`` with ``attributes``, typed by the tracer."""
    cls = op_class(name)
    if cls is None:
        raise HopcError(f"{name}: ATen has no such op", location_of(origin))
    schema = cls.SCHEMA
    if len(operands) != len(schema.operand_arguments):
        raise HopcError(f"{name}: takes {len(schema.operand_arguments)} tensor arguments, "
                        f"got {len(operands)}", location_of(origin))
    groups: list[list[SSAValue]] = []
    properties: dict[str, Attribute] = {}
    for argument, operand in zip(schema.operand_arguments, operands, strict=True):
        if operand is None:
            groups.append([])
        elif isinstance(operand, SSAValue):
            groups.append([operand])
        else:
            groups.append([v for v in operand if v is not None])
            holes = [i for i, v in enumerate(operand) if v is None]
            if holes:
                properties[f"{argument.name}_nones"] = ArrayAttr([IntegerAttr(i, i64) for i in holes])
    by_name = {a.name: a for a in schema.attribute_arguments}
    for key, value in attributes.items():
        if key not in by_name:
            raise HopcError(f"{name}: has no argument '{key}' other than its tensors",
                            location_of(origin))
        properties[key] = _attribute(by_name[key], value)
    return build_aten_from_groups(name, groups, properties, origin=origin,
                                  fresh_symbol=fresh_symbol, tracer=tracer)


def _attribute(argument: Argument, value: object) -> Attribute:
    """``value`` as the property of ``argument``; an expression string (or a list with one) is symbolic."""
    if isinstance(value, Attribute):
        return value
    if isinstance(value, str) and "int" in argument.type.lower():
        return dim_attribute(canonical_dim(value))
    if isinstance(value, list | tuple) and any(isinstance(v, str) for v in value):
        return ArrayAttr([dim_attribute(canonical_dim(v) if isinstance(v, str) else v) for v in value])
    return attribute_of_value(argument, value)


def check_result_types(op: AtenOp, tracer: OpTracer = SHARED_TRACER) -> None:
    """A HopcError, located at ``op`` and naming both types, where its result types are not the traced ones.

    A size the trace creates (``nonzero``) matches the IR's symbol at its place.
    """
    groups = op.operand_groups()
    fresh = count()
    created: set[str] = set()

    def fresh_symbol() -> str:
        created.add(name := f"__created{next(fresh)}")
        return name

    nones = {a.name: op.tensor_list_nones(a) for a, _ in groups if op.tensor_list_nones(a)}
    arguments = {k: v for k, v in op.properties.items() if not k.endswith("_nones")}
    values = [v for _, group in groups for v in group]
    location = location_of(op)
    inferred = tracer.result_types(op.SCHEMA, [[v.type for v in g] for _, g in groups], arguments,
                                   symbols=symbol_facts(values), fresh_symbol=fresh_symbol,
                                   tensor_list_nones=nones, location=location)
    compare_result_types(op.SCHEMA.op_name, inferred, op.result_types, frozenset(created), location)
