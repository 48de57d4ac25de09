"""An ATen op planned once: its overload and its arguments laid out, read at each run from slots.

The layout is Note [ATen calling convention] (``hopc.torch_bridge.aten_call``), decided once
(Note [planned execution] in ``hopc.backend.runtime.plan``). An attribute that
mentions no shape symbol is read once; one that does is evaluated at each run.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from hopc.backend.interpreter import interpreter_error
from hopc.backend.runtime.plan import PLANNER_RULES, Planner, Step, Symbols, Values
from hopc.dialects.aten import AtenOp
from hopc.dialects.aten_schema import Argument
from hopc.ir.symbolic import UnboundSymbolError
from hopc.ir.types import ExprAttr
from hopc.torch_bridge.aten_call import flatten_returns, op_call_arguments, overload_of
from hopc.torch_bridge.torch_values import value_of_attribute

Reader = Callable[[Values, Symbols], object]


@PLANNER_RULES.register(AtenOp)
def plan_aten(planner: Planner, op: AtenOp) -> Step:
    """The step that runs ``op``: reads its arguments, calls its overload, stores its results."""
    slot = planner.slot
    overload = overload_of(op.SCHEMA)
    args, kwargs = op_call_arguments(op, slot, _attribute_reader)
    positional = [_reader(a) for a in args]
    keywords = [(name, _reader(a)) for name, a in kwargs.items()]
    store = _result_store(op, [slot(r) for r in op.results])
    call = getattr(overload, "_op", overload)  # the C++ callable behind the OpOverload

    def run(values: Values, symbols: Symbols) -> object:
        if keywords:
            return call(*[read(values, symbols) for read in positional],
                        **{name: read(values, symbols) for name, read in keywords})
        return call(*[read(values, symbols) for read in positional])

    def step(values: Values, symbols: Symbols) -> None:
        try:
            returned = run(values, symbols)
        except (RuntimeError, ValueError, TypeError, IndexError, UnboundSymbolError) as error:
            raise interpreter_error(op, f"failed: {error}") from error
        store(values, returned)

    return step


def _reader(argument: object) -> Reader:
    """The reader of one laid-out argument: a slot, None (an absent ``Tensor?``), a list of
    slots and ``None``s (a tensor list), or an attribute's reader already."""
    if isinstance(argument, int):
        return lambda values, symbols: values[argument]
    if argument is None:
        return lambda values, symbols: None
    if isinstance(argument, list):
        layout: list[int | None] = argument
        return lambda values, symbols: [None if s is None else values[s] for s in layout]
    assert callable(argument)
    return argument


def _attribute_reader(argument: Argument, attribute: object) -> Reader:
    if mentions_symbols(attribute):
        return lambda values, symbols: value_of_attribute(argument, attribute, symbols)
    constant = value_of_attribute(argument, attribute, {})
    return lambda values, symbols: constant


def mentions_symbols(attribute: object) -> bool:
    """Whether an attribute is or holds a ``#hop.expr`` over shape symbols."""
    if isinstance(attribute, ExprAttr):
        return not isinstance(attribute.value, int)
    nested = getattr(attribute, "data", None)
    return isinstance(nested, tuple) and any(mentions_symbols(a) for a in nested)


def _result_store(op: AtenOp, slots: Sequence[int]) -> Callable[[Values, object], None]:
    """Stores torch's return value into the result slots (one per IR result)."""
    returns = op.SCHEMA.returns
    if len(returns) == 1 and not returns[0].is_tensor_list:
        if not slots:
            return lambda values, returned: None
        only = slots[0]

        def store_one(values: Values, returned: object) -> None:
            values[only] = returned

        return store_one

    def store_flat(values: Values, returned: object) -> None:
        for slot, value in zip(slots, flatten_returns(op.SCHEMA, returned)):
            values[slot] = value

    return store_flat

