// RUN: hopc-opt %s --freeze --split-input-file | filecheck %s

// A wrap whose body reads only the constant folds whole: its result is the
// constant, and the wrap is gone. The checkpoint's body folds what reads the
// constant (the operand goes) and must keep the op on its input.
// CHECK-LABEL: builtin.module
// CHECK:         hop.constant @[[D:folded.*]] = dense<[2.000000e+00, 4.000000e+00]>
// CHECK:         func.func @wrap_and_checkpoint(%x: !hop.tensor<[2], f32>)
// CHECK-NOT:     hop.wrap
// CHECK:         %[[W:.*]] = hop.get_constant @[[D]]
// CHECK:         %[[C:.*]] = hop.checkpoint(%x) : (!hop.tensor<[2], f32>) -> !hop.tensor<[2], f32> {
// CHECK-NEXT:    ^bb0(%[[A:.*]]: !hop.tensor<[2], f32>):
// CHECK-NEXT:      %[[K:.*]] = hop.get_constant @[[E:folded.*]] : !hop.tensor<[2], f32>
// CHECK-NEXT:      %[[M:.*]] = aten.mul.Tensor(%[[A]], %[[K]])
// CHECK-NEXT:      hop.yield %[[M]]
// CHECK:         %[[S:.*]] = aten.add.Tensor(%[[W]], %[[C]])
// CHECK:         func.return %[[S]]
hop.parameter @w = dense<[1.0, 2.0]> : tensor<2xf32> : !hop.tensor<[2], f32>
func.func @wrap_and_checkpoint(%x: !hop.tensor<[2], f32>, %w: !hop.tensor<[2], f32> {hop.parameter = @w}) -> !hop.tensor<[2], f32> {
  %d = hop.wrap(%w) : (!hop.tensor<[2], f32>) -> !hop.tensor<[2], f32> {
  ^bb0(%v: !hop.tensor<[2], f32>):
    %two = aten.mul.Scalar(%v) {other = 2.0 : f64} : (!hop.tensor<[2], f32>) -> !hop.tensor<[2], f32>
    hop.yield %two : !hop.tensor<[2], f32>
  }
  %c = hop.checkpoint(%x, %w) : (!hop.tensor<[2], f32>, !hop.tensor<[2], f32>) -> !hop.tensor<[2], f32> {
  ^bb0(%a: !hop.tensor<[2], f32>, %v: !hop.tensor<[2], f32>):
    %e = aten.exp(%v) : (!hop.tensor<[2], f32>) -> !hop.tensor<[2], f32>
    %m = aten.mul.Tensor(%a, %e) : (!hop.tensor<[2], f32>, !hop.tensor<[2], f32>) -> !hop.tensor<[2], f32>
    hop.yield %m : !hop.tensor<[2], f32>
  }
  %s = aten.add.Tensor(%d, %c) : (!hop.tensor<[2], f32>, !hop.tensor<[2], f32>) -> !hop.tensor<[2], f32>
  func.return %s : !hop.tensor<[2], f32>
}

// -----

// Scan and map: the additional operand (the weight) folds in the body; the
// sliced xs and the scan's carry must not (they change per step).
// CHECK-LABEL: builtin.module
// CHECK:         func.func @scan_and_map(%h0: !hop.tensor<[2], f32>, %xs: !hop.tensor<[3, 2], f32>)
// CHECK:         hop.scan init(%h0) xs(%xs) additional() : (!hop.tensor<[2], f32>), (!hop.tensor<[3, 2], f32>), () -> !hop.tensor<[2], f32>, !hop.tensor<[3, 2], f32> {
// CHECK-NEXT:    ^bb0(%[[C:.*]]: !hop.tensor<[2], f32>, %[[X:.*]]: !hop.tensor<[2], f32>):
// CHECK-NEXT:      %[[T:.*]] = hop.get_constant @[[WT:folded.*]] : !hop.tensor<[2, 2], f32>
// CHECK-NEXT:      %[[M:.*]] = aten.mv(%[[T]], %[[C]])
// CHECK:         hop.map xs(%xs) additional() : (!hop.tensor<[3, 2], f32>), () -> !hop.tensor<[3, 2], f32> {
// CHECK-NEXT:    ^bb0(%[[R:.*]]: !hop.tensor<[2], f32>):
// CHECK-NEXT:      %[[T2:.*]] = hop.get_constant @[[WT]] : !hop.tensor<[2, 2], f32>
// CHECK-NEXT:      aten.mv(%[[T2]], %[[R]])
hop.parameter @w = dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32> : !hop.tensor<[2, 2], f32>
func.func @scan_and_map(%h0: !hop.tensor<[2], f32>, %xs: !hop.tensor<[3, 2], f32>, %w: !hop.tensor<[2, 2], f32> {hop.parameter = @w}) -> (!hop.tensor<[2], f32>, !hop.tensor<[3, 2], f32>, !hop.tensor<[3, 2], f32>) {
  %h, %ys = hop.scan init(%h0) xs(%xs) additional(%w) : (!hop.tensor<[2], f32>), (!hop.tensor<[3, 2], f32>), (!hop.tensor<[2, 2], f32>) -> !hop.tensor<[2], f32>, !hop.tensor<[3, 2], f32> {
  ^bb0(%c: !hop.tensor<[2], f32>, %x: !hop.tensor<[2], f32>, %v: !hop.tensor<[2, 2], f32>):
    %t = aten.t_copy(%v) : (!hop.tensor<[2, 2], f32>) -> !hop.tensor<[2, 2], f32>
    %m = aten.mv(%t, %c) : (!hop.tensor<[2, 2], f32>, !hop.tensor<[2], f32>) -> !hop.tensor<[2], f32>
    %a = aten.add.Tensor(%m, %x) : (!hop.tensor<[2], f32>, !hop.tensor<[2], f32>) -> !hop.tensor<[2], f32>
    %n = aten.tanh(%a) : (!hop.tensor<[2], f32>) -> !hop.tensor<[2], f32>
    hop.yield %n, %a : !hop.tensor<[2], f32>, !hop.tensor<[2], f32>
  }
  %r = hop.map xs(%xs) additional(%w) : (!hop.tensor<[3, 2], f32>), (!hop.tensor<[2, 2], f32>) -> !hop.tensor<[3, 2], f32> {
  ^bb0(%row: !hop.tensor<[2], f32>, %v: !hop.tensor<[2, 2], f32>):
    %t = aten.t_copy(%v) : (!hop.tensor<[2, 2], f32>) -> !hop.tensor<[2, 2], f32>
    %m = aten.mv(%t, %row) : (!hop.tensor<[2, 2], f32>, !hop.tensor<[2], f32>) -> !hop.tensor<[2], f32>
    hop.yield %m : !hop.tensor<[2], f32>
  }
  func.return %h, %ys, %r : !hop.tensor<[2], f32>, !hop.tensor<[3, 2], f32>, !hop.tensor<[3, 2], f32>
}
