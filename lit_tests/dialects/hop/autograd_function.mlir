// RUN: hopc-opt %s --split-input-file | filecheck %s
// RUN: hopc-opt %s --split-input-file --print-op-generic | filecheck %s --check-prefix=GENERIC
// RUN: hopc-opt %s --split-input-file --print-op-generic | hopc-opt --split-input-file | filecheck %s
// RUN: hopc-opt %s --split-input-file --functionalize --lift-symbols --canonicalize --cse --dce | filecheck %s --check-prefix=KEPT

// hop.autograd_function (Note [custom autograd functions] in
// hopc.dialects.hops.autograd_function) in custom and generic form; the third
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

// -----

// A forward that picks entries by a mask (Function.apply of x[x > 0]): its size
// u0 is fresh at each call, so each call's results name it by a symbol of their
// own (Note [call result symbols] in hopc.dialects.hop_call_results): u1, then u2.
// CHECK-LABEL: func.func @two_masked_calls
// CHECK:         hop.autograd_function @positive(%x) backward @positive_backward {output_count = 1 : i64, gradients = array<i64: 0>} : (!hop.tensor<[s0], f32>) -> (!hop.tensor<[u1], f32>, !hop.tensor<[s0], i1>)
// CHECK-NEXT:    hop.autograd_function @positive(%x) backward @positive_backward {output_count = 1 : i64, gradients = array<i64: 0>} : (!hop.tensor<[s0], f32>) -> (!hop.tensor<[u2], f32>, !hop.tensor<[s0], i1>)
hop.symbol @s0 backed [2, oo]
hop.symbol @u0 unbacked [0, oo]
hop.symbol @u1 unbacked [0, oo]
hop.symbol @u2 unbacked [0, oo]
hop.symbol @u3 unbacked [0, oo]
hop.subgraph @positive {
^bb0(%a: !hop.tensor<[s0], f32>):
  %mask = aten.gt.Scalar(%a) {other = 0 : i64} : (!hop.tensor<[s0], f32>) -> !hop.tensor<[s0], i1>
  %picked = aten.index.Tensor(%a, [%mask]) : (!hop.tensor<[s0], f32>, !hop.tensor<[s0], i1>) -> !hop.tensor<[u0], f32>
  hop.yield %picked, %mask : !hop.tensor<[u0], f32>, !hop.tensor<[s0], i1>
}
hop.subgraph @positive_backward {
^bb0(%t: !hop.tensor<[u3], f32>, %mask: !hop.tensor<[s0], i1>):
  %zeros = aten.zeros_like(%mask) {dtype = f32} : (!hop.tensor<[s0], i1>) -> !hop.tensor<[s0], f32>
  %g = aten.index_put(%zeros, [%mask], %t) : (!hop.tensor<[s0], f32>, !hop.tensor<[s0], i1>, !hop.tensor<[u3], f32>) -> !hop.tensor<[s0], f32>
  hop.yield %g : !hop.tensor<[s0], f32>
}
func.func @two_masked_calls(%x: !hop.tensor<[s0], f32>) {
  %y, %m = hop.autograd_function @positive(%x) backward @positive_backward {output_count = 1 : i64, gradients = array<i64: 0>} : (!hop.tensor<[s0], f32>) -> (!hop.tensor<[u1], f32>, !hop.tensor<[s0], i1>)
  %z, %n = hop.autograd_function @positive(%x) backward @positive_backward {output_count = 1 : i64, gradients = array<i64: 0>} : (!hop.tensor<[s0], f32>) -> (!hop.tensor<[u2], f32>, !hop.tensor<[s0], i1>)
  func.return
}
