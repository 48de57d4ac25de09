// RUN: hopc-opt %s --split-input-file | filecheck %s
// RUN: hopc-opt %s --split-input-file --print-op-generic | filecheck %s --check-prefix=GENERIC
// RUN: hopc-opt %s --split-input-file --print-op-generic | hopc-opt --split-input-file | filecheck %s
// RUN: hopc-opt %s --split-input-file --functionalize --lift-symbols --canonicalize --cse --dce | filecheck %s --check-prefix=KEPT

// hop.autograd_function (Note [custom autograd functions] in
// hopc.dialects.hop_autograd_function) in custom and generic form; the third
// RUN parses the generic form back. The last RUN checks that the pipeline keeps
// the call whole: its saved result is unused, yet neither it nor the backward
// subgraph, which only the call names, is dropped.

// Scale-like: x * 2 forward, the saved input times the cotangent backward.
// CHECK-LABEL: hop.subgraph @forward
// CHECK-LABEL: hop.subgraph @backward
// CHECK-LABEL: func.func @scale
// CHECK:         %y, %saved = hop.autograd_function @forward(%x) backward @backward {output_count = 1 : i64, gradients = array<i64: 0>} : (!hop.tensor<[4], f32>) -> (!hop.tensor<[4], f32>, !hop.tensor<[4], f32>)
// GENERIC:       "hop.autograd_function"(%x) <{callee = @forward, backward = @backward, output_count = 1 : i64, gradients = array<i64: 0>}>
// KEPT:          hop.subgraph @forward
// KEPT:          hop.subgraph @backward
// KEPT-LABEL:    func.func @scale
// KEPT:          %y, %saved = hop.autograd_function @forward(%x) backward @backward
hop.subgraph @forward {
^bb0(%a: !hop.tensor<[4], f32>):
  %m = aten.mul.Scalar(%a) {other = 2 : i64} : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
  hop.yield %m, %a : !hop.tensor<[4], f32>, !hop.tensor<[4], f32>
}
hop.subgraph @backward {
^bb0(%t: !hop.tensor<[4], f32>, %a: !hop.tensor<[4], f32>):
  %g = aten.mul.Tensor(%t, %a) : (!hop.tensor<[4], f32>, !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
  hop.yield %g : !hop.tensor<[4], f32>
}
func.func @scale(%x: !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32> {
  %y, %saved = hop.autograd_function @forward(%x) backward @backward {output_count = 1 : i64, gradients = array<i64: 0>} : (!hop.tensor<[4], f32>) -> (!hop.tensor<[4], f32>, !hop.tensor<[4], f32>)
  func.return %y : !hop.tensor<[4], f32>
}

// -----

// Symbolic sizes, and a second operand that takes no gradient (absent from gradients).
// CHECK-LABEL: func.func @symbolic
// CHECK:         hop.autograd_function @product(%x, %w) backward @product_backward {output_count = 1 : i64, gradients = array<i64: 0>} : (!hop.tensor<[s0], f32>, !hop.tensor<[s0], f32>) -> (!hop.tensor<[s0], f32>, !hop.tensor<[s0], f32>)
hop.symbol @s0 backed [2, oo]
hop.subgraph @product {
^bb0(%a: !hop.tensor<[s0], f32>, %b: !hop.tensor<[s0], f32>):
  %m = aten.mul.Tensor(%a, %b) : (!hop.tensor<[s0], f32>, !hop.tensor<[s0], f32>) -> !hop.tensor<[s0], f32>
  hop.yield %m, %b : !hop.tensor<[s0], f32>, !hop.tensor<[s0], f32>
}
hop.subgraph @product_backward {
^bb0(%t: !hop.tensor<[s0], f32>, %b: !hop.tensor<[s0], f32>):
  %g = aten.mul.Tensor(%t, %b) : (!hop.tensor<[s0], f32>, !hop.tensor<[s0], f32>) -> !hop.tensor<[s0], f32>
  hop.yield %g : !hop.tensor<[s0], f32>
}
func.func @symbolic(%x: !hop.tensor<[s0], f32>, %w: !hop.tensor<[s0], f32>) -> !hop.tensor<[s0], f32> {
  %y, %saved = hop.autograd_function @product(%x, %w) backward @product_backward {output_count = 1 : i64, gradients = array<i64: 0>} : (!hop.tensor<[s0], f32>, !hop.tensor<[s0], f32>) -> (!hop.tensor<[s0], f32>, !hop.tensor<[s0], f32>)
  func.return %y : !hop.tensor<[s0], f32>
}
