// RUN: hopc-opt %s --split-input-file --verify-diagnostics

// What a call's result may not name a size by (Note [call result symbols] in
// hopc.dialects.hop_call_results): only a size its body defines is fresh at each call.

// s0 is the subgraph's parameter, bound to 4 by the operand: not defined by
// the body, so the result is 4, and a fresh u1 there is a mismatch.
hop.symbol @s0 backed [2, oo]
hop.symbol @u1 unbacked [0, oo]
hop.subgraph @double {
^bb0(%a: !hop.tensor<[s0], f32>):
  %r = aten.add.Tensor(%a, %a) : (!hop.tensor<[s0], f32>, !hop.tensor<[s0], f32>) -> !hop.tensor<[s0], f32>
  hop.yield %r : !hop.tensor<[s0], f32>
}
func.func @parameter_is_not_fresh(%x: !hop.tensor<[4], f32>) {
  // expected-error @+1 {{'hop.invoke_subgraph' op results of @double under s0 -> 4: result #0 %y has type !hop.tensor<[u1], f32>, expected !hop.tensor<[4], f32>}}
  %y = hop.invoke_subgraph @double(%x) : (!hop.tensor<[4], f32>) -> !hop.tensor<[u1], f32>
  func.return
}

// -----

// The same for a checkpoint: its body yields the operand's size 4.
hop.symbol @u1 unbacked [0, oo]
func.func @checkpoint_static_is_not_fresh(%x: !hop.tensor<[4], f32>) {
  // expected-error @+1 {{'hop.checkpoint' op body region yields: yielded value #0 %s has type !hop.tensor<[4], f32>, expected !hop.tensor<[u1], f32>}}
  %r = hop.checkpoint(%x) : (!hop.tensor<[4], f32>) -> !hop.tensor<[u1], f32> {
  ^bb0(%a: !hop.tensor<[4], f32>):
    %s = aten.sin(%a) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
    hop.yield %s : !hop.tensor<[4], f32>
  }
  func.return
}

// -----

// The body's u0 may be any size: the operand's s1 cannot name it.
hop.symbol @s1 backed [2, oo]
hop.symbol @u0 unbacked [0, oo]
hop.subgraph @positions {
^bb0(%a: !hop.tensor<[s1], f32>):
  %i = aten.nonzero(%a) : (!hop.tensor<[s1], f32>) -> !hop.tensor<[u0, 1], i64>
  hop.yield %i : !hop.tensor<[u0, 1], i64>
}
func.func @operand_size_for_a_defined_size(%x: !hop.tensor<[s1], f32>) {
  // expected-error @+1 {{'hop.invoke_subgraph' op result #0 %p of type !hop.tensor<[s1, 1], i64> has s1 for u0, a size the body defines, fresh at each call: expected a symbol that no operand mentions}}
  %p = hop.invoke_subgraph @positions(%x) : (!hop.tensor<[s1], f32>) -> !hop.tensor<[s1, 1], i64>
  func.return
}

// -----

// Nor can a constant.
hop.symbol @u0 unbacked [0, oo]
func.func @constant_for_a_defined_size(%x: !hop.tensor<[4], f32>) {
  // expected-error @+1 {{'hop.wrap' op result #0 %r of type !hop.tensor<[2, 1], i64> has 2 for u0, a size the body defines, fresh at each call: expected a symbol that no operand mentions}}
  %r = hop.wrap(%x) : (!hop.tensor<[4], f32>) -> !hop.tensor<[2, 1], i64> {
  ^bb0(%a: !hop.tensor<[4], f32>):
    %i = aten.nonzero(%a) : (!hop.tensor<[4], f32>) -> !hop.tensor<[u0, 1], i64>
    hop.yield %i : !hop.tensor<[u0, 1], i64>
  }
  func.return
}

// -----

// One body size, two names: the results would claim nothing about their equality.
hop.symbol @u0 unbacked [0, oo]
hop.symbol @u1 unbacked [0, oo]
hop.symbol @u2 unbacked [0, oo]
func.func @one_size_two_names(%x: !hop.tensor<[4], f32>) {
  // expected-error @+1 {{'hop.checkpoint' op result #1 %r of type !hop.tensor<[u2, 1], i64> has u2 for u0, which an earlier result names u1}}
  %r:2 = hop.checkpoint(%x) : (!hop.tensor<[4], f32>) -> (!hop.tensor<[u1, 1], i64>, !hop.tensor<[u2, 1], i64>) {
  ^bb0(%a: !hop.tensor<[4], f32>):
    %i = aten.nonzero(%a) : (!hop.tensor<[4], f32>) -> !hop.tensor<[u0, 1], i64>
    hop.yield %i, %i : !hop.tensor<[u0, 1], i64>, !hop.tensor<[u0, 1], i64>
  }
  func.return
}

// -----

// Two body sizes, one name: they may differ at run time.
hop.symbol @u0 unbacked [0, oo]
hop.symbol @u1 unbacked [0, oo]
hop.symbol @u2 unbacked [0, oo]
hop.subgraph @two_masks {
^bb0(%a: !hop.tensor<[4], f32>, %b: !hop.tensor<[4], f32>):
  %i = aten.nonzero(%a) : (!hop.tensor<[4], f32>) -> !hop.tensor<[u0, 1], i64>
  %j = aten.nonzero(%b) : (!hop.tensor<[4], f32>) -> !hop.tensor<[u1, 1], i64>
  hop.yield %i, %j : !hop.tensor<[u0, 1], i64>, !hop.tensor<[u1, 1], i64>
}
func.func @two_sizes_one_name(%x: !hop.tensor<[4], f32>, %y: !hop.tensor<[4], f32>) {
  // expected-error @+1 {{'hop.invoke_subgraph' op result #1 %r of type !hop.tensor<[u2, 1], i64> has u2 for both u0 and u1, two sizes the body defines}}
  %r:2 = hop.invoke_subgraph @two_masks(%x, %y) : (!hop.tensor<[4], f32>, !hop.tensor<[4], f32>) -> (!hop.tensor<[u2, 1], i64>, !hop.tensor<[u2, 1], i64>)
  func.return
}

// -----

// The body's u0 is in its result only inside 4*u0: no result binds a name of the
// call's own for it, so the call may not rename it.
hop.symbol @u0 unbacked [0, oo]
hop.symbol @u1 unbacked [0, oo]
hop.subgraph @positive_four_times {
^bb0(%a: !hop.tensor<[4], f32>):
  %mask = aten.gt.Scalar(%a) {other = 0 : i64} : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], i1>
  %picked = aten.index.Tensor(%a, [%mask]) : (!hop.tensor<[4], f32>, !hop.tensor<[4], i1>) -> !hop.tensor<[u0], f32>
  %four = aten.cat([%picked, %picked, %picked, %picked]) : (!hop.tensor<[u0], f32>, !hop.tensor<[u0], f32>, !hop.tensor<[u0], f32>, !hop.tensor<[u0], f32>) -> !hop.tensor<[4*u0], f32>
  hop.yield %four : !hop.tensor<[4*u0], f32>
}
func.func @expression_only(%x: !hop.tensor<[4], f32>) {
  // expected-error @+1 {{'hop.invoke_subgraph' op result #0 %r of type !hop.tensor<[4*u1], f32> has 4*u1 for 4*u0: u0, a size the body defines, fresh at each call, is a whole dimension of no result, so the call cannot name it; return (and use) a tensor of the body that has it as a whole dimension too}}
  %r = hop.invoke_subgraph @positive_four_times(%x) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4*u1], f32>
  func.return
}
