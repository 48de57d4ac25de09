"""Our shape symbols inside PyTorch's symbolic-shape machinery, and back.

``FakeShapes`` holds a ``ShapeEnv`` and a ``FakeTensorMode``: each of our named
symbols becomes a backed torch ``SymInt`` whose hint is the symbol's recorded
example value (``SymbolFacts``, from ``hop.symbol ... hint N``; Note [trace
hints] in ``hopc.torch_bridge.op_tracer``), our tensor types become fake tensors, and
the sizes PyTorch computes are mapped back to our expression text. This is how
``hopc.torch_bridge.op_tracer`` infers result types and traces functions of ATen ops.

Note [torch expressions]: PyTorch's sympy expressions use its own functions
(``FloorDiv``, ``PythonMod``, ``Max``...) over its own symbols; ``from_torch``
rewrites them into ours (``hopc.ir.symbolic``) over our names. Anything without
an equivalent is an error rather than a guess.
"""

from __future__ import annotations

import math
import operator
import re
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import sympy
import torch
import torch.utils._sympy.functions as torch_functions
from torch._dynamo.source import ConstantSource
from torch._subclasses.fake_tensor import FakeTensorMode
from torch.fx.experimental.symbolic_shapes import DimDynamic, ShapeEnv, canonicalize_bool_expr
from torch.utils._sympy.numbers import int_oo

from hopc.ir import symbolic, symbolic_float, symbolic_print, symbolic_rounding
from hopc.ir.dims import Dim, canonical_dim, is_float_symbol_name
from hopc.ir.types import TensorType
from hopc.torch_bridge.torch_values import dtype_of

DEFAULT_HINT = 8192
"""The example value of a symbol without a recorded hint (an unbacked one, or one in
hand-written IR): PyTorch's own choice for unbacked sizes (Inductor's
``unbacked_symint_fallback``), clamped into the symbol's range. Note [trace hints]."""

_TRACE_LOWER = 2
"""The least value a traced symbol takes: PyTorch's backed sizes start at 2 (0 and 1 specialize)."""


@dataclass(frozen=True)
class SymbolFacts:
    """What a ``hop.symbol`` declares about a symbol: its example value and its range."""

    hint: int | None = None
    lower: int | None = None
    upper: int | None = None
    unbacked: bool = False
    """Traced as a torch unbacked symbol (no hint, its declared range), as Dynamo traced it."""

    def example(self) -> int:
        """The hint, or ``DEFAULT_HINT`` clamped into the range."""
        if self.hint is not None:
            return self.hint
        value = DEFAULT_HINT if self.upper is None else min(DEFAULT_HINT, self.upper)
        return value if self.lower is None else max(value, self.lower)


_FLOAT_FUNCTIONS = {
    "ToFloat": symbolic_float.ToFloat, "IntTrueDiv": symbolic_float.TrueDiv,
    "FloatTrueDiv": symbolic_float.TrueDiv, "OpaqueUnaryFn_sqrt": symbolic_float.Sqrt,
    "FloatPow": symbolic_float.FloatPow,
}
"""PyTorch's float functions (``torch.utils._sympy.functions``) by class name, and ours
(Note [float expressions]); ``OpaqueUnaryFn_sqrt`` is a class PyTorch makes at run time."""

_ROUNDING_FUNCTIONS = {
    torch_functions.FloorToInt: sympy.floor, sympy.floor: sympy.floor,
    torch_functions.CeilToInt: sympy.ceiling, sympy.ceiling: sympy.ceiling,
    torch_functions.TruncToInt: symbolic_rounding.TruncToInt,
    torch_functions.RoundToInt: symbolic_rounding.RoundToInt,
}
"""PyTorch's roundings to an integer, and ours (Note [rounding expressions])."""


def from_torch(expression: sympy.Basic, names: Mapping[sympy.Symbol, str]) -> sympy.Basic:
    """Rewrites a PyTorch shape expression over its symbols into ours (Note [torch expressions])."""
    if isinstance(expression, sympy.Symbol):
        if expression not in names:
            raise ValueError(f"shape symbol {expression} is not known to hopc")
        return symbolic.symbol(names[expression])
    if isinstance(expression, sympy.Integer | sympy.Float) or \
            expression in (sympy.true, sympy.false):
        return expression
    if isinstance(expression, sympy.Piecewise):
        return _if_then_else(expression.args, names)
    args = [from_torch(a, names) for a in expression.args]
    float_function = _FLOAT_FUNCTIONS.get(type(expression).__name__)
    if float_function is not None:
        return float_function(*args)
    rounding = _ROUNDING_FUNCTIONS.get(type(expression))
    if rounding is not None:
        return rounding(*args)
    if isinstance(expression, (torch_functions.FloorDiv, torch_functions.CleanDiv)):
        return symbolic.FloorDiv(*args)
    if isinstance(expression, (torch_functions.PythonMod, torch_functions.Mod, sympy.Mod)):
        return sympy.Mod(*args)
    if isinstance(expression, torch_functions.Max):
        return sympy.Max(*args)
    if isinstance(expression, torch_functions.Min):
        return sympy.Min(*args)
    if isinstance(expression, torch_functions.PowByNatural):
        return sympy.Pow(*args)
    if isinstance(expression, sympy.Abs):  # ``abs(n)``; our language writes it as ``hop.sym_abs`` does
        (operand,) = args
        return sympy.Max(operand, -operand)
    if isinstance(expression, (sympy.Add, sympy.Mul, sympy.Pow, sympy.Max, sympy.Min,
                               sympy.Eq, sympy.Ne, sympy.Lt, sympy.Le, sympy.Gt, sympy.Ge,
                               sympy.And, sympy.Or, sympy.Not)):
        return expression.func(*args)
    raise ValueError(f"shape expression {expression} ({type(expression).__name__}) has no "
                     "hopc equivalent")


def _if_then_else(pieces: tuple, names: Mapping[sympy.Symbol, str]) -> sympy.Basic:
    """A ``Piecewise`` as nested ``ITE``s: ours have two pieces, the second under True."""
    (value, condition), *rest = pieces
    if not rest:
        if condition != sympy.true:
            raise ValueError(f"shape expression Piecewise{pieces} is undefined where no piece holds")
        return from_torch(value, names)
    return symbolic.if_then_else(from_torch(condition, names), from_torch(value, names),
                                 _if_then_else(tuple(rest), names))


class FakeShapes:
    """Fake tensors whose sizes are our symbols; sizes PyTorch computes mapped back."""

    def __init__(self, facts: Mapping[str, SymbolFacts] | None = None,
                 fresh_symbol: Callable[[], str] | None = None, *,
                 frame: tuple[ShapeEnv, Mapping[str, torch.SymInt]] | None = None,
                 beside: FakeShapes | None = None):
        """``frame`` (a Dynamo frame's ``ShapeEnv`` and its SymInt for each of our symbols)
        sizes the fake tensors by the frame's own symbols, so that a guard the trace
        installs is the frame's (Note [frame guards] in ``hopc.torch_bridge.op_tracer``).
        ``beside`` shares its ``ShapeEnv`` and fake mode, its symbols apart from these
        (Note [batched traces] in ``hopc.torch_bridge.batched_trace``)."""
        if beside is not None:
            self.shape_env, symints, self.mode = beside.shape_env, {}, beside.mode
        else:
            self.shape_env, symints = frame if frame is not None else (ShapeEnv(), {})
            self.mode = FakeTensorMode(shape_env=self.shape_env)
        self.in_frame = frame is not None
        self._facts = facts or {}
        self._symints: dict[str, torch.SymInt] = dict(symints)
        self._names: dict[sympy.Symbol, str] = {s.node.expr: name for name, s in symints.items()}
        self._fresh_symbol = fresh_symbol
        self._computed: set[sympy.Symbol] = set()
        """The symbols of sizes the trace computed, which it named (``identify``, ``dim``)."""
        self._assumed = self._recorded_conditions()

    def symint(self, name: str) -> torch.SymInt:
        """The torch SymInt standing for our symbol ``name``, its hint the symbol's example.

        Its range is the declared one intersected with PyTorch's ``[2, oo]`` for
        sizes (where that leaves a range); the symbol never specializes to 0 or 1.
        A symbol whose facts say ``unbacked`` is an unbacked SymInt instead, with no
        hint and the declared range.
        """
        if name not in self._symints:
            facts = self._facts.get(name, SymbolFacts())
            if facts.unbacked:
                return self._unbacked_symint(name, facts)
            hint = facts.example()
            torch_symbol = self.shape_env.create_symbol(
                hint, ConstantSource(f"hopc_{name}"), dynamic_dim=DimDynamic.DYNAMIC,
                do_not_specialize_zero_one=True)
            lower = max(_TRACE_LOWER, facts.lower if facts.lower is not None else _TRACE_LOWER)
            upper = facts.upper if facts.upper is not None else sys.maxsize - 1
            if lower <= hint <= upper:
                self.shape_env.constrain_symbol_range(torch_symbol, lower, upper)
            self._symints[name] = self.shape_env.create_symintnode(torch_symbol, hint=hint)
            self._names[torch_symbol] = name
        return self._symints[name]

    def _unbacked_symint(self, name: str, facts: SymbolFacts) -> torch.SymInt:
        """A torch unbacked SymInt for our symbol ``name``, in its declared range."""
        with self.shape_env.ignore_fresh_unbacked_symbols():
            symint = self.shape_env.create_unbacked_symint()
        torch_symbol = symint.node.expr
        self.shape_env.constrain_symbol_range(torch_symbol, -int_oo if facts.lower is None else facts.lower,
                                              int_oo if facts.upper is None else facts.upper)
        self._symints[name] = symint
        self._names[torch_symbol] = name
        return symint

    def assume(self, condition: bool | torch.SymBool) -> None:
        """``torch._check(condition)``, a fact the trace may use because its caller checks it
        at run time: a runtime assertion of it, or of what checking it records, is assumed,
        not unchecked, wherever the trace records it (Note [trace assertions] in
        ``hopc.torch_bridge.op_tracer``)."""
        before = self._recorded_conditions()
        if isinstance(condition, torch.SymBool):
            self._assumed |= {_canonical_condition(condition.node.expr)}
        torch._check(condition)
        self._assumed |= self._recorded_conditions() - before

    def unchecked_assertions(self) -> list[str]:
        """The runtime assertions on our symbols alone that the trace recorded and no caller
        assumed, in our names. One that mentions a size the trace computed (``0 <= u2 <= s0``
        for a slice's) states what its op guarantees of that size, not an assumption."""
        ours = set(self._names) - self._computed
        return sorted(self.our_text(str(condition)) for condition in self._recorded_conditions() - self._assumed
                      if condition.free_symbols <= ours)

    def _recorded_conditions(self) -> set[sympy.Basic]:
        """The condition of each runtime assertion the ``ShapeEnv`` holds, canonical."""
        return {_canonical_condition(assertion.expr)
                for assertions in self.shape_env.deferred_runtime_asserts.values() for assertion in assertions}

    def identify(self, size: int | torch.SymInt, same: int | torch.SymInt) -> None:
        """Gives ``size``, where it is a symbol the trace made, the name of ``same``, one of
        ours that the trace asserted equal to it (``torch._check``): PyTorch records the
        equality of two unbacked symbols as a runtime assertion, not as a replacement."""
        if isinstance(size, torch.SymInt) and isinstance(same, torch.SymInt):
            fresh, ours = self.shape_env.replace(size.node.expr), self.shape_env.replace(same.node.expr)
            if isinstance(fresh, sympy.Symbol) and fresh not in self._names and ours in self._names:
                self._names[fresh] = self._names[ours]
                self._computed.add(fresh)

    @property
    def torch_names(self) -> Mapping[sympy.Symbol, str]:
        """Each torch symbol made so far -> our name for it."""
        return self._names

    def our_text(self, text: str) -> str:
        """PyTorch's text about its symbols (a guard, an error) with our names for them."""
        names = {torch_symbol.name: name for torch_symbol, name in self._names.items()}
        return re.sub(r"\b[a-z]+[0-9]+\b", lambda m: names.get(m[0], m[0]), text)

    def size(self, dim: Dim) -> int | float | torch.SymInt | torch.SymFloat:
        """Our dimension or scalar expression as a torch number: an int or float, or an
        expression over SymInts. A float symbol stands in as a float of its own SymInt:
        what PyTorch computes from it (result types) depends on its kind, not its value."""
        if isinstance(dim, int):
            return dim
        expression = symbolic.parse_expr(dim)
        values = {name: torch.sym_float(self.symint(name)) if is_float_symbol_name(name)
                  else self.symint(name) for name in symbolic.free_symbol_names(expression)}
        return _evaluate(expression, values)

    def fake_tensor(self, tensor_type: TensorType, requires_grad: bool = False) -> torch.Tensor:
        """A contiguous fake CPU tensor of ``tensor_type`` (the trace's device: Note [trace device])."""
        with self.mode:
            return torch.empty([self.size(d) for d in tensor_type.shape],
                               dtype=dtype_of(tensor_type.element_type), requires_grad=requires_grad)

    def dim(self, size: int | torch.SymInt) -> Dim:
        """A torch size as our dimension; a new unbacked symbol gets a fresh name of ours."""
        if isinstance(size, int):
            return size
        expression = self.shape_env.replace(size.node.expr)  # an equality the trace learned
        for torch_symbol in expression.free_symbols:
            if torch_symbol not in self._names:
                if self._fresh_symbol is None:
                    raise ValueError(f"size {expression} has a symbol hopc did not create")
                self._names[torch_symbol] = self._fresh_symbol()
                self._computed.add(torch_symbol)
        return canonical_dim(symbolic_print.print_expr(from_torch(expression, self._names)))

    def tensor_type(self, tensor: torch.Tensor) -> TensorType:
        from hopc.torch_bridge.torch_values import element_type_of

        return TensorType([self.dim(s) for s in tensor.shape], element_type_of(tensor.dtype))


def _canonical_condition(condition: sympy.Basic) -> sympy.Basic:
    """``condition`` in one form for each meaning PyTorch's ``canonicalize_bool_expr`` knows
    (``0 <= u0`` for ``u0 >= 0``), an equality's sides in order."""
    condition = canonicalize_bool_expr(condition)
    if isinstance(condition, sympy.Eq):
        return sympy.Eq(*sorted(condition.args, key=sympy.default_sort_key), evaluate=False)
    return condition


def _evaluate(expression: sympy.Basic, values: Mapping[str, torch.SymInt | torch.SymFloat]):
    """Evaluates our expression with torch SymInts for its symbols (Python arithmetic)."""
    if isinstance(expression, sympy.Symbol):
        return values[expression.name]
    if isinstance(expression, sympy.Integer):
        return int(expression)
    if isinstance(expression, sympy.Float):
        return float(expression)
    if expression in (sympy.true, sympy.false):
        return bool(expression)
    if isinstance(expression, sympy.Piecewise):  # nested ITEs (``symbolic.if_then_else``)
        *pieces, (last, last_condition) = expression.args
        if last_condition != sympy.true:
            raise ValueError(f"cannot evaluate {expression} on torch sizes: no piece under True")
        result = _evaluate(last, values)
        for value, condition in reversed(pieces):
            result = torch.sym_ite(_evaluate(condition, values), _evaluate(value, values), result)
        return result
    args = [_evaluate(a, values) for a in expression.args]
    if isinstance(expression, sympy.Not):
        return torch.sym_not(args[0])
    relation = _TORCH_RELATIONS.get(type(expression))
    if relation is not None:
        return _fold(relation, args)
    float_function = _TORCH_FLOAT_FUNCTIONS.get(type(expression)) or \
        _TORCH_ROUNDING_FUNCTIONS.get(type(expression))
    if float_function is not None:
        return float_function(*args)
    if isinstance(expression, sympy.Add):
        return sum(args[1:], args[0])
    if isinstance(expression, sympy.Mul):
        product = args[0]
        for factor in args[1:]:
            product = product * factor
        return product
    if isinstance(expression, sympy.Pow):
        return args[0] ** args[1]
    if isinstance(expression, symbolic.FloorDiv):
        return args[0] // args[1]
    if isinstance(expression, sympy.Mod):
        return args[0] % args[1]
    if isinstance(expression, sympy.Max):
        return _fold(torch.sym_max, args)
    if isinstance(expression, sympy.Min):
        return _fold(torch.sym_min, args)
    raise ValueError(f"cannot evaluate {expression} on torch sizes")


_TORCH_RELATIONS: dict[type, Callable] = {
    sympy.Eq: operator.eq, sympy.Ne: operator.ne, sympy.Lt: operator.lt, sympy.Le: operator.le,
    sympy.Gt: operator.gt, sympy.Ge: operator.ge, sympy.And: operator.and_, sympy.Or: operator.or_,
}
"""Comparisons and logic on torch numbers: ``SymBool``s, which install no guard."""

_TORCH_FLOAT_FUNCTIONS: dict[type, Callable] = {
    symbolic_float.ToFloat: torch.sym_float,
    symbolic_float.TrueDiv: lambda a, b: a / b,
    symbolic_float.Sqrt: torch._sym_sqrt,
    symbolic_float.FloatPow: lambda a, b: torch.sym_float(a) ** torch.sym_float(b),
}
"""Our float functions on torch numbers, as eager computes them (Note [float expressions])."""

_TORCH_ROUNDING_FUNCTIONS: dict[type, Callable] = {
    sympy.floor: math.floor, sympy.ceiling: math.ceil, symbolic_rounding.TruncToInt: math.trunc,
    symbolic_rounding.RoundToInt: round,
}
"""Our roundings on torch numbers, as eager computes them (Note [rounding expressions])."""


def _fold(function, args):
    result = args[0]
    for arg in args[1:]:
        result = function(result, arg)
    return result
