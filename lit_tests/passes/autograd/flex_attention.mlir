// RUN: hopc-opt --autograd --split-input-file %s | filecheck %s
// RUN: hopc-opt --autograd --split-input-file %s | hopc-opt --split-input-file | filecheck %s

// hop.flex_attention is differentiated as the wrap of its dense ATen ops
// (hopc.passes.autograd.hops.flex_attention): the forward wrap computes the
// scores over every position (the bodies' ops on broadcast indices) and
// yields the softmax weights as a residual; the backward wrap gives the
// gradients of q, k, v and the bias table the score body indexes.
// CHECK-LABEL: builtin.module
// CHECK:       func.func @forward(
// CHECK-NOT:     hop.flex_attention
// CHECK:         hop.wrap(%q, %k, %v, %bias)
// CHECK:           aten.arange() {end = 2 : i64, dtype = i32}
// CHECK:           aten.index.Tensor(%{{.*}}, [%{{.*}}]) {{.*}}: (!hop.tensor<[2], f32>, !hop.tensor<[1, 2, 1, 1], i32>) -> !hop.tensor<[1, 2, 1, 1], f32>
// CHECK:           aten.ge.Tensor({{.*}}) {{.*}}: (!hop.tensor<[1, 1, 8, 1], i32>, !hop.tensor<[1, 1, 1, 8], i32>) -> !hop.tensor<[1, 1, 8, 8], i1>
// CHECK:           aten.masked_fill.Scalar
// CHECK:           aten._safe_softmax
// CHECK:       func.func @backward(
// CHECK:         %{{.*}}, %{{.*}}, %{{.*}}, %[[GB:.*]] = hop.wrap(
// CHECK:           aten._softmax_backward_data
// CHECK:           aten.index_put({{.*}}) {accumulate = true
// CHECK:         func.return {{.*}}, %[[GB]] : !hop.tensor<[1, 2, 8, 4], f32>, !hop.tensor<[1, 2, 8, 4], f32>, !hop.tensor<[1, 2, 8, 4], f32>, !hop.tensor<[2], f32>

builtin.module {
  func.func @forward(%q: !hop.tensor<[1, 2, 8, 4], f32> {hop.requires_grad}, %k: !hop.tensor<[1, 2, 8, 4], f32> {hop.requires_grad}, %v: !hop.tensor<[1, 2, 8, 4], f32> {hop.requires_grad}, %bias: !hop.tensor<[2], f32> {hop.requires_grad}) -> !hop.tensor<[1, 2, 8, 4], f32> {
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
}
