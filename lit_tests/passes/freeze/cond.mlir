// RUN: hopc-opt %s --freeze --split-input-file | filecheck %s

// A parameter used inside a branch and outside the cond: outside, the mm
// reads the constant; inside, the branch reads it through its own
// hop.get_constant (the operand is dropped), where the transpose folds. The
// else branch, on the input only, must not change.
// CHECK-LABEL: builtin.module
// CHECK:         hop.constant @w
// CHECK:         hop.constant @[[WT:folded.*]] = dense<{{\[\[}}1.000000e+00, 3.000000e+00], [2.000000e+00, 4.000000e+00]]>
// CHECK:         func.func @inside_and_outside(%p: !hop.tensor<[], i1>, %x: !hop.tensor<[2, 2], f32>)
// CHECK:         %[[W:.*]] = hop.get_constant @w
// CHECK:         %[[M:.*]] = aten.mm(%x, %[[W]])
// CHECK:         hop.cond %p(%[[M]]) : !hop.tensor<[], i1>, (!hop.tensor<[2, 2], f32>) -> !hop.tensor<[2, 2], f32> then {
// CHECK-NEXT:    ^bb0(%[[A:.*]]: !hop.tensor<[2, 2], f32>):
// CHECK-NEXT:      %[[T:.*]] = hop.get_constant @[[WT]]
// CHECK-NEXT:      %[[Y:.*]] = aten.mm(%[[A]], %[[T]])
// CHECK-NEXT:      hop.yield %[[Y]]
// CHECK-NEXT:    } else {
// CHECK-NEXT:    ^bb0(%[[B:.*]]: !hop.tensor<[2, 2], f32>):
// CHECK-NEXT:      %[[N:.*]] = aten.neg(%[[B]])
// CHECK-NEXT:      hop.yield %[[N]]
hop.parameter @w = dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32> : !hop.tensor<[2, 2], f32>
func.func @inside_and_outside(%p: !hop.tensor<[], i1>, %x: !hop.tensor<[2, 2], f32>, %w: !hop.tensor<[2, 2], f32> {hop.parameter = @w}) -> !hop.tensor<[2, 2], f32> {
  %m = aten.mm(%x, %w) : (!hop.tensor<[2, 2], f32>, !hop.tensor<[2, 2], f32>) -> !hop.tensor<[2, 2], f32>
  %r = hop.cond %p(%m, %w) : !hop.tensor<[], i1>, (!hop.tensor<[2, 2], f32>, !hop.tensor<[2, 2], f32>) -> !hop.tensor<[2, 2], f32> then {
  ^bb0(%a: !hop.tensor<[2, 2], f32>, %v: !hop.tensor<[2, 2], f32>):
    %t = aten.t_copy(%v) : (!hop.tensor<[2, 2], f32>) -> !hop.tensor<[2, 2], f32>
    %y = aten.mm(%a, %t) : (!hop.tensor<[2, 2], f32>, !hop.tensor<[2, 2], f32>) -> !hop.tensor<[2, 2], f32>
    hop.yield %y : !hop.tensor<[2, 2], f32>
  } else {
  ^bb0(%b: !hop.tensor<[2, 2], f32>, %v: !hop.tensor<[2, 2], f32>):
    %n = aten.neg(%b) : (!hop.tensor<[2, 2], f32>) -> !hop.tensor<[2, 2], f32>
    hop.yield %n : !hop.tensor<[2, 2], f32>
  }
  func.return %r : !hop.tensor<[2, 2], f32>
}

// -----

// A predicate computed from a parameter folds (sum(w) > 0 is true): the cond
// is its then branch, and the else branch is gone.
// CHECK-LABEL: builtin.module
// CHECK:         func.func @constant_predicate(%x: !hop.tensor<[2], f32>)
// CHECK-NOT:     hop.cond
// CHECK:         %[[S:.*]] = aten.sin(%x)
// CHECK-NOT:     aten.cos
// CHECK:         func.return %[[S]]
hop.parameter @w = dense<[1.0, 2.0]> : tensor<2xf32> : !hop.tensor<[2], f32>
func.func @constant_predicate(%x: !hop.tensor<[2], f32>, %w: !hop.tensor<[2], f32> {hop.parameter = @w}) -> !hop.tensor<[2], f32> {
  %total = aten.sum(%w) : (!hop.tensor<[2], f32>) -> !hop.tensor<[], f32>
  %p = aten.gt.Scalar(%total) {other = 0.0 : f64} : (!hop.tensor<[], f32>) -> !hop.tensor<[], i1>
  %r = hop.cond %p(%x) : !hop.tensor<[], i1>, (!hop.tensor<[2], f32>) -> !hop.tensor<[2], f32> then {
  ^bb0(%a: !hop.tensor<[2], f32>):
    %s = aten.sin(%a) : (!hop.tensor<[2], f32>) -> !hop.tensor<[2], f32>
    hop.yield %s : !hop.tensor<[2], f32>
  } else {
  ^bb0(%a: !hop.tensor<[2], f32>):
    %c = aten.cos(%a) : (!hop.tensor<[2], f32>) -> !hop.tensor<[2], f32>
    hop.yield %c : !hop.tensor<[2], f32>
  }
  func.return %r : !hop.tensor<[2], f32>
}

// -----

// Must not inline: the predicate reads the input. Both branches fold what
// reads only the constant; the index out of range in the else branch would
// fail if that branch ran, so it is not folded (folding fails no program).
// CHECK-LABEL: builtin.module
// CHECK:         func.func @input_predicate(%x: !hop.tensor<[2], f32>)
// CHECK:         hop.cond %{{.*}}() : !hop.tensor<[], i1>, () -> !hop.tensor<[], f32> then {
// CHECK-NEXT:      %[[E:.*]] = hop.get_constant @[[F:folded.*]] : !hop.tensor<[], f32>
// CHECK-NEXT:      hop.yield %[[E]]
// CHECK:         } else {
// CHECK-NEXT:      %[[W:.*]] = hop.get_constant @w
// CHECK-NEXT:      %[[B:.*]] = aten.select_copy.int(%[[W]]) {dim = 0 : i64, index = 5 : i64}
// CHECK-NEXT:      hop.yield %[[B]]
hop.parameter @w = dense<[1.0, 2.0]> : tensor<2xf32> : !hop.tensor<[2], f32>
func.func @input_predicate(%x: !hop.tensor<[2], f32>, %w: !hop.tensor<[2], f32> {hop.parameter = @w}) -> !hop.tensor<[], f32> {
  %total = aten.sum(%x) : (!hop.tensor<[2], f32>) -> !hop.tensor<[], f32>
  %p = aten.gt.Scalar(%total) {other = 0.0 : f64} : (!hop.tensor<[], f32>) -> !hop.tensor<[], i1>
  %r = hop.cond %p(%w) : !hop.tensor<[], i1>, (!hop.tensor<[2], f32>) -> !hop.tensor<[], f32> then {
  ^bb0(%a: !hop.tensor<[2], f32>):
    %e = aten.select_copy.int(%a) {dim = 0 : i64, index = 1 : i64} : (!hop.tensor<[2], f32>) -> !hop.tensor<[], f32>
    %f = aten.exp(%e) : (!hop.tensor<[], f32>) -> !hop.tensor<[], f32>
    hop.yield %f : !hop.tensor<[], f32>
  } else {
  ^bb0(%a: !hop.tensor<[2], f32>):
    %b = aten.select_copy.int(%a) {dim = 0 : i64, index = 5 : i64} : (!hop.tensor<[2], f32>) -> !hop.tensor<[], f32>
    hop.yield %b : !hop.tensor<[], f32>
  }
  func.return %r : !hop.tensor<[], f32>
}
