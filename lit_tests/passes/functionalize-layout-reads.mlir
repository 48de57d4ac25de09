// RUN: hopc-opt %s --functionalize --split-input-file | filecheck %s

// The storage offset of y[k:] is eager's 4*k (its type), computed from %k;
// the slice's copy starts its own storage, and reading it would give 0.
// CHECK-LABEL: func.func @offset_of_a_slice
// CHECK:         %[[FOUR:.*]] = hop.sym_constant : !hop.symint<4>
// CHECK-NEXT:    %[[OFFSET:.*]] = hop.sym_mul %[[FOUR]], %k : !hop.symint<4>, !hop.symint<u0> -> !hop.symint<4*u0>
// CHECK-NOT:     aten.sym_storage_offset
// CHECK:         aten.slice_copy.Tensor(%x)
// CHECK:         func.return %[[OFFSET]], %{{.*}} : !hop.symint<4*u0>, !hop.tensor<[s0 - u0, 4], f32>
hop.symbol @s0 backed [2, oo]
hop.symbol @u0 unbacked [0, oo]
func.func @offset_of_a_slice(%x: !hop.tensor<[s0, 4], f32>, %k: !hop.symint<u0>) -> (!hop.symint<4*u0>, !hop.tensor<[s0 - u0, 4], f32>) {
  %tail = aten.slice.Tensor(%x) {start = #hop.expr<u0>, end = 9223372036854775807 : i64} : (!hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0 - u0, 4], f32>
  %offset = aten.sym_storage_offset(%tail) : (!hop.tensor<[s0 - u0, 4], f32>) -> !hop.symint<4*u0>
  %cos = aten.cos(%tail) : (!hop.tensor<[s0 - u0, 4], f32>) -> !hop.tensor<[s0 - u0, 4], f32>
  func.return %offset, %cos : !hop.symint<4*u0>, !hop.tensor<[s0 - u0, 4], f32>
}

// -----

// The strides of a transpose are eager's (1 and 4), not its copy's (3 and 1);
// no copy is made for them.
// CHECK-LABEL: func.func @stride_of_a_transpose
// CHECK-NEXT:    %[[INNER:.*]] = hop.sym_constant : !hop.symint<1>
// CHECK-NEXT:    %[[OUTER:.*]] = hop.sym_constant : !hop.symint<4>
// CHECK-NEXT:    func.return %[[INNER]], %[[OUTER]]
func.func @stride_of_a_transpose(%x: !hop.tensor<[3, 4], f32>) -> (!hop.symint<1>, !hop.symint<4>) {
  %t = aten.t(%x) : (!hop.tensor<[3, 4], f32>) -> !hop.tensor<[4, 3], f32>
  %inner = aten.sym_stride.int(%t) {dim = 0 : i64} : (!hop.tensor<[4, 3], f32>) -> !hop.symint<1>
  %outer = aten.sym_stride.int(%t) {dim = 1 : i64} : (!hop.tensor<[4, 3], f32>) -> !hop.symint<4>
  func.return %inner, %outer : !hop.symint<1>, !hop.symint<4>
}

// -----

// Dynamo names the offset of y[k:] afresh (u1) and checks only u1 >= 0, which
// every storage offset passes: the read and its check go (eager's value is
// known to the view alone), the slice stays for what reads its elements.
// CHECK-LABEL: func.func @offset_only_the_read_defines
// CHECK-NOT:     aten.sym_storage_offset
// CHECK-NOT:     hop.assert
// CHECK:         %[[TAIL:.*]] = aten.slice_copy.Tensor(%x)
// CHECK-NEXT:    aten.cos(%[[TAIL]])
hop.symbol @s0 backed [2, oo]
hop.symbol @u0 unbacked [0, oo]
hop.symbol @u1 unbacked [-oo, oo]
func.func @offset_only_the_read_defines(%x: !hop.tensor<[s0, 4], f32>, %k: !hop.symint<u0>) -> !hop.tensor<[s0 - u0, 4], f32> {
  %tail = aten.slice.Tensor(%x) {start = #hop.expr<u0>, end = 9223372036854775807 : i64} : (!hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0 - u0, 4], f32>
  %offset = aten.sym_storage_offset(%tail) : (!hop.tensor<[s0 - u0, 4], f32>) -> !hop.symint<u1>
  %zero = hop.sym_constant : !hop.symint<0>
  %positive = hop.sym_ge %offset, %zero : !hop.symint<u1>, !hop.symint<0> -> !hop.symbool<Ge(u1, 0)>
  hop.assert %positive, "Runtime assertion failed for expression u1 >= 0" : !hop.symbool<Ge(u1, 0)>
  %cos = aten.cos(%tail) : (!hop.tensor<[s0 - u0, 4], f32>) -> !hop.tensor<[s0 - u0, 4], f32>
  func.return %cos : !hop.tensor<[s0 - u0, 4], f32>
}

// -----

// Must not change: the layout of a value that is no view (an op's result, an
// input) is read from the value itself.
// CHECK-LABEL: func.func @no_view
// CHECK:         %[[SIN:.*]] = aten.sin(%x)
// CHECK-NEXT:    aten.sym_storage_offset(%[[SIN]])
// CHECK-NEXT:    aten.sym_stride.int(%x) {dim = 0 : i64}
hop.symbol @s0 backed [2, oo]
func.func @no_view(%x: !hop.tensor<[s0, 4], f32>) -> (!hop.symint<0>, !hop.symint<4>) {
  %sin = aten.sin(%x) : (!hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32>
  %offset = aten.sym_storage_offset(%sin) : (!hop.tensor<[s0, 4], f32>) -> !hop.symint<0>
  %stride = aten.sym_stride.int(%x) {dim = 0 : i64} : (!hop.tensor<[s0, 4], f32>) -> !hop.symint<4>
  func.return %offset, %stride : !hop.symint<0>, !hop.symint<4>
}
