"""A call's arguments checked against the entry function's types, where no guard checks them.

The code an executor generates for an entry function trusts its arguments to
have the declared types: it unpacks one value per argument and computes with
their sizes. Under ``torch.compile`` Dynamo's guards make that true; a module
compiled directly (``hopc.compile(module)``) has no guards, and a call with a
tensor of another rank, size or dtype would compute something the module
does not say (a ``[4, 1]`` tensor where ``[4]`` is declared broadcasts to
``[4, 4]``), with too many arguments it would fail inside generated code.
``ArgumentCheck(module, function)(args)`` refuses such a call before it runs,
with a ``HopcError`` at the caller's line naming the function, the argument
and both types.

Invariant: a call that passes the check has one value per argument of the
function, each of its declared kind, rank and dtype, every dimension that
the arguments' symbols determine of the declared size, and every symbol a
module-level ``hop.symbol`` declares within its declared range.
"""

from __future__ import annotations

import traceback
from collections.abc import Sequence

from xdsl.dialects.builtin import ModuleOp
from xdsl.dialects.func import FuncOp

from hopc.dialects.hop_symbols import SymbolOp
from hopc.ir.diagnostics import HopcError, user_location
from hopc.torch_bridge.runtime_types import match_types


class ArgumentCheck:
    """Refuses arguments that do not fit ``function``'s types (see the module docstring)."""

    def __init__(self, module: ModuleOp, function: FuncOp):
        self.function = function
        self.types = tuple(function.function_type.inputs.data)
        self.ranges = {op.symbol: op.value_range for op in module.ops
                       if isinstance(op, SymbolOp) and op.value_range != (None, None)}
        """Symbol -> (lower, upper) bound (None: unbounded), for each declared range."""

    def __call__(self, args: Sequence[object]) -> None:
        name = self.function.sym_name.data
        if len(args) != len(self.types):
            raise _refusal(f"@{name} takes {len(self.types)} arguments, got {len(args)}")
        symbols: dict[str, int] = {}
        mismatch = match_types(args, self.types, symbols)
        if mismatch is not None:
            index, reason = mismatch
            hint = self.function.args[index].name_hint
            raise _refusal(f"@{name} argument {index}{f' (%{hint})' if hint else ''} {reason}")
        for symbol, (low, high) in self.ranges.items():
            value = symbols.get(symbol)
            if value is not None and (low is not None and value < low or high is not None and value > high):
                raise _refusal(f"@{name}: the arguments give symbol {symbol} the value {value}, outside "
                               f"its declared range [{'-oo' if low is None else low}, "
                               f"{'oo' if high is None else high}]")


def _refusal(message: str) -> HopcError:
    return HopcError(message, user_location(traceback.extract_stack()))
