"""The backend's rule tables (Note [rule tables] in ``hopc.ir.rule_table``): each HOP's rules in
one module of ``hopc.backend.hops``, and nothing else there.

A new HOP's backend is one module of that package: its reference implementation,
its planner where it has one, its host lowering where it has one. ``tests/test_hop_completeness.py``
checks that every HOP has the rules it needs; this checks where they live.
"""

from __future__ import annotations

import pytest

from hopc.backend.host.codegen import HOST_LOWERINGS
from hopc.backend.interpreter import INTERPRETER_RULES
from hopc.backend.runtime.plan import PLANNER_RULES
from hopc.dialects import hop

TABLES = {"interpreter": INTERPRETER_RULES, "planner": PLANNER_RULES, "host code": HOST_LOWERINGS}
HOP_PACKAGE = "hopc.backend.hops"


@pytest.mark.parametrize("op_class", [pytest.param(op, id=op.name) for op in hop.HOPS if op is not hop.SubgraphOp])
def test_the_backend_rules_of_a_hop_are_one_module_of_the_hop_package(op_class):
    modules = {rule.__module__ for table in TABLES.values() if (rule := table.get(op_class)) is not None}
    assert len(modules) == 1
    assert modules.pop().startswith(HOP_PACKAGE + ".")


@pytest.mark.parametrize("stage", TABLES)
def test_the_hop_package_holds_rules_of_hops_only(stage):
    table = TABLES[stage]
    in_hop_package = {key for key in table if table.get(key).__module__.startswith(HOP_PACKAGE + ".")}
    assert in_hop_package and in_hop_package <= set(hop.HOPS)


def test_an_aten_op_class_takes_the_rule_of_aten_op_where_it_has_none_of_its_own():
    """Every ATen op runs by one rule per stage; ``aten.detach_copy`` has its own in the interpreter."""
    from hopc.dialects.aten import AtenOp
    from hopc.dialects.aten_op_classes import op_class

    add, detach = op_class("aten.add.Tensor"), op_class("aten.detach_copy")
    for table in TABLES.values():
        assert table.get(add) is table.get(AtenOp) is not None
    assert INTERPRETER_RULES.get(detach) is not INTERPRETER_RULES.get(AtenOp)
    assert PLANNER_RULES.get(detach) is PLANNER_RULES.get(AtenOp)
