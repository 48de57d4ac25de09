"""Large generated hop-level modules for the IR benchmarks (``bench/ir_throughput.py``).

``ModuleWriter(target).module()`` is the generic form of a module of about
``target`` ATen ops in a realistic mix: elementwise ops, matmuls, views with
symbolic sizes, shape-symbol arithmetic, repeated subexpressions for CSE, and
nested ``hop.cond``/``hop.while`` regions (40% of the ATen ops sit inside a
region, 15% two regions deep). ``trainable=True`` also gives the parameter a
value (for ``freeze``), marks the activation input ``hop.requires_grad`` (for
``autograd``) and scales each block by a constant of its own, so that no two
fused kernels are alike and the kernel table grows with the module.
"""

from __future__ import annotations

HIDDEN = 64
"""Feature width of every activation: ``!hop.tensor<[s0, 64], f32>``."""


def _tensor(*dims: int | str, dtype: str = "f32") -> str:
    return f"!hop.tensor<[{', '.join(map(str, dims))}], {dtype}>"


ACTIVATION = _tensor("s0", HIDDEN)
WEIGHT = _tensor(HIDDEN, HIDDEN)
PREDICATE = _tensor(dtype="i1")
COUNTER = _tensor(dtype="i64")


class ModuleWriter:
    """Writes the generic form of a module of about ``target`` ATen ops.

    Values are SSA names; ``emit_*`` methods append one op each and return its
    result. Regions nest up to two levels: a ``hop.while`` whose body holds a
    ``hop.cond``.
    """

    def __init__(self, target: int, trainable: bool = False):
        self.target = target
        self.trainable = trainable
        self.aten_ops = 0
        self.lines: list[str] = []
        self.counter = 0
        self.indent = 2

    def fresh(self) -> str:
        self.counter += 1
        return f"%v{self.counter}"

    def emit(self, text: str) -> None:
        self.lines.append(" " * self.indent + text)

    def aten(self, name: str, operands: list[str], operand_types: list[str],
             result_type: str, properties: str = "") -> str:
        result = self.fresh()
        props = f" <{{{properties}}}>" if properties else ""
        self.emit(f'{result} = "aten.{name}"({", ".join(operands)}){props} : '
                  f'({", ".join(operand_types)}) -> {result_type}')
        self.aten_ops += 1
        return result

    # ----------------------------------------------------------------- op mixes

    def elementwise_block(self, x: str, w: str) -> str:
        """Nine ATen ops: a linear layer, activations, a view round trip and a repeated relu."""
        h = self.aten("mm", [x, w], [ACTIVATION, WEIGHT], ACTIVATION)
        h = self.aten("add.Tensor", [h, x], [ACTIVATION, ACTIVATION], ACTIVATION,
                      "alpha = 1 : i64")
        a = self.aten("relu", [h], [ACTIVATION], ACTIVATION)
        again = self.aten("relu", [h], [ACTIVATION], ACTIVATION)  # CSE merges it with `a`
        s = self.aten("sigmoid", [a], [ACTIVATION], ACTIVATION)
        m = self.aten("mul.Tensor", [s, again], [ACTIVATION, ACTIVATION], ACTIVATION)
        halves = _tensor("2*s0", HIDDEN // 2)
        v = self.aten("view", [m], [ACTIVATION], halves,
                      f"size = [#hop.expr<2*s0>, {HIDDEN // 2} : i64]")
        scale = 1 + self.counter / 1e6 if self.trainable else 0.5
        v = self.aten("mul.Scalar", [v], [halves], halves, f"other = {scale:.6e} : f64")
        return self.aten("view", [v], [halves], ACTIVATION,
                         f"size = [#hop.expr<s0>, {HIDDEN} : i64]")

    def symbol_arithmetic(self, x: str) -> None:
        """Shape-symbol ops, as Dynamo emits them for size checks; unused, so dead."""
        n = self.fresh()
        self.emit(f'{n} = "hop.sym_size"({x}) <{{dim = 0 : i64}}> : ({ACTIVATION}) '
                  "-> !hop.symint<s0>")
        two = self.fresh()
        self.emit(f'{two} = "hop.sym_constant"() : () -> !hop.symint<2>')
        product = self.fresh()
        self.emit(f'{product} = "hop.sym_mul"({n}, {two}) : (!hop.symint<s0>, !hop.symint<2>) '
                  f"-> !hop.symint<2*s0>")

    def cond(self, p: str, x: str, w: str) -> str:
        """A ``hop.cond`` whose branches hold one block each."""
        result = self.fresh()
        self.emit(f'{result} = "hop.cond"({p}, {x}, {w}) ({{')
        for _ in range(2):
            self.indent += 2
            bx, bw = self.fresh(), self.fresh()
            self.emit(f"^bb0({bx}: {ACTIVATION}, {bw}: {WEIGHT}):")
            self.indent += 2
            y = self.elementwise_block(bx, bw)
            self.emit(f'"hop.yield"({y}) : ({ACTIVATION}) -> ()')
            self.indent -= 4
            self.emit("}, {" if _ == 0 else "})"
                      f" : ({PREDICATE}, {ACTIVATION}, {WEIGHT}) -> {ACTIVATION}")
        return result

    def while_loop(self, x: str, i: str, w: str) -> str:
        """A ``hop.while`` counting ``i`` down, whose body holds a block and a ``hop.cond``."""
        result = self.fresh()
        self.emit(f'{result}:2 = "hop.while"({x}, {i}, {w}) '
                  f"<{{operandSegmentSizes = array<i32: 2, 1>}}> ({{")
        self.indent += 2
        cx, ci, cw = self.fresh(), self.fresh(), self.fresh()
        self.emit(f"^bb0({cx}: {ACTIVATION}, {ci}: {COUNTER}, {cw}: {WEIGHT}):")
        self.indent += 2
        go = self.aten("gt.Scalar", [ci], [COUNTER], PREDICATE, "other = 0 : i64")
        self.emit(f'"hop.yield"({go}) : ({PREDICATE}) -> ()')
        self.indent -= 4
        self.emit("}, {")
        self.indent += 2
        bx, bi, bw = self.fresh(), self.fresh(), self.fresh()
        self.emit(f"^bb0({bx}: {ACTIVATION}, {bi}: {COUNTER}, {bw}: {WEIGHT}):")
        self.indent += 2
        y = self.elementwise_block(bx, bw)
        odd = self.aten("remainder.Scalar", [bi], [COUNTER], COUNTER, "other = 2 : i64")
        p = self.aten("eq.Scalar", [odd], [COUNTER], PREDICATE, "other = 1 : i64")
        y = self.cond(p, y, bw)
        step = self.aten("sub.Scalar", [bi], [COUNTER], COUNTER, "other = 1 : i64")
        self.emit(f'"hop.yield"({y}, {step}) : ({ACTIVATION}, {COUNTER}) -> ()')
        self.indent -= 4
        self.emit(f"}}) : ({ACTIVATION}, {COUNTER}, {WEIGHT}) -> ({ACTIVATION}, {COUNTER})")
        return f"{result}#0"

    # ----------------------------------------------------------------- module

    def module(self) -> str:
        self.indent = 4
        x, w, p, i = "%x", "%w", "%p", "%i"
        step = 0
        while self.aten_ops < self.target:
            if step % 10 == 9 and self.target - self.aten_ops > 40:
                x = self.while_loop(x, i, w)
            elif step % 10 == 4 and self.target - self.aten_ops > 20:
                x = self.cond(p, x, w)
            else:
                x = self.elementwise_block(x, w)
            if step % 5 == 0:
                self.symbol_arithmetic(x)
            step += 1
        value = f", value = dense<0.5> : tensor<{HIDDEN}x{HIDDEN}xf32>" if self.trainable else ""
        gradient = "hop.requires_grad" if self.trainable else ""
        signature = f"({WEIGHT}, {ACTIVATION}, {PREDICATE}, {COUNTER}) -> {ACTIVATION}"
        header = [
            '"builtin.module"() ({',
            '  "hop.symbol"() <{sym_name = "s0", kind = "backed", lower = 2 : i64}> : () -> ()',
            f'  "hop.parameter"() <{{sym_name = "w", type = {WEIGHT}{value}}}> : () -> ()',
            f'  "func.func"() <{{sym_name = "forward", function_type = {signature}, '
            f'arg_attrs = [{{hop.parameter = @w}}, {{{gradient}}}, {{}}, {{}}]}}> ({{',
            f"  ^bb0(%w: {WEIGHT}, %x: {ACTIVATION}, %p: {PREDICATE}, %i: {COUNTER}):",
        ]
        footer = [
            f'    "func.return"({x}) : ({ACTIVATION}) -> ()',
            "  }) : () -> ()",
            "}) : () -> ()",
        ]
        return "\n".join(header + self.lines + footer) + "\n"


def tiny_module() -> str:
    """One ATen op: the fixed cost of starting a tool and handling a module."""
    writer = ModuleWriter(0)
    writer.indent = 4
    y = writer.aten("relu", ["%x"], [ACTIVATION], ACTIVATION)
    writer.lines.append(f'    "func.return"({y}) : ({ACTIVATION}) -> ()')
    return "\n".join([
        '"builtin.module"() ({',
        '  "hop.symbol"() <{sym_name = "s0", kind = "backed", lower = 2 : i64}> : () -> ()',
        f'  "func.func"() <{{sym_name = "forward", '
        f"function_type = ({ACTIVATION}) -> {ACTIVATION}}}> ({{",
        f"  ^bb0(%x: {ACTIVATION}):",
        *writer.lines,
        "  }) : () -> ()",
        "}) : () -> ()",
    ]) + "\n"

