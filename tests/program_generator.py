"""Random hop-level programs with mutation through views, symbolic shapes and nested HOPs.

``generate_program(choose)`` writes the text of a module whose entry function
takes a predicate ``%p`` and a few tensors with static and symbolic
dimensions (``s0``, ``s1``, declared ``backed [2, 6]``), then runs random
statements: views (``select``, ``slice`` with steps, ``transpose``, ``t``,
``permute``, ``unsqueeze``, ``diagonal``, ``view``, ``reshape``), in-place ops
on any value (``add_``, ``mul_``, ``copy_``, ``zero_``, ``fill_``, ``neg_``),
functional ops, and ``hop.cond``/``hop.while``/``hop.wrap``/``hop.checkpoint``
regions, nested, whose bodies change their operands in place. Like PyTorch's
HOP subgraphs, a region reads only its block arguments (Note [isolated
regions] in ``hopc.dialects.hop_interface``). It returns some of its values.

Programs are valid eager PyTorch and keep away from what functionalize
rejects by design (Note [doubtful aliases], a ``hop.while`` changing a carried
value it does not yield in place, two operands of one HOP sharing memory): a
HOP's operands come from distinct storages, a while body yields each
carried tensor in place (its result is then the operand whether or not the
loop runs), ``view`` is used only on values known to be contiguous.

``choose(n)`` returns an int in ``range(n)``: hypothesis's ``draw`` of
``integers(0, n - 1)`` (so examples shrink) or ``random.randrange``.
``program_generator_core.random_arguments(module, sizes, generator)`` makes
entry arguments.
"""

from __future__ import annotations

from dataclasses import dataclass

from program_generator_core import (
    Choose,
    ProgramWriter,
    block_header,
    call_header,
    cond_header,
    module_text,
    names,
    size_attribute,
    tensor_type,
    types,
    while_header,
    yield_line,
)

from hopc.ir.dims import canonical_dim

SYMBOLS = ("s0", "s1")
SYMBOL_RANGE = (2, 6)
BIG = 9223372036854775807


@dataclass(frozen=True)
class Dim:
    """A dimension: its text (an int or an expression) and a lower bound of its value."""

    text: int | str
    low: int

    def attribute(self) -> str:
        return size_attribute(self.text)


def _dim(text: int | str, low: int) -> Dim:
    canonical = canonical_dim(str(text))
    return Dim(canonical, canonical if isinstance(canonical, int) else low)


@dataclass
class Value:
    name: str
    shape: tuple[Dim, ...]
    storage: int
    contiguous: bool = True
    dtype: str = "f32"
    whole: bool = True
    """Not a view: an input, a fresh value, a region argument (or one changed in place)."""

    @property
    def type(self) -> str:
        return tensor_type((d.text for d in self.shape), self.dtype)


@dataclass
class _Scope:
    """The values of one block: a region's block arguments and what its ops define."""

    values: list[Value]

    def visible(self) -> list[Value]:
        """The float values the block's next op may use."""
        return [v for v in self.values if v.dtype == "f32"]


class _Builder(ProgramWriter):
    def __init__(self, choose: Choose, max_depth: int):
        super().__init__(choose, max_depth)
        self.lines: list[str] = []
        self.storages = 0

    def storage(self) -> int:
        self.storages += 1
        return self.storages

    def emit(self, depth: int, text: str) -> None:
        self.lines.append("  " * (depth + 1) + text)

    def op(self, depth: int, scope: _Scope, op: str, operands: list[Value], attributes: str,
           shape: tuple[Dim, ...], storage: int | None = None, contiguous: bool = True,
           dtype: str = "f32", source: Value | None = None, whole: bool = True) -> Value:
        """Emits ``op``; a result of ``storage`` views (or, if ``whole``, is) ``source``."""
        result = Value(self.fresh(), shape, self.storage() if storage is None else storage,
                       contiguous, dtype, whole and (source is None or source.whole))
        attrs = f" {{{attributes}}}" if attributes else ""
        self.emit(depth, f"{result.name} = {op}({names(operands)}){attrs} : ({types(operands)}) -> "
                         f"{result.type}")
        scope.values.append(result)
        return result

    # ------------------------------------------------------------------- statements

    def statements(self, scope: _Scope, depth: int, count: int) -> None:
        for _ in range(count):
            kind = self.choose(10)
            values = scope.visible()
            if kind < 3:
                self.view(scope, depth, self.pick(values))
            elif kind < 6:
                self.in_place(scope, depth, self.pick(values))
            elif kind < 7:
                self.functional(scope, depth, self.pick(values))
            elif depth < self.max_depth:
                self.pick([self.wrap, self.cond, self.loop])(scope, depth)
            else:
                self.in_place(scope, depth, self.pick(values))

    def view(self, scope: _Scope, depth: int, v: Value) -> Value:
        rank, shape = len(v.shape), v.shape
        options = ["unsqueeze"]
        if any(d.low >= 1 for d in shape):
            options += ["select", "slice"]
        if rank >= 2:
            options += ["transpose", "permute"]
        if rank == 2:
            options.append("t")
        if rank >= 2 and (shape[0] == shape[1] or all(isinstance(d.text, int) for d in shape[:2])):
            options.append("diagonal")
        if v.contiguous:
            options.append("view")
        if all(isinstance(d.text, int) for d in shape):
            options.append("reshape")
        kind = self.pick(options)
        s, c = v.storage, v.contiguous

        def view_op(depth: int, scope: _Scope, op: str, operands: list[Value], attributes: str,
                    shape: tuple[Dim, ...], storage: int, contiguous: bool) -> Value:
            return self.op(depth, scope, op, operands, attributes, shape, storage, contiguous,
                           source=v, whole=False)

        if kind == "select":
            dim = self.pick([i for i, d in enumerate(shape) if d.low >= 1])
            low = shape[dim].low
            index = self.choose(low) - (low if self.choose(3) == 0 and low else 0)
            return view_op(depth, scope, "aten.select.int", [v], f"dim = {dim} : i64, index = {index} : i64",
                           shape[:dim] + shape[dim + 1:], s, c and dim == 0)
        if kind == "slice":
            dim = self.pick([i for i, d in enumerate(shape) if d.low >= 1])
            d = shape[dim]
            if isinstance(d.text, int) and d.text > 0:
                start = self.choose(d.text)
                end = start + 1 + self.choose(d.text - start)
                step = 1 + self.choose(2)
                new = _dim(len(range(start, end, step)), 0)
                end_text = end if self.choose(2) else BIG
                if end_text == BIG:
                    new = _dim(len(range(start, d.text, step)), 0)
            else:
                start, end_text, step = self.choose(2), BIG, 1
                new = _dim(f"{d.text} - {start}", max(d.low - start, 0))
            return view_op(depth, scope, "aten.slice.Tensor", [v],
                           f"dim = {dim} : i64, start = {start} : i64, end = {end_text} : i64, "
                           f"step = {step} : i64", shape[:dim] + (new,) + shape[dim + 1:], s,
                           c and dim == 0 and step == 1)
        if kind == "transpose":
            a, b = self.choose(rank), self.choose(rank)
            order = list(shape)
            order[a], order[b] = order[b], order[a]
            return view_op(depth, scope, "aten.transpose.int", [v], f"dim0 = {a} : i64, dim1 = {b} : i64",
                           tuple(order), s, c and a == b)
        if kind == "t":
            return view_op(depth, scope, "aten.t", [v], "", shape[::-1], s, False)
        if kind == "permute":
            dims = list(range(rank))
            for i in range(rank - 1, 0, -1):
                j = self.choose(i + 1)
                dims[i], dims[j] = dims[j], dims[i]
            text = ", ".join(f"{d} : i64" for d in dims)
            return view_op(depth, scope, "aten.permute", [v], f"dims = [{text}]",
                           tuple(shape[d] for d in dims), s, c and dims == sorted(dims))
        if kind == "unsqueeze":
            dim = self.choose(rank + 1)
            return view_op(depth, scope, "aten.unsqueeze", [v], f"dim = {dim} : i64",
                           shape[:dim] + (_dim(1, 1),) + shape[dim:], s, c)
        if kind == "diagonal":
            a, b = shape[0], shape[1]
            size = a if a == b else _dim(min(a.text, b.text), min(a.low, b.low))
            return view_op(depth, scope, "aten.diagonal", [v], "", shape[2:] + (size,), s, False)
        if kind == "view":
            if any(isinstance(d.text, int) and d.text % 2 == 0 and d.text > 0 for d in shape) \
                    and self.choose(2):
                index = next(i for i, d in enumerate(shape)
                             if isinstance(d.text, int) and d.text % 2 == 0 and d.text > 0)
                new = shape[:index] + (_dim(2, 2), _dim(shape[index].text // 2, 1)) + shape[index + 1:]
            else:
                product = "*".join(f"({d.text})" for d in shape) or "1"
                low = 1
                for d in shape:
                    low *= d.low
                new = (_dim(product, low),)
            size = ", ".join(d.attribute() for d in new)
            return view_op(depth, scope, "aten.view", [v], f"size = [{size}]", new, s, True)
        total = 1
        for d in shape:
            total *= d.text
        return view_op(depth, scope, "aten.reshape", [v], "shape = [-1 : i64]",
                       (_dim(total, total),), s, True)

    def in_place(self, scope: _Scope, depth: int, v: Value) -> Value:
        others = [o for o in scope.visible() if o.storage != v.storage
                  and (o.shape == v.shape or not o.shape)]
        kind = self.choose(7 if others else 5)
        op, attributes, operands = [
            ("aten.add_.Scalar", "other = 1 : i64", [v]), ("aten.mul_.Scalar", "other = 2 : i64", [v]),
            ("aten.neg_", "", [v]), ("aten.zero_", "", [v]), ("aten.fill_.Scalar", "value = 3 : i64", [v]),
            ("aten.add_.Tensor", "", [v, others[0] if others else v]),
            ("aten.copy_", "", [v, others[0] if others else v])][kind]
        if len(operands) == 2:
            operands[1] = self.pick(others)
        return self.op(depth, scope, op, operands, attributes, v.shape, v.storage, v.contiguous,
                       source=v)

    def functional(self, scope: _Scope, depth: int, v: Value) -> Value:
        """An elementwise op: its result has ``v``'s strides, as in eager mode."""
        if self.choose(2):
            return self.op(depth, scope, "aten.sin", [v], "", v.shape, contiguous=v.contiguous)
        return self.op(depth, scope, "aten.mul.Scalar", [v], "other = 3 : i64", v.shape,
                       contiguous=v.contiguous)

    # ------------------------------------------------------------------- regions

    def operands(self, scope: _Scope, count: int) -> list[Value]:
        chosen: list[Value] = []
        for v in scope.visible():
            if len(chosen) < count and all(v.storage != c.storage for c in chosen) and self.choose(2):
                chosen.append(v)
        return chosen or [self.pick(scope.visible())]

    def body(self, operands: list[Value], depth: int, extra: list[Value] = ()
             ) -> tuple[_Scope, list[Value]]:
        """A region scope whose arguments stand for ``extra`` then ``operands``."""
        arguments = [Value(self.fresh(), o.shape, self.storage(), o.contiguous, o.dtype)
                     for o in [*extra, *operands]]
        inner = _Scope(list(arguments))
        self.emit(depth, block_header(arguments))
        return inner, arguments

    def wrap(self, scope: _Scope, depth: int) -> None:
        operands = self.operands(scope, 2)
        kind = self.pick(["hop.wrap", "hop.checkpoint"])
        header_at = len(self.lines)
        self.lines.append("")
        inner, arguments = self.body(operands, depth + 1)
        self.statements(inner, depth + 1, 1 + self.choose(4))
        yielded = [self.pick(inner.values) for _ in range(1 + self.choose(2))]
        self.emit(depth + 1, yield_line(yielded))
        self.emit(depth, "}")
        results = self._region_results(scope, yielded, arguments, operands)
        self.lines[header_at] = "  " * (depth + 1) + f"{call_header(kind, results, operands)} {{"

    def _region_results(self, scope: _Scope, yielded: list[Value], arguments: list[Value],
                        operands: list[Value]) -> list[Value]:
        """The results of a region that yields ``yielded``, added to ``scope``."""
        by_argument = {a.storage: o for a, o in zip(arguments, operands)}
        new_storages: dict[int, int] = {}
        results = []
        for y in yielded:
            operand = by_argument.get(y.storage)
            storage = operand.storage if operand is not None \
                else new_storages.setdefault(y.storage, self.storage())
            results.append(Value(self.fresh(), y.shape, storage, y.contiguous, y.dtype, y.whole))
        scope.values += results
        return results

    def cond(self, scope: _Scope, depth: int) -> None:
        operands = self.operands(scope, 2)
        predicate = "%p"  # the entry's argument: a region computes its own
        if depth > 0 or self.choose(2):
            total = self.op(depth, scope, "aten.sum", [self.pick(scope.visible())], "", ())
            scope.values.remove(total)
            flag = self.op(depth, scope, "aten.gt.Scalar", [total], "other = 0 : i64", (), dtype="i1")
            scope.values.remove(flag)
            predicate = flag.name
        returned = [i for i in range(len(operands)) if self.choose(2)] or [0]
        aliased = {i: bool(self.choose(2)) for i in returned}
        header_at = len(self.lines)
        self.lines.append("")
        arguments = []
        for branch in ("then", "else"):
            inner, arguments = self.body(operands, depth + 1)
            self.statements(inner, depth + 1, self.choose(4))
            yielded = []
            for i in returned:
                a = arguments[i]
                yielded.append(a if aliased[i] else self.op(depth + 1, inner, "aten.sin", [a], "", a.shape,
                                                            contiguous=a.contiguous))
            self.emit(depth + 1, yield_line(yielded))
            self.emit(depth, "} else {" if branch == "then" else "}")
        results = []
        for i in returned:
            o = operands[i]
            if aliased[i]:
                results.append(Value(self.fresh(), o.shape, o.storage, o.contiguous, o.dtype, o.whole))
            else:
                results.append(Value(self.fresh(), o.shape, self.storage(), o.contiguous))
        header = cond_header(results, predicate, "!hop.tensor<[], i1>", operands)
        self.lines[header_at] = "  " * (depth + 1) + f"{header} {{"
        scope.values += results

    def loop(self, scope: _Scope, depth: int) -> None:
        carried = self.operands(scope, 2)
        additional = [v for v in self.operands(scope, 1)
                      if all(v.storage != c.storage for c in carried)]
        counter = self.op(depth, scope, "aten.zeros", [], "size = [], dtype = i64", (), dtype="i64")
        scope.values.remove(counter)
        bound = self.choose(4)
        header_at = len(self.lines)
        self.lines.append("")
        everything = [*carried, *additional]
        inner, arguments = self.body(everything, depth + 1, [counter])
        flag = self.op(depth + 1, inner, "aten.lt.Scalar", [arguments[0]], f"other = {bound} : i64", (),
                       dtype="i1")
        self.emit(depth + 1, yield_line([flag]))
        self.emit(depth, "} body {")
        inner, arguments = self.body(everything, depth + 1, [counter])
        self.statements(inner, depth + 1, 1 + self.choose(4))
        step = self.op(depth + 1, inner, "aten.add.Scalar", [arguments[0]], "other = 1 : i64", (), dtype="i64")
        yielded = [step, *arguments[1:len(carried) + 1]]
        self.emit(depth + 1, yield_line(yielded))
        self.emit(depth, "}")
        results = [self.fresh() for _ in yielded]
        header = while_header(results, [counter, *carried], additional)
        self.lines[header_at] = "  " * (depth + 1) + f"{header} {{"
        for name, o in zip(results[1:], carried):
            scope.values.append(Value(name, o.shape, o.storage, o.contiguous, o.dtype, o.whole))


_INPUT_SHAPES = (("s0", 4), (3, "s1"), (4, 4), ("s0", "s1"), (2, 3, 4), ("s1",))


def generate_program(choose: Choose, *, max_depth: int = 2, statements: int = 6) -> str:
    """The text of a random module (see the module docstring)."""
    builder = _Builder(choose, max_depth)
    inputs = []
    for index in range(1 + choose(3)):
        shape = _INPUT_SHAPES[choose(len(_INPUT_SHAPES))]
        dims = tuple(_dim(d, d if isinstance(d, int) else SYMBOL_RANGE[0]) for d in shape)
        inputs.append(Value(f"%x{index}", dims, builder.storage()))
    scope = _Scope(list(inputs))
    builder.statements(scope, 0, 1 + choose(statements))
    outputs = [builder.pick(scope.visible()) for _ in range(1 + choose(2))]
    predicate = Value("%p", (), builder.storage(), dtype="i1")
    symbols = [f"hop.symbol @{s} backed [{SYMBOL_RANGE[0]}, {SYMBOL_RANGE[1]}]" for s in SYMBOLS]
    return module_text(symbols, "main", [predicate, *inputs], builder.lines, outputs)
