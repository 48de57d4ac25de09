"""PyTorch's symbolic sizes as our expression text, and the ``hop.symbol`` declarations.

A traced program's sizes are torch ``SymInt``s whose expressions live in the
trace's ``ShapeEnv``. ``ShapeSymbols`` writes each one as canonical expression
text (``hopc.torch_bridge.torch_symbolic.from_torch``, Note [torch expressions]) after
PyTorch's own simplification, so equal sizes get equal text; symbol names keep
PyTorch's (``s0`` for an input dimension, ``u0`` for a size read from data).
It remembers every symbol it wrote, and ``declarations`` declares exactly those.

A symbol that a data read (``hop.item``) defines is declared ``unbacked``,
whatever the ``ShapeEnv`` says: in hopc's IR "backed" means bound by an entry
argument. Dynamo gives ``.item()`` of a 0-d int64 *input* a backed symbol (its
source is the input's value, ``L['k'].item()``, and Dynamo guards its range),
but inside the program it is still defined by the read, not by an argument.

Note [reads the trace learned about]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
Where the program asserts that a number read from data equals an expression
over input sizes (``k = t.item(); torch._check(k == x.shape[0])``), the
``ShapeEnv`` replaces the read's symbol by that expression (``u1 -> s77``),
and every size the trace computes after it says ``s77``. That holds only once
the assertion has passed, so the read keeps its own symbol (``fresh_symbol``:
``hop.item`` defines ``u1``), and the assertion (Dynamo's ``_assert_scalar``
right after the read, a ``hop.assert`` of ``Eq(u1, s77)``) compares the value
read with the size at run time, where eager raises, rather than ``s77`` with
itself. ``make_fx`` would merge the read with the input size it equals (its
``dedupe_symints``), which ``lower_to_aten`` keeps it from. Only a replacement
over backed symbols is kept apart (``learned_about``): a symbol PyTorch
renamed (``unbacked_renamings``), or replaced by another read (a called
body's result size, the caller's), is that read.

A size that an op computes from a read (``x[:k]``'s, ``u3``) is the same:
where the trace learns it equals an input size or a constant (``x[:k] * w``
broadcasts it against ``w``'s rows and asserts ``Eq(u3, s77)``), the op that
defines it keeps its symbol (``text`` writes ``u3`` where it first meets it,
the op's result type ``[u3, 4]``), the ``sym_size`` that Dynamo's assertion
reads stays apart from ``s77`` in ``make_fx`` too, and the ``hop.assert`` of
``Eq(u3, s77)`` compares the size the op computed with ``s77``; every type
after it says ``s77``. A derivative's trace writes sizes as learned
(``defined_as_traced=False``): its graph holds no such assertion, and the
block it joins checked it.

Invariant: every symbol in any text this object returns is declared by
``declarations()``, with the range the ``ShapeEnv`` proved for it; a backed
one also with its hint, its value in the example the program was captured
with (the ``ShapeEnv``'s ``backed_var_to_val``; Note [trace hints] in
``hopc.torch_bridge.op_tracer``). An unbacked symbol has no hint.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping

import sympy
import torch
from torch.fx.experimental.symbolic_shapes import ShapeEnv, free_unbacked_symbols
from torch.utils._sympy.numbers import IntInfinity, NegativeIntInfinity

from hopc.dialects.hop import SymbolOp
from hopc.ir.dims import Dim, canonical_dim, is_float_symbol_name
from hopc.ir.symbolic_float import ToFloat, print_float
from hopc.ir.symbolic_print import print_expr
from hopc.ir.types import SymBoolType, SymFloatType, SymIntType, TensorType
from hopc.torch_bridge.torch_symbolic import from_torch
from hopc.torch_bridge.torch_values import element_type_of

_UNBOUNDED_SIZE = sys.maxsize - 1
"""PyTorch's upper bound for an unbacked size that nothing else bounds: no bound at all."""


class _OwnNames(dict):
    """The identity naming of torch symbols: each keeps PyTorch's name."""

    def __missing__(self, torch_symbol: sympy.Symbol) -> str:
        return torch_symbol.name

    def __contains__(self, torch_symbol: object) -> bool:
        return isinstance(torch_symbol, sympy.Symbol)


class ShapeSymbols:
    """Names sizes in expression text and records the symbols that appear."""

    def __init__(self, shape_env: ShapeEnv | None, names: Mapping[sympy.Symbol, str] | None = None, *,
                 defined_as_traced: bool = True):
        """``names`` maps torch symbols to ours; by default each keeps PyTorch's name.

        ``defined_as_traced`` writes a size an op computed from a read, which the trace
        learned about, as traced where the op defines it (Note [reads the trace learned
        about]): right for a graph that checks the assertion the trace learned it from.
        """
        self.shape_env = shape_env
        self._names = names if names is not None else _OwnNames()
        self._defined_as_traced = defined_as_traced
        self._used: dict[str, sympy.Symbol] = {}
        self._read_from_data: set[str] = set()

    # ----------------------------------------------------------------- expressions

    def text(self, value: int | float | bool | torch.SymInt | torch.SymFloat | torch.SymBool) -> Dim:
        """The canonical text (or int) of a size, or of a symbolic int, float or bool.

        A float's text is float-valued (``float(s0)``, not ``s0``: Note [float
        expressions]); a size the trace learned about is its own symbol where an
        op defines it (Note [reads the trace learned about]). Raises TypeError
        for other values, ValueError for an expression our language cannot write
        (Note [torch expressions]).
        """
        if isinstance(value, bool):
            return str(value)
        if isinstance(value, int):
            return value
        if isinstance(value, float):
            return canonical_dim(print_float(value))
        if not isinstance(value, torch.SymInt | torch.SymFloat | torch.SymBool):
            raise TypeError(f"a {type(value).__name__} has no hopc type")
        expression = value.node._expr  # as traced: ``.expr`` reads through the replacements
        if not self._defines(expression):
            expression = value.node.expr
            if self.shape_env is not None:
                expression = self.shape_env.simplify(expression)
        for torch_symbol in expression.free_symbols:
            self._used.setdefault(torch_symbol.name, torch_symbol)
        ours = from_torch(expression, self._names)
        if isinstance(value, torch.SymFloat):
            ours = ToFloat(ours)
        return canonical_dim(print_expr(ours))

    def _defines(self, expression: sympy.Basic) -> bool:
        """Whether ``expression`` is a size an op computed from a read, which the trace learned
        about, written here for the first time: by the op that defines it (Note [reads the trace
        learned about])."""
        return self._defined_as_traced and learned_about(expression, self.shape_env) \
            and expression.name not in self._used

    def fresh_symbol(self, value: object) -> str | None:
        """The name of the symbol a data read (``.item()``) defined, or None if it is not one.

        An int or float read is its symbol; a boolean read is ``Eq(u0, 1)``
        over the integer symbol ``u0`` it defines (``hop.item``). Unlike ``text``
        this does not simplify: the read defines this very symbol, even where
        the ``ShapeEnv`` has since learned it equals an expression over input
        sizes (Note [reads the trace learned about]); a symbol PyTorch renamed,
        or replaced by another read, is that read.
        """
        if not isinstance(value, torch.SymInt | torch.SymFloat | torch.SymBool):
            return None
        expression = value.node._expr  # as read: ``.expr`` reads through the replacements
        if isinstance(value, torch.SymBool) and isinstance(expression, sympy.Eq) \
                and expression.args[1] == 1:
            expression = expression.args[0]
        if not learned_about(expression, self.shape_env):
            expression = self.shape_env.replace(expression) if self.shape_env is not None else expression
        if not isinstance(expression, sympy.Symbol):
            return None
        name = expression.name
        self._used.setdefault(name, expression)
        self._read_from_data.add(name)
        return name

    def text_of_symint(self, value: torch.SymInt | torch.SymFloat) -> str:
        """``text`` as a string, the form ``attribute_of_value`` takes."""
        return str(self.text(value))

    def tensor_type(self, tensor: torch.Tensor) -> TensorType:
        return TensorType([self.text(size) for size in tensor.shape], element_type_of(tensor.dtype))

    def type_of(self, value: object) -> TensorType | SymIntType | SymFloatType | SymBoolType:
        """The IR type of a traced value: a fake tensor, a SymInt or int, a SymFloat or float, a SymBool."""
        if isinstance(value, torch.Tensor):
            return self.tensor_type(value)
        if isinstance(value, torch.SymBool | bool):
            return SymBoolType(self.text(value))
        if isinstance(value, torch.SymInt | int):
            return SymIntType(self.text(value))
        if isinstance(value, torch.SymFloat | float):
            return SymFloatType(self.text(value))
        raise TypeError(f"a value of type {type(value).__name__} has no hopc type")

    # ----------------------------------------------------------------- declarations

    def declarations(self) -> list[SymbolOp]:
        """One ``hop.symbol`` per symbol used so far, backed ones first, each sorted by name."""
        ops = [self._declaration(name, torch_symbol)
               for name, torch_symbol in self._used.items()]
        return sorted(ops, key=lambda op: (op.kind.data != "backed", _natural_key(op.symbol)))

    def _declaration(self, name: str, torch_symbol: sympy.Symbol) -> SymbolOp:
        env = self.shape_env
        backed = (env is not None and torch_symbol in env.backed_var_to_val
                  and name not in self._read_from_data)
        kind = "backed" if backed else "unbacked"
        if is_float_symbol_name(name):
            return SymbolOp.float_symbol(name, kind)
        value_range = env.var_to_range.get(torch_symbol) if env is not None else None
        lower = upper = None
        if value_range is not None:
            lower, upper = _bound(value_range.lower), _bound(value_range.upper)
            if upper is not None and upper >= _UNBOUNDED_SIZE:
                upper = None
        hint = int(env.backed_var_to_val[torch_symbol]) if backed else None
        return SymbolOp(name, kind, lower, upper, hint)


def learned_about(read: sympy.Basic, shape_env: ShapeEnv | None) -> bool:
    """Whether ``read``, as traced, is a symbol read from data that ``shape_env`` replaced by an
    expression over backed symbols alone (Note [reads the trace learned about])."""
    if shape_env is None or not isinstance(read, sympy.Symbol) or read in shape_env.unbacked_renamings \
            or not free_unbacked_symbols(read):
        return False
    replacement = shape_env.replace(read)
    return replacement != read and not free_unbacked_symbols(replacement)


def _bound(value: sympy.Basic) -> int | None:
    if isinstance(value, IntInfinity | NegativeIntInfinity) or not value.is_finite:
        return None
    return int(value)


def _natural_key(name: str) -> tuple[str, int]:
    """``s2`` sorts before ``s10``."""
    stem = name.rstrip("0123456789")
    digits = name[len(stem):]
    return stem, int(digits) if digits else -1
