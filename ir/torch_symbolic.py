"""Our shape symbols inside PyTorch's symbolic-shape machinery, and back.

``FakeShapes`` holds a ``ShapeEnv`` and a ``FakeTensorMode``: each of our named
symbols becomes a backed torch ``SymInt`` (with a distinct, unlikely hint, so
that meta kernels do not specialize on it), our tensor types become fake
tensors, and the sizes PyTorch computes are mapped back to our expression text.
This is how result types are inferred with PyTorch's meta kernels
(``hopc.dialects.aten_infer``); the frontend uses ``dim_from_torch`` to name
the sizes of a traced program.

Note [torch expressions]: PyTorch's sympy expressions use its own functions
(``FloorDiv``, ``PythonMod``, ``Max``...) over its own symbols; ``from_torch``
rewrites them into ours (``hopc.ir.symbolic``) over our names. Anything without
an equivalent is an error rather than a guess.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import sympy
import torch
import torch.utils._sympy.functions as torch_functions
from torch._dynamo.source import ConstantSource
from torch._subclasses.fake_tensor import FakeTensorMode
from torch.fx.experimental.symbolic_shapes import DimDynamic, ShapeEnv

from hopc.ir import symbolic
from hopc.ir.torch_values import dtype_of
from hopc.ir.types import Dim, TensorType, canonical_dim

_FIRST_HINT = 7919  # hints are distinct primes-ish far from 0/1 and from each other


def from_torch(expression: sympy.Basic, names: Mapping[sympy.Symbol, str]) -> sympy.Basic:
    """Rewrites a PyTorch shape expression over its symbols into ours (Note [torch expressions])."""
    if isinstance(expression, sympy.Symbol):
        if expression not in names:
            raise ValueError(f"shape symbol {expression} is not known to hopc")
        return symbolic.symbol(names[expression])
    if isinstance(expression, sympy.Integer) or expression in (sympy.true, sympy.false):
        return expression
    args = [from_torch(a, names) for a in expression.args]
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
    if isinstance(expression, (sympy.Add, sympy.Mul, sympy.Pow, sympy.Max, sympy.Min,
                               sympy.Eq, sympy.Ne, sympy.Lt, sympy.Le, sympy.Gt, sympy.Ge,
                               sympy.And, sympy.Or, sympy.Not)):
        return expression.func(*args)
    raise ValueError(f"shape expression {expression} ({type(expression).__name__}) has no "
                     "hopc equivalent")


class FakeShapes:
    """Fake tensors whose sizes are our symbols; sizes PyTorch computes mapped back."""

    def __init__(self, fresh_symbol: Callable[[], str] | None = None):
        self.shape_env = ShapeEnv()
        self.mode = FakeTensorMode(shape_env=self.shape_env)
        self._symints: dict[str, torch.SymInt] = {}
        self._names: dict[sympy.Symbol, str] = {}
        self._fresh_symbol = fresh_symbol

    def symint(self, name: str) -> torch.SymInt:
        """The torch SymInt standing for our symbol ``name``."""
        if name not in self._symints:
            hint = _FIRST_HINT + 2 * len(self._symints)
            torch_symbol = self.shape_env.create_symbol(
                hint, ConstantSource(f"hopc_{name}"), dynamic_dim=DimDynamic.DYNAMIC)
            self._symints[name] = self.shape_env.create_symintnode(torch_symbol, hint=hint)
            self._names[torch_symbol] = name
        return self._symints[name]

    def size(self, dim: Dim) -> int | torch.SymInt:
        """Our dimension as a torch size: an int or an expression over SymInts."""
        if isinstance(dim, int):
            return dim
        expression = symbolic.parse_expr(dim)
        return _evaluate(expression, {n: self.symint(n) for n in symbolic.free_symbol_names(expression)})

    def fake_tensor(self, tensor_type: TensorType) -> torch.Tensor:
        with self.mode:
            return torch.empty([self.size(d) for d in tensor_type.shape],
                               dtype=dtype_of(tensor_type.element_type))

    def dim(self, size: int | torch.SymInt) -> Dim:
        """A torch size as our dimension; a new unbacked symbol gets a fresh name of ours."""
        if isinstance(size, int):
            return size
        expression = size.node.expr
        for torch_symbol in expression.free_symbols:
            if torch_symbol not in self._names:
                if self._fresh_symbol is None:
                    raise ValueError(f"size {expression} has a symbol hopc did not create")
                self._names[torch_symbol] = self._fresh_symbol()
        return canonical_dim(symbolic.print_expr(from_torch(expression, self._names)))

    def tensor_type(self, tensor: torch.Tensor) -> TensorType:
        from hopc.ir.torch_values import element_type_of

        return TensorType([self.dim(s) for s in tensor.shape], element_type_of(tensor.dtype))


def _evaluate(expression: sympy.Basic, values: Mapping[str, torch.SymInt]):
    """Evaluates our expression with torch SymInts for its symbols (Python arithmetic)."""
    if isinstance(expression, sympy.Symbol):
        return values[expression.name]
    if isinstance(expression, sympy.Integer):
        return int(expression)
    args = [_evaluate(a, values) for a in expression.args]
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


def _fold(function, args):
    result = args[0]
    for arg in args[1:]:
        result = function(result, arg)
    return result
