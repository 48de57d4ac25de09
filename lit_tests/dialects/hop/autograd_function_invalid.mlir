// RUN: hopc-opt %s --split-input-file --verify-diagnostics

// hop.autograd_function's verifier messages (Note [custom autograd functions]):
// both subgraphs exist, the forward is called as hop.invoke_subgraph would be,
// the backward takes the cotangents then the saved values and yields one
// gradient of each listed operand's type.

// The backward names no subgraph.
hop.subgraph @forward {
^bb0(%a: !hop.tensor<[4], f32>):
  hop.yield %a : !hop.tensor<[4], f32>
}
func.func @unknown_backward(%x: !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32> {
  // expected-error @+1 {{'hop.autograd_function' op backward @missing is no known hop.subgraph}}
  %y = hop.autograd_function @forward(%x) backward @missing {output_count = 1 : i64, gradients = array<i64: 0>} : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
  func.return %y : !hop.tensor<[4], f32>
}

// -----

// The results are not the forward's yields.
hop.subgraph @forward {
^bb0(%a: !hop.tensor<[4], f32>):
  hop.yield %a : !hop.tensor<[4], f32>
}
hop.subgraph @backward {
^bb0(%t: !hop.tensor<[4], f32>):
  hop.yield %t : !hop.tensor<[4], f32>
}
func.func @wrong_result(%x: !hop.tensor<[4], f32>) -> !hop.tensor<[4], f64> {
  // expected-error @+1 {{'hop.autograd_function' op results of forward @forward: result #0 %y has type !hop.tensor<[4], f64>, expected !hop.tensor<[4], f32>}}
  %y = hop.autograd_function @forward(%x) backward @backward {output_count = 1 : i64, gradients = array<i64: 0>} : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f64>
  func.return %y : !hop.tensor<[4], f64>
}

// -----

// The backward takes no saved value, but the call saves one.
hop.subgraph @forward {
^bb0(%a: !hop.tensor<[4], f32>):
  hop.yield %a, %a : !hop.tensor<[4], f32>, !hop.tensor<[4], f32>
}
hop.subgraph @backward {
^bb0(%t: !hop.tensor<[4], f32>):
  hop.yield %t : !hop.tensor<[4], f32>
}
func.func @saved_not_taken(%x: !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32> {
  // expected-error @+1 {{'hop.autograd_function' op cotangents and saved values given to backward @backward: expected 1 values, got 2}}
  %y, %s = hop.autograd_function @forward(%x) backward @backward {output_count = 1 : i64, gradients = array<i64: 0>} : (!hop.tensor<[4], f32>) -> (!hop.tensor<[4], f32>, !hop.tensor<[4], f32>)
  func.return %y : !hop.tensor<[4], f32>
}

// -----

// A gradient of another shape than its operand's.
hop.subgraph @forward {
^bb0(%a: !hop.tensor<[4], f32>):
  hop.yield %a : !hop.tensor<[4], f32>
}
hop.subgraph @backward {
^bb0(%t: !hop.tensor<[4], f32>):
  %s = aten.sum(%t) : (!hop.tensor<[4], f32>) -> !hop.tensor<[], f32>
  hop.yield %s : !hop.tensor<[], f32>
}
func.func @gradient_type(%x: !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32> {
  // expected-error @+1 {{'hop.autograd_function' op backward @backward yields a gradient of type !hop.tensor<[], f32> for operand #0 %x of type !hop.tensor<[4], f32>}}
  %y = hop.autograd_function @forward(%x) backward @backward {output_count = 1 : i64, gradients = array<i64: 0>} : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
  func.return %y : !hop.tensor<[4], f32>
}

// -----

// One gradient yielded, none listed.
hop.subgraph @forward {
^bb0(%a: !hop.tensor<[4], f32>):
  hop.yield %a : !hop.tensor<[4], f32>
}
hop.subgraph @backward {
^bb0(%t: !hop.tensor<[4], f32>):
  hop.yield %t : !hop.tensor<[4], f32>
}
func.func @gradient_count(%x: !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32> {
  // expected-error @+1 {{'hop.autograd_function' op backward @backward yields 1 gradients, expected 0 (one per position in gradients)}}
  %y = hop.autograd_function @forward(%x) backward @backward {output_count = 1 : i64, gradients = array<i64>} : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
  func.return %y : !hop.tensor<[4], f32>
}

// -----

// Gradient positions beyond the operands.
hop.subgraph @forward {
^bb0(%a: !hop.tensor<[4], f32>):
  hop.yield %a : !hop.tensor<[4], f32>
}
hop.subgraph @backward {
^bb0(%t: !hop.tensor<[4], f32>):
  hop.yield %t : !hop.tensor<[4], f32>
}
func.func @gradient_position(%x: !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32> {
  // expected-error @+1 {{'hop.autograd_function' op gradients [1] are not increasing operand positions below 1}}
  %y = hop.autograd_function @forward(%x) backward @backward {output_count = 1 : i64, gradients = array<i64: 1>} : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
  func.return %y : !hop.tensor<[4], f32>
}

// -----

// More outputs than results.
hop.subgraph @forward {
^bb0(%a: !hop.tensor<[4], f32>):
  hop.yield %a : !hop.tensor<[4], f32>
}
hop.subgraph @backward {
^bb0(%t: !hop.tensor<[4], f32>):
  hop.yield %t : !hop.tensor<[4], f32>
}
func.func @output_count(%x: !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32> {
  // expected-error @+1 {{'hop.autograd_function' op has 1 results, fewer than its 2 outputs}}
  %y = hop.autograd_function @forward(%x) backward @backward {output_count = 2 : i64, gradients = array<i64: 0>} : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
  func.return %y : !hop.tensor<[4], f32>
}

// -----

// The forward's mask-picked size u0 is fresh at each call: the operand's s0 cannot name it
// (Note [call result symbols] in hopc.dialects.hop_call_results).
hop.symbol @s0 backed [2, oo]
hop.symbol @u0 unbacked [0, oo]
hop.subgraph @positive {
^bb0(%a: !hop.tensor<[s0], f32>):
  %mask = aten.gt.Scalar(%a) {other = 0 : i64} : (!hop.tensor<[s0], f32>) -> !hop.tensor<[s0], i1>
  %picked = aten.index.Tensor(%a, [%mask]) : (!hop.tensor<[s0], f32>, !hop.tensor<[s0], i1>) -> !hop.tensor<[u0], f32>
  hop.yield %picked : !hop.tensor<[u0], f32>
}
hop.subgraph @backward {
^bb0(%t: !hop.tensor<[s0], f32>):
  hop.yield %t : !hop.tensor<[s0], f32>
}
func.func @operand_size_for_a_fresh_size(%x: !hop.tensor<[s0], f32>) {
  // expected-error @+1 {{'hop.autograd_function' op result #0 %y of type !hop.tensor<[s0], f32> has s0 for u0, a size the body defines, fresh at each call: expected a symbol that no operand mentions}}
  %y = hop.autograd_function @positive(%x) backward @backward {output_count = 1 : i64, gradients = array<i64: 0>} : (!hop.tensor<[s0], f32>) -> !hop.tensor<[s0], f32>
  func.return
}
