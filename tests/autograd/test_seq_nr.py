"""``hop.seq_nr`` after ``--autograd``: one number per forward op with a backward, unique in the
module and in forward program order, shared by the backward ops made from it (Note [sequence
numbers] in ``hopc.passes.autograd.provenance``)."""

from __future__ import annotations

import pytest
from xdsl.dialects.builtin import ModuleOp

import hopc
from hopc.dialects.hop_module_structure import entry_function
from hopc.passes.autograd import differentiate
from hopc.passes.autograd.provenance import reachable_ops, seq_nr_pairs, sequence_number
from hopc.passes.pipeline import run_pipeline

T = "!hop.tensor<[4], f32>"
I64 = "!hop.tensor<[], i64>"
PROGRAM = f"""
builtin.module {{
  func.func @forward(%x: {T} {{hop.requires_grad}}, %w: {T} {{hop.requires_grad}}, %p: !hop.tensor<[], i1>,
                     %xs: !hop.tensor<[3, 4], f32> {{hop.requires_grad}}, %n: {I64}) -> {T} {{
    %m = aten.mul.Tensor(%x, %w) : ({T}, {T}) -> {T}
    %c = hop.cond %p(%m, %w) : !hop.tensor<[], i1>, ({T}, {T}) -> {T} then {{
    ^bb0(%a: {T}, %v: {T}):
      %s = aten.sin(%a) : ({T}) -> {T}
      %sv = aten.mul.Tensor(%s, %v) : ({T}, {T}) -> {T}
      hop.yield %sv : {T}
    }} else {{
    ^bb0(%a: {T}, %v: {T}):
      %k = aten.cos(%a) : ({T}) -> {T}
      hop.yield %k : {T}
    }}
    %h, %ys = hop.scan init(%c) xs(%xs) additional(%w) : ({T}), (!hop.tensor<[3, 4], f32>), ({T}) -> {T}, !hop.tensor<[3, 4], f32> {{
    ^bb0(%hc: {T}, %row: {T}, %v: {T}):
      %hv = aten.mul.Tensor(%hc, %v) : ({T}, {T}) -> {T}
      %ha = aten.add.Tensor(%hv, %row) : ({T}, {T}) -> {T}
      %ht = aten.tanh(%ha) : ({T}) -> {T}
      hop.yield %ht, %ht : {T}, {T}
    }}
    %zero = aten.zeros() {{size = [], dtype = i64, device = "cpu"}} : () -> {I64}
    %i, %r = hop.while(%zero, %h) additional(%n, %w) : ({I64}, {T}) -> ({I64}, {T}), {I64}, {T} cond {{
    ^bb0(%ci: {I64}, %ch: {T}, %cn: {I64}, %cw: {T}):
      %go = aten.lt.Tensor(%ci, %cn) : ({I64}, {I64}) -> !hop.tensor<[], i1>
      hop.yield %go : !hop.tensor<[], i1>
    }} body {{
    ^bb0(%bi: {I64}, %bh: {T}, %bn: {I64}, %bw: {T}):
      %next = aten.add.Scalar(%bi) {{other = 1 : i64}} : ({I64}) -> {I64}
      %bm = aten.mul.Tensor(%bh, %bw) : ({T}, {T}) -> {T}
      %bs = aten.sin(%bm) : ({T}) -> {T}
      hop.yield %next, %bs : {I64}, {T}
    }}
    %e = aten.exp(%r) : ({T}) -> {T}
    func.return %e : {T}
  }}
}}
"""

FORWARD_ORDER = (
    ("aten.mul.Tensor",),  # %m
    ("hop.cond",),
    ("aten.sin",), ("aten.mul.Tensor",),  # the then branch
    ("aten.cos",),  # the else branch
    ("hop.scan",),
    ("aten.mul.Tensor",), ("aten.tanh",),  # the scan body; add's backward is the cotangent itself
    ("aten.zeros", "hop.while"),  # the trip counter the while's backward needs, then the loop
    ("aten.mul.Tensor",), ("aten.sin",),  # the while body
    ("aten.exp",),
)
"""The forward ops of each number, in forward program order (pre-order, regions in place)."""


@pytest.fixture(scope="module")
def differentiated() -> ModuleOp:
    return differentiate(hopc.parse(PROGRAM), joint=True)


def test_numbers_follow_forward_program_order_across_regions(differentiated):
    pairs = seq_nr_pairs(differentiated)
    assert [number for number, _, _ in pairs] == list(range(len(FORWARD_ORDER)))
    assert tuple(forward for _, forward, _ in pairs) == FORWARD_ORDER


def test_a_number_names_ops_of_one_block_only(differentiated):
    blocks: dict[int, set] = {}
    for op in reachable_ops(differentiated, entry_function(differentiated, "forward")):
        if (number := sequence_number(op)) is not None:
            blocks.setdefault(number, set()).add(op.parent_block())
    assert all(len(parents) == 1 for parents in blocks.values()), blocks


def test_every_numbered_op_has_a_forward_partner(differentiated):
    forward_numbers = {number for number, forward, _ in seq_nr_pairs(differentiated) if forward}
    everywhere = {sequence_number(op) for op in differentiated.walk()} - {None}  # joint and subgraphs too
    assert everywhere == forward_numbers


def test_backward_ops_pair_with_their_forward_op(differentiated):
    backward = {number: names for number, _, names in seq_nr_pairs(differentiated)}
    expected = {0: "aten.mul.Tensor", 1: "hop.cond", 2: "aten.cos", 4: "aten.neg", 5: "hop.scan",
                7: "aten.tanh_backward", 8: "hop.while", 10: "aten.cos", 11: "aten.mul.Tensor"}
    for number, name in expected.items():
        assert name in backward[number], (number, backward[number])
    assert all(backward.values()), "every number has backward ops"


def test_ops_without_a_backward_carry_no_number(differentiated):
    forward = entry_function(differentiated, "forward")
    unnumbered = [op.name for op in forward.walk() if sequence_number(op) is None]
    for name in ("aten.add.Tensor", "aten.add.Scalar", "aten.lt.Tensor"):
        assert name in unnumbered
    user_zero, counter = [op for op in forward.body.block.ops if op.name == "aten.zeros"]
    assert sequence_number(user_zero) is None and sequence_number(counter) == 8


def test_numbers_survive_the_clean_up_passes_and_the_text(differentiated):
    pairs = seq_nr_pairs(differentiated)
    cleaned = run_pipeline(differentiated.clone(), ("canonicalize", "cse", "dce"))
    assert seq_nr_pairs(cleaned) == pairs
    assert seq_nr_pairs(hopc.parse(hopc.to_text(differentiated))) == pairs


def test_a_module_autograd_leaves_alone_has_no_numbers():
    module = differentiate(hopc.parse(PROGRAM.replace(" {hop.requires_grad}", "")))
    assert seq_nr_pairs(module) == ()
    assert all(sequence_number(op) is None for op in module.walk())
