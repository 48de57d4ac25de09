// RUN: hopc-opt %s --convert-hop-to-kernel --split-input-file | filecheck %s

// A `_copy` view read only by matrix products of its block is a real view
// again: no copy, and the product reads its strides.
// CHECK-LABEL: builtin.module
// CHECK:       kernel.kernel @extern_t "extern" {
// CHECK-NEXT:  ^bb0(%{{.*}}: !hop.tensor<[4, 8], f32>):
// CHECK-NEXT:    aten.t(
// CHECK:       func.func @f
// CHECK-NEXT:    %[[T:.*]] = kernel.launch @extern_t(%w)
// CHECK-NEXT:    kernel.launch @extern_mm(%x, %[[T]])
builtin.module {
  func.func @f(%x: !hop.tensor<[2, 8], f32>, %w: !hop.tensor<[4, 8], f32>) -> !hop.tensor<[2, 4], f32> {
    %t = aten.t_copy(%w) : (!hop.tensor<[4, 8], f32>) -> !hop.tensor<[8, 4], f32>
    %m = aten.mm(%x, %t) : (!hop.tensor<[2, 8], f32>, !hop.tensor<[8, 4], f32>) -> !hop.tensor<[2, 4], f32>
    func.return %m : !hop.tensor<[2, 4], f32>
  }
}

// -----

// Must not fire: a pointwise op lays its result out as its operand is, and
// the functional level promised the copy's contiguous layout (an output's
// strides would change).
// CHECK-LABEL: builtin.module
// CHECK:       kernel.kernel @extern_t_copy "extern"
// CHECK-NOT:   aten.t(
builtin.module {
  func.func @f(%x: !hop.tensor<[4, 8], f32>) -> !hop.tensor<[8, 4], f32> {
    %t = aten.t_copy(%x) : (!hop.tensor<[4, 8], f32>) -> !hop.tensor<[8, 4], f32>
    %s = aten.mul.Scalar(%t) {other = 3 : i64} : (!hop.tensor<[8, 4], f32>) -> !hop.tensor<[8, 4], f32>
    func.return %s : !hop.tensor<[8, 4], f32>
  }
}

// -----

// Must not fire: the view is returned (the caller would get an alias of its
// argument) or read by a host region op (a loop or branch would see it).
// CHECK-LABEL: builtin.module
// CHECK:       kernel.kernel @extern_t_copy "extern"
// CHECK:       kernel.kernel @extern_view_copy "extern"
// CHECK-NOT:   aten.t(
// CHECK-NOT:   aten.view(
builtin.module {
  func.func @f(%p: !hop.tensor<[], i1>, %x: !hop.tensor<[4, 8], f32>) -> (!hop.tensor<[8, 4], f32>, !hop.tensor<[32], f32>) {
    %t = aten.t_copy(%x) : (!hop.tensor<[4, 8], f32>) -> !hop.tensor<[8, 4], f32>
    %v = aten.view_copy(%x) {size = [32 : i64]} : (!hop.tensor<[4, 8], f32>) -> !hop.tensor<[32], f32>
    %c = hop.cond %p(%v) : !hop.tensor<[], i1>, (!hop.tensor<[32], f32>) -> !hop.tensor<[32], f32> then {
    ^bb0(%0: !hop.tensor<[32], f32>):
      hop.yield %0 : !hop.tensor<[32], f32>
    } else {
    ^bb0(%1: !hop.tensor<[32], f32>):
      %n = aten.neg(%1) : (!hop.tensor<[32], f32>) -> !hop.tensor<[32], f32>
      hop.yield %n : !hop.tensor<[32], f32>
    }
    func.return %t, %c : !hop.tensor<[8, 4], f32>, !hop.tensor<[32], f32>
  }
}
