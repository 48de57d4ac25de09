// RUN: hopc-opt %s --pass-pipeline='builtin.module(convert-hop-to-kernel{device=cuda})' --split-input-file | filecheck %s
// RUN: hopc-opt %s --pass-pipeline='builtin.module(convert-hop-to-kernel{conds-as-selects=always})' --split-input-file | filecheck %s
// RUN: hopc-opt %s --convert-hop-to-kernel --split-input-file | filecheck %s --check-prefix=CPU

// A small cond whose branches are pointwise becomes a select, fused with
// the ops around it into one kernel; the host never reads %p. On the CPU
// (the default, auto) the cond stays: reading %p costs less than running
// both branches.
// CHECK-LABEL: builtin.module
// CHECK:       kernel.kernel @pointwise_sin_cos_where_self_etc "pointwise" {
// CHECK:         aten.sin
// CHECK-NEXT:    aten.cos
// CHECK-NEXT:    aten.where.self
// CHECK-NEXT:    aten.mul.Scalar
// CHECK:       func.func @f
// CHECK-NOT:     hop.cond
// CHECK:         kernel.launch @pointwise_sin_cos_where_self_etc(%x, %p)
// CPU-LABEL:   builtin.module
// CPU:           hop.cond %p
builtin.module {
  func.func @f(%p: !hop.tensor<[], i1>, %x: !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32> {
    %c = hop.cond %p(%x) : !hop.tensor<[], i1>, (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32> then {
    ^bb0(%0: !hop.tensor<[4], f32>):
      %s = aten.sin(%0) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
      hop.yield %s : !hop.tensor<[4], f32>
    } else {
    ^bb0(%1: !hop.tensor<[4], f32>):
      %k = aten.cos(%1) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
      hop.yield %k : !hop.tensor<[4], f32>
    }
    %r = aten.mul.Scalar(%c) {other = 2 : i64} : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
    func.return %r : !hop.tensor<[4], f32>
  }
}

// -----

// Must not fire: a branch holds a matmul (running it when not taken costs
// more than the host's read of the predicate).
// CHECK-LABEL: builtin.module
// CHECK:       func.func @f
// CHECK:         hop.cond %p
// CHECK:           kernel.launch @extern_mm
// CPU-LABEL:   builtin.module
// CPU:           hop.cond %p
builtin.module {
  func.func @f(%p: !hop.tensor<[], i1>, %x: !hop.tensor<[4, 4], f32>) -> !hop.tensor<[4, 4], f32> {
    %c = hop.cond %p(%x) : !hop.tensor<[], i1>, (!hop.tensor<[4, 4], f32>) -> !hop.tensor<[4, 4], f32> then {
    ^bb0(%0: !hop.tensor<[4, 4], f32>):
      %s = aten.mm(%0, %0) : (!hop.tensor<[4, 4], f32>, !hop.tensor<[4, 4], f32>) -> !hop.tensor<[4, 4], f32>
      hop.yield %s : !hop.tensor<[4, 4], f32>
    } else {
    ^bb0(%1: !hop.tensor<[4, 4], f32>):
      hop.yield %1 : !hop.tensor<[4, 4], f32>
    }
    func.return %c : !hop.tensor<[4, 4], f32>
  }
}

// -----

// Must not fire: the predicate is a !hop.symbool, known on the host already.
// The launch inside the branch takes the branch's own size argument.
// CHECK-LABEL: builtin.module
// CHECK:         hop.cond
// CHECK-NEXT:    ^bb0(%{{.*}}: !hop.tensor<[s0], f32>, %[[M:.*]]: !hop.symint<s0>):
// CHECK-NEXT:      kernel.launch @pointwise_sin(%{{.*}}, %[[M]])
// CPU-LABEL:   builtin.module
// CPU:           hop.cond
builtin.module {
  hop.symbol @s0 backed [2, oo] hint 5
  func.func @f(%x: !hop.tensor<[s0], f32>) -> !hop.tensor<[s0], f32> {
    %n = hop.sym_size %x[0] : !hop.tensor<[s0], f32> -> !hop.symint<s0>
    %four = hop.sym_constant : !hop.symint<4>
    %b = hop.sym_gt %n, %four : !hop.symint<s0>, !hop.symint<4> -> !hop.symbool<Gt(s0, 4)>
    %c = hop.cond %b(%x, %n) : !hop.symbool<Gt(s0, 4)>, (!hop.tensor<[s0], f32>, !hop.symint<s0>) -> !hop.tensor<[s0], f32> then {
    ^bb0(%0: !hop.tensor<[s0], f32>, %m: !hop.symint<s0>):
      %s = aten.sin(%0) : (!hop.tensor<[s0], f32>) -> !hop.tensor<[s0], f32>
      hop.yield %s : !hop.tensor<[s0], f32>
    } else {
    ^bb0(%1: !hop.tensor<[s0], f32>, %m1: !hop.symint<s0>):
      hop.yield %1 : !hop.tensor<[s0], f32>
    }
    func.return %c : !hop.tensor<[s0], f32>
  }
}
