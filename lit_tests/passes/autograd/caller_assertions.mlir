// RUN: hopc-opt --autograd --split-input-file %s | filecheck %s
// RUN: hopc-opt --autograd --split-input-file %s | hopc-opt --split-input-file | filecheck %s

// A subgraph call is differentiated with a copy of its body that first asserts
// what the caller asserted of the call's operands before it (Note [assertions
// a caller checks] in hopc.passes.autograd.hops.caller_assertions).

// The body broadcasts a slice [u1, 4] against [s0, 4]; the caller asserts
// Eq(u1, s0) of the call's operands: the forward asserts it too, and the
// derivative of the body's mul is traced knowing it. The caller's assert on
// another read, u2, which no operand carries, is not copied.
// CHECK-LABEL: builtin.module
// CHECK:       hop.subgraph @region_forward_10_1 {
// CHECK-NEXT:  ^bb0(%rows: !hop.tensor<[u1, 4], f32>, %w: !hop.tensor<[s0, 4], f32>):
// CHECK-NEXT:    %[[ROWS:.*]] = hop.sym_size %rows[0] : !hop.tensor<[u1, 4], f32> -> !hop.symint<u1>
// CHECK-NEXT:    %[[WEIGHT_ROWS:.*]] = hop.sym_size %w[0] : !hop.tensor<[s0, 4], f32> -> !hop.symint<s0>
// CHECK-NEXT:    %[[FITS:.*]] = hop.sym_eq %[[ROWS]], %[[WEIGHT_ROWS]] : !hop.symint<u1>, !hop.symint<s0> -> !hop.symbool<Eq(u1, s0)>
// CHECK-NEXT:    hop.assert %[[FITS]], "Eq(u1, s0)" : !hop.symbool<Eq(u1, s0)>
// CHECK-NEXT:    aten.mul.Tensor(%rows, %w)
// CHECK-NOT:     hop.assert
// CHECK:       hop.subgraph @region_backward_10_1 {
// CHECK:       func.func @forward(
// CHECK:         hop.assert %{{.*}}, "Ge(u2, 0)"
// CHECK:         hop.assert %{{.*}}, "Eq(u1, s0)"
// CHECK-NEXT:    hop.invoke_subgraph @region_forward_10_1(%{{.*}}, %w)
builtin.module {
  hop.symbol @s0 backed [2, oo] hint 6
  hop.symbol @u0 unbacked [-oo, oo]
  hop.symbol @u1 unbacked [0, oo]
  hop.symbol @u2 unbacked [-oo, oo]
  hop.subgraph @region {
  ^bb0(%rows: !hop.tensor<[u1, 4], f32>, %w: !hop.tensor<[s0, 4], f32>):
    %product = aten.mul.Tensor(%rows, %w) : (!hop.tensor<[u1, 4], f32>, !hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32>
    %sum = aten.sum(%product) : (!hop.tensor<[s0, 4], f32>) -> !hop.tensor<[], f32>
    hop.yield %sum : !hop.tensor<[], f32>
  }
  func.func @forward(%x: !hop.tensor<[s0, 4], f32> {hop.requires_grad}, %w: !hop.tensor<[s0, 4], f32>, %k: !hop.symint<u0>, %count: !hop.tensor<[], i64>) -> !hop.tensor<[], f32> {
    %n = hop.item %count : !hop.tensor<[], i64> -> !hop.symint<u2>
    %zero = hop.sym_constant : !hop.symint<0>
    %read_nonnegative = hop.sym_ge %n, %zero : !hop.symint<u2>, !hop.symint<0> -> !hop.symbool<Ge(u2, 0)>
    hop.assert %read_nonnegative, "Ge(u2, 0)" : !hop.symbool<Ge(u2, 0)>
    %a = aten.slice_copy.Tensor(%x) {start = 0 : i64, end = #hop.expr<u0>} : (!hop.tensor<[s0, 4], f32>) -> !hop.tensor<[u1, 4], f32>
    %rows_a = hop.sym_size %a[0] : !hop.tensor<[u1, 4], f32> -> !hop.symint<u1>
    %rows_w = hop.sym_size %w[0] : !hop.tensor<[s0, 4], f32> -> !hop.symint<s0>
    %fits = hop.sym_eq %rows_a, %rows_w : !hop.symint<u1>, !hop.symint<s0> -> !hop.symbool<Eq(u1, s0)>
    hop.assert %fits, "Eq(u1, s0)" : !hop.symbool<Eq(u1, s0)>
    %p = hop.invoke_subgraph @region(%a, %w) : (!hop.tensor<[u1, 4], f32>, !hop.tensor<[s0, 4], f32>) -> !hop.tensor<[], f32>
    func.return %p : !hop.tensor<[], f32>
  }
}

// -----

// Must not copy: the caller asserts of the operand only after the call, which
// the body (no broadcast) does not need.
// CHECK-LABEL: builtin.module
// CHECK:       hop.subgraph @sines_forward_1_1 {
// CHECK-NEXT:  ^bb0(%rows: !hop.tensor<[u1, 4], f32>):
// CHECK-NEXT:    aten.sin(%rows)
// CHECK-NOT:     hop.assert
// CHECK:       hop.subgraph @sines_backward_1_1 {
builtin.module {
  hop.symbol @u0 unbacked [-oo, oo]
  hop.symbol @u1 unbacked [0, oo]
  hop.symbol @s0 backed [2, oo] hint 6
  hop.subgraph @sines {
  ^bb0(%rows: !hop.tensor<[u1, 4], f32>):
    %sines = aten.sin(%rows) : (!hop.tensor<[u1, 4], f32>) -> !hop.tensor<[u1, 4], f32>
    %sum = aten.sum(%sines) : (!hop.tensor<[u1, 4], f32>) -> !hop.tensor<[], f32>
    hop.yield %sum : !hop.tensor<[], f32>
  }
  func.func @forward(%x: !hop.tensor<[s0, 4], f32> {hop.requires_grad}, %k: !hop.symint<u0>) -> !hop.tensor<[], f32> {
    %a = aten.slice_copy.Tensor(%x) {start = 0 : i64, end = #hop.expr<u0>} : (!hop.tensor<[s0, 4], f32>) -> !hop.tensor<[u1, 4], f32>
    %p = hop.invoke_subgraph @sines(%a) : (!hop.tensor<[u1, 4], f32>) -> !hop.tensor<[], f32>
    %rows = hop.sym_size %a[0] : !hop.tensor<[u1, 4], f32> -> !hop.symint<u1>
    %one = hop.sym_constant : !hop.symint<1>
    %some = hop.sym_ge %rows, %one : !hop.symint<u1>, !hop.symint<1> -> !hop.symbool<Ge(u1, 1)>
    hop.assert %some, "Ge(u1, 1)" : !hop.symbool<Ge(u1, 1)>
    func.return %p : !hop.tensor<[], f32>
  }
}
