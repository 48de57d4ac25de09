// RUN: hopc-opt %s --freeze --split-input-file | hopc-opt --freeze --split-input-file | filecheck %s
// RUN: hopc-opt %s --freeze --freeze --split-input-file | filecheck %s

// Freezing a frozen module changes nothing: the copy of a constant output
// (Note [output copies stay]) reads only a constant, yet must not fold into a
// new constant (@folded_0) that would need its copy again.
// CHECK-LABEL: builtin.module
// CHECK-NEXT:    hop.constant @[[F:folded]] = dense<[2.000000e+00, 4.000000e+00]> : tensor<2xf32>
// CHECK-NOT:     hop.constant
// CHECK:         func.func @constant_output() -> !hop.tensor<[2], f32>
// CHECK-NEXT:      %[[D:.*]] = hop.get_constant @[[F]] : !hop.tensor<[2], f32>
// CHECK-NEXT:      %[[C:.*]] = aten.clone(%[[D]])
// CHECK-NEXT:      func.return %[[C]]
hop.parameter @w = dense<[1.0, 2.0]> : tensor<2xf32> : !hop.tensor<[2], f32>
func.func @constant_output(%w: !hop.tensor<[2], f32> {hop.parameter = @w}) -> !hop.tensor<[2], f32> {
  %d = aten.mul.Scalar(%w) {other = 2.0 : f64} : (!hop.tensor<[2], f32>) -> !hop.tensor<[2], f32>
  func.return %d : !hop.tensor<[2], f32>
}

// -----

// Must fold: a clone of a constant that another op reads is no output copy;
// it folds with what reads it, and only the output gets a copy.
// CHECK-LABEL: builtin.module
// CHECK-NEXT:    hop.constant @[[F:folded.*]] = dense<[3.000000e+00, 6.000000e+00]> : tensor<2xf32>
// CHECK-NOT:     hop.constant
// CHECK:         func.func @clone_read_by_an_op() -> !hop.tensor<[2], f32>
// CHECK-NEXT:      %[[D:.*]] = hop.get_constant @[[F]] : !hop.tensor<[2], f32>
// CHECK-NEXT:      %[[C:.*]] = aten.clone(%[[D]])
// CHECK-NEXT:      func.return %[[C]]
hop.parameter @w = dense<[1.0, 2.0]> : tensor<2xf32> : !hop.tensor<[2], f32>
func.func @clone_read_by_an_op(%w: !hop.tensor<[2], f32> {hop.parameter = @w}) -> !hop.tensor<[2], f32> {
  %c = aten.clone(%w) : (!hop.tensor<[2], f32>) -> !hop.tensor<[2], f32>
  %d = aten.mul.Scalar(%c) {other = 3.0 : f64} : (!hop.tensor<[2], f32>) -> !hop.tensor<[2], f32>
  func.return %d : !hop.tensor<[2], f32>
}

// -----

// A second freeze keeps what the first kept, for the same reason: the buffer
// the program changes stays an argument.
// CHECK-LABEL: builtin.module
// CHECK:         hop.buffer @count = {{.*}} {hop.not_frozen = "the program changes it (result 1 is copied back to it)"}
// CHECK:         func.func @counter(%x: !hop.tensor<[2], f32>, %count: !hop.tensor<[2], f32> {hop.buffer = @count})
hop.buffer @count = dense<[0.0, 0.0]> : tensor<2xf32> : !hop.tensor<[2], f32>
func.func @counter(%x: !hop.tensor<[2], f32>, %count: !hop.tensor<[2], f32> {hop.buffer = @count}) -> (!hop.tensor<[2], f32>, !hop.tensor<[2], f32> {hop.copy_back_to = 1 : i64}) {
  %n = aten.add.Tensor(%count, %x) : (!hop.tensor<[2], f32>, !hop.tensor<[2], f32>) -> !hop.tensor<[2], f32>
  func.return %x, %n : !hop.tensor<[2], f32>, !hop.tensor<[2], f32>
}
