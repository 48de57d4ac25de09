// RUN: hopc-opt %s --plan-memory --split-input-file | filecheck %s

// An extern op with an out overload (aten.mm.out) writes into a buffer; one
// without (aten.isfinite) allocates its own result, so no buffer, and nothing
// is written over its operand.
builtin.module attributes {kernel.device = "cpu"} {
  kernel.kernel @mm "extern" {
  ^bb0(%a: !hop.tensor<[8, 4], f32>, %b: !hop.tensor<[4, 8], f32>):
    %m = aten.mm(%a, %b) : (!hop.tensor<[8, 4], f32>, !hop.tensor<[4, 8], f32>) -> !hop.tensor<[8, 8], f32>
    kernel.yield %m : !hop.tensor<[8, 8], f32>
  }
  kernel.kernel @isfinite "extern" {
  ^bb0(%a: !hop.tensor<[8, 8], f32>):
    %f = aten.isfinite(%a) : (!hop.tensor<[8, 8], f32>) -> !hop.tensor<[8, 8], i1>
    kernel.yield %f : !hop.tensor<[8, 8], i1>
  }
  func.func @extern_out_variants(%x: !hop.tensor<[8, 4], f32>, %y: !hop.tensor<[4, 8], f32>) -> !hop.tensor<[8, 8], i1> {
    %m = kernel.launch @mm(%x, %y) : (!hop.tensor<[8, 4], f32>, !hop.tensor<[4, 8], f32>) -> !hop.tensor<[8, 8], f32>
    %f = kernel.launch @isfinite(%m) : (!hop.tensor<[8, 8], f32>) -> !hop.tensor<[8, 8], i1>
    func.return %f : !hop.tensor<[8, 8], i1>
  }
}
// CHECK-LABEL: func.func @extern_out_variants
// CHECK-SAME:    attributes {kernel.peak_bytes = 256 : i64}
// CHECK:         %[[BUF:.*]] = kernel.alloc() : () -> !kernel.buffer<[8, 8], f32, [8, 1], cpu>
// CHECK-NEXT:    %[[M:.*]] = kernel.launch @mm(%{{.*}}, %{{.*}}) into(%[[BUF]] :
// CHECK-NEXT:    kernel.launch @isfinite(%[[M]]) :
// CHECK-NOT:     kernel.alloc

// -----

// Must not plan a data-dependent shape: aten.nonzero allocates its own result
// (its size u0 is known only once it ran). The pointwise launch after it gets
// a buffer of that size, allocated after the launch that binds u0, its size a
// hop.sym_size of the nonzero's result.
builtin.module attributes {kernel.device = "cpu"} {
  hop.symbol @u0 unbacked [0, oo]
  hop.symbol @k0 backed [0, oo]
  kernel.kernel @nonzero "extern" {
  ^bb0(%a: !hop.tensor<[8], f32>):
    %n = aten.nonzero(%a) : (!hop.tensor<[8], f32>) -> !hop.tensor<[u0, 1], i64>
    kernel.yield %n : !hop.tensor<[u0, 1], i64>
  }
  kernel.kernel @double "pointwise" {
  ^bb0(%a: !hop.tensor<[k0, 1], i64>):
    %d = aten.mul.Scalar(%a) {other = 2 : i64} : (!hop.tensor<[k0, 1], i64>) -> !hop.tensor<[k0, 1], i64>
    kernel.yield %d : !hop.tensor<[k0, 1], i64>
  }
  func.func @data_dependent_shape(%x: !hop.tensor<[8], f32>) -> !hop.tensor<[u0, 1], i64> {
    %i = kernel.launch @nonzero(%x) : (!hop.tensor<[8], f32>) -> !hop.tensor<[u0, 1], i64>
    %d = kernel.launch @double(%i) : (!hop.tensor<[u0, 1], i64>) -> !hop.tensor<[u0, 1], i64>
    func.return %d : !hop.tensor<[u0, 1], i64>
  }
}
// CHECK-LABEL: func.func @data_dependent_shape
// CHECK-SAME:    attributes {kernel.peak_bytes = #hop.expr<8*u0>}
// CHECK-NEXT:    %[[I:.*]] = kernel.launch @nonzero(%{{.*}}) :
// CHECK-NEXT:    %[[U:.*]] = hop.sym_size %[[I]][0] : !hop.tensor<[u0, 1], i64> -> !hop.symint<u0>
// CHECK-NEXT:    %[[BUF:.*]] = kernel.alloc(%[[U]]) : (!hop.symint<u0>) -> !kernel.buffer<[u0, 1], i64, [1, 1], cpu>
// CHECK-NEXT:    kernel.launch @double(%[[I]]) into(%[[BUF]] :

// -----

// Must not plan aten.matmul of a 1-d first operand: PyTorch's matmul.out
// writes a [1, 3] mm into its out and squeezes it, resizing a [3] buffer on
// the way (deprecated). A matmul of two 2-d operands is planned.
builtin.module attributes {kernel.device = "cpu"} {
  kernel.kernel @row_times_matrix "extern" {
  ^bb0(%a: !hop.tensor<[3], f32>, %b: !hop.tensor<[3, 3], f32>):
    %m = aten.matmul(%a, %b) : (!hop.tensor<[3], f32>, !hop.tensor<[3, 3], f32>) -> !hop.tensor<[3], f32>
    kernel.yield %m : !hop.tensor<[3], f32>
  }
  kernel.kernel @matrix_times_matrix "extern" {
  ^bb0(%a: !hop.tensor<[3, 3], f32>, %b: !hop.tensor<[3, 3], f32>):
    %m = aten.matmul(%a, %b) : (!hop.tensor<[3, 3], f32>, !hop.tensor<[3, 3], f32>) -> !hop.tensor<[3, 3], f32>
    kernel.yield %m : !hop.tensor<[3, 3], f32>
  }
  func.func @matmul_of_a_row(%row: !hop.tensor<[3], f32>, %w: !hop.tensor<[3, 3], f32>) -> (!hop.tensor<[3], f32>, !hop.tensor<[3, 3], f32>) {
    %r = kernel.launch @row_times_matrix(%row, %w) : (!hop.tensor<[3], f32>, !hop.tensor<[3, 3], f32>) -> !hop.tensor<[3], f32>
    %s = kernel.launch @matrix_times_matrix(%w, %w) : (!hop.tensor<[3, 3], f32>, !hop.tensor<[3, 3], f32>) -> !hop.tensor<[3, 3], f32>
    func.return %r, %s : !hop.tensor<[3], f32>, !hop.tensor<[3, 3], f32>
  }
}
// CHECK-LABEL: func.func @matmul_of_a_row
// CHECK-NEXT:    %[[R:.*]] = kernel.launch @row_times_matrix(%{{.*}}, %{{.*}}) : (!hop.tensor<[3], f32>, !hop.tensor<[3, 3], f32>) -> !hop.tensor<[3], f32>
// CHECK-NEXT:    %[[BUF:.*]] = kernel.alloc() : () -> !kernel.buffer<[3, 3], f32, [3, 1], cpu>
// CHECK-NEXT:    %[[S:.*]] = kernel.launch @matrix_times_matrix(%{{.*}}, %{{.*}}) into(%[[BUF]] :
