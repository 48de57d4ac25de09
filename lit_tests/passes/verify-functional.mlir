// RUN: hopc-opt %s --verify-functional --split-input-file --verify-diagnostics | filecheck %s

// A functional module, with views as copies and regions: passes, unchanged.
// CHECK-LABEL: func.func @functional
// CHECK: aten.select_copy.int
// CHECK: hop.cond
// CHECK: aten.select_scatter
func.func @functional(%p: !hop.tensor<[], i1>, %x: !hop.tensor<[3, 4], f32>) -> !hop.tensor<[3, 4], f32> {
  %row = aten.select_copy.int(%x) {dim = 0 : i64, index = 0 : i64} : (!hop.tensor<[3, 4], f32>) -> !hop.tensor<[4], f32>
  %r = hop.cond %p (%row) : !hop.tensor<[], i1>, (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32> then {
  ^bb0(%a: !hop.tensor<[4], f32>):
    %0 = aten.sin(%a) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
    hop.yield %0 : !hop.tensor<[4], f32>
  } else {
  ^bb0(%a: !hop.tensor<[4], f32>):
    %0 = aten.cos(%a) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
    hop.yield %0 : !hop.tensor<[4], f32>
  }
  %1 = aten.select_scatter(%x, %r) {dim = 0 : i64, index = 0 : i64} : (!hop.tensor<[3, 4], f32>, !hop.tensor<[4], f32>) -> !hop.tensor<[3, 4], f32>
  func.return %1 : !hop.tensor<[3, 4], f32>
}

// -----

// An in-place op in a nested region is found.
func.func @in_place_in_region(%p: !hop.tensor<[], i1>, %x: !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32> {
  %r = hop.cond %p (%x) : !hop.tensor<[], i1>, (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32> then {
  ^bb0(%a: !hop.tensor<[4], f32>):
    %0 = hop.wrap(%a) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32> {
    ^bb0(%b: !hop.tensor<[4], f32>):
      // expected-error @+1 {{'aten.relu_' op changes its argument self in place; the module is not functional}}
      %1 = aten.relu_(%b) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
      hop.yield %1 : !hop.tensor<[4], f32>
    }
    hop.yield %0 : !hop.tensor<[4], f32>
  } else {
  ^bb0(%a: !hop.tensor<[4], f32>):
    hop.yield %a : !hop.tensor<[4], f32>
  }
  func.return %r : !hop.tensor<[4], f32>
}

// -----

// out= ops mutate their out argument.
func.func @out_variant(%a: !hop.tensor<[4], f32>, %out: !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32> {
  // expected-error @+1 {{'aten.neg.out' op changes its argument out in place}}
  %0 = aten.neg.out(%a, %out) : (!hop.tensor<[4], f32>, !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
  func.return %0 : !hop.tensor<[4], f32>
}

// -----

// A view aliases its operand.
func.func @view(%x: !hop.tensor<[4], f32>) -> !hop.tensor<[2, 2], f32> {
  // expected-error @+1 {{'aten.view' op returns a view of its operand; the module is not functional}}
  %0 = aten.view(%x) {size = [2, 2]} : (!hop.tensor<[4], f32>) -> !hop.tensor<[2, 2], f32>
  func.return %0 : !hop.tensor<[2, 2], f32>
}

// -----

// Batch norm in training mode writes its running statistics (its schema does
// not say so); in eval mode it is functional.
func.func @batch_norm_training(%x: !hop.tensor<[2, 3], f32>, %mean: !hop.tensor<[3], f32>, %var: !hop.tensor<[3], f32>) -> !hop.tensor<[2, 3], f32> {
  %e = aten.batch_norm(%x, none, none, %mean, %var) {training = false, momentum = 1.000000e-01 : f64, eps = 1.000000e-05 : f64, cudnn_enabled = true} : (!hop.tensor<[2, 3], f32>, !hop.tensor<[3], f32>, !hop.tensor<[3], f32>) -> !hop.tensor<[2, 3], f32>
  // expected-error @+1 {{'aten.batch_norm' op changes running_mean, running_var in place (its schema does not say so); the module is not functional}}
  %t = aten.batch_norm(%e, none, none, %mean, %var) {training = true, momentum = 1.000000e-01 : f64, eps = 1.000000e-05 : f64, cudnn_enabled = true} : (!hop.tensor<[2, 3], f32>, !hop.tensor<[3], f32>, !hop.tensor<[3], f32>) -> !hop.tensor<[2, 3], f32>
  func.return %t : !hop.tensor<[2, 3], f32>
}
