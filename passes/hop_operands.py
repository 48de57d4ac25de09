"""Growing a HOP's operand list: what passes that make region inputs explicit share."""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import DenseArrayBase, i32
from xdsl.ir import Operation, SSAValue


def append_to_last_operand_group(op: Operation, values: Sequence[SSAValue]) -> None:
    """Adds ``values`` to ``op``'s last operand group, keeping ``operandSegmentSizes`` right.

    The last group is a HOP's loop-invariant or plain inputs (``inputs``,
    ``additional``), where values a region newly needs belong.
    """
    op.operands = [*op.operands, *values]
    sizes = op.properties.get("operandSegmentSizes")
    if isinstance(sizes, DenseArrayBase):
        counts = list(sizes.get_values())
        counts[-1] += len(values)
        op.properties["operandSegmentSizes"] = DenseArrayBase.from_list(i32, counts)
