// RUN: hopc-opt %s --freeze --split-input-file | filecheck %s

// What freezes and what stays (Note [what freezes]): the parameter @w and the
// buffer @scale, never changed, become constants. Must not freeze: the buffer
// @count, which the program changes (result 1 is copied back to it), and the
// parameter @u, declared without a value; each says why. The arguments after
// a frozen one move up, and the copy-back names the new position of @count.
// CHECK-LABEL: builtin.module
// CHECK-DAG:     hop.buffer @count = dense<0.000000e+00> : tensor<f32> : !hop.tensor<[], f32> {hop.not_frozen = "the program changes it (result 1 is copied back to it)"}
// CHECK-DAG:     hop.parameter @u : !hop.tensor<[2], f32> {hop.not_frozen = "its value is unknown (give it one, or pass it to freeze)"}
// CHECK-NOT:     hop.parameter @w
// CHECK-NOT:     hop.buffer @scale
// CHECK:         func.func @forward(%x: !hop.tensor<[2], f32>, %count: !hop.tensor<[], f32> {hop.buffer = @count}, %u: !hop.tensor<[2], f32> {hop.parameter = @u}) -> (!hop.tensor<[2], f32>, !hop.tensor<[], f32> {hop.copy_back_to = 1 : i64})
// CHECK:         %[[K:.*]] = hop.get_constant @[[F:folded.*]] : !hop.tensor<[2], f32>
// CHECK:         %[[Y:.*]] = aten.mul.Tensor(%x, %[[K]])
// CHECK:         %[[Z:.*]] = aten.add.Tensor(%[[Y]], %u)
// CHECK:         %[[N:.*]] = aten.add.Scalar(%count) {other = 1.000000e+00 : f64}
// CHECK:         func.return %[[Z]], %[[N]]
hop.parameter @w = dense<[1.0, 2.0]> : tensor<2xf32> : !hop.tensor<[2], f32>
hop.buffer @count = dense<0.0> : tensor<f32> : !hop.tensor<[], f32>
hop.buffer @scale = dense<3.0> : tensor<f32> : !hop.tensor<[], f32>
hop.parameter @u : !hop.tensor<[2], f32>
func.func @forward(%x: !hop.tensor<[2], f32>, %w: !hop.tensor<[2], f32> {hop.parameter = @w}, %count: !hop.tensor<[], f32> {hop.buffer = @count}, %scale: !hop.tensor<[], f32> {hop.buffer = @scale}, %u: !hop.tensor<[2], f32> {hop.parameter = @u}) -> (!hop.tensor<[2], f32>, !hop.tensor<[], f32> {hop.copy_back_to = 2 : i64}) {
  %k = aten.mul.Tensor(%w, %scale) : (!hop.tensor<[2], f32>, !hop.tensor<[], f32>) -> !hop.tensor<[2], f32>
  %y = aten.mul.Tensor(%x, %k) : (!hop.tensor<[2], f32>, !hop.tensor<[2], f32>) -> !hop.tensor<[2], f32>
  %z = aten.add.Tensor(%y, %u) : (!hop.tensor<[2], f32>, !hop.tensor<[2], f32>) -> !hop.tensor<[2], f32>
  %n = aten.add.Scalar(%count) {other = 1.0 : f64} : (!hop.tensor<[], f32>) -> !hop.tensor<[], f32>
  func.return %z, %n : !hop.tensor<[2], f32>, !hop.tensor<[], f32>
}

// -----

// A buffer changed inside a cond branch (functionalize made it a result of
// the cond, copied back) is never frozen; the parameter read in the same
// branch is.
// CHECK-LABEL: builtin.module
// CHECK:         hop.buffer @steps = dense<0.000000e+00> : tensor<f32> : !hop.tensor<[], f32> {hop.not_frozen = "the program changes it (result 1 is copied back to it)"}
// CHECK:         func.func @forward(%p: !hop.tensor<[], i1>, %steps: !hop.tensor<[], f32> {hop.buffer = @steps})
// CHECK:         hop.cond %p(%steps)
hop.parameter @w = dense<2.0> : tensor<f32> : !hop.tensor<[], f32>
hop.buffer @steps = dense<0.0> : tensor<f32> : !hop.tensor<[], f32>
func.func @forward(%p: !hop.tensor<[], i1>, %w: !hop.tensor<[], f32> {hop.parameter = @w}, %steps: !hop.tensor<[], f32> {hop.buffer = @steps}) -> (!hop.tensor<[], f32>, !hop.tensor<[], f32> {hop.copy_back_to = 2 : i64}) {
  %r, %s = hop.cond %p(%w, %steps) : !hop.tensor<[], i1>, (!hop.tensor<[], f32>, !hop.tensor<[], f32>) -> (!hop.tensor<[], f32>, !hop.tensor<[], f32>) then {
  ^bb0(%v: !hop.tensor<[], f32>, %k: !hop.tensor<[], f32>):
    %e = aten.exp(%v) : (!hop.tensor<[], f32>) -> !hop.tensor<[], f32>
    %m = aten.mul.Tensor(%e, %k) : (!hop.tensor<[], f32>, !hop.tensor<[], f32>) -> !hop.tensor<[], f32>
    %n = aten.add.Scalar(%k) {other = 1.0 : f64} : (!hop.tensor<[], f32>) -> !hop.tensor<[], f32>
    hop.yield %m, %n : !hop.tensor<[], f32>, !hop.tensor<[], f32>
  } else {
  ^bb0(%v: !hop.tensor<[], f32>, %k: !hop.tensor<[], f32>):
    hop.yield %k, %k : !hop.tensor<[], f32>, !hop.tensor<[], f32>
  }
  func.return %r, %s : !hop.tensor<[], f32>, !hop.tensor<[], f32>
}
