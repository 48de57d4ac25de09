"""Which backward rule differentiates each op.

Every ATen op is differentiated by PyTorch's derivative
(``hopc.passes.autograd.aten_rule``); each HOP by its own rule in
``hopc.passes.autograd.hops``, registered in ``BACKWARD_RULES`` (Note [rule
tables] in ``hopc.ir.rule_table``). Ops with no floating-point result (shape
arithmetic, ``hop.item``, asserts) never get a cotangent, so they need no rule.
"""

from __future__ import annotations

from xdsl.ir import Operation

from hopc.dialects.aten import AtenOp
from hopc.ir.rule_table import RuleTable
from hopc.passes.autograd.joint import Rule

BACKWARD_RULES: RuleTable[Rule] = RuleTable("autograd", packages=("hopc.passes.autograd.hops",))
"""HOP op class -> its backward rule; one module per kind in ``hopc.passes.autograd.hops``."""


def backward_rule(op: Operation) -> Rule | None:
    """The backward rule of ``op``, or None where there is none."""
    if isinstance(op, AtenOp):
        from hopc.passes.autograd.aten_rule import aten_backward

        return aten_backward
    return BACKWARD_RULES.get(type(op))
