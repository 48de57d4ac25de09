"""Host code generation: a kernel-level function as straight-line Python source, compiled once.

Note [generated host code]
~~~~~~~~~~~~~~~~~~~~~~~~~~
The compiled executors (``aten``, ``triton``: ``hopc.backend.runtime.executors``)
run a function of a kernel-level module (Note [kernel level] in
``hopc.dialects.kernel``) as one Python function generated from it: what the
planned executor decides per run of a step (which slot, which symbol, which
branch) is decided here once, and what is left is the code one would write by
hand. For

    func.func @forward(%x: !hop.tensor<[s0, 16], f32>, %w: !hop.tensor<[16], f32>, %p: !hop.tensor<[], i1>) {
      %r = hop.cond %p(%x, %w) ... then {
      ^bb0(%a, %b):
        %n = hop.sym_size %a[0] ...
        %buf = kernel.alloc(%n) : (!hop.symint<s0>) -> !kernel.buffer<[s0, 16], f32, [16, 1], cpu>
        %m = kernel.launch @mul(%a, %b) into(%buf : ...) ...
        hop.yield %m
      } else { ... }
      func.return %r
    }

the ``aten`` executor generates (names are counters, never IR text:
``hopc.backend.host.names``)

    def f_14(c_7, c_8, c_9, c_10, c_12, c_13):
        def f_1(*args):
            v2, v3, v4 = args
            try:
                if v4:
                    v5 = v2.size(0)
                    v6 = c_7((v5, 16), (16, 1), dtype=c_8, device=c_9)
                    c_10(v2, v3, out=v6)
                    v11 = v6
                else:
                    ...
                return [v11]
            except c_12:
                c_13()
                raise
        return f_1

where ``c_7`` is ``torch.empty_strided``, ``c_10`` the C++ callable of
``aten.mul.out`` and ``c_8``/``c_9`` the dtype and device, all values of
the namespace, which ``GeneratedFunction.compile`` (``generated_function``) passes to the outer
function once, and the code reads as closure variables. The outer function
is no global of the code either, so the entry function and what it reads
form no reference cycle: dropping it frees its constants at once (Note
[converted constants] in ``hopc.backend.interpreters.hop``); a function held
in its own globals would keep them until Python's cycle collector ran. A
closure variable reads about as fast as a global (a frozen ``Linear``'s
call measured the same). The pieces:

- values are locals; a region that runs once (a cond branch, a wrap) is
  inlined, its block arguments the operands' locals; a ``hop.while`` keeps
  its carried values in locals reassigned by the body; a scan or map body
  is a nested ``def`` and a ``hop.subgraph`` a function of its own (each
  HOP kind's lowering in its module of ``hopc.backend.hops``);
- a shape symbol becomes a local only where code reads it (an allocation's
  shape, an attribute ``#hop.expr``), materialized there from where it is
  bound: a size of a tensor in scope or a ``!hop.symint`` value, with the
  reference interpreter's scoping (Note [interpreter symbol scopes]: an
  enclosing block's binding wins, a region's own bindings end with it);
  expressions are Python arithmetic on those locals (``expressions``);
- ATen calls are laid out once, their attributes converted once
  (``lowerings.aten``); a launch is whatever the executor's launch lowering
  emits (``lowerings.kernel``);
- a failure raised by a line of the generated code is re-raised as an
  ``InterpreterError`` located at the op that line came from (the generated
  source maps its lines to ops); the ``try`` costs nothing until it fires.

Results that share a constant's storage are cloned on return, as the planned
executor does (Note [planned execution]).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field

import torch
from xdsl.ir import Block, Operation, SSAValue
from xdsl.traits import IsTerminator

from hopc.backend.host.expressions import dim_source
from hopc.backend.host.names import CONSTANT, FUNCTION, SYMBOL, VALUE, Names
from hopc.backend.host.scalars import HostScalars
from hopc.backend.runtime.plan import symbol_binders
from hopc.dialects.hop_common import describe
from hopc.ir.diagnostics import HopcError, op_error
from hopc.ir.dims import Dim
from hopc.ir.rule_table import RuleTable

Lowering = Callable[["HostBuilder", Operation], None]
"""Emits the code of one op: defines a local (or an alias) for each of its results."""

HOST_LOWERINGS: RuleTable[Lowering] = RuleTable(
    "host code", packages=("hopc.backend.hops", "hopc.backend.host.lowerings"))
"""Op class -> lowering (an ``AtenOp`` subclass takes ``AtenOp``'s): each HOP kind's in its
module of ``hopc.backend.hops``, every other op's in ``hopc.backend.host.lowerings``.
``kernel.launch``'s hands a launch to the executor's own lowering (``HostBuilder.lower_launch``)."""

Line = tuple[str, Operation | None]


@dataclass
class _SymbolScope:
    """The shape symbols one block run binds: where each can be read, and those read so far.

    Invariant: a materialized local holds the value the reference interpreter
    binds the symbol to in this scope (the outermost binding of the chain).
    """

    parent: _SymbolScope | None
    sources: dict[str, tuple[str, int | None]] = field(default_factory=dict)
    """symbol -> (local, dim): its value is ``local.size(dim)``, or ``local`` itself for dim None."""
    materialized: dict[str, str] = field(default_factory=dict)

    def chain(self) -> list[_SymbolScope]:
        """This scope and its enclosing ones, innermost first (up to an isolated one)."""
        scopes, scope = [], self
        while scope is not None:
            scopes.append(scope)
            scope = scope.parent
        return scopes


class HostBuilder:
    """Builds the source of one function and the functions it calls (Note [generated host code])."""

    def __init__(self, lower_launch: Lowering, device: str, scalars: HostScalars,
                 first_write_allocates: bool = False):
        self.names = Names()
        self.lower_launch = lower_launch
        self.device = device
        self.first_write_allocates = first_write_allocates
        """Whether a buffer's first writer allocates it (Note [first write allocates])."""
        self.unallocated: set[str] = set()
        """Buffer locals whose ``kernel.alloc`` emitted no code: their first writer assigns them."""
        self.host_scalars = scalars
        """Values the code keeps as Python ints and bools (Note [host scalars])."""
        self.constants: list[torch.Tensor] = []
        """The constant tensors the code reads, shared by every run."""
        self.functions: list[list[Line]] = []
        """Finished functions (subgraphs), in the order they are defined in the source."""
        self.subgraph_functions: dict[Operation, str] = {}
        self._lines: list[Line] = []
        self._depth = 0
        self._op: Operation | None = None
        self._values: dict[SSAValue, str] = {}
        self._scope = _SymbolScope(None)

    # ----------------------------------------------------------------------- source

    def emit(self, text: str) -> None:
        self._lines.append(("    " * self._depth + text, self._op))

    @contextlib.contextmanager
    def indented(self) -> Iterator[None]:
        self._depth += 1
        try:
            yield
        finally:
            self._depth -= 1

    @contextlib.contextmanager
    def suite(self, header: str) -> Iterator[None]:
        """``header`` and, indented, what the body emits (``pass`` where it emits nothing)."""
        self.emit(header)
        emitted = len(self._lines)
        with self.indented():
            yield
            if len(self._lines) == emitted:
                self.emit("pass")

    def bind(self, value: object, prefix: str = CONSTANT, recipe: object = None) -> str:
        """A namespace name for ``value`` (one per object); ``recipe``: ``Names.bind``'s."""
        return self.names.bind(value, prefix, recipe)

    def error(self, message: str) -> HopcError:
        """A HopcError located at the op being lowered."""
        return op_error(self._op, message) if self._op is not None else HopcError(message)

    # ----------------------------------------------------------------------- values

    def local(self, value: SSAValue) -> str:
        name = self._values.get(value)
        if name is None:
            raise self.error(f"reads {describe(value)}, which host code has not defined here")
        return name

    def locals(self, values: Sequence[SSAValue]) -> list[str]:
        return [self.local(v) for v in values]

    def define(self, value: SSAValue) -> str:
        """A fresh local for ``value``, assigned by the code the caller emits."""
        name = self._values[value] = self.names.fresh(VALUE)
        return name

    def alias(self, value: SSAValue, name: str) -> None:
        """``value`` is whatever ``name`` (a local or namespace name) holds; no code."""
        self._values[value] = name

    # ----------------------------------------------------------------------- symbols

    @contextlib.contextmanager
    def scope(self, isolated: bool = False) -> Iterator[None]:
        """A block run's symbol scope; isolated for a callee that binds its own symbols."""
        outer = self._scope
        self._scope = _SymbolScope(None if isolated else outer)
        try:
            yield
        finally:
            self._scope = outer

    def bind_sources(self, values: Sequence[SSAValue]) -> None:
        """Records where the lone shape symbols in the types of ``values`` can be read."""
        for symbol, position, dim in symbol_binders([value.type for value in values]):
            local = self._values.get(values[position])
            if local is not None:  # else a value no code reads (``lower_sym_size``)
                self.bind_source(symbol, local, dim)

    def bind_source(self, symbol: str, local: str, dim: int | None) -> None:
        """``symbol`` is ``local.size(dim)`` (``local`` itself for dim None) from here on in this
        scope, unless the scope binds it already; a local holding the value itself is preferred
        to a size read, the two being equal."""
        known = self._scope.sources.get(symbol)
        if known is None or (dim is None and known[1] is not None and symbol not in self._scope.materialized):
            self._scope.sources[symbol] = (local, dim)

    def symbol(self, name: str) -> str:
        """The local holding symbol ``name``'s value here, materialized now if need be."""
        chain = self._scope.chain()
        for scope in chain:
            if name in scope.materialized:
                return scope.materialized[name]
        for scope in reversed(chain):  # the outermost binding wins
            if name in scope.sources:
                local, dim = scope.sources[name]
                if dim is not None:
                    materialized = self.names.fresh(SYMBOL)
                    self.emit(f"{materialized} = {local}.size({dim})")
                    local = materialized
                self._scope.materialized[name] = local
                return local
        raise self.error(f"needs the value of shape symbol {name}, which nothing in scope binds")

    def dim(self, dim: Dim) -> str:
        """A dimension or expression as Python source over the symbols' locals."""
        return dim_source(dim, self.symbol, self.names)

    def dims(self, dims: Sequence[Dim]) -> str:
        """A tuple display of dimensions: ``(s3, 16)``."""
        parts = [self.dim(d) for d in dims]
        return f"({parts[0]},)" if len(parts) == 1 else f"({', '.join(parts)})"

    # ----------------------------------------------------------------------- ops and blocks

    def lower_block(self, block: Block, arguments: Sequence[str], isolated: bool = False,
                    lower_op: Callable[[Operation], None] | None = None) -> list[str]:
        """Emits ``block``'s ops with its arguments bound to ``arguments``, each by ``lower_op``
        (``self.lower_op`` unless given); the yielded locals."""
        lower = lower_op or self.lower_op
        with self.scope(isolated):
            for argument, name in zip(block.args, arguments, strict=True):
                self.alias(argument, name)
            self.bind_sources(block.args)
            for op in block.ops:
                if op.has_trait(IsTerminator, value_if_unregistered=False):
                    return self.locals(op.operands)
                lower(op)
        raise self.error("region ends without a terminator")

    def lower_op(self, op: Operation) -> None:
        """Emits ``op`` with its lowering; a HopcError located at it where it has none."""
        with self.at(op):
            lowering = HOST_LOWERINGS.get(type(op))
            if lowering is None:
                raise self.error("has no lowering to host code")
            lowering(self, op)
            for result in op.results:
                if result in self.host_scalars.read:
                    read = self.names.fresh(VALUE)
                    self.emit(f"{read} = {self.local(result)}.item()")
                    self.alias(result, read)
            self.bind_sources(op.results)

    @contextlib.contextmanager
    def at(self, op: Operation) -> Iterator[None]:
        """Lines emitted inside come from ``op`` (errors and failures are located there)."""
        outer, self._op = self._op, op
        try:
            yield
        finally:
            self._op = outer

    def unpack(self, targets: Sequence[str], value: str) -> None:
        """``targets = value`` for a ``value`` of one item per target (``v1, = value`` for one);
        ``value`` alone, for its effects, where there is no target."""
        if not targets:
            self.emit(value)
        elif len(targets) == 1:
            self.emit(f"{targets[0]}, = {value}")
        else:
            self.emit(f"{', '.join(targets)} = {value}")

    def assign(self, targets: Sequence[str], sources: Sequence[str]) -> None:
        """``targets = sources``, skipping a local assigned to itself."""
        pairs = [(t, s) for t, s in zip(targets, sources, strict=True) if t != s]
        if pairs:
            self.emit(f"{', '.join(t for t, _ in pairs)} = {', '.join(s for _, s in pairs)}")

    @contextlib.contextmanager
    def function(self, parameters: Sequence[str], nested: bool = False) -> Iterator[str]:
        """Emits ``def f_k(parameters):`` around what the body emits; yields its name.

        A nested function is defined at this point of the current function (a
        closure over its locals); another one is a function of the source's own.
        """
        name = self.names.fresh(FUNCTION)
        if not nested:
            outer = (self._lines, self._depth)
            self._lines, self._depth = [], 0
        self.emit(f"def {name}({', '.join(parameters)}):")
        try:
            with self.indented():
                yield name
        finally:
            if not nested:
                self.functions.append(self._lines)
                self._lines, self._depth = outer
