// RUN: hopc-opt %s --convert-hop-to-kernel --split-input-file | filecheck %s

// hop.flex_attention on symbolic lengths (passes/convert_hop_to_kernel/flex_attention.py,
// Note [symbolic positions]): each index the mask reads is a count along its dim of the
// scores, less one (ones_like, cumsum, sub), not an arange, whose trace would fix the
// length; the key and value share the key's length symbol.
// CHECK-LABEL: builtin.module
// CHECK-NOT:     aten.arange
// CHECK:         aten.ones_like(%{{.*}}) {dtype = i32} : (!hop.tensor<[1, 2, s0, s1], f32>) -> !hop.tensor<[1, 2, s0, s1], i32>
// CHECK:         aten.cumsum(%{{.*}}) {dim = 2 : i64, dtype = i32} : (!hop.tensor<[1, 2, s0, s1], i32>) -> !hop.tensor<[1, 2, s0, s1], i32>
// CHECK:         aten.cumsum(%{{.*}}) {dim = 3 : i64, dtype = i32} : (!hop.tensor<[1, 2, s0, s1], i32>) -> !hop.tensor<[1, 2, s0, s1], i32>
// CHECK:         aten.sub.Scalar(%{{.*}}) {other = 1 : i64}
// CHECK:         aten.ge.Tensor(%{{.*}}, %{{.*}}) : (!hop.tensor<[1, 2, s0, s1], i32>, !hop.tensor<[1, 2, s0, s1], i32>) -> !hop.tensor<[1, 2, s0, s1], i1>
// CHECK:         aten._safe_softmax
// CHECK:       func.func @forward(
// CHECK-NOT:     hop.flex_attention
builtin.module {
  hop.symbol @s0 backed [2, oo] hint 8
  hop.symbol @s1 backed [2, oo] hint 8
  func.func @forward(%q: !hop.tensor<[1, 2, s0, 4], f32>, %k: !hop.tensor<[1, 2, s1, 4], f32>, %v: !hop.tensor<[1, 2, s1, 4], f32>) -> !hop.tensor<[1, 2, s0, 4], f32> {
    %o = hop.flex_attention(%q, %k, %v) buffers() {scale = 5.000000e-01 : f64} : (!hop.tensor<[1, 2, s0, 4], f32>, !hop.tensor<[1, 2, s1, 4], f32>, !hop.tensor<[1, 2, s1, 4], f32>), () -> !hop.tensor<[1, 2, s0, 4], f32> score {
    ^bb0(%s: !hop.tensor<[], f32>, %b: !hop.tensor<[], i32>, %h: !hop.tensor<[], i32>, %m: !hop.tensor<[], i32>, %n: !hop.tensor<[], i32>):
      hop.yield %s : !hop.tensor<[], f32>
    } mask {
    ^bb0(%b2: !hop.tensor<[], i32>, %h2: !hop.tensor<[], i32>, %m2: !hop.tensor<[], i32>, %n2: !hop.tensor<[], i32>):
      %keep = aten.ge.Tensor(%m2, %n2) : (!hop.tensor<[], i32>, !hop.tensor<[], i32>) -> !hop.tensor<[], i1>
      hop.yield %keep : !hop.tensor<[], i1>
    }
    func.return %o : !hop.tensor<[1, 2, s0, 4], f32>
  }
}

// -----

// Static sizes keep arange, viewed along the index's dim.
// CHECK-LABEL: builtin.module
// CHECK-NOT:     aten.cumsum
// CHECK:         aten.arange() {end = 8 : i64, dtype = i32} : () -> !hop.tensor<[8], i32>
// CHECK-NOT:     aten.cumsum
// CHECK:       func.func @forward(
// CHECK-NOT:     hop.flex_attention

builtin.module {
  func.func @forward(%q: !hop.tensor<[1, 2, 8, 4], f32>, %k: !hop.tensor<[1, 2, 8, 4], f32>, %v: !hop.tensor<[1, 2, 8, 4], f32>) -> !hop.tensor<[1, 2, 8, 4], f32> {
    %o = hop.flex_attention(%q, %k, %v) buffers() {scale = 5.000000e-01 : f64} : (!hop.tensor<[1, 2, 8, 4], f32>, !hop.tensor<[1, 2, 8, 4], f32>, !hop.tensor<[1, 2, 8, 4], f32>), () -> !hop.tensor<[1, 2, 8, 4], f32> score {
    ^bb0(%s: !hop.tensor<[], f32>, %b: !hop.tensor<[], i32>, %h: !hop.tensor<[], i32>, %m: !hop.tensor<[], i32>, %n: !hop.tensor<[], i32>):
      hop.yield %s : !hop.tensor<[], f32>
    } mask {
    ^bb0(%b2: !hop.tensor<[], i32>, %h2: !hop.tensor<[], i32>, %m2: !hop.tensor<[], i32>, %n2: !hop.tensor<[], i32>):
      %keep = aten.ge.Tensor(%m2, %n2) : (!hop.tensor<[], i32>, !hop.tensor<[], i32>) -> !hop.tensor<[], i1>
      hop.yield %keep : !hop.tensor<[], i1>
    }
    func.return %o : !hop.tensor<[1, 2, 8, 4], f32>
  }
}
