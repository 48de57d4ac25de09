// RUN: hopc-opt --autograd --split-input-file %s | filecheck %s

// Slices at a size read from data train as eager's slice_backward: the
// derivative is traced with the unbacked symbols unbacked and told the asserts
// of the block (Note [data-dependent derivatives] in
// hopc.passes.autograd.derivative_facts).

// x[:k] at a k Dynamo knows nothing of: the rows are a fresh u1 in [0, s0].
// CHECK-LABEL: func.func @backward
// CHECK:         %[[EXPANDED:.*]] = aten.expand_copy(%tangent) {size = [#hop.expr<u1>, 4 : i64]
// CHECK-NEXT:    aten.slice_backward(%[[EXPANDED]]) {input_sizes = [#hop.expr<s0>, 4 : i64], dim = 0 : i64, start = 0 : i64, end = #hop.expr<u0>, step = 1 : i64
builtin.module {
  hop.symbol @s0 backed [2, oo] hint 6
  hop.symbol @u0 unbacked [-oo, oo]
  hop.symbol @u1 unbacked [0, oo]
  func.func @forward(%x: !hop.tensor<[s0, 4], f32> {hop.requires_grad}, %k: !hop.symint<u0>) -> !hop.tensor<[], f32> {
    %rows = aten.slice_copy.Tensor(%x) {start = 0 : i64, end = #hop.expr<u0>} : (!hop.tensor<[s0, 4], f32>) -> !hop.tensor<[u1, 4], f32>
    %size = hop.sym_size %rows[0] : !hop.tensor<[u1, 4], f32> -> !hop.symint<u1>
    %zero = hop.sym_constant : !hop.symint<0>
    %nonnegative = hop.sym_ge %size, %zero : !hop.symint<u1>, !hop.symint<0> -> !hop.symbool<Ge(u1, 0)>
    hop.assert %nonnegative, "u1 >= 0" : !hop.symbool<Ge(u1, 0)>
    %sum = aten.sum(%rows) : (!hop.tensor<[u1, 4], f32>) -> !hop.tensor<[], f32>
    func.return %sum : !hop.tensor<[], f32>
  }
}

// -----

// x[k:] at a k the program checked to be in [0, s0]: the rows are s0 - u0.
// CHECK-LABEL: func.func @backward
// CHECK:         aten.slice_backward(%{{.*}}) {input_sizes = [#hop.expr<s0>, 4 : i64], dim = 0 : i64, start = #hop.expr<u0>, end = 9223372036854775807 : i64, step = 1 : i64
builtin.module {
  hop.symbol @s0 backed [2, oo] hint 6
  hop.symbol @u0 unbacked [0, oo]
  func.func @forward(%x: !hop.tensor<[s0, 4], f32> {hop.requires_grad}, %k: !hop.symint<u0>, %n: !hop.symint<s0>) -> !hop.tensor<[], f32> {
    %within = hop.sym_le %k, %n : !hop.symint<u0>, !hop.symint<s0> -> !hop.symbool<Le(u0, s0)>
    hop.assert %within, "u0 <= s0" : !hop.symbool<Le(u0, s0)>
    %rows = aten.slice_copy.Tensor(%x) {start = #hop.expr<u0>, end = 9223372036854775807 : i64} : (!hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0 - u0, 4], f32>
    %sum = aten.sum(%rows) : (!hop.tensor<[s0 - u0, 4], f32>) -> !hop.tensor<[], f32>
    func.return %sum : !hop.tensor<[], f32>
  }
}

// -----

// x[:k] declared [k, 4]: the assert k <= s0 is what makes the trace's rows k, not
// Min(s0, k) (without it: lit_tests/passes/autograd/invalid.mlir).
// CHECK-LABEL: func.func @backward
// CHECK:         aten.slice_backward(%{{.*}}) {input_sizes = [#hop.expr<s0>, 4 : i64], dim = 0 : i64, start = 0 : i64, end = #hop.expr<u0>, step = 1 : i64
builtin.module {
  hop.symbol @s0 backed [2, oo] hint 6
  hop.symbol @u0 unbacked [0, oo]
  func.func @forward(%x: !hop.tensor<[s0, 4], f32> {hop.requires_grad}, %k: !hop.symint<u0>, %n: !hop.symint<s0>) -> !hop.tensor<[], f32> {
    %within = hop.sym_le %k, %n : !hop.symint<u0>, !hop.symint<s0> -> !hop.symbool<Le(u0, s0)>
    hop.assert %within, "u0 <= s0" : !hop.symbool<Le(u0, s0)>
    %rows = aten.slice_copy.Tensor(%x) {start = 0 : i64, end = #hop.expr<u0>} : (!hop.tensor<[s0, 4], f32>) -> !hop.tensor<[u0, 4], f32>
    %sum = aten.sum(%rows) : (!hop.tensor<[u0, 4], f32>) -> !hop.tensor<[], f32>
    func.return %sum : !hop.tensor<[], f32>
  }
}
