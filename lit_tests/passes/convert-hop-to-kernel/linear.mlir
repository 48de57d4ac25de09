// RUN: hopc-opt %s --convert-hop-to-kernel --split-input-file | filecheck %s

// addmm of a transposed weight is the linear it was decomposed from: one
// library call, no transpose.
// CHECK-LABEL: builtin.module
// CHECK:       kernel.kernel @extern_linear "extern" {
// CHECK:         aten.linear(%{{.*}}, %{{.*}}, %{{.*}}) : (!hop.tensor<[8, 16], f32>, !hop.tensor<[64, 16], f32>, !hop.tensor<[64], f32>) -> !hop.tensor<[8, 64], f32>
// CHECK-NOT:   aten.t
// CHECK:       func.func @f
// CHECK-NEXT:    %y = kernel.launch @extern_linear(%x, %w, %b)
// CHECK-NEXT:    func.return %y
builtin.module {
  func.func @f(%x: !hop.tensor<[8, 16], f32>, %w: !hop.tensor<[64, 16], f32>, %b: !hop.tensor<[64], f32>) -> !hop.tensor<[8, 64], f32> {
    %t = aten.t_copy(%w) : (!hop.tensor<[64, 16], f32>) -> !hop.tensor<[16, 64], f32>
    %y = aten.addmm(%b, %x, %t) : (!hop.tensor<[64], f32>, !hop.tensor<[8, 16], f32>, !hop.tensor<[16, 64], f32>) -> !hop.tensor<[8, 64], f32>
    func.return %y : !hop.tensor<[8, 64], f32>
  }
}

// -----

// Must not fire: addmm scales (linear has no beta or alpha), or the
// transposed weight is read elsewhere too (it is made anyway).
// CHECK-LABEL: builtin.module
// CHECK-NOT:   aten.linear
// CHECK:       func.func @f
// CHECK:         kernel.launch @extern_addmm(
// CHECK:         kernel.launch @extern_addmm_1(
builtin.module {
  func.func @f(%x: !hop.tensor<[8, 16], f32>, %w: !hop.tensor<[64, 16], f32>, %v: !hop.tensor<[64, 16], f32>, %b: !hop.tensor<[64], f32>) -> (!hop.tensor<[8, 64], f32>, !hop.tensor<[8, 64], f32>, !hop.tensor<[16, 64], f32>) {
    %t = aten.t_copy(%w) : (!hop.tensor<[64, 16], f32>) -> !hop.tensor<[16, 64], f32>
    %y = aten.addmm(%b, %x, %t) {beta = 2 : i64} : (!hop.tensor<[64], f32>, !hop.tensor<[8, 16], f32>, !hop.tensor<[16, 64], f32>) -> !hop.tensor<[8, 64], f32>
    %u = aten.t_copy(%v) : (!hop.tensor<[64, 16], f32>) -> !hop.tensor<[16, 64], f32>
    %z = aten.addmm(%b, %x, %u) : (!hop.tensor<[64], f32>, !hop.tensor<[8, 16], f32>, !hop.tensor<[16, 64], f32>) -> !hop.tensor<[8, 64], f32>
    func.return %y, %z, %u : !hop.tensor<[8, 64], f32>, !hop.tensor<[8, 64], f32>, !hop.tensor<[16, 64], f32>
  }
}
