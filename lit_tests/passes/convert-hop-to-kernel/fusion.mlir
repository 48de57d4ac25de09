// RUN: hopc-opt %s --convert-hop-to-kernel --split-input-file | filecheck %s
// RUN: hopc-opt %s --convert-hop-to-kernel --split-input-file | hopc-opt --split-input-file | filecheck %s

// A pointwise chain with a broadcast operand is one kernel, launched once.
// CHECK-LABEL: builtin.module attributes {kernel.device = "cpu"}
// CHECK:       kernel.kernel @pointwise_mul_Tensor_sin "pointwise" {
// CHECK-NEXT:  ^bb0(%{{.*}}: !hop.tensor<[8, 16], f32>, %{{.*}}: !hop.tensor<[16], f32>):
// CHECK-NEXT:    aten.mul.Tensor
// CHECK-NEXT:    aten.sin
// CHECK-NEXT:    kernel.yield
// CHECK:       func.func @f(%x: {{.*}}, %w: {{.*}})
// CHECK-NEXT:    %[[R:.*]] = kernel.launch @pointwise_mul_Tensor_sin(%x, %w)
// CHECK-NEXT:    func.return %[[R]]
builtin.module {
  func.func @f(%x: !hop.tensor<[8, 16], f32>, %w: !hop.tensor<[16], f32>) -> !hop.tensor<[8, 16], f32> {
    %m = aten.mul.Tensor(%x, %w) : (!hop.tensor<[8, 16], f32>, !hop.tensor<[16], f32>) -> !hop.tensor<[8, 16], f32>
    %s = aten.sin(%m) : (!hop.tensor<[8, 16], f32>) -> !hop.tensor<[8, 16], f32>
    func.return %s : !hop.tensor<[8, 16], f32>
  }
}

// -----

// A reduction over the last dimension takes the pointwise ops before it as
// its prologue and those on its result as its epilogue.
// CHECK-LABEL: builtin.module
// CHECK:       kernel.kernel @reduction_exp_sum_dim_IntList_mul_Scalar "reduction" {
// CHECK:         aten.exp
// CHECK-NEXT:    aten.sum.dim_IntList
// CHECK-NEXT:    aten.mul.Scalar
// CHECK-NEXT:    kernel.yield %{{.*}} : !hop.tensor<[8], f32>
// CHECK:       func.func @f
// CHECK-NEXT:    kernel.launch @reduction_exp_sum_dim_IntList_mul_Scalar(%x)
// CHECK-NEXT:    func.return
builtin.module {
  func.func @f(%x: !hop.tensor<[8, 16], f32>) -> !hop.tensor<[8], f32> {
    %e = aten.exp(%x) : (!hop.tensor<[8, 16], f32>) -> !hop.tensor<[8, 16], f32>
    %s = aten.sum.dim_IntList(%e) {dim = [-1 : i64]} : (!hop.tensor<[8, 16], f32>) -> !hop.tensor<[8], f32>
    %h = aten.mul.Scalar(%s) {other = 5.000000e-01 : f64} : (!hop.tensor<[8], f32>) -> !hop.tensor<[8], f32>
    func.return %h : !hop.tensor<[8], f32>
  }
}

// -----

// Two reductions of one input are one kernel (horizontal fusion): the input
// is read once.
// CHECK-LABEL: builtin.module
// CHECK:       kernel.kernel @reduction_amax_sum_dim_IntList "reduction" {
// CHECK:         kernel.yield %{{.*}}, %{{.*}} : !hop.tensor<[8, 1], f32>, !hop.tensor<[8, 1], f32>
// CHECK:       func.func @f
// CHECK-NEXT:    %{{.*}}, %{{.*}} = kernel.launch @reduction_amax_sum_dim_IntList(%x)
builtin.module {
  func.func @f(%x: !hop.tensor<[8, 16], f32>) -> (!hop.tensor<[8, 1], f32>, !hop.tensor<[8, 1], f32>) {
    %m = aten.amax(%x) {dim = [-1 : i64], keepdim = true} : (!hop.tensor<[8, 16], f32>) -> !hop.tensor<[8, 1], f32>
    %s = aten.sum.dim_IntList(%x) {dim = [1 : i64], keepdim = true} : (!hop.tensor<[8, 16], f32>) -> !hop.tensor<[8, 1], f32>
    func.return %m, %s : !hop.tensor<[8, 1], f32>, !hop.tensor<[8, 1], f32>
  }
}

// -----

// Must not fuse: mm is a library op (an extern kernel of its own); the sum
// reduces dim 0, not the innermost one, so it is extern too; the tanh after
// mm starts a kernel of its own.
// CHECK-LABEL: builtin.module
// CHECK:       kernel.kernel @extern_mm "extern"
// CHECK:       kernel.kernel @pointwise_tanh "pointwise"
// CHECK:       kernel.kernel @extern_sum_dim_IntList "extern"
// CHECK:       func.func @f
// CHECK-NEXT:    %[[MM:.*]] = kernel.launch @extern_mm(%x, %w)
// CHECK-NEXT:    %[[T:.*]] = kernel.launch @pointwise_tanh(%[[MM]])
// CHECK-NEXT:    kernel.launch @extern_sum_dim_IntList(%[[T]])
builtin.module {
  func.func @f(%x: !hop.tensor<[8, 16], f32>, %w: !hop.tensor<[16, 16], f32>) -> !hop.tensor<[16], f32> {
    %mm = aten.mm(%x, %w) : (!hop.tensor<[8, 16], f32>, !hop.tensor<[16, 16], f32>) -> !hop.tensor<[8, 16], f32>
    %t = aten.tanh(%mm) : (!hop.tensor<[8, 16], f32>) -> !hop.tensor<[8, 16], f32>
    %s = aten.sum.dim_IntList(%t) {dim = [0 : i64]} : (!hop.tensor<[8, 16], f32>) -> !hop.tensor<[16], f32>
    func.return %s : !hop.tensor<[16], f32>
  }
}

// -----

// Must not fuse: the exp is read outside the reduction (returned), so it
// cannot be the reduction's prologue; the results' shapes differ, so they
// cannot share a pointwise kernel either.
// CHECK-LABEL: builtin.module
// CHECK:       kernel.kernel @pointwise_exp "pointwise"
// CHECK:       kernel.kernel @reduction_sum_dim_IntList "reduction"
// CHECK:       func.func @f
// CHECK-NEXT:    %[[E:.*]] = kernel.launch @pointwise_exp(%x)
// CHECK-NEXT:    kernel.launch @reduction_sum_dim_IntList(%[[E]])
builtin.module {
  func.func @f(%x: !hop.tensor<[8, 16], f32>) -> (!hop.tensor<[8, 16], f32>, !hop.tensor<[8], f32>) {
    %e = aten.exp(%x) : (!hop.tensor<[8, 16], f32>) -> !hop.tensor<[8, 16], f32>
    %s = aten.sum.dim_IntList(%e) {dim = [-1 : i64]} : (!hop.tensor<[8, 16], f32>) -> !hop.tensor<[8], f32>
    func.return %e, %s : !hop.tensor<[8, 16], f32>, !hop.tensor<[8], f32>
  }
}

// -----

// Must not fuse across a host reader: the cond reads %a, so the kernel
// computing it is launched before the cond, and the mul after it is a
// kernel of its own. Inside the branches the ops are converted too.
// CHECK-LABEL: builtin.module
// CHECK:       func.func @f
// CHECK-NEXT:    %[[A:.*]] = kernel.launch @pointwise_neg(%x)
// CHECK-NEXT:    hop.cond %p(%[[A]])
// CHECK:           kernel.launch @pointwise_sin
// CHECK:           kernel.launch @pointwise_cos
// CHECK:         kernel.launch @pointwise_mul_Tensor(%[[A]], %{{.*}})
builtin.module {
  func.func @f(%p: !hop.tensor<[], i1>, %x: !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32> {
    %a = aten.neg(%x) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
    %c = hop.cond %p(%a) : !hop.tensor<[], i1>, (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32> then {
    ^bb0(%0: !hop.tensor<[4], f32>):
      %s = aten.sin(%0) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
      hop.yield %s : !hop.tensor<[4], f32>
    } else {
    ^bb0(%1: !hop.tensor<[4], f32>):
      %k = aten.cos(%1) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
      hop.yield %k : !hop.tensor<[4], f32>
    }
    %r = aten.mul.Tensor(%a, %c) : (!hop.tensor<[4], f32>, !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
    func.return %r : !hop.tensor<[4], f32>
  }
}

// -----

// Dynamic sizes: the kernel takes the symbol as a !hop.symint argument and
// the launch passes its SSA value (taken from a new hop.sym_size); launches
// of the same computation in two places share one kernel.
// CHECK-LABEL: builtin.module
// CHECK:       kernel.kernel @pointwise_relu "pointwise" {
// CHECK-NEXT:  ^bb0(%{{.*}}: !hop.tensor<[s0, 4], f32>, %{{.*}}: !hop.symint<s0>):
// CHECK-NOT:   kernel.kernel
// CHECK:       func.func @f
// CHECK-NEXT:    %[[N:.*]] = hop.sym_size %x[0]
// CHECK-NEXT:    %[[A:.*]] = kernel.launch @pointwise_relu(%x, %[[N]])
// CHECK:         kernel.launch @pointwise_relu(%y, %{{.*}})
builtin.module {
  hop.symbol @s0 backed [2, oo] hint 5
  func.func @f(%x: !hop.tensor<[s0, 4], f32>, %y: !hop.tensor<[s0, 4], f32>) -> (!hop.tensor<[s0, 4], f32>, !hop.tensor<[s0, 4], f32>) {
    %a = aten.relu(%x) : (!hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32>
    %c = hop.sym_size %a[0] : !hop.tensor<[s0, 4], f32> -> !hop.symint<s0>
    %b = aten.relu(%y) : (!hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32>
    func.return %a, %b : !hop.tensor<[s0, 4], f32>, !hop.tensor<[s0, 4], f32>
  }
}

// -----

// A generated group nothing reads is dead (its ops are pure) and goes; an
// extern op nothing reads stays (a random op's draw counts).
// CHECK-LABEL: builtin.module
// CHECK-NOT:   aten.exp
// CHECK:       kernel.kernel @extern_rand_like "extern"
// CHECK:       func.func @f
// CHECK-NEXT:    kernel.launch @extern_rand_like(%x)
// CHECK-NEXT:    func.return %x
builtin.module {
  func.func @f(%x: !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32> {
    %e = aten.exp(%x) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
    %r = aten.rand_like(%x) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
    func.return %x : !hop.tensor<[4], f32>
  }
}
