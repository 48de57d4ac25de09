"""``hop.yield``, the terminator of every HOP region, and the checks of a region against its op.

Each region op of the ``hop`` dialect verifies what enters its regions (the
block arguments' types) and what leaves them (the types ``hop.yield``
returns) with these checks, so that every message names the offending value
by its role and position and gives both types.

Invariant: ``hop.yield`` may end the region of exactly the ops in
``hop.HOP_REGION_OPS``, the list that the dialect module keeps beside its
registration; this module defines no other op, so every HOP module can
import it without a cycle.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.ir import Attribute, Region, SSAValue
from xdsl.irdl import IRDLOperation, irdl_op_definition, lazy_traits_def, var_operand_def
from xdsl.traits import HasParent, IsTerminator, OpTrait, Pure
from xdsl.utils.exceptions import VerifyException


def _traits() -> tuple[OpTrait, ...]:
    from hopc.dialects import hop  # which lists the region ops, each importing this module

    return (IsTerminator(), Pure(), HasParent(*hop.HOP_REGION_OPS))


@irdl_op_definition
class YieldOp(IRDLOperation):
    """Returns the results of a HOP region: ``hop.yield %a, %b : T, U``.

    Restrictions: only as the terminator of a hop region op.
    """

    name = "hop.yield"
    values = var_operand_def()
    traits = lazy_traits_def(_traits)
    assembly_format = "attr-dict ($values^ `:` type($values))?"

    def __init__(self, *values: SSAValue):
        super().__init__(operands=[values])


def yield_of(region: Region) -> YieldOp:
    """The ``hop.yield`` that ends ``region``; raises a VerifyException where none does."""
    terminator = region.block.last_op
    if not isinstance(terminator, YieldOp):
        raise VerifyException("region must end with hop.yield")
    return terminator


def type_list(types: Sequence[Attribute]) -> str:
    """``(T, U)``: ``types`` for a message."""
    return "(" + ", ".join(str(t) for t in types) + ")"


def check_values(what: str, values: Sequence[SSAValue], expected: Sequence[Attribute],
                 role: str) -> None:
    """Raises a VerifyException naming the first value whose type is not the expected one.

    A value is named by its ``role`` and position in ``values`` (``yielded value #1 %k``).
    """
    actual = [v.type for v in values]
    if len(actual) != len(expected):
        raise VerifyException(f"{what}: expected {len(expected)} values {type_list(expected)}, "
                              f"got {len(actual)} {type_list(actual)}")
    for index, (value, want) in enumerate(zip(values, expected)):
        if value.type != want:
            name = f" %{value.name_hint}" if value.name_hint else ""
            raise VerifyException(
                f"{what}: {role} #{index}{name} has type {value.type}, expected {want}"
            )


def check_region_signature(op_name: str, region_name: str, region: Region,
                           arg_types: Sequence[Attribute],
                           yield_types: Sequence[Attribute] | None) -> None:
    """Checks ``region``'s block arguments against ``arg_types`` and, unless ``yield_types`` is
    None, its yields against ``yield_types``."""
    check_values(f"'{op_name}' {region_name} region arguments", region.block.args, arg_types,
                 "block argument")
    if yield_types is not None:
        check_values(f"'{op_name}' {region_name} region yields", yield_of(region).values,
                     yield_types, "yielded value")
