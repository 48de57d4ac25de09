// RUN: hopc-opt %s --split-input-file | filecheck %s
// RUN: hopc-opt %s --split-input-file --print-op-generic | filecheck %s --check-prefix=GENERIC
// RUN: hopc-opt %s --split-input-file --print-op-generic | hopc-opt --split-input-file | filecheck %s
// RUN: hopc-opt %s --split-input-file --functionalize --lift-symbols --canonicalize --cse --dce | filecheck %s --check-prefix=KEPT
// RUN: hopc-opt %s --split-input-file --convert-hop-to-kernel | filecheck %s --check-prefix=KERNEL

// Round trip of hop.flex_attention in custom and generic form (Note [flex
// attention semantics]); the functional pipeline keeps the op and its bodies,
// whose index block arguments no operand feeds; convert-hop-to-kernel computes
// it as ATen ops over whole tensors, fused into kernels.

// A head bias table read by the score body, a causal mask.
// CHECK-LABEL: func.func @bias_and_causal_mask
// CHECK:         %o = hop.flex_attention(%q, %k, %v) buffers(%bias) {scale = 5.000000e-01 : f64} : (!hop.tensor<[1, 2, 8, 4], f32>, !hop.tensor<[1, 2, 8, 4], f32>, !hop.tensor<[1, 2, 8, 4], f32>), (!hop.tensor<[2], f32>) -> !hop.tensor<[1, 2, 8, 4], f32> score {
// CHECK-NEXT:    ^bb0(%s: !hop.tensor<[], f32>, %b: !hop.tensor<[], i32>, %h: !hop.tensor<[], i32>, %m: !hop.tensor<[], i32>, %n: !hop.tensor<[], i32>, %table: !hop.tensor<[2], f32>):
// CHECK-NEXT:      %w = aten.index.Tensor(%table, [%h]) : (!hop.tensor<[2], f32>, !hop.tensor<[], i32>) -> !hop.tensor<[], f32>
// CHECK-NEXT:      %r = aten.add.Tensor(%s, %w) : (!hop.tensor<[], f32>, !hop.tensor<[], f32>) -> !hop.tensor<[], f32>
// CHECK-NEXT:      hop.yield %r : !hop.tensor<[], f32>
// CHECK-NEXT:    } mask {
// CHECK-NEXT:    ^bb0(%b2: !hop.tensor<[], i32>, %h2: !hop.tensor<[], i32>, %m2: !hop.tensor<[], i32>, %n2: !hop.tensor<[], i32>, %table2: !hop.tensor<[2], f32>):
// CHECK-NEXT:      %keep = aten.ge.Tensor(%m2, %n2) : (!hop.tensor<[], i32>, !hop.tensor<[], i32>) -> !hop.tensor<[], i1>
// CHECK-NEXT:      hop.yield %keep : !hop.tensor<[], i1>
// CHECK-NEXT:    }
// GENERIC-LABEL: "func.func"() <{sym_name = "bias_and_causal_mask"
// GENERIC:         %o = "hop.flex_attention"(%q, %k, %v, %bias) <{scale = 5.000000e-01 : f64}> ({
// GENERIC:           "hop.yield"(%r) : (!hop.tensor<[], f32>) -> ()
// GENERIC-NEXT:    }, {
// GENERIC:           "hop.yield"(%keep) : (!hop.tensor<[], i1>) -> ()
// GENERIC-NEXT:    }) : (!hop.tensor<[1, 2, 8, 4], f32>, !hop.tensor<[1, 2, 8, 4], f32>, !hop.tensor<[1, 2, 8, 4], f32>, !hop.tensor<[2], f32>) -> !hop.tensor<[1, 2, 8, 4], f32>
// KEPT-LABEL: func.func @bias_and_causal_mask
// KEPT:         hop.flex_attention(%q, %k, %v) buffers(%bias)
// KEPT:         aten.index.Tensor
// KEPT:         aten.ge.Tensor
// KERNEL-LABEL: func.func @bias_and_causal_mask
// KERNEL-NOT:    hop.flex_attention
// KERNEL:        hop.wrap(%q, %k, %v, %bias)
// KERNEL:          kernel.launch @extern_matmul
func.func @bias_and_causal_mask(%q: !hop.tensor<[1, 2, 8, 4], f32>, %k: !hop.tensor<[1, 2, 8, 4], f32>, %v: !hop.tensor<[1, 2, 8, 4], f32>, %bias: !hop.tensor<[2], f32>) -> !hop.tensor<[1, 2, 8, 4], f32> {
  %o = hop.flex_attention(%q, %k, %v) buffers(%bias) {scale = 5.000000e-01 : f64} : (!hop.tensor<[1, 2, 8, 4], f32>, !hop.tensor<[1, 2, 8, 4], f32>, !hop.tensor<[1, 2, 8, 4], f32>), (!hop.tensor<[2], f32>) -> !hop.tensor<[1, 2, 8, 4], f32> score {
  ^bb0(%s: !hop.tensor<[], f32>, %b: !hop.tensor<[], i32>, %h: !hop.tensor<[], i32>, %m: !hop.tensor<[], i32>, %n: !hop.tensor<[], i32>, %table: !hop.tensor<[2], f32>):
    %w = aten.index.Tensor(%table, [%h]) : (!hop.tensor<[2], f32>, !hop.tensor<[], i32>) -> !hop.tensor<[], f32>
    %r = aten.add.Tensor(%s, %w) : (!hop.tensor<[], f32>, !hop.tensor<[], f32>) -> !hop.tensor<[], f32>
    hop.yield %r : !hop.tensor<[], f32>
  } mask {
  ^bb0(%b2: !hop.tensor<[], i32>, %h2: !hop.tensor<[], i32>, %m2: !hop.tensor<[], i32>, %n2: !hop.tensor<[], i32>, %table2: !hop.tensor<[2], f32>):
    %keep = aten.ge.Tensor(%m2, %n2) : (!hop.tensor<[], i32>, !hop.tensor<[], i32>) -> !hop.tensor<[], i1>
    hop.yield %keep : !hop.tensor<[], i1>
  }
  func.return %o : !hop.tensor<[1, 2, 8, 4], f32>
}

// -----

// No buffers, the identity score body, a mask keeping every position.
// CHECK-LABEL: func.func @no_buffers
// CHECK:         %o = hop.flex_attention(%q, %k, %v) buffers() {scale = 2.500000e-01 : f64} : (!hop.tensor<[1, 2, 8, 4], f32>, !hop.tensor<[1, 2, 8, 4], f32>, !hop.tensor<[1, 2, 8, 4], f32>), () -> !hop.tensor<[1, 2, 8, 4], f32> score {
// CHECK-NEXT:    ^bb0(%s: !hop.tensor<[], f32>, %b: !hop.tensor<[], i32>, %h: !hop.tensor<[], i32>, %m: !hop.tensor<[], i32>, %n: !hop.tensor<[], i32>):
// CHECK-NEXT:      hop.yield %s : !hop.tensor<[], f32>
// KEPT-LABEL: func.func @no_buffers
// KEPT:         hop.flex_attention(%q, %k, %v) buffers()
// KERNEL-LABEL: func.func @no_buffers
// KERNEL-NOT:    hop.flex_attention
func.func @no_buffers(%q: !hop.tensor<[1, 2, 8, 4], f32>, %k: !hop.tensor<[1, 2, 8, 4], f32>, %v: !hop.tensor<[1, 2, 8, 4], f32>) -> !hop.tensor<[1, 2, 8, 4], f32> {
  %o = hop.flex_attention(%q, %k, %v) buffers() {scale = 2.500000e-01 : f64} : (!hop.tensor<[1, 2, 8, 4], f32>, !hop.tensor<[1, 2, 8, 4], f32>, !hop.tensor<[1, 2, 8, 4], f32>), () -> !hop.tensor<[1, 2, 8, 4], f32> score {
  ^bb0(%s: !hop.tensor<[], f32>, %b: !hop.tensor<[], i32>, %h: !hop.tensor<[], i32>, %m: !hop.tensor<[], i32>, %n: !hop.tensor<[], i32>):
    hop.yield %s : !hop.tensor<[], f32>
  } mask {
  ^bb0(%b2: !hop.tensor<[], i32>, %h2: !hop.tensor<[], i32>, %m2: !hop.tensor<[], i32>, %n2: !hop.tensor<[], i32>):
    %keep = aten.ge.Tensor(%m2, %m2) : (!hop.tensor<[], i32>, !hop.tensor<[], i32>) -> !hop.tensor<[], i1>
    hop.yield %keep : !hop.tensor<[], i1>
  }
  func.return %o : !hop.tensor<[1, 2, 8, 4], f32>
}
