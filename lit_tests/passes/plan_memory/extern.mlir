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
