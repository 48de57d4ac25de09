// RUN: hopc-opt %s --plan-memory --split-input-file | filecheck %s

// Dynamic shapes: the alloc takes a symint of each symbol of its type, a new
// hop.sym_size of an argument for s0, the symint in scope for s1; the peak is
// an expression over the symbols.
builtin.module attributes {kernel.device = "cpu"} {
  hop.symbol @s0 backed [2, oo] hint 5
  hop.symbol @s1 backed [2, oo] hint 3
  kernel.kernel @outer "pointwise" {
  ^bb0(%a: !hop.tensor<[s0, 1], f32>, %b: !hop.tensor<[s1], f32>):
    %s = aten.mul.Tensor(%a, %b) : (!hop.tensor<[s0, 1], f32>, !hop.tensor<[s1], f32>) -> !hop.tensor<[s0, s1], f32>
    kernel.yield %s : !hop.tensor<[s0, s1], f32>
  }
  kernel.kernel @sum "reduction" {
  ^bb0(%a: !hop.tensor<[s0, s1], f32>):
    %s = aten.sum.dim_IntList(%a) {dim = [1]} : (!hop.tensor<[s0, s1], f32>) -> !hop.tensor<[s0], f32>
    kernel.yield %s : !hop.tensor<[s0], f32>
  }
  func.func @dynamic(%x: !hop.tensor<[s0, 1], f32>, %y: !hop.tensor<[s1], f32>) -> !hop.tensor<[s0], f32> {
    %n = hop.sym_size %y[0] : !hop.tensor<[s1], f32> -> !hop.symint<s1>
    %o = kernel.launch @outer(%x, %y) : (!hop.tensor<[s0, 1], f32>, !hop.tensor<[s1], f32>) -> !hop.tensor<[s0, s1], f32>
    %s = kernel.launch @sum(%o) : (!hop.tensor<[s0, s1], f32>) -> !hop.tensor<[s0], f32>
    func.return %s : !hop.tensor<[s0], f32>
  }
}
// CHECK-LABEL: func.func @dynamic
// CHECK-SAME:    (%[[X:.*]]: !hop.tensor<[s0, 1], f32>, %{{.*}}: !hop.tensor<[s1], f32>)
// CHECK-SAME:    attributes {kernel.peak_bytes = #hop.expr<4*s0*s1 + 4*s0>}
// CHECK-NEXT:    %[[S1:.*]] = hop.sym_size %{{.*}}[0] : !hop.tensor<[s1], f32> -> !hop.symint<s1>
// CHECK-NEXT:    %[[S0:.*]] = hop.sym_size %[[X]][0] : !hop.tensor<[s0, 1], f32> -> !hop.symint<s0>
// CHECK-NEXT:    %[[BUF_O:.*]] = kernel.alloc(%[[S0]], %[[S1]]) : (!hop.symint<s0>, !hop.symint<s1>) -> !kernel.buffer<[s0, s1], f32, [s1, 1], cpu>
// CHECK-NEXT:    %[[O:.*]] = kernel.launch @outer({{.*}}) into(%[[BUF_O]] :
// CHECK-NEXT:    %[[BUF_S:.*]] = kernel.alloc(%[[S0]]) : (!hop.symint<s0>) -> !kernel.buffer<[s0], f32, [1], cpu>
// CHECK-NEXT:    kernel.launch @sum(%[[O]]) into(%[[BUF_S]] :

// -----

// An unbacked size: the alloc comes after the hop.item that defines u0 and
// takes its result.
builtin.module attributes {kernel.device = "cpu"} {
  hop.symbol @u0 unbacked [0, oo]
  hop.symbol @k0 backed [0, oo]
  kernel.kernel @fill "pointwise" {
  ^bb0(%a: !hop.tensor<[4], f32>, %n: !hop.symint<k0>):
    %e = aten.expand_copy(%a) {size = [#hop.expr<k0>, 4]} : (!hop.tensor<[4], f32>) -> !hop.tensor<[k0, 4], f32>
    %s = aten.sin(%e) : (!hop.tensor<[k0, 4], f32>) -> !hop.tensor<[k0, 4], f32>
    kernel.yield %s : !hop.tensor<[k0, 4], f32>
  }
  func.func @unbacked(%t: !hop.tensor<[], i64>, %w: !hop.tensor<[4], f32>) -> !hop.tensor<[u0, 4], f32> {
    %u = hop.item %t : !hop.tensor<[], i64> -> !hop.symint<u0>
    %r = kernel.launch @fill(%w, %u) : (!hop.tensor<[4], f32>, !hop.symint<u0>) -> !hop.tensor<[u0, 4], f32>
    func.return %r : !hop.tensor<[u0, 4], f32>
  }
}
// CHECK-LABEL: func.func @unbacked
// CHECK-NEXT:    %[[U:.*]] = hop.item
// CHECK-NEXT:    %[[BUF:.*]] = kernel.alloc(%[[U]]) : (!hop.symint<u0>) -> !kernel.buffer<[u0, 4], f32, [4, 1], cpu>
// CHECK-NEXT:    kernel.launch @fill(%{{.*}}, %[[U]]) into(%[[BUF]] :
