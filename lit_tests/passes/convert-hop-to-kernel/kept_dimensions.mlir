// RUN: hopc-opt %s --convert-hop-to-kernel --split-input-file | filecheck %s

// A keepdim sum viewed without its kept dimension (a bias's gradient, from
// sum_to_size) is one sum that drops it: no view_copy, no copy.
// CHECK-LABEL: builtin.module
// CHECK:       kernel.kernel @extern_sum_dim_IntList "extern" {
// CHECK-NEXT:  ^bb0(%{{.*}}: !hop.tensor<[8, 16], f32>):
// CHECK-NEXT:    %v = aten.sum.dim_IntList(%{{.*}}) {dim = [0 : i64]} : (!hop.tensor<[8, 16], f32>) -> !hop.tensor<[16], f32>
// CHECK-NOT:   aten.view_copy
// CHECK:       func.func @f
// CHECK-NEXT:    %v = kernel.launch @extern_sum_dim_IntList(%g)
// CHECK-NEXT:    func.return %v
builtin.module {
  func.func @f(%g: !hop.tensor<[8, 16], f32>) -> !hop.tensor<[16], f32> {
    %s = aten.sum.dim_IntList(%g) {dim = [0 : i64], keepdim = true} : (!hop.tensor<[8, 16], f32>) -> !hop.tensor<[1, 16], f32>
    %v = aten.view_copy(%s) {size = [16 : i64]} : (!hop.tensor<[1, 16], f32>) -> !hop.tensor<[16], f32>
    func.return %v : !hop.tensor<[16], f32>
  }
}

// -----

// An innermost keepdim sum, likewise; it then fuses with its prologue.
// CHECK-LABEL: builtin.module
// CHECK:       kernel.kernel @reduction_exp_sum_dim_IntList "reduction" {
// CHECK:         aten.sum.dim_IntList(%{{.*}}) {dim = [-1 : i64]} : (!hop.tensor<[4, 8], f32>) -> !hop.tensor<[4], f32>
// CHECK-NOT:   aten.view_copy
builtin.module {
  func.func @f(%x: !hop.tensor<[4, 8], f32>) -> !hop.tensor<[4], f32> {
    %e = aten.exp(%x) : (!hop.tensor<[4, 8], f32>) -> !hop.tensor<[4, 8], f32>
    %s = aten.sum.dim_IntList(%e) {dim = [-1 : i64], keepdim = true} : (!hop.tensor<[4, 8], f32>) -> !hop.tensor<[4, 1], f32>
    %v = aten.view_copy(%s) {size = [4 : i64]} : (!hop.tensor<[4, 1], f32>) -> !hop.tensor<[4], f32>
    func.return %v : !hop.tensor<[4], f32>
  }
}

// -----

// Must not fire: another op reads the keepdim sum (it would be summed twice).
// CHECK-LABEL: builtin.module
// CHECK:         aten.sum.dim_IntList(%{{.*}}) {dim = [0 : i64], keepdim = true}
// CHECK:       kernel.kernel @extern_view_copy "extern"
builtin.module {
  func.func @f(%g: !hop.tensor<[8, 16], f32>) -> (!hop.tensor<[16], f32>, !hop.tensor<[1, 16], f32>) {
    %s = aten.sum.dim_IntList(%g) {dim = [0 : i64], keepdim = true} : (!hop.tensor<[8, 16], f32>) -> !hop.tensor<[1, 16], f32>
    %v = aten.view_copy(%s) {size = [16 : i64]} : (!hop.tensor<[1, 16], f32>) -> !hop.tensor<[16], f32>
    %n = aten.neg(%s) : (!hop.tensor<[1, 16], f32>) -> !hop.tensor<[1, 16], f32>
    func.return %v, %n : !hop.tensor<[16], f32>, !hop.tensor<[1, 16], f32>
  }
}

// -----

// Must not fire: the view is to another shape than the sum's without its
// kept dimension.
// CHECK-LABEL: builtin.module
// CHECK:         aten.sum.dim_IntList(%{{.*}}) {dim = [0 : i64], keepdim = true}
// CHECK:         aten.view_copy(%{{.*}}) {size = [2 : i64, 8 : i64]}
builtin.module {
  func.func @f(%g: !hop.tensor<[8, 16], f32>) -> !hop.tensor<[2, 8], f32> {
    %s = aten.sum.dim_IntList(%g) {dim = [0 : i64], keepdim = true} : (!hop.tensor<[8, 16], f32>) -> !hop.tensor<[1, 16], f32>
    %v = aten.view_copy(%s) {size = [2 : i64, 8 : i64]} : (!hop.tensor<[1, 16], f32>) -> !hop.tensor<[2, 8], f32>
    func.return %v : !hop.tensor<[2, 8], f32>
  }
}
