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

// -----

// The peak of a cond is the largest of its branches' peaks for every value
// of the symbols: one Max of the function's candidates, none nested in a sum
// (the then branch holds 4*s1 + 4 bytes at once, the else branch 8*s0, and
// %a's 4*s0 stay live across the cond).
builtin.module attributes {kernel.device = "cpu"} {
  hop.symbol @s0 backed [2, oo] hint 5
  hop.symbol @s1 backed [2, oo] hint 3
  kernel.kernel @sin "pointwise" {
  ^bb0(%a: !hop.tensor<[s0], f32>):
    %s = aten.sin(%a) : (!hop.tensor<[s0], f32>) -> !hop.tensor<[s0], f32>
    kernel.yield %s : !hop.tensor<[s0], f32>
  }
  kernel.kernel @cos "pointwise" {
  ^bb0(%a: !hop.tensor<[s0], f32>):
    %s = aten.cos(%a) : (!hop.tensor<[s0], f32>) -> !hop.tensor<[s0], f32>
    kernel.yield %s : !hop.tensor<[s0], f32>
  }
  kernel.kernel @add "pointwise" {
  ^bb0(%a: !hop.tensor<[s0], f32>, %b: !hop.tensor<[s0], f32>):
    %s = aten.add.Tensor(%a, %b) : (!hop.tensor<[s0], f32>, !hop.tensor<[s0], f32>) -> !hop.tensor<[s0], f32>
    kernel.yield %s : !hop.tensor<[s0], f32>
  }
  kernel.kernel @sum "reduction" {
  ^bb0(%a: !hop.tensor<[s0], f32>):
    %s = aten.sum(%a) : (!hop.tensor<[s0], f32>) -> !hop.tensor<[], f32>
    kernel.yield %s : !hop.tensor<[], f32>
  }
  kernel.kernel @sin_1 "pointwise" {
  ^bb0(%a: !hop.tensor<[s1], f32>):
    %s = aten.sin(%a) : (!hop.tensor<[s1], f32>) -> !hop.tensor<[s1], f32>
    kernel.yield %s : !hop.tensor<[s1], f32>
  }
  kernel.kernel @sum_1 "reduction" {
  ^bb0(%a: !hop.tensor<[s1], f32>):
    %s = aten.sum(%a) : (!hop.tensor<[s1], f32>) -> !hop.tensor<[], f32>
    kernel.yield %s : !hop.tensor<[], f32>
  }
  func.func @branch_peaks(%p: !hop.tensor<[], i1>, %x: !hop.tensor<[s0], f32>, %y: !hop.tensor<[s1], f32>) -> (!hop.tensor<[], f32>, !hop.tensor<[s0], f32>) {
    %a = kernel.launch @sin(%x) : (!hop.tensor<[s0], f32>) -> !hop.tensor<[s0], f32>
    %r = hop.cond %p(%x, %y) : !hop.tensor<[], i1>, (!hop.tensor<[s0], f32>, !hop.tensor<[s1], f32>) -> !hop.tensor<[], f32> then {
    ^bb0(%u: !hop.tensor<[s0], f32>, %v: !hop.tensor<[s1], f32>):
      %s = kernel.launch @sin_1(%v) : (!hop.tensor<[s1], f32>) -> !hop.tensor<[s1], f32>
      %t = kernel.launch @sum_1(%s) : (!hop.tensor<[s1], f32>) -> !hop.tensor<[], f32>
      hop.yield %t : !hop.tensor<[], f32>
    } else {
    ^bb0(%u: !hop.tensor<[s0], f32>, %v: !hop.tensor<[s1], f32>):
      %s = kernel.launch @sin(%u) : (!hop.tensor<[s0], f32>) -> !hop.tensor<[s0], f32>
      %c = kernel.launch @cos(%u) : (!hop.tensor<[s0], f32>) -> !hop.tensor<[s0], f32>
      %d = kernel.launch @add(%s, %c) : (!hop.tensor<[s0], f32>, !hop.tensor<[s0], f32>) -> !hop.tensor<[s0], f32>
      %t = kernel.launch @sum(%d) : (!hop.tensor<[s0], f32>) -> !hop.tensor<[], f32>
      hop.yield %t : !hop.tensor<[], f32>
    }
    %b = kernel.launch @add(%a, %a) : (!hop.tensor<[s0], f32>, !hop.tensor<[s0], f32>) -> !hop.tensor<[s0], f32>
    func.return %r, %b : !hop.tensor<[], f32>, !hop.tensor<[s0], f32>
  }
}
// CHECK-LABEL: func.func @branch_peaks
// CHECK-SAME:    attributes {kernel.peak_bytes = #hop.expr<Max(12*s0, 4*s0 + 4*s1 + 4)>}
