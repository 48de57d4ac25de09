// RUN: hopc-opt %s --freeze --split-input-file | filecheck %s

// A loop-invariant computation on a constant in a while body folds once: the
// transposed weight is a constant the body reads, and the additional operand
// is gone. The ops on the carried value must not fold: it changes per run.
// CHECK-LABEL: builtin.module
// CHECK:         hop.constant @[[WT:folded.*]] = dense<{{\[\[}}0.000000e+00, 2.000000e+00], [1.000000e+00, 0.000000e+00]]>
// CHECK:         func.func @invariant_in_body(%x: !hop.tensor<[2], f32>)
// CHECK:         hop.while(%x) : (!hop.tensor<[2], f32>) -> !hop.tensor<[2], f32> cond {
// CHECK-NEXT:    ^bb0(%[[A:.*]]: !hop.tensor<[2], f32>):
// CHECK-NEXT:      %[[S:.*]] = aten.sum(%[[A]])
// CHECK:         } body {
// CHECK-NEXT:    ^bb0(%[[B:.*]]: !hop.tensor<[2], f32>):
// CHECK-NEXT:      %[[T:.*]] = hop.get_constant @[[WT]]
// CHECK-NEXT:      %[[ABS:.*]] = aten.abs(%[[B]])
// CHECK-NEXT:      %[[N:.*]] = aten.mv(%[[T]], %[[ABS]])
// CHECK-NEXT:      %[[P:.*]] = aten.add.Scalar(%[[N]]) {other = 1.000000e+00 : f64}
// CHECK-NEXT:      hop.yield %[[P]]
hop.parameter @w = dense<[[0.0, 1.0], [2.0, 0.0]]> : tensor<2x2xf32> : !hop.tensor<[2, 2], f32>
func.func @invariant_in_body(%x: !hop.tensor<[2], f32>, %w: !hop.tensor<[2, 2], f32> {hop.parameter = @w}) -> !hop.tensor<[2], f32> {
  %r = hop.while(%x) additional(%w) : (!hop.tensor<[2], f32>) -> !hop.tensor<[2], f32>, !hop.tensor<[2, 2], f32> cond {
  ^bb0(%a: !hop.tensor<[2], f32>, %m: !hop.tensor<[2, 2], f32>):
    %total = aten.sum(%a) : (!hop.tensor<[2], f32>) -> !hop.tensor<[], f32>
    %go = aten.lt.Scalar(%total) {other = 100.0 : f64} : (!hop.tensor<[], f32>) -> !hop.tensor<[], i1>
    hop.yield %go : !hop.tensor<[], i1>
  } body {
  ^bb0(%b: !hop.tensor<[2], f32>, %m: !hop.tensor<[2, 2], f32>):
    %t = aten.t_copy(%m) : (!hop.tensor<[2, 2], f32>) -> !hop.tensor<[2, 2], f32>
    %abs = aten.abs(%b) : (!hop.tensor<[2], f32>) -> !hop.tensor<[2], f32>
    %n = aten.mv(%t, %abs) : (!hop.tensor<[2, 2], f32>, !hop.tensor<[2], f32>) -> !hop.tensor<[2], f32>
    %p = aten.add.Scalar(%n) {other = 1.0 : f64} : (!hop.tensor<[2], f32>) -> !hop.tensor<[2], f32>
    hop.yield %p : !hop.tensor<[2], f32>
  }
  func.return %r : !hop.tensor<[2], f32>
}

// -----

// A while whose condition is false on entry (the counter starts at the
// constant 5, the loop runs while it is below 3) disappears: its results are
// the initial carried values.
// CHECK-LABEL: builtin.module
// CHECK:         func.func @false_on_entry(%x: !hop.tensor<[2], f32>)
// CHECK-NOT:     hop.while
// CHECK:         func.return %x
hop.constant @start = dense<5> : tensor<i64> : !hop.tensor<[], i64>
func.func @false_on_entry(%x: !hop.tensor<[2], f32>, %i0: !hop.tensor<[], i64> {hop.constant = @start}) -> !hop.tensor<[2], f32> {
  %i, %r = hop.while(%i0, %x) : (!hop.tensor<[], i64>, !hop.tensor<[2], f32>) -> (!hop.tensor<[], i64>, !hop.tensor<[2], f32>) cond {
  ^bb0(%k: !hop.tensor<[], i64>, %a: !hop.tensor<[2], f32>):
    %go = aten.lt.Scalar(%k) {other = 3 : i64} : (!hop.tensor<[], i64>) -> !hop.tensor<[], i1>
    hop.yield %go : !hop.tensor<[], i1>
  } body {
  ^bb0(%k: !hop.tensor<[], i64>, %a: !hop.tensor<[2], f32>):
    %next = aten.add.Scalar(%k) {other = 1 : i64} : (!hop.tensor<[], i64>) -> !hop.tensor<[], i64>
    %b = aten.sin(%a) : (!hop.tensor<[2], f32>) -> !hop.tensor<[2], f32>
    hop.yield %next, %b : !hop.tensor<[], i64>, !hop.tensor<[2], f32>
  }
  func.return %r : !hop.tensor<[2], f32>
}

// -----

// Must not remove: the condition is true on entry (0 < 3); the loop stays,
// its counter still starting from the constant.
// CHECK-LABEL: builtin.module
// CHECK:         func.func @true_on_entry(%x: !hop.tensor<[2], f32>)
// CHECK:         %[[I0:.*]] = hop.get_constant @start
// CHECK:         hop.while(%[[I0]], %x)
// CHECK:         aten.lt.Scalar
// CHECK:         aten.sin
hop.constant @start = dense<0> : tensor<i64> : !hop.tensor<[], i64>
func.func @true_on_entry(%x: !hop.tensor<[2], f32>, %i0: !hop.tensor<[], i64> {hop.constant = @start}) -> !hop.tensor<[2], f32> {
  %i, %r = hop.while(%i0, %x) : (!hop.tensor<[], i64>, !hop.tensor<[2], f32>) -> (!hop.tensor<[], i64>, !hop.tensor<[2], f32>) cond {
  ^bb0(%k: !hop.tensor<[], i64>, %a: !hop.tensor<[2], f32>):
    %go = aten.lt.Scalar(%k) {other = 3 : i64} : (!hop.tensor<[], i64>) -> !hop.tensor<[], i1>
    hop.yield %go : !hop.tensor<[], i1>
  } body {
  ^bb0(%k: !hop.tensor<[], i64>, %a: !hop.tensor<[2], f32>):
    %next = aten.add.Scalar(%k) {other = 1 : i64} : (!hop.tensor<[], i64>) -> !hop.tensor<[], i64>
    %b = aten.sin(%a) : (!hop.tensor<[2], f32>) -> !hop.tensor<[2], f32>
    hop.yield %next, %b : !hop.tensor<[], i64>, !hop.tensor<[2], f32>
  }
  func.return %r : !hop.tensor<[2], f32>
}
