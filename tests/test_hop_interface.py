"""``HopRegionInterface``: each HOP kind's answers, and a call's effects through its callee."""

from __future__ import annotations

import pytest
from xdsl.traits import MemoryEffectKind, get_effects, is_side_effect_free

from hopc.dialects import hop
from hopc.dialects.hop_interface import (
    NoOperand,
    Operand,
    RegionEntry,
    RunCount,
    Slice,
    append_invariant_operands,
    first_capture,
    hop_interface,
    sliced_type,
    stacked_type,
)
from hopc.dialects.parse import parse_module
from hopc.ir.types import DTYPES, SymIntType, TensorType

T = "!hop.tensor<[4], f32>"
S = "!hop.tensor<[2, 4], f32>"
B = "!hop.tensor<[], i1>"

MODULE = f"""
hop.subgraph @reads {{
^bb0(%a: {T}):
  %s = aten.sin(%a) : ({T}) -> {T}
  hop.yield %s : {T}
}}
hop.subgraph @writes {{
^bb0(%a: {T}):
  %s = aten.sin_(%a) : ({T}) -> {T}
  hop.yield %s : {T}
}}
func.func @f(%p: {B}, %x: {T}, %w: {T}, %xs: {S}) -> {T} {{
  %c = hop.cond %p(%x, %w) : {B}, ({T}, {T}) -> {T} then {{
  ^bb0(%a: {T}, %b: {T}):
    hop.yield %a : {T}
  }} else {{
  ^bb0(%a: {T}, %b: {T}):
    hop.yield %b : {T}
  }}
  %wr = hop.wrap(%x) : ({T}) -> {T} {{
  ^bb0(%a: {T}):
    hop.yield %a : {T}
  }}
  %ck = hop.checkpoint(%x) : ({T}) -> {T} {{
  ^bb0(%a: {T}):
    hop.yield %a : {T}
  }}
  %wh = hop.while(%x) additional(%w) : ({T}) -> {T}, {T} cond {{
  ^bb0(%a: {T}, %b: {T}):
    hop.yield %p : {B}
  }} body {{
  ^bb0(%a: {T}, %b: {T}):
    hop.yield %a : {T}
  }}
  %carry, %ys = hop.scan init(%x) xs(%xs) additional(%w) : ({T}), ({S}), ({T}) -> {T}, {S} {{
  ^bb0(%a: {T}, %e: {T}, %b: {T}):
    hop.yield %a, %e : {T}, {T}
  }}
  %m = hop.map xs(%xs) additional(%w) : ({S}), ({T}) -> {S} {{
  ^bb0(%e: {T}, %b: {T}):
    hop.yield %e : {T}
  }}
  %r = hop.invoke_subgraph @reads(%x) : ({T}) -> {T}
  %v = hop.invoke_subgraph @writes(%x) : ({T}) -> {T}
  func.return %x : {T}
}}
"""


@pytest.fixture
def ops() -> dict[str, object]:
    module = parse_module(MODULE)
    found: dict[str, object] = {}
    for op in module.walk():
        key = f"@{op.callee.string_value()}" if isinstance(op, hop.InvokeSubgraphOp) else op.name
        found.setdefault(key, op)
    return found


def _answers(op) -> list[tuple]:
    interface = hop_interface(op)
    return [(e.arguments, e.runs, e.results, e.stacked, e.carried) for e in interface.entries(op)]


def test_cond_branches_take_the_operands_after_the_predicate(ops):
    op = ops["hop.cond"]
    assert _answers(op) == [((Operand(1), Operand(2)), RunCount.AT_MOST_ONCE, range(1), range(0), 0)] * 2
    assert hop_interface(op).invariant_operands(op) == range(1, 3)
    assert hop_interface(op).mutable_operands(op) == range(1, 3)


@pytest.mark.parametrize("name", ["hop.wrap", "hop.checkpoint"])
def test_single_body_runs_once_on_all_operands(ops, name):
    op = ops[name]
    assert _answers(op) == [((Operand(0),), RunCount.ONCE, range(1), range(0), 0)]
    assert hop_interface(op).invariant_operands(op) == range(1)


def test_while_carries_the_body_yields_and_runs_the_cond_once_more(ops):
    op = ops["hop.while"]
    both = (Operand(0), Operand(1))
    assert _answers(op) == [(both, RunCount.AT_LEAST_ONCE, range(0), range(0), 0),
                            (both, RunCount.ANY, range(1), range(0), 1)]
    assert hop_interface(op).invariant_operands(op) == range(1, 2)
    assert hop_interface(op).mutable_operands(op) == range(2)


def test_scan_slices_xs_carries_init_and_stacks_outputs(ops):
    op = ops["hop.scan"]
    assert _answers(op) == [((Operand(0), Slice(1), Operand(2)), RunCount.ANY, range(2), range(1, 2), 1)]
    assert hop_interface(op).entries(op)[0].sliced == (1,)
    assert hop_interface(op).invariant_operands(op) == range(2, 3)
    assert hop_interface(op).mutable_operands(op) == range(0)


def test_map_slices_xs_and_stacks_every_yield(ops):
    op = ops["hop.map"]
    assert _answers(op) == [((Slice(0), Operand(1)), RunCount.ANY, range(1), range(1), 0)]
    assert hop_interface(op).invariant_operands(op) == range(1, 2)


def test_subgraph_body_is_entered_by_its_calls_only(ops):
    op = ops["hop.subgraph"]
    assert _answers(op) == [((NoOperand(),), RunCount.ONCE, range(0), range(0), 0)]
    assert hop_interface(op).invariant_operands(op) == range(0)


def test_call_answers_for_its_callee_body(ops):
    call = ops["@reads"]
    (entry,) = hop_interface(call).entries(call)
    assert entry.region is call.subgraph().body
    assert (entry.arguments, entry.runs, entry.results) == ((Operand(0),), RunCount.ONCE, range(1))
    assert entry.argument_of(0) is call.subgraph().body.block.args[0]


def test_one_operand_may_feed_two_arguments_and_an_argument_none(ops):
    """An associative_scan-like combine body (two slices of one input), then an index no
    operand feeds (as flex_attention's ``q_idx``)."""
    body = ops["hop.scan"].body
    entry = RegionEntry(body, (Slice(1), Slice(1), NoOperand()), RunCount.ANY)
    assert entry.arguments_of(1) == tuple(body.block.args[:2])
    assert [entry.operand_of(i) for i in range(3)] == [1, 1, None]
    assert entry.sliced == (1,)
    with pytest.raises(ValueError):
        entry.argument_of(1)  # not one argument


def test_a_carried_value_enters_as_a_whole_operand(ops):
    with pytest.raises(AssertionError, match="whole operand"):
        RegionEntry(ops["hop.scan"].body, (Slice(1),), RunCount.ANY, results=range(1), carried=1)


def test_a_carried_yield_is_not_stacked(ops):
    with pytest.raises(AssertionError, match="none carried"):
        RegionEntry(ops["hop.scan"].body, (Operand(0),), RunCount.ANY, results=range(1),
                    stacked=range(1), carried=1)


def test_a_slice_argument_has_the_operand_type_less_its_dim_0(ops):
    op = ops["hop.scan"]
    (entry,) = hop_interface(op).entries(op)
    assert [str(t) for t in entry.argument_types(op)] == [T, T, T]  # init, a slice of [2, 4], additional


def test_only_tensors_of_rank_one_or_more_slice_and_only_tensors_stack():
    f32 = DTYPES["float32"]
    assert sliced_type(TensorType(["s0", 4], f32)) == TensorType([4], f32)
    assert sliced_type(TensorType([], f32)) is None
    assert sliced_type(SymIntType(3)) is None
    assert stacked_type(TensorType([4], f32), "s0") == TensorType(["s0", 4], f32)
    assert stacked_type(SymIntType(3), 2) is None


def test_call_of_a_reading_subgraph_only_reads(ops):
    assert {e.kind for e in get_effects(ops["@reads"])} == {MemoryEffectKind.READ}


def test_call_of_a_writing_subgraph_writes(ops):
    assert MemoryEffectKind.WRITE in {e.kind for e in get_effects(ops["@writes"])}


def test_call_of_an_empty_subgraph_is_pure():
    module = parse_module(f"""
hop.subgraph @id {{
^bb0(%a: {T}):
  hop.yield %a : {T}
}}
func.func @f(%x: {T}) -> {T} {{
  %r = hop.invoke_subgraph @id(%x) : ({T}) -> {T}
  func.return %r : {T}
}}""")
    call = next(op for op in module.walk() if isinstance(op, hop.InvokeSubgraphOp))
    assert is_side_effect_free(call)


def test_appended_invariant_operands_go_to_the_last_group(ops):
    op = ops["hop.scan"]
    extra = op.operands[0]
    append_invariant_operands(op, [extra])
    assert (len(op.init), len(op.xs), len(op.additional)) == (1, 1, 2)
    assert hop_interface(op).invariant_operands(op) == range(2, 4)


def test_first_capture_names_the_reader_and_the_outer_value():
    module = parse_module(f"""
func.func @f(%x: {T}) -> {T} {{
  %s = aten.sin(%x) : ({T}) -> {T}
  %r = hop.wrap(%x) : ({T}) -> {T} {{
  ^bb0(%a: {T}):
    %t = aten.add.Tensor(%a, %s) : ({T}, {T}) -> {T}
    hop.yield %t : {T}
  }}
  func.return %r : {T}
}}""")
    wrap = next(op for op in module.walk() if isinstance(op, hop.WrapOp))
    reader, value = first_capture(wrap)
    assert reader.name == "aten.add.Tensor" and value.name_hint == "s"


def test_non_hop_ops_have_no_interface(ops):
    assert hop_interface(ops["func.func"]) is None
