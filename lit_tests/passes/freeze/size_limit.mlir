// RUN: hopc-opt %s -p 'freeze{max-constant-bytes=16}' | filecheck %s

// With folded constants limited to 16 bytes, the transpose of the weight (24
// bytes) must not fold, nor what reads it; its sum (4 bytes) folds. The
// frozen weight itself is no folded value: the limit does not keep it an argument.
// CHECK-LABEL: builtin.module
// CHECK:         hop.constant @w
// CHECK:         hop.constant @[[SUM:folded.*]] = dense<2.100000e+01> : tensor<f32>
// CHECK:         func.func @limited(%x: !hop.tensor<[2, 3], f32>)
// CHECK:         %[[W:.*]] = hop.get_constant @w
// CHECK:         %[[T:.*]] = aten.t_copy(%[[W]])
// CHECK:         %[[D:.*]] = aten.mul.Scalar(%[[T]])
// CHECK:         %[[S:.*]] = hop.get_constant @[[SUM]]
// CHECK-NOT:     aten.sum
hop.parameter @w = dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]> : tensor<3x2xf32> : !hop.tensor<[3, 2], f32>
func.func @limited(%x: !hop.tensor<[2, 3], f32>, %w: !hop.tensor<[3, 2], f32> {hop.parameter = @w}) -> (!hop.tensor<[2, 3], f32>, !hop.tensor<[], f32>) {
  %t = aten.t_copy(%w) : (!hop.tensor<[3, 2], f32>) -> !hop.tensor<[2, 3], f32>
  %d = aten.mul.Scalar(%t) {other = 2.0 : f64} : (!hop.tensor<[2, 3], f32>) -> !hop.tensor<[2, 3], f32>
  %y = aten.add.Tensor(%x, %d) : (!hop.tensor<[2, 3], f32>, !hop.tensor<[2, 3], f32>) -> !hop.tensor<[2, 3], f32>
  %s = aten.sum(%w) : (!hop.tensor<[3, 2], f32>) -> !hop.tensor<[], f32>
  func.return %y, %s : !hop.tensor<[2, 3], f32>, !hop.tensor<[], f32>
}
