// RUN: hopc-opt %s --freeze --split-input-file | filecheck %s

// Weight layouts prepared once: the transpose that addmm wants, and the bf16
// cast of a parameter and its transpose, fold into constants; the parameter,
// read by nothing else, is gone. The cast of the user input %x must not fold.
// CHECK-LABEL: builtin.module
// CHECK-NOT:     hop.parameter
// CHECK-DAG:     hop.constant @b = dense<[1.000000e+00, 2.000000e+00, 3.000000e+00]> : tensor<3xf32>
// CHECK-DAG:     hop.constant @[[WT:folded.*]] = dense<{{\[\[}}1.000000e+00, 3.000000e+00, 5.000000e+00], [2.000000e+00, 4.000000e+00, 6.000000e+00]]> : tensor<2x3xf32>
// CHECK-DAG:     hop.constant @[[CAST:folded.*]] = dense<{{.*}}> : tensor<2x3xbf16> : !hop.tensor<[2, 3], bf16>
// CHECK-NOT:     hop.constant @w
// CHECK:         func.func @layouts(%x: !hop.tensor<[4, 2], f32>) -> (!hop.tensor<[4, 3], f32>, !hop.tensor<[4, 3], bf16>)
// CHECK-DAG:     %[[B:.*]] = hop.get_constant @b : !hop.tensor<[3], f32>
// CHECK-DAG:     %[[T:.*]] = hop.get_constant @[[WT]] : !hop.tensor<[2, 3], f32>
// CHECK:         %[[Y:.*]] = aten.addmm(%[[B]], %x, %[[T]])
// CHECK:         %[[XB:.*]] = aten._to_copy(%x) {dtype = bf16}
// CHECK:         %[[C:.*]] = hop.get_constant @[[CAST]] : !hop.tensor<[2, 3], bf16>
// CHECK:         %[[Z:.*]] = aten.mm(%[[XB]], %[[C]])
// CHECK-NOT:     aten.t_copy
// CHECK:         func.return %[[Y]], %[[Z]]
hop.parameter @w = dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]> : tensor<3x2xf32> : !hop.tensor<[3, 2], f32>
hop.parameter @b = dense<[1.0, 2.0, 3.0]> : tensor<3xf32> : !hop.tensor<[3], f32>
func.func @layouts(%x: !hop.tensor<[4, 2], f32>, %w: !hop.tensor<[3, 2], f32> {hop.parameter = @w}, %b: !hop.tensor<[3], f32> {hop.parameter = @b}) -> (!hop.tensor<[4, 3], f32>, !hop.tensor<[4, 3], bf16>) {
  %t = aten.t_copy(%w) : (!hop.tensor<[3, 2], f32>) -> !hop.tensor<[2, 3], f32>
  %y = aten.addmm(%b, %x, %t) : (!hop.tensor<[3], f32>, !hop.tensor<[4, 2], f32>, !hop.tensor<[2, 3], f32>) -> !hop.tensor<[4, 3], f32>
  %c = aten._to_copy(%w) {dtype = bf16} : (!hop.tensor<[3, 2], f32>) -> !hop.tensor<[3, 2], bf16>
  %xb = aten._to_copy(%x) {dtype = bf16} : (!hop.tensor<[4, 2], f32>) -> !hop.tensor<[4, 2], bf16>
  %ct = aten.t_copy(%c) : (!hop.tensor<[3, 2], bf16>) -> !hop.tensor<[2, 3], bf16>
  %z = aten.mm(%xb, %ct) : (!hop.tensor<[4, 2], bf16>, !hop.tensor<[2, 3], bf16>) -> !hop.tensor<[4, 3], bf16>
  func.return %y, %z : !hop.tensor<[4, 3], f32>, !hop.tensor<[4, 3], bf16>
}

// -----

// Must not fold: a random op on a parameter (it draws anew on every call),
// and an op with a symbolic result size (a constant's size is static); the
// parameter they read stays readable as a constant.
// CHECK-LABEL: builtin.module
// CHECK:         hop.constant @w
// CHECK:         func.func @random_and_symbolic(%x: !hop.tensor<[s0], f32>)
// CHECK:         %[[W:.*]] = hop.get_constant @w
// CHECK:         aten.rand_like(%[[W]])
// CHECK:         aten.expand_copy(%[[W]]) {size = [#hop.expr<s0>]}
hop.symbol @s0 backed [2, oo] hint 3
hop.parameter @w = dense<[2.0]> : tensor<1xf32> : !hop.tensor<[1], f32>
func.func @random_and_symbolic(%x: !hop.tensor<[s0], f32>, %w: !hop.tensor<[1], f32> {hop.parameter = @w}) -> (!hop.tensor<[1], f32>, !hop.tensor<[s0], f32>) {
  %r = aten.rand_like(%w) : (!hop.tensor<[1], f32>) -> !hop.tensor<[1], f32>
  %e = aten.expand_copy(%w) {size = [#hop.expr<s0>]} : (!hop.tensor<[1], f32>) -> !hop.tensor<[s0], f32>
  %y = aten.mul.Tensor(%x, %e) : (!hop.tensor<[s0], f32>, !hop.tensor<[s0], f32>) -> !hop.tensor<[s0], f32>
  func.return %r, %y : !hop.tensor<[1], f32>, !hop.tensor<[s0], f32>
}

// -----

// Nothing to fold: no global, and ops on user inputs only; the module is unchanged.
// CHECK-LABEL: builtin.module
// CHECK-NEXT:    func.func @nothing(%x: !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
// CHECK-NEXT:      %[[S:.*]] = aten.sin(%x)
// CHECK-NEXT:      func.return %[[S]]
func.func @nothing(%x: !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32> {
  %s = aten.sin(%x) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
  func.return %s : !hop.tensor<[4], f32>
}

// -----

// A user output that is a constant is returned as a copy: the constant is
// shared by every call, and the caller may change what it gets.
// CHECK-LABEL: builtin.module
// CHECK:         func.func @constant_output() -> !hop.tensor<[2], f32>
// CHECK-NEXT:      %[[D:.*]] = hop.get_constant @[[F:.*]] : !hop.tensor<[2], f32>
// CHECK-NEXT:      %[[C:.*]] = aten.clone(%[[D]])
// CHECK-NEXT:      func.return %[[C]]
hop.parameter @w = dense<[1.0, 2.0]> : tensor<2xf32> : !hop.tensor<[2], f32>
func.func @constant_output(%w: !hop.tensor<[2], f32> {hop.parameter = @w}) -> !hop.tensor<[2], f32> {
  %d = aten.mul.Scalar(%w) {other = 2.0 : f64} : (!hop.tensor<[2], f32>) -> !hop.tensor<[2], f32>
  func.return %d : !hop.tensor<[2], f32>
}
