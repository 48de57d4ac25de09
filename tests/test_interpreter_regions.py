"""The reference interpreter on region ops (cond, while, wrap, checkpoint, scan, map, subgraphs)."""

import pytest
import torch

from hopc.backend.interpreter import run_module
from hopc.dialects.parse import parse_module

SYMBOLS = """
hop.symbol @s0 backed [2, oo]
hop.symbol @u0 unbacked [0, oo]
"""


def run(body: str, *args: object) -> list[object]:
    module = parse_module(SYMBOLS + body)
    module.verify()
    return run_module(module, args)


COND_ON_TENSOR = """
func.func @forward(%p: !hop.tensor<[], i1>, %x: !hop.tensor<[s0], f32>) -> !hop.tensor<[s0], f32> {
  %r = hop.cond %p(%x) : !hop.tensor<[], i1>, (!hop.tensor<[s0], f32>) -> !hop.tensor<[s0], f32> then {
  ^bb0(%a: !hop.tensor<[s0], f32>):
    %s = aten.sin(%a) : (!hop.tensor<[s0], f32>) -> !hop.tensor<[s0], f32>
    hop.yield %s : !hop.tensor<[s0], f32>
  } else {
  ^bb0(%a: !hop.tensor<[s0], f32>):
    %c = aten.cos(%a) : (!hop.tensor<[s0], f32>) -> !hop.tensor<[s0], f32>
    hop.yield %c : !hop.tensor<[s0], f32>
  }
  func.return %r : !hop.tensor<[s0], f32>
}"""


@pytest.mark.parametrize("predicate", [True, False])
def test_cond_on_a_tensor_predicate(predicate):
    x = torch.randn(3)
    (result,) = run(COND_ON_TENSOR, torch.tensor(predicate), x)
    torch.testing.assert_close(result, torch.sin(x) if predicate else torch.cos(x))


COND_ON_SYMBOOL = """
func.func @forward(%x: !hop.tensor<[s0], f32>) -> !hop.tensor<[s0], f32> {
  %n = hop.sym_size %x[0] : !hop.tensor<[s0], f32> -> !hop.symint<s0>
  %three = hop.sym_constant : !hop.symint<3>
  %p = hop.sym_gt %n, %three : !hop.symint<s0>, !hop.symint<3> -> !hop.symbool<Gt(s0, 3)>
  %r = hop.cond %p(%x) : !hop.symbool<Gt(s0, 3)>, (!hop.tensor<[s0], f32>) -> !hop.tensor<[s0], f32> then {
  ^bb0(%a: !hop.tensor<[s0], f32>):
    %s = aten.sin(%a) : (!hop.tensor<[s0], f32>) -> !hop.tensor<[s0], f32>
    hop.yield %s : !hop.tensor<[s0], f32>
  } else {
  ^bb0(%a: !hop.tensor<[s0], f32>):
    %c = aten.cos(%a) : (!hop.tensor<[s0], f32>) -> !hop.tensor<[s0], f32>
    hop.yield %c : !hop.tensor<[s0], f32>
  }
  func.return %r : !hop.tensor<[s0], f32>
}"""


@pytest.mark.parametrize("length", [2, 5])
def test_cond_on_a_symbolic_predicate(length):
    x = torch.randn(length)
    (result,) = run(COND_ON_SYMBOOL, x)
    torch.testing.assert_close(result, torch.sin(x) if length > 3 else torch.cos(x))


WHILE_COUNTING = """
func.func @forward(%i: !hop.tensor<[], i64>, %acc: !hop.tensor<[4], f32>, %x: !hop.tensor<[4], f32>) -> (!hop.tensor<[], i64>, !hop.tensor<[4], f32>) {
  %r:2 = hop.while (%i, %acc) additional (%x) : (!hop.tensor<[], i64>, !hop.tensor<[4], f32>) -> (!hop.tensor<[], i64>, !hop.tensor<[4], f32>), !hop.tensor<[4], f32> cond {
  ^bb0(%j: !hop.tensor<[], i64>, %a: !hop.tensor<[4], f32>, %y: !hop.tensor<[4], f32>):
    %go = aten.lt.Scalar(%j) {other = 5 : i64} : (!hop.tensor<[], i64>) -> !hop.tensor<[], i1>
    hop.yield %go : !hop.tensor<[], i1>
  } body {
  ^bb0(%j: !hop.tensor<[], i64>, %a: !hop.tensor<[4], f32>, %y: !hop.tensor<[4], f32>):
    %next = aten.add.Scalar(%j) {other = 1 : i64} : (!hop.tensor<[], i64>) -> !hop.tensor<[], i64>
    %sum = aten.add.Tensor(%a, %y) : (!hop.tensor<[4], f32>, !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
    hop.yield %next, %sum : !hop.tensor<[], i64>, !hop.tensor<[4], f32>
  }
  func.return %r#0, %r#1 : !hop.tensor<[], i64>, !hop.tensor<[4], f32>
}"""


def test_while_counts_to_its_bound():
    i, acc, x = torch.tensor(1), torch.zeros(4), torch.randn(4)
    count, total = run(WHILE_COUNTING, i, acc, x)
    expected_count, expected_total = i.clone(), acc.clone()
    while expected_count < 5:
        expected_count, expected_total = expected_count + 1, expected_total + x
    assert count.item() == expected_count.item() == 5
    torch.testing.assert_close(total, expected_total)


@pytest.mark.parametrize("kind", ["wrap", "checkpoint"])
def test_wrap_and_checkpoint_call_their_body(kind):
    x, y = torch.randn(3), torch.randn(3)
    (result,) = run(f"""
    func.func @forward(%x: !hop.tensor<[s0], f32>, %y: !hop.tensor<[s0], f32>) -> !hop.tensor<[s0], f32> {{
      %r = hop.{kind}(%x, %y) : (!hop.tensor<[s0], f32>, !hop.tensor<[s0], f32>) -> !hop.tensor<[s0], f32> {{
      ^bb0(%a: !hop.tensor<[s0], f32>, %b: !hop.tensor<[s0], f32>):
        %m = aten.mul.Tensor(%a, %b) : (!hop.tensor<[s0], f32>, !hop.tensor<[s0], f32>) -> !hop.tensor<[s0], f32>
        hop.yield %m : !hop.tensor<[s0], f32>
      }}
      func.return %r : !hop.tensor<[s0], f32>
    }}""", x, y)
    torch.testing.assert_close(result, x * y)


def scan_module(reverse: bool) -> str:
    # carry' = carry + x[i]; y[i] = 2 * carry' + w
    return f"""
    func.func @forward(%c: !hop.tensor<[4], f32>, %xs: !hop.tensor<[s0, 4], f32>, %w: !hop.tensor<[4], f32>) -> (!hop.tensor<[4], f32>, !hop.tensor<[s0, 4], f32>) {{
      %r:2 = hop.scan {"reverse" if reverse else ""} init(%c) xs(%xs) additional(%w) : (!hop.tensor<[4], f32>), (!hop.tensor<[s0, 4], f32>), (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>, !hop.tensor<[s0, 4], f32> {{
      ^bb0(%carry: !hop.tensor<[4], f32>, %x: !hop.tensor<[4], f32>, %b: !hop.tensor<[4], f32>):
        %next = aten.add.Tensor(%carry, %x) : (!hop.tensor<[4], f32>, !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
        %y = aten.add.Tensor(%b, %next) {{alpha = 2 : i64}} : (!hop.tensor<[4], f32>, !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
        hop.yield %next, %y : !hop.tensor<[4], f32>, !hop.tensor<[4], f32>
      }}
      func.return %r#0, %r#1 : !hop.tensor<[4], f32>, !hop.tensor<[s0, 4], f32>
    }}"""


@pytest.mark.parametrize("reverse", [False, True])
def test_scan_carries_and_stacks_in_index_order(reverse):
    c, xs, w = torch.randn(4), torch.randn(3, 4), torch.randn(4)
    carry, ys = run(scan_module(reverse), c, xs, w)
    expected_carry, expected_ys = c, [None] * 3
    for index in (reversed(range(3)) if reverse else range(3)):
        expected_carry = expected_carry + xs[index]
        expected_ys[index] = w + 2 * expected_carry
    torch.testing.assert_close(carry, expected_carry)
    torch.testing.assert_close(ys, torch.stack(expected_ys))


def test_scan_over_no_steps_gives_empty_outputs():
    c, xs, w = torch.randn(4), torch.randn(0, 4), torch.randn(4)
    carry, ys = run(scan_module(False).replace("[2, oo]", "[0, oo]"), c, xs, w)
    torch.testing.assert_close(carry, c)
    assert ys.shape == (0, 4)


def test_map_stacks_the_body_over_dim_0():
    xs, a = torch.randn(3, 4), torch.randn(4)
    (result,) = run("""
    func.func @forward(%xs: !hop.tensor<[s0, 4], f32>, %a: !hop.tensor<[4], f32>) -> !hop.tensor<[s0, 4], f32> {
      %r = hop.map xs(%xs) additional(%a) : (!hop.tensor<[s0, 4], f32>), (!hop.tensor<[4], f32>) -> !hop.tensor<[s0, 4], f32> {
      ^bb0(%x: !hop.tensor<[4], f32>, %b: !hop.tensor<[4], f32>):
        %s = aten.sin(%x) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
        %t = aten.add.Tensor(%s, %b) : (!hop.tensor<[4], f32>, !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
        hop.yield %t : !hop.tensor<[4], f32>
      }
      func.return %r : !hop.tensor<[s0, 4], f32>
    }""", xs, a)
    torch.testing.assert_close(result, torch.stack([torch.sin(x) + a for x in xs]))


def test_invoke_subgraph_twice_shares_one_body():
    x, y = torch.randn(4), torch.randn(4)
    first, second = run("""
    hop.subgraph @square {
    ^bb0(%a: !hop.tensor<[4], f32>):
      %m = aten.mul.Tensor(%a, %a) : (!hop.tensor<[4], f32>, !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
      hop.yield %m : !hop.tensor<[4], f32>
    }
    func.func @forward(%x: !hop.tensor<[4], f32>, %y: !hop.tensor<[4], f32>) -> (!hop.tensor<[4], f32>, !hop.tensor<[4], f32>) {
      %r0 = hop.invoke_subgraph @square(%x) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
      %r1 = hop.invoke_subgraph @square(%y) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
      func.return %r0, %r1 : !hop.tensor<[4], f32>, !hop.tensor<[4], f32>
    }""", x, y)
    torch.testing.assert_close(first, x * x)
    torch.testing.assert_close(second, y * y)


SCALED_BY_SIZES = """
hop.symbol @s1 backed [2, oo]
hop.subgraph @scaled {
^bb0(%a: !hop.tensor<[s0], f32>):
  %m = aten.mul.Scalar(%a) {other = #hop.expr<s0>} : (!hop.tensor<[s0], f32>) -> !hop.tensor<[s0], f32>
  %n = aten.mul.Scalar(%m) {other = #hop.expr<s1>} : (!hop.tensor<[s0], f32>) -> !hop.tensor<[s0], f32>
  hop.yield %n : !hop.tensor<[s0], f32>
}
func.func @forward(%x: !hop.tensor<[s0], f32>, %y: !hop.tensor<[s1], f32>) -> (!hop.tensor<[s0], f32>, !hop.tensor<[s1], f32>) {
  %r0 = hop.invoke_subgraph @scaled(%x) : (!hop.tensor<[s0], f32>) -> !hop.tensor<[s0], f32>
  %r1 = hop.invoke_subgraph @scaled(%y) : (!hop.tensor<[s1], f32>) -> !hop.tensor<[s1], f32>
  func.return %r0, %r1 : !hop.tensor<[s0], f32>, !hop.tensor<[s1], f32>
}"""
"""``@scaled`` multiplies by its parameter s0 and by s1, which it does not bind."""


def test_invoke_subgraph_binds_its_parameters_afresh_at_each_call():
    # The second call binds the subgraph's s0 to y's size 5, shadowing the caller's s0 = 3;
    # s1 is no parameter and reads the caller's binding, 5, in both calls.
    x, y = torch.randn(3), torch.randn(5)
    first, second = run(SCALED_BY_SIZES, x, y)
    torch.testing.assert_close(first, x * 3 * 5)
    torch.testing.assert_close(second, y * 5 * 5)


def test_cond_inside_while_inside_wrap():
    # wrap { while i < 4: acc = acc + 1 if i is even else acc * 2; i += 1 }
    i, acc = torch.tensor(0), torch.ones(2)
    count, total = run("""
    func.func @forward(%i: !hop.tensor<[], i64>, %acc: !hop.tensor<[2], f32>) -> (!hop.tensor<[], i64>, !hop.tensor<[2], f32>) {
      %w:2 = hop.wrap(%i, %acc) : (!hop.tensor<[], i64>, !hop.tensor<[2], f32>) -> (!hop.tensor<[], i64>, !hop.tensor<[2], f32>) {
      ^bb0(%i0: !hop.tensor<[], i64>, %a0: !hop.tensor<[2], f32>):
        %l:2 = hop.while (%i0, %a0) : (!hop.tensor<[], i64>, !hop.tensor<[2], f32>) -> (!hop.tensor<[], i64>, !hop.tensor<[2], f32>) cond {
        ^bb0(%j: !hop.tensor<[], i64>, %a: !hop.tensor<[2], f32>):
          %go = aten.lt.Scalar(%j) {other = 4 : i64} : (!hop.tensor<[], i64>) -> !hop.tensor<[], i1>
          hop.yield %go : !hop.tensor<[], i1>
        } body {
        ^bb0(%j: !hop.tensor<[], i64>, %a: !hop.tensor<[2], f32>):
          %rem = aten.remainder.Scalar(%j) {other = 2 : i64} : (!hop.tensor<[], i64>) -> !hop.tensor<[], i64>
          %even = aten.eq.Scalar(%rem) {other = 0 : i64} : (!hop.tensor<[], i64>) -> !hop.tensor<[], i1>
          %c = hop.cond %even(%a) : !hop.tensor<[], i1>, (!hop.tensor<[2], f32>) -> !hop.tensor<[2], f32> then {
          ^bb0(%b: !hop.tensor<[2], f32>):
            %p = aten.add.Scalar(%b) {other = 1 : i64} : (!hop.tensor<[2], f32>) -> !hop.tensor<[2], f32>
            hop.yield %p : !hop.tensor<[2], f32>
          } else {
          ^bb0(%b: !hop.tensor<[2], f32>):
            %t = aten.mul.Scalar(%b) {other = 2 : i64} : (!hop.tensor<[2], f32>) -> !hop.tensor<[2], f32>
            hop.yield %t : !hop.tensor<[2], f32>
          }
          %next = aten.add.Scalar(%j) {other = 1 : i64} : (!hop.tensor<[], i64>) -> !hop.tensor<[], i64>
          hop.yield %next, %c : !hop.tensor<[], i64>, !hop.tensor<[2], f32>
        }
        hop.yield %l#0, %l#1 : !hop.tensor<[], i64>, !hop.tensor<[2], f32>
      }
      func.return %w#0, %w#1 : !hop.tensor<[], i64>, !hop.tensor<[2], f32>
    }""", i, acc)
    expected = acc.clone()
    for step in range(4):
        expected = expected + 1 if step % 2 == 0 else expected * 2
    assert count.item() == 4
    torch.testing.assert_close(total, expected)


def test_unbacked_size_inside_a_loop_body_is_rebound_each_iteration():
    # Each iteration's nonzero has its own size u0; the body only yields a sum.
    xs = torch.tensor([[1.0, 0.0, 2.0], [0.0, 0.0, 5.0]])
    (result,) = run("""
    func.func @forward(%xs: !hop.tensor<[2, 3], f32>) -> !hop.tensor<[2], i64> {
      %r = hop.map xs(%xs) additional() : (!hop.tensor<[2, 3], f32>), () -> !hop.tensor<[2], i64> {
      ^bb0(%x: !hop.tensor<[3], f32>):
        %nz = aten.nonzero(%x) : (!hop.tensor<[3], f32>) -> !hop.tensor<[u0, 1], i64>
        %n = aten.sum(%nz) : (!hop.tensor<[u0, 1], i64>) -> !hop.tensor<[], i64>
        hop.yield %n : !hop.tensor<[], i64>
      }
      func.return %r : !hop.tensor<[2], i64>
    }""", xs)
    torch.testing.assert_close(result, torch.stack([torch.nonzero(x).sum() for x in xs]))
