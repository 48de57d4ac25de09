// RUN: hopc-opt %s -p 'freeze{report=true}' -o %t 2>&1 | filecheck %s

// report=true writes what was frozen, what was kept and why, and how many
// ops folded, to stderr.
// CHECK:      freeze: froze @w
// CHECK-NEXT: freeze: kept @count: the program changes it (result 1 is copied back to it)
// CHECK-NEXT: freeze: folded 1 ATen ops
hop.parameter @w = dense<[1.0, 2.0]> : tensor<2xf32> : !hop.tensor<[2], f32>
hop.buffer @count = dense<0.0> : tensor<f32> : !hop.tensor<[], f32>
func.func @forward(%x: !hop.tensor<[2], f32>, %w: !hop.tensor<[2], f32> {hop.parameter = @w}, %count: !hop.tensor<[], f32> {hop.buffer = @count}) -> (!hop.tensor<[2], f32>, !hop.tensor<[], f32> {hop.copy_back_to = 2 : i64}) {
  %e = aten.exp(%w) : (!hop.tensor<[2], f32>) -> !hop.tensor<[2], f32>
  %y = aten.mul.Tensor(%x, %e) : (!hop.tensor<[2], f32>, !hop.tensor<[2], f32>) -> !hop.tensor<[2], f32>
  %n = aten.add.Scalar(%count) {other = 1.0 : f64} : (!hop.tensor<[], f32>) -> !hop.tensor<[], f32>
  func.return %y, %n : !hop.tensor<[2], f32>, !hop.tensor<[], f32>
}
