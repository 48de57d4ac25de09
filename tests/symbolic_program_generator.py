"""Random hop programs with symbolic shapes used inside nested regions, and inputs for them.

``generate_program(choose)`` writes a module whose entry function takes
``%p: [] i1``, ``%i: [] i64``, ``%x: [s0, s1]``, ``%y: [s1]`` and ``%z: [s2]``
and whose body nests ``hop.cond``, ``hop.while``, ``hop.wrap`` and
``hop.checkpoint`` regions. Inside them shape symbols occur in the operands'
types, in ``aten.view``/``aten.ones`` size attributes (plain symbols and
compound ones such as ``2*s0`` or ``s0*s1``), in sizes that enclosing blocks
pass in as ``!hop.symint`` operands, and as unbacked symbols of ``hop.item``.
Region bodies are written as PyTorch captures them: every value they read is
an operand (Note [isolated regions] in ``hopc.dialects.hop_interface``), while
shape symbols are used by name, not passed.

``choose(n)`` returns an int in ``range(n)``: hypothesis's ``draw`` of
``integers(0, n - 1)`` (so examples shrink) or ``random.randrange``.

``random_arguments(module, sizes, generator)`` and ``symbol_sizes(module,
generator)``, from ``program_generator_core``, make entry arguments for any
module.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from program_generator_core import (
    Choose,
    ProgramWriter,
    block_header,
    call_header,
    cond_header,
    module_text,
    random_arguments,  # noqa: F401 - re-exported
    size_attribute,
    symbol_sizes,  # noqa: F401 - re-exported
    tensor_type,
    while_header,
    yield_line,
)

from hopc.dialects.hop import SymAddOp, SymGeOp
from hopc.ir.dims import Dim, canonical_dim
from hopc.ir.types import SymIntType

BACKED = ("s0", "s1", "s2")


@dataclass(frozen=True)
class _Value:
    name: str
    shape: tuple[Dim, ...]
    element: str = "f32"

    @property
    def type(self) -> str:
        return tensor_type(self.shape, self.element)


@dataclass(frozen=True)
class _Size:
    """A ``!hop.symint`` value of a block: a size taken there, or passed in as an operand."""

    name: str
    symint: SymIntType

    @property
    def type(self) -> str:
        return str(self.symint)


@dataclass(frozen=True)
class _Scope:
    """What a block may use: unbacked symbols of enclosing blocks by name, its own sizes."""

    unbacked: tuple[str, ...] = ()
    sizes: tuple[_Size, ...] = ()


@dataclass
class _Block:
    pool: list[_Value]
    scope: _Scope
    lines: list[str] = field(default_factory=list)


def _region_text(lines: list[str], arguments: list[_Value | _Size], yielded: list[_Value]) -> str:
    body = "\n".join(f"  {line}" for line in [*lines, yield_line(yielded)])
    return f"{{\n{block_header(arguments)}\n{body}\n}}"


class _Generator(ProgramWriter):
    def __init__(self, choose: Choose, max_depth: int):
        super().__init__(choose, max_depth)
        self.unbacked: list[str] = []

    def floats(self, block: _Block) -> list[_Value]:
        return [v for v in block.pool if v.element == "f32"]

    def emit(self, block: _Block, text: str, result: _Value | None = None) -> None:
        block.lines.append(text)
        if result is not None:
            block.pool.append(result)

    # ------------------------------------------------------------------- ops

    def fill(self, block: _Block, depth: int) -> None:
        for _ in range(1 + self.choose(4)):
            kinds = [self.unary, self.view, self.cat, self.sized_ones, self.item, self.size_check]
            if depth < self.max_depth:
                kinds += [self.hop_call, self.cond, self.loop]
            self.pick(kinds)(block, depth)

    def unary(self, block: _Block, depth: int) -> None:
        value = self.pick(self.floats(block))
        name = self.fresh()
        op = self.pick(["aten.sin", "aten.cos", "aten.neg"])
        self.emit(block, f"{name} = {op}({value.name}) : ({value.type}) -> {value.type}",
                  _Value(name, value.shape))

    def view(self, block: _Block, depth: int) -> None:
        candidates = [v for v in self.floats(block) if 1 <= len(v.shape) <= 2]
        if not candidates:
            return
        value = self.pick(candidates)
        if len(value.shape) == 1:
            shape = (1, value.shape[0]) if self.choose(2) else (value.shape[0], 1)
        else:
            first, second = value.shape
            shape = self.pick([(canonical_dim(f"({first})*({second})"),), (second, first)])
        sizes = ", ".join(size_attribute(d) for d in shape)
        result = _Value(self.fresh(), shape)
        self.emit(block, f"{result.name} = aten.view({value.name}) {{size = [{sizes}]}} : "
                         f"({value.type}) -> {result.type}", result)

    def cat(self, block: _Block, depth: int) -> None:
        candidates = [v for v in self.floats(block) if v.shape]
        if not candidates:
            return
        value = self.pick(candidates)
        doubled = (canonical_dim(f"2*({value.shape[0]})"), *value.shape[1:])
        result = _Value(self.fresh(), doubled)
        self.emit(block, f"{result.name} = aten.cat([{value.name}, {value.name}]) : "
                         f"({value.type}, {value.type}) -> {result.type}", result)

    def sized_ones(self, block: _Block, depth: int) -> None:
        """``value + ones(n).sum()`` where ``n`` names symbols only through an attribute."""
        candidates = [*BACKED, "2*s0", "s0 + s1", "s0*s2", *block.scope.unbacked]
        size = canonical_dim(self.pick(candidates))
        ones = _Value(self.fresh(), (size,))
        total = _Value(self.fresh(), ())
        value = self.pick(self.floats(block))
        result = _Value(self.fresh(), value.shape)
        self.emit(block, f"{ones.name} = aten.ones() {{size = [#hop.expr<{size}>]}} : () -> {ones.type}",
                  ones)
        self.emit(block, f"{total.name} = aten.sum({ones.name}) : ({ones.type}) -> {total.type}")
        self.emit(block, f"{result.name} = aten.add.Tensor({value.name}, {total.name}) : "
                         f"({value.type}, {total.type}) -> {result.type}", result)

    def item(self, block: _Block, depth: int) -> None:
        integers = [v for v in block.pool if v.element == "i64" and not v.shape]
        if not integers:
            return
        symbol = f"u{len(self.unbacked)}"
        self.unbacked.append(symbol)
        name = self.fresh("u")
        self.emit(block, f"{name} = hop.item {self.pick(integers).name} : "
                         f"!hop.tensor<[], i64> -> !hop.symint<{symbol}>")
        block.scope = _Scope((*block.scope.unbacked, symbol),
                             (*block.scope.sizes, _Size(name, SymIntType(symbol))))

    def size_check(self, block: _Block, depth: int) -> None:
        """Takes a size here, or checks ``a + b >= a`` on sizes of this block."""
        symbolic = [(v, d) for v in block.pool for d, dim in enumerate(v.shape) if isinstance(dim, str)]
        if symbolic and (not block.scope.sizes or self.choose(2)):
            value, dim = self.pick(symbolic)
            name = self.fresh("n")
            size = SymIntType(value.shape[dim])
            self.emit(block, f"{name} = hop.sym_size {value.name}[{dim}] : {value.type} -> {size}")
            block.scope = _Scope(block.scope.unbacked, (*block.scope.sizes, _Size(name, size)))
            return
        if not block.scope.sizes:
            return
        a, b = self.pick(block.scope.sizes), self.pick(block.scope.sizes)
        total, check = self.fresh("n"), self.fresh("b")
        total_type = SymAddOp.expected_type(a.symint, b.symint)
        check_type = SymGeOp.expected_type(total_type, a.symint)
        self.emit(block, f"{total} = hop.sym_add {a.name}, {b.name} : {a.type}, {b.type} -> {total_type}")
        self.emit(block, f"{check} = hop.sym_ge {total}, {a.name} : {total_type}, {a.type} -> {check_type}")
        self.emit(block, f'hop.assert {check}, "sizes are not negative" : {check_type}')

    # ------------------------------------------------------------------- regions

    def operands(self, block: _Block) -> list[_Value]:
        chosen = [v for v in block.pool if self.choose(2)]
        floats = self.floats(block)
        return chosen if any(v.element == "f32" for v in chosen) else [*chosen, self.pick(floats)]

    def passed_sizes(self, block: _Block) -> list[_Size]:
        """Sizes of ``block`` that a HOP passes to its regions, as its last operands: at most one
        per symbol, as Dynamo lifts a region's free symbols (a block may hold two sizes of one
        symbol; ``lift-symbols`` adds no second binding, and keeps what it is given)."""
        passed: dict[str, _Size] = {}
        for size in block.scope.sizes:
            if self.choose(2):
                passed.setdefault(str(size.symint), size)
        return list(passed.values())

    def arguments(self, operands: list[_Value | _Size]) -> list[_Value | _Size]:
        """A region's block arguments for ``operands``, one each, of its type."""
        return [_Value(self.fresh("a"), v.shape, v.element) if isinstance(v, _Value)
                else _Size(self.fresh("a"), v.symint) for v in operands]

    def body(self, operands: list[_Value | _Size], scope: _Scope, depth: int,
             result_type: str | None) -> tuple[list[str], _Value, list[_Value | _Size]]:
        """A region on ``operands``; yields its last value of ``result_type`` (any float if None).

        It reads only its arguments, and the unbacked symbols of ``scope`` by name."""
        arguments = self.arguments(operands)
        inner = _Block([a for a in arguments if isinstance(a, _Value)],
                       _Scope(scope.unbacked, tuple(a for a in arguments if isinstance(a, _Size))))
        self.fill(inner, depth + 1)
        results = [v for v in self.floats(inner) if result_type in (None, v.type)]
        return inner.lines, results[-1], arguments

    def hop_call(self, block: _Block, depth: int) -> None:
        operands = [*self.operands(block), *self.passed_sizes(block)]
        lines, yielded, arguments = self.body(operands, block.scope, depth, None)
        result = _Value(self.fresh(), yielded.shape)
        op = self.pick(["hop.wrap", "hop.checkpoint"])
        region = _region_text(lines, arguments, [yielded])
        self.emit(block, f"{call_header(op, [result], operands)} {region}", result)

    def predicate(self, block: _Block) -> tuple[str, str]:
        if block.scope.sizes and self.choose(2):
            size = self.pick(block.scope.sizes)
            three, predicate = self.fresh("n"), self.fresh("b")
            predicate_type = SymGeOp.expected_type(size.symint, SymIntType(3))
            self.emit(block, f"{three} = hop.sym_constant : !hop.symint<3>")
            self.emit(block, f"{predicate} = hop.sym_ge {size.name}, {three} : {size.type}, "
                             f"!hop.symint<3> -> {predicate_type}")
            return predicate, str(predicate_type)
        value = self.pick(self.floats(block))
        total, predicate = self.fresh(), self.fresh("b")
        self.emit(block, f"{total} = aten.sum({value.name}) : ({value.type}) -> !hop.tensor<[], f32>")
        self.emit(block, f"{predicate} = aten.gt.Scalar({total}) {{other = 0 : i64}} : "
                         "(!hop.tensor<[], f32>) -> !hop.tensor<[], i1>")
        return predicate, "!hop.tensor<[], i1>"

    def cond(self, block: _Block, depth: int) -> None:
        predicate, predicate_type = self.predicate(block)
        tensors = self.operands(block)
        result_type = self.pick([v for v in tensors if v.element == "f32"]).type
        operands = [*tensors, *self.passed_sizes(block)]
        branches = []
        for _ in range(2):
            lines, yielded, arguments = self.body(operands, block.scope, depth, result_type)
            branches.append(_region_text(lines, arguments, [yielded]))
        result = _Value(self.fresh(), yielded.shape)
        header = cond_header([result], predicate, predicate_type, operands)
        self.emit(block, f"{header} {branches[0]} else {branches[1]}", result)

    def loop(self, block: _Block, depth: int) -> None:
        counter = _Value(self.fresh(), (), "i64")
        self.emit(block, f"{counter.name} = aten.zeros() {{size = [], dtype = i64}} : () -> {counter.type}")
        carried = [counter, self.pick(self.floats(block))]
        additional = [*(v for v in block.pool if self.choose(2) and v not in carried),
                      *self.passed_sizes(block)]
        operands = carried + additional
        cond_arguments = self.arguments(operands)
        go = self.fresh("b")
        steps = 1 + self.choose(3)
        cond_region = _region_text(
            [f"{go} = aten.lt.Scalar({cond_arguments[0].name}) {{other = {steps} : i64}} : "
             f"({counter.type}) -> !hop.tensor<[], i1>"],
            cond_arguments, [_Value(go, (), "i1")])
        lines, yielded, arguments = self.body(operands, block.scope, depth, carried[1].type)
        next_counter = _Value(self.fresh(), (), "i64")
        lines.append(f"{next_counter.name} = aten.add.Scalar({arguments[0].name}) {{other = 1 : i64}}"
                     f" : ({counter.type}) -> {counter.type}")
        body_region = _region_text(lines, arguments, [next_counter, yielded])
        results = [self.fresh(), self.fresh()]
        self.emit(block, f"{while_header(results, carried, additional)} {cond_region} body {body_region}",
                  _Value(results[1], carried[1].shape))


def generate_program(choose: Choose, max_depth: int = 3) -> str:
    """The text of a random module (see the module docstring)."""
    generator = _Generator(choose, max_depth)
    arguments = [_Value("%p", (), "i1"), _Value("%i", (), "i64"), _Value("%x", ("s0", "s1")),
                 _Value("%y", ("s1",)), _Value("%z", ("s2",))]
    block = _Block(list(arguments), _Scope())
    generator.fill(block, 0)
    outputs = generator.floats(block)[-3:]
    symbols = [f"hop.symbol @{name} backed [2, oo]" for name in BACKED]
    symbols += [f"hop.symbol @{name} unbacked [0, oo]" for name in generator.unbacked]
    return module_text(symbols, "forward", arguments, [f"  {line}" for line in block.lines], outputs)
