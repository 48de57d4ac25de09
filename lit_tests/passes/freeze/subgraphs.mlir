// RUN: hopc-opt %s --freeze --split-input-file | filecheck %s

// Every call of @f passes the same constant: the subgraph reads it itself,
// the argument and the operands are gone, and its transpose folds once in
// the shared body.
// CHECK-LABEL: builtin.module
// CHECK:         hop.subgraph @f {
// CHECK-NEXT:    ^bb0(%[[A:.*]]: !hop.tensor<[s0, 2], f32>):
// CHECK-NEXT:      %[[T:.*]] = hop.get_constant @[[WT:folded.*]] : !hop.tensor<[2, 2], f32>
// CHECK-NEXT:      %[[M:.*]] = aten.mm(%[[A]], %[[T]])
// CHECK:         func.func @same_constant(%x: !hop.tensor<[s0, 2], f32>, %y: !hop.tensor<[3, 2], f32>)
// CHECK-NEXT:      hop.invoke_subgraph @f(%x) : (!hop.tensor<[s0, 2], f32>) -> !hop.tensor<[s0, 2], f32>
// CHECK-NEXT:      hop.invoke_subgraph @f(%y) : (!hop.tensor<[3, 2], f32>) -> !hop.tensor<[3, 2], f32>
hop.symbol @s0 backed [2, oo] hint 4
hop.parameter @w = dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32> : !hop.tensor<[2, 2], f32>
hop.subgraph @f {
^bb0(%a: !hop.tensor<[s0, 2], f32>, %v: !hop.tensor<[2, 2], f32>):
  %t = aten.t_copy(%v) : (!hop.tensor<[2, 2], f32>) -> !hop.tensor<[2, 2], f32>
  %m = aten.mm(%a, %t) : (!hop.tensor<[s0, 2], f32>, !hop.tensor<[2, 2], f32>) -> !hop.tensor<[s0, 2], f32>
  hop.yield %m : !hop.tensor<[s0, 2], f32>
}
func.func @same_constant(%x: !hop.tensor<[s0, 2], f32>, %y: !hop.tensor<[3, 2], f32>, %w: !hop.tensor<[2, 2], f32> {hop.parameter = @w}) -> (!hop.tensor<[s0, 2], f32>, !hop.tensor<[3, 2], f32>) {
  %p = hop.invoke_subgraph @f(%x, %w) : (!hop.tensor<[s0, 2], f32>, !hop.tensor<[2, 2], f32>) -> !hop.tensor<[s0, 2], f32>
  %q = hop.invoke_subgraph @f(%y, %w) : (!hop.tensor<[3, 2], f32>, !hop.tensor<[2, 2], f32>) -> !hop.tensor<[3, 2], f32>
  func.return %p, %q : !hop.tensor<[s0, 2], f32>, !hop.tensor<[3, 2], f32>
}

// -----

// Must not enter @g: its calls pass different constants (@u, @v) in the same
// place, so the shared body keeps its argument; @g is called twice, as before.
// A subgraph whose result is a constant for every call makes each call's result
// that constant: @h folds whole, and its calls go.
// CHECK-LABEL: builtin.module
// CHECK:         hop.subgraph @g {
// CHECK-NEXT:    ^bb0(%[[V:.*]]: !hop.tensor<[2], f32>):
// CHECK-NEXT:      aten.exp(%[[V]])
// CHECK-NOT:     hop.subgraph @h
// CHECK:         func.func @different_constants()
// CHECK-DAG:       %[[U:.*]] = hop.get_constant @u
// CHECK-DAG:       %[[W:.*]] = hop.get_constant @v
// CHECK-DAG:       hop.invoke_subgraph @g(%[[U]])
// CHECK-DAG:       hop.invoke_subgraph @g(%[[W]])
// CHECK-NOT:       hop.invoke_subgraph @h
hop.parameter @u = dense<[1.0, 2.0]> : tensor<2xf32> : !hop.tensor<[2], f32>
hop.parameter @v = dense<[3.0, 4.0]> : tensor<2xf32> : !hop.tensor<[2], f32>
hop.subgraph @g {
^bb0(%a: !hop.tensor<[2], f32>):
  %e = aten.exp(%a) : (!hop.tensor<[2], f32>) -> !hop.tensor<[2], f32>
  hop.yield %e : !hop.tensor<[2], f32>
}
hop.subgraph @h {
^bb0(%a: !hop.tensor<[2], f32>):
  %n = aten.neg(%a) : (!hop.tensor<[2], f32>) -> !hop.tensor<[2], f32>
  hop.yield %n : !hop.tensor<[2], f32>
}
func.func @different_constants(%u: !hop.tensor<[2], f32> {hop.parameter = @u}, %v: !hop.tensor<[2], f32> {hop.parameter = @v}) -> (!hop.tensor<[2], f32>, !hop.tensor<[2], f32>, !hop.tensor<[2], f32>) {
  %p = hop.invoke_subgraph @g(%u) : (!hop.tensor<[2], f32>) -> !hop.tensor<[2], f32>
  %q = hop.invoke_subgraph @g(%v) : (!hop.tensor<[2], f32>) -> !hop.tensor<[2], f32>
  %r = hop.invoke_subgraph @h(%u) : (!hop.tensor<[2], f32>) -> !hop.tensor<[2], f32>
  func.return %p, %q, %r : !hop.tensor<[2], f32>, !hop.tensor<[2], f32>, !hop.tensor<[2], f32>
}
