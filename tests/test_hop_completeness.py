"""Every HOP of the ``hop`` dialect has an entry in each per-HOP table (Review P3).

A HOP is an op of the dialect with a ``HopRegionInterface``. Each table below
is where a stage looks a HOP up; a HOP missing from one fails here, not in a
user's program. Where a HOP has no entry by design, the exemption says why.
The binary ``hop.sym_*`` ops (Note [one operator per sym op]) are checked the
same way.
"""

from __future__ import annotations

import pytest
from xdsl.traits import HasParent

from hopc.backend.host.codegen import HOST_LOWERINGS
from hopc.backend.host.lowerings.hop import _INFIX
from hopc.backend.interpreter import INTERPRETER_RULES
from hopc.backend.runtime.plan import PLANNER_RULES
from hopc.dialects import hop
from hopc.dialects.hop_interface import HopRegionInterface
from hopc.fx_import.capture_rules import HOP_IMPORTS, TRAILING_ARGUMENTS
from hopc.passes.autograd.rules import BACKWARD_RULES
from hopc.passes.functionalize.functionalize import FUNCTIONALIZE_RULES

HOPS = hop.HOPS

SYMBOLS_OF_CALLS = {hop.SubgraphOp}
"""Module-level symbols: no stage meets one as an op of a function; each handles its body
through its calls (``hop.invoke_subgraph``, ``hop.autograd_function``)."""

RUN_BY_REFERENCE = {hop.ScanOp, hop.MapOp, hop.AssociativeScanOp, hop.InvokeSubgraphOp, hop.AutogradFunctionOp, hop.FlexAttentionOp}
"""HOPs the planned executor runs by their reference implementation (``Planner._reference_step``)."""


LOWERED_BEFORE_HOST_CODE = {hop.FlexAttentionOp}
"""HOPs that ``convert-hop-to-kernel`` rewrites into others, so host code never meets them
(``hop.flex_attention``: a wrap of ATen ops, ``hopc.passes.convert_hop_to_kernel.flex_attention``;
``lit_tests/dialects/hop/flex_attention.mlir`` checks that none is left)."""


TORCH_NAMES = {hop.CondOp: "cond", hop.WhileOp: "while_loop", hop.ScanOp: "scan", hop.MapOp: "map_impl",
               hop.AssociativeScanOp: "associative_scan", hop.InvokeSubgraphOp: "invoke_subgraph",
               hop.WrapOp: "hopc_wrap", hop.CheckpointOp: "hopc_checkpoint",
               hop.AutogradFunctionOp: "hopc_autograd_function", hop.FlexAttentionOp: "flex_attention"}
"""The ``HigherOrderOperator.name()`` by which the frontend meets each HOP."""


def _calls_and_bodies(exempt: set = SYMBOLS_OF_CALLS) -> list:
    return [pytest.param(op, id=op.name) for op in HOPS if op not in exempt]


def test_the_dialect_has_the_hops_the_tables_were_written_for():
    assert {op.name for op in HOPS} == {
        "hop.cond", "hop.while", "hop.wrap", "hop.checkpoint", "hop.scan", "hop.map",
        "hop.subgraph", "hop.invoke_subgraph", "hop.autograd_function", "hop.associative_scan", "hop.flex_attention"}


def test_the_hops_package_holds_every_op_with_a_region_interface():
    """``hop.HOPS`` (found in ``hopc.dialects.hops``) is every op of the dialect with the interface."""
    assert set(hop.HOPS) == {op for op in hop.Hop.operations if op.has_trait(HopRegionInterface)}


def test_hop_region_ops_lists_every_hop_with_regions_of_its_own():
    assert set(hop.HOP_REGION_OPS) == {op for op in HOPS if op.get_irdl_definition().regions}


def test_yield_may_end_the_region_of_every_hop_with_regions():
    parents = set(hop.YieldOp.get_trait(HasParent).op_types)
    assert parents == {op for op in HOPS if op.get_irdl_definition().regions}


@pytest.mark.parametrize("op_class", _calls_and_bodies())
def test_functionalize_rewrites_it(op_class):
    assert op_class in FUNCTIONALIZE_RULES


@pytest.mark.parametrize("op_class", _calls_and_bodies())
def test_the_frontend_imports_it(op_class):
    assert TORCH_NAMES[op_class] in HOP_IMPORTS


@pytest.mark.parametrize("op_class", [
    pytest.param(hop.AutogradFunctionOp, id=hop.AutogradFunctionOp.name, marks=pytest.mark.xfail(
        strict=True, reason="a tensor constant in a custom autograd.Function's forward reaches the "
                            "importer's assert (its backward takes cotangents, then saved values)")),
    *_calls_and_bodies(SYMBOLS_OF_CALLS | {hop.AutogradFunctionOp})])
def test_constant_hoisting_knows_where_its_operands_go(op_class):
    assert TORCH_NAMES[op_class] in TRAILING_ARGUMENTS


@pytest.mark.parametrize("op_class", _calls_and_bodies())
def test_the_interpreter_runs_it(op_class):
    assert op_class in INTERPRETER_RULES


@pytest.mark.parametrize("op_class", _calls_and_bodies(SYMBOLS_OF_CALLS | LOWERED_BEFORE_HOST_CODE))
def test_host_code_lowers_it(op_class):
    assert op_class in HOST_LOWERINGS


@pytest.mark.parametrize("op_class", _calls_and_bodies())
def test_the_planned_executor_plans_it_or_runs_its_reference(op_class):
    assert (op_class in PLANNER_RULES) != (op_class in RUN_BY_REFERENCE)


@pytest.mark.parametrize("op_class", _calls_and_bodies())
def test_autograd_has_its_backward_rule(op_class):
    assert op_class in BACKWARD_RULES


# --------------------------------------------------------------------------- binary sym ops


@pytest.mark.parametrize("op_class", [pytest.param(op, id=op.name) for op in hop.SYM_OPERATOR_OPS])
def test_each_binary_sym_op_runs_everywhere(op_class):
    assert {"OPERATOR", "APPLY"} <= set(vars(op_class))
    assert op_class in INTERPRETER_RULES
    assert op_class in HOST_LOWERINGS
    assert op_class in PLANNER_RULES


def test_every_binary_sym_op_is_one():
    """``SYM_OPERATOR_OPS`` is derived from the dialect: each ``SymBinaryOp`` registered."""
    assert {op.name for op in hop.SYM_OPERATOR_OPS} == {
        f"hop.sym_{name}" for name in ("add", "sub", "mul", "floordiv", "mod", "max", "min", "eq",
                                       "ne", "lt", "le", "gt", "ge", "truediv", "pow", "and", "or")}


@pytest.mark.parametrize("op_class", [pytest.param(op, id=op.name) for op in hop.SYM_OPERATOR_OPS])
def test_host_code_spells_each_operator_as_it_computes(op_class):
    for lhs, rhs in ((7, 3), (-7, 2), (3, 3)):
        expected = op_class.OPERATOR(lhs, rhs)
        infix = _INFIX.get(op_class.OPERATOR)
        if infix is not None:
            assert eval(f"({lhs}) {infix} ({rhs})") == expected
