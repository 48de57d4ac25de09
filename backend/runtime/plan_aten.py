"""An ATen op planned once: its overload and its arguments laid out, read at each run from slots.

The layout is ``hopc.torch_bridge.aten_call.call_aten``'s (positional up to
the first argument left at its default, by keyword after it), decided once
(Note [planned execution] in ``hopc.backend.runtime.plan``). An attribute that
mentions no shape symbol is read once; one that does is evaluated at each run.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from xdsl.ir import SSAValue

from hopc.backend.interpreter import interpreter_error
from hopc.dialects.aten import AtenOp
from hopc.dialects.aten_schema import Argument
from hopc.ir.symbolic import UnboundSymbolError
from hopc.ir.types import ExprAttr
from hopc.torch_bridge.aten_call import flatten_returns, torch_overload
from hopc.torch_bridge.torch_values import value_of_attribute

Values = list[object]
Symbols = dict[str, int]
Reader = Callable[[Values, Symbols], object]


def plan_aten(op: AtenOp, slot: Callable[[SSAValue], int]) -> Callable[[Values, Symbols], None]:
    """The step that runs ``op``: reads its arguments, calls its overload, stores its results."""
    schema = op.SCHEMA
    overload = torch_overload(schema.base_name, schema.overload, schema.namespace)
    positional: list[Reader] = []
    keywords: list[tuple[str, Reader]] = []
    operands = {argument.name: values for argument, values in op.operand_groups()}
    for index, argument in enumerate(schema.arguments):
        if argument.takes_operands:
            reader = _operand_reader(op, argument, [slot(v) for v in operands[argument.name]])
        elif (attribute := op.argument_attribute(argument.name)) is not None:
            reader = _attribute_reader(argument, attribute)
        else:
            continue
        if argument.kwarg_only or len(positional) < index:
            keywords.append((argument.name, reader))
        else:
            positional.append(reader)
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


def _operand_reader(op: AtenOp, argument: Argument, slots: list[int]) -> Reader:
    if not argument.is_tensor_list:
        if not slots:
            return lambda values, symbols: None
        only = slots[0]
        return lambda values, symbols: values[only]
    nones = set(op.tensor_list_nones(argument))
    remaining = iter(slots)
    layout = [None if position in nones else next(remaining)
              for position in range(len(slots) + len(nones))]
    return lambda values, symbols: [None if s is None else values[s] for s in layout]


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

