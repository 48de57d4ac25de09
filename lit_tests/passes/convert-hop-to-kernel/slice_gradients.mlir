// RUN: hopc-opt %s --convert-hop-to-kernel --split-input-file | filecheck %s

// Slice gradients tiling a dimension (a qkv split's backward: out of order,
// the last slice's end as PyTorch writes `x[:, 8:]`, the first's start
// negative), summed, are one cat of the slices' gradients by start.
// CHECK-LABEL: builtin.module
// CHECK-NOT:   aten.slice_backward
// CHECK:       kernel.kernel @extern_cat "extern"
// CHECK:         aten.cat([%{{.*}}, %{{.*}}, %{{.*}}]) {dim = 1 : i64}
// CHECK:       func.func @f
// CHECK-NEXT:    %t = kernel.launch @extern_cat(%q, %k, %v)
// CHECK-NEXT:    func.return %t
builtin.module {
  func.func @f(%q: !hop.tensor<[2, 4], f32>, %k: !hop.tensor<[2, 4], f32>, %v: !hop.tensor<[2, 4], f32>) -> !hop.tensor<[2, 12], f32> {
    %c = aten.slice_backward(%v) {input_sizes = [2 : i64, 12 : i64], dim = 1 : i64, start = 8 : i64, end = 9223372036854775807 : i64, step = 1 : i64} : (!hop.tensor<[2, 4], f32>) -> !hop.tensor<[2, 12], f32>
    %b = aten.slice_backward(%k) {input_sizes = [2 : i64, 12 : i64], dim = 1 : i64, start = 4 : i64, end = 8 : i64, step = 1 : i64} : (!hop.tensor<[2, 4], f32>) -> !hop.tensor<[2, 12], f32>
    %s = aten.add.Tensor(%c, %b) : (!hop.tensor<[2, 12], f32>, !hop.tensor<[2, 12], f32>) -> !hop.tensor<[2, 12], f32>
    %a = aten.slice_backward(%q) {input_sizes = [2 : i64, 12 : i64], dim = 1 : i64, start = -12 : i64, end = 4 : i64, step = 1 : i64} : (!hop.tensor<[2, 4], f32>) -> !hop.tensor<[2, 12], f32>
    %t = aten.add.Tensor(%s, %a) : (!hop.tensor<[2, 12], f32>, !hop.tensor<[2, 12], f32>) -> !hop.tensor<[2, 12], f32>
    func.return %t : !hop.tensor<[2, 12], f32>
  }
}

// -----

// Must not fire: a gap (columns 4 to 8 would be the zeros the sum has).
// CHECK-LABEL: builtin.module
// CHECK-NOT:   aten.cat
// CHECK:       kernel.launch @pointwise_add_Tensor
builtin.module {
  func.func @f(%q: !hop.tensor<[2, 4], f32>, %v: !hop.tensor<[2, 4], f32>) -> !hop.tensor<[2, 12], f32> {
    %a = aten.slice_backward(%q) {input_sizes = [2 : i64, 12 : i64], dim = 1 : i64, start = 0 : i64, end = 4 : i64, step = 1 : i64} : (!hop.tensor<[2, 4], f32>) -> !hop.tensor<[2, 12], f32>
    %c = aten.slice_backward(%v) {input_sizes = [2 : i64, 12 : i64], dim = 1 : i64, start = 8 : i64, end = 12 : i64, step = 1 : i64} : (!hop.tensor<[2, 4], f32>) -> !hop.tensor<[2, 12], f32>
    %t = aten.add.Tensor(%a, %c) : (!hop.tensor<[2, 12], f32>, !hop.tensor<[2, 12], f32>) -> !hop.tensor<[2, 12], f32>
    func.return %t : !hop.tensor<[2, 12], f32>
  }
}

// -----

// Must not fire: an overlap (columns 4 to 8 are summed).
// CHECK-LABEL: builtin.module
// CHECK-NOT:   aten.cat
// CHECK:       kernel.launch @pointwise_add_Tensor
builtin.module {
  func.func @f(%q: !hop.tensor<[2, 8], f32>, %v: !hop.tensor<[2, 8], f32>) -> !hop.tensor<[2, 12], f32> {
    %a = aten.slice_backward(%q) {input_sizes = [2 : i64, 12 : i64], dim = 1 : i64, start = 0 : i64, end = 8 : i64, step = 1 : i64} : (!hop.tensor<[2, 8], f32>) -> !hop.tensor<[2, 12], f32>
    %c = aten.slice_backward(%v) {input_sizes = [2 : i64, 12 : i64], dim = 1 : i64, start = 4 : i64, end = 12 : i64, step = 1 : i64} : (!hop.tensor<[2, 8], f32>) -> !hop.tensor<[2, 12], f32>
    %t = aten.add.Tensor(%a, %c) : (!hop.tensor<[2, 12], f32>, !hop.tensor<[2, 12], f32>) -> !hop.tensor<[2, 12], f32>
    func.return %t : !hop.tensor<[2, 12], f32>
  }
}

// -----

// Must not fire: a slice gradient is read apart from the sum (it is
// computed anyway), or the slices have a step (they interleave).
// CHECK-LABEL: builtin.module
// CHECK-NOT:   aten.cat
// CHECK:       func.func @f
// CHECK:         kernel.launch @pointwise_add_Tensor
// CHECK:         kernel.launch @pointwise_add_Tensor
builtin.module {
  func.func @f(%q: !hop.tensor<[2, 6], f32>, %v: !hop.tensor<[2, 6], f32>, %e: !hop.tensor<[2, 6], f32>, %o: !hop.tensor<[2, 6], f32>) -> (!hop.tensor<[2, 12], f32>, !hop.tensor<[2, 12], f32>, !hop.tensor<[2, 12], f32>) {
    %a = aten.slice_backward(%q) {input_sizes = [2 : i64, 12 : i64], dim = 1 : i64, start = 0 : i64, end = 6 : i64, step = 1 : i64} : (!hop.tensor<[2, 6], f32>) -> !hop.tensor<[2, 12], f32>
    %c = aten.slice_backward(%v) {input_sizes = [2 : i64, 12 : i64], dim = 1 : i64, start = 6 : i64, end = 12 : i64, step = 1 : i64} : (!hop.tensor<[2, 6], f32>) -> !hop.tensor<[2, 12], f32>
    %t = aten.add.Tensor(%a, %c) : (!hop.tensor<[2, 12], f32>, !hop.tensor<[2, 12], f32>) -> !hop.tensor<[2, 12], f32>
    %x = aten.slice_backward(%e) {input_sizes = [2 : i64, 12 : i64], dim = 1 : i64, start = 0 : i64, end = 12 : i64, step = 2 : i64} : (!hop.tensor<[2, 6], f32>) -> !hop.tensor<[2, 12], f32>
    %y = aten.slice_backward(%o) {input_sizes = [2 : i64, 12 : i64], dim = 1 : i64, start = 1 : i64, end = 12 : i64, step = 2 : i64} : (!hop.tensor<[2, 6], f32>) -> !hop.tensor<[2, 12], f32>
    %u = aten.add.Tensor(%x, %y) : (!hop.tensor<[2, 12], f32>, !hop.tensor<[2, 12], f32>) -> !hop.tensor<[2, 12], f32>
    func.return %t, %a, %u : !hop.tensor<[2, 12], f32>, !hop.tensor<[2, 12], f32>, !hop.tensor<[2, 12], f32>
  }
}
