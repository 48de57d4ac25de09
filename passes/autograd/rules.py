"""Which backward rule differentiates each op.

Every ATen op is differentiated by PyTorch's derivative
(``hopc.passes.autograd.aten_rule``); each HOP by its own rule in
``hopc.passes.autograd.hops``, registered with ``@backward_rule_for``. Ops
with no floating-point result (shape arithmetic, ``hop.item``, asserts) never
get a cotangent, so they need no rule.
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.ir import Operation

from hopc.dialects.aten import AtenOp
from hopc.passes.autograd.joint import Rule

_RULES: dict[type[Operation], Rule] = {}


def backward_rule_for(*op_classes: type[Operation]) -> Callable[[Rule], Rule]:
    """Registers the decorated function as the backward rule of ``op_classes``."""

    def register(rule: Rule) -> Rule:
        for op_class in op_classes:
            _RULES[op_class] = rule
        return rule

    return register


def backward_rule(op: Operation) -> Rule | None:
    """The backward rule of ``op``, or None where there is none."""
    if isinstance(op, AtenOp):
        from hopc.passes.autograd.aten_rule import aten_backward

        return aten_backward
    _load_hop_rules()
    return _RULES.get(type(op))


def _load_hop_rules() -> None:
    """Imports the HOP rule modules, which register themselves."""
    from hopc.passes.autograd import hops  # noqa: F401
