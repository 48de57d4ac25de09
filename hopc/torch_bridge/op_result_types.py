"""The op form of the tracer: the result types of one ATen overload, cached.

``OpTracer.result_types(schema, operand_types, properties)`` calls the
overload on fake tensors under the rules of ``hopc.torch_bridge.op_tracer``
(``traced_scope``) and maps the results' sizes back to our expressions. A
data-dependent size (``nonzero``) gets a fresh unbacked symbol from
``fresh_symbol`` on every call, cached or not.

Note [trace cache key]
~~~~~~~~~~~~~~~~~~~~~~
A trace is cached by what can change its result: the overload, the
properties (attributes: dims, dtype, device...), the operand types (dtypes
and shapes) and ``Tensor?[]`` holes, the symbolic dimension pattern, and
the requires-grad mask. The pattern renames the symbols of the operands and
properties ``p0, p1, ...`` in order of first appearance and keeps each
one's declared range, so ``[s0, 4] + [s0, 4]`` and ``[s7, 4] + [s7, 4]`` share
an entry while ``[s0, 4] + [s1, 4]`` does not. Hints are not part of it
(Note [trace hints]); the device is, through the properties, since operands
are always CPU fakes (Note [trace device]). Failed traces are not cached,
nor is one that guards, which is traced again in the Dynamo frame being
compiled where there is one (Note [frame guards] in ``hopc.torch_bridge.op_tracer``).

Note [factories in the trace]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
The overload runs inside the trace's ``FakeTensorMode`` with the Python
dispatcher, as ``make_fx`` runs a function. A factory (``arange``, ``ones``,
``full``, ``empty``) has no tensor operand through which the fake mode would
be found, and a symbolic size (``ones([s0, 3])``, ``expand_copy(x, [s0, 4])``)
reaches the meta kernels that take SymInts only through the Python
dispatcher. Outside them PyTorch's real CPU kernel ran: ``arange`` turned its
symbolic end into the hint (a guard ``Eq(s0, hint)``, which in a Dynamo frame
typed it ``[hint]``), and the others refused a symbolic size. Inside them the
result's sizes are the symbols (``arange(s0)`` is ``[s0]``), with no guard.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from functools import partial
from itertools import count

from torch._dispatch.python import enable_python_dispatcher
from torch._subclasses.fake_tensor import unset_fake_temporarily
from xdsl.dialects.builtin import ArrayAttr, StringAttr
from xdsl.ir import Attribute

from hopc.dialects.aten_schema import Schema
from hopc.ir.diagnostics import HopcError, Location
from hopc.ir.dims import dim_symbols
from hopc.ir.substitution import bind, substitute
from hopc.ir.types import TensorType
from hopc.torch_bridge.aten_call import call_arguments, fake_attribute_value, overload_of
from hopc.torch_bridge.op_tracer import (
    DEFAULT_LIMITS,
    Frame,
    GuardError,
    TraceLimits,
    check_device,
    check_no_symbol_fixed,
    check_result_count,
    dynamo_frame,
    traced_scope,
    types_of,
)
from hopc.torch_bridge.torch_symbolic import FakeShapes, SymbolFacts

_FRESH_PREFIX = "__fresh"
"""Traced and cached result types name the symbols a trace creates ``__fresh0, ...``."""


def symbol_pattern(operand_types: Sequence[Sequence[TensorType]], properties: Mapping[str, Attribute],
             ) -> dict[str, str]:
    """Each symbol of the operands and properties -> ``p<i>``, in order of first appearance."""
    names: dict[str, str] = {}

    def visit(attribute: Attribute) -> None:
        if isinstance(attribute, TensorType):
            dims = attribute.shape
        elif isinstance(attribute, ArrayAttr):
            for element in attribute.data:
                visit(element)
            return
        else:
            dims = (getattr(attribute, "data", None),)
        for dim in dims:
            if isinstance(dim, str):
                for name in sorted(dim_symbols(dim)):
                    names.setdefault(name, f"p{len(names)}")

    for group in operand_types:
        for type_ in group:
            visit(type_)
    for _, attribute in sorted(properties.items()):
        visit(attribute)
    return names


class OpTracer:
    """Result types of ATen ops by tracing their overloads, cached (Note [trace cache key]).

    Invariant: ``hits + misses`` counts the successful calls to ``result_types``.
    """

    def __init__(self, limits: TraceLimits = DEFAULT_LIMITS):
        self.limits = limits
        self._cache: dict[tuple, list[Attribute]] = {}
        self.hits = 0
        self.misses = 0

    def result_types(self, schema: Schema, operand_types: Sequence[Sequence[TensorType]],
                     properties: Mapping[str, Attribute], *,
                     symbols: Mapping[str, SymbolFacts] | None = None,
                     fresh_symbol: Callable[[], str] | None = None,
                     tensor_list_nones: Mapping[str, Sequence[int]] | None = None,
                     requires_grad: Sequence[bool] | None = None,
                     location: Location | None = None) -> list[Attribute]:
        """The result types of ``schema``'s op on operands of ``operand_types``.

        ``operand_types`` has one list per tensor argument (``schema.operand_arguments``);
        ``properties`` holds the non-default non-tensor arguments; ``symbols``
        the hints and ranges of the symbols (Note [trace hints]). Raises a
        HopcError at ``location`` naming the op where the trace fails.
        """
        what = schema.op_name
        for argument in schema.arguments:
            device = properties.get(argument.name)
            if argument.type.removesuffix("?") == "Device" and isinstance(device, StringAttr):
                check_device(what, device.data, location)
        nones = {k: tuple(v) for k, v in (tensor_list_nones or {}).items()}
        flags = tuple(requires_grad) if requires_grad is not None else \
            (False,) * sum(len(g) for g in operand_types)
        renaming = symbol_pattern(operand_types, properties)
        facts = symbols or {}
        ranges = tuple((facts.get(n, SymbolFacts()).lower, facts.get(n, SymbolFacts()).upper)
                       for n in renaming)
        key = (what, tuple(sorted((k, substitute(v, renaming)) for k, v in properties.items())),
               tuple(tuple(substitute(t, renaming) for t in g) for g in operand_types),
               tuple(sorted(nones.items())), ranges, flags)
        cached = self._cache.get(key)
        if cached is not None:
            self.hits += 1
            return self._instantiate(what, cached, renaming, fresh_symbol, location)
        try:
            traced, frame = self._trace(schema, operand_types, properties, facts, nones, flags, location), None
        except GuardError:
            frame = dynamo_frame({name: name for name in renaming}, facts)
            if frame is None:
                raise
            traced = self._trace(schema, operand_types, properties, facts, nones, flags, location, frame)
            check_no_symbol_fixed(what, frame, {}, location)
        types = [substitute(t, renaming) for t in traced]
        if frame is None:  # a frame's trace holds only under the frame's guards
            self._cache[key] = types
        self.misses += 1
        return self._instantiate(what, types, renaming, fresh_symbol, location)

    def _trace(self, schema: Schema, operand_types: Sequence[Sequence[TensorType]],
               properties: Mapping[str, Attribute], facts: Mapping[str, SymbolFacts],
               nones: dict[str, tuple[int, ...]], flags: tuple[bool, ...],
               location: Location | None, frame: Frame | None = None) -> list[Attribute]:
        """The result types in the caller's names, ``__fresh<i>`` for the symbols the trace creates;
        traced in ``frame``'s ``ShapeEnv`` where given (Note [frame guards])."""
        fresh = count()
        shapes = FakeShapes(facts, lambda: f"{_FRESH_PREFIX}{next(fresh)}", frame=frame)
        with traced_scope(shapes, schema.op_name, location, self.limits):
            flag = iter(flags)
            operands = {argument.name: [shapes.fake_tensor(t, next(flag)) for t in group]
                        for argument, group in zip(schema.operand_arguments, operand_types, strict=True)}
            args, kwargs = call_arguments(schema, operands, properties, nones,
                                          partial(fake_attribute_value, shapes))
            with unset_fake_temporarily(), enable_python_dispatcher(), shapes.mode:  # Note [factories in the trace]
                output = overload_of(schema)(*args, **kwargs)
        types = types_of(shapes, output, schema.op_name, location)
        check_result_count(schema.op_name, len(types), self.limits, location)
        if any(t is None for t in types):
            raise HopcError(f"{schema.op_name}: a result is None, which has no IR type", location)
        return [t for t in types if t is not None]

    @staticmethod
    def _instantiate(what: str, cached: list[Attribute], renaming: Mapping[str, str],
                     fresh_symbol: Callable[[], str] | None,
                     location: Location | None) -> list[Attribute]:
        """``cached`` in the caller's names, with a fresh symbol for each one the trace created."""
        back: dict[str, str] = {canonical: name for name, canonical in renaming.items()}
        created = sorted({s for t in cached for s in _symbols_of(t) if s.startswith(_FRESH_PREFIX)},
                         key=lambda s: int(s.removeprefix(_FRESH_PREFIX)))
        if created and fresh_symbol is None:
            raise HopcError(f"{what}: a result has a size the trace creates (data-dependent), "
                            "and no fresh symbol was supplied", location)
        for name in created:
            back[name] = fresh_symbol()
        return [substitute(t, back) for t in cached]


def _symbols_of(type_: Attribute) -> set[str]:
    if isinstance(type_, TensorType):
        return {s for d in type_.shape if isinstance(d, str) for s in dim_symbols(d)}
    value = getattr(type_, "value", None)
    return set(dim_symbols(value)) if isinstance(value, str) else set()


def compare_result_types(what: str, inferred: Sequence[Attribute], expected: Sequence[Attribute],
                         created: frozenset[str], location: Location | None) -> None:
    """A located error naming ``what`` and both types where ``inferred`` differs from ``expected``.

    A symbol in ``created`` (one the trace created, named by ``fresh_symbol``)
    matches the IR's symbol at its place: the IR names data-dependent sizes its own way.
    """
    if len(inferred) != len(expected):
        raise HopcError(f"{what}: has {len(expected)} results, but the trace gives "
                        f"{len(inferred)}", location)
    for index, (got, wanted) in enumerate(zip(inferred, expected, strict=True)):
        binding = {k: v for k, v in bind([got], [wanted]).items() if k in created}
        if substitute(got, binding) != wanted:
            raise HopcError(f"{what}: result #{index} has type {wanted}, but the trace gives "
                            f"{got}", location)


SHARED_TRACER = OpTracer()
"""The tracer builders use by default: a memo of pure results, shared like a ``functools.cache``."""
