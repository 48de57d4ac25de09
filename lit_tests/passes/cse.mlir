// RUN: hopc-opt %s --cse --split-input-file | filecheck %s

// With no write anywhere, equal reads merge, in the function body and inside
// a region.
hop.symbol @s0 backed [2, oo]
func.func @reads_without_writes(%p: !hop.tensor<[], i1>, %x: !hop.tensor<[s0, 4], f32>) -> (!hop.tensor<[s0, 4], f32>, !hop.tensor<[s0, 4], f32>, !hop.tensor<[s0, 4], f32>) {
  %a = aten.add.Tensor(%x, %x) : (!hop.tensor<[s0, 4], f32>, !hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32>
  %b = aten.add.Tensor(%x, %x) : (!hop.tensor<[s0, 4], f32>, !hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32>
  %r = hop.cond %p(%a, %x) : !hop.tensor<[], i1>, (!hop.tensor<[s0, 4], f32>, !hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32> then {
  ^bb0(%y: !hop.tensor<[s0, 4], f32>, %z: !hop.tensor<[s0, 4], f32>):
    %c = aten.add.Tensor(%z, %z) : (!hop.tensor<[s0, 4], f32>, !hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32>
    %e = aten.add.Tensor(%z, %z) : (!hop.tensor<[s0, 4], f32>, !hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32>
    %d = aten.mul.Tensor(%c, %e) : (!hop.tensor<[s0, 4], f32>, !hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32>
    hop.yield %d : !hop.tensor<[s0, 4], f32>
  } else {
  ^bb0(%y: !hop.tensor<[s0, 4], f32>, %z: !hop.tensor<[s0, 4], f32>):
    hop.yield %y : !hop.tensor<[s0, 4], f32>
  }
  func.return %a, %b, %r : !hop.tensor<[s0, 4], f32>, !hop.tensor<[s0, 4], f32>, !hop.tensor<[s0, 4], f32>
}
// CHECK-LABEL: func.func @reads_without_writes
// CHECK-SAME:    (%{{.*}}: !hop.tensor<[], i1>, %[[X:.*]]: !hop.tensor<[s0, 4], f32>)
// CHECK-NEXT:    %[[A:.*]] = aten.add.Tensor(%[[X]], %[[X]])
// CHECK-NEXT:    %[[R:.*]] = hop.cond
// CHECK-NEXT:    ^{{.*}}(%{{.*}}: !hop.tensor<[s0, 4], f32>, %[[Z:.*]]: !hop.tensor<[s0, 4], f32>):
// CHECK-NEXT:      %[[C:.*]] = aten.add.Tensor(%[[Z]], %[[Z]])
// CHECK-NEXT:      %[[D:.*]] = aten.mul.Tensor(%[[C]], %[[C]])
// CHECK-NEXT:      hop.yield %[[D]]
// CHECK:         func.return %[[A]], %[[A]], %[[R]]

// -----

// Ops in sibling regions do not see each other: each branch keeps its op.
hop.symbol @s0 backed [2, oo]
func.func @sibling_regions(%p: !hop.tensor<[], i1>, %x: !hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32> {
  %r = hop.cond %p(%x) : !hop.tensor<[], i1>, (!hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32> then {
  ^bb0(%y: !hop.tensor<[s0, 4], f32>):
    %c = aten.sin(%y) : (!hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32>
    hop.yield %c : !hop.tensor<[s0, 4], f32>
  } else {
  ^bb0(%y: !hop.tensor<[s0, 4], f32>):
    %c = aten.sin(%y) : (!hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32>
    %e = aten.exp(%c) : (!hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32>
    hop.yield %e : !hop.tensor<[s0, 4], f32>
  }
  %s = aten.sin(%x) : (!hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32>
  %o = aten.add.Tensor(%r, %s) : (!hop.tensor<[s0, 4], f32>, !hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32>
  func.return %o : !hop.tensor<[s0, 4], f32>
}
// CHECK-LABEL: func.func @sibling_regions
// CHECK:         then {
// CHECK:           aten.sin
// CHECK:         } else {
// CHECK:           aten.sin
// CHECK:         }
// CHECK-NEXT:    aten.sin

// -----

// Must not fire: an in-place op (even after both reads) may mutate one of the
// results, so equal reads stay apart; pure shape-symbol ops still merge.
hop.symbol @s0 backed [2, oo]
func.func @reads_with_a_write(%x: !hop.tensor<[s0, 4], f32>) -> (!hop.tensor<[s0, 4], f32>, !hop.tensor<[s0, 4], f32>, !hop.symint<s0>, !hop.symint<s0>) {
  %a = aten.add.Tensor(%x, %x) : (!hop.tensor<[s0, 4], f32>, !hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32>
  %b = aten.add.Tensor(%x, %x) : (!hop.tensor<[s0, 4], f32>, !hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32>
  %m = aten.add_.Tensor(%a, %x) : (!hop.tensor<[s0, 4], f32>, !hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32>
  %n = hop.sym_size %x[0] : !hop.tensor<[s0, 4], f32> -> !hop.symint<s0>
  %k = hop.sym_size %x[0] : !hop.tensor<[s0, 4], f32> -> !hop.symint<s0>
  func.return %a, %b, %n, %k : !hop.tensor<[s0, 4], f32>, !hop.tensor<[s0, 4], f32>, !hop.symint<s0>, !hop.symint<s0>
}
// CHECK-LABEL: func.func @reads_with_a_write
// CHECK-NEXT:    %[[A:.*]] = aten.add.Tensor
// CHECK-NEXT:    %[[B:.*]] = aten.add.Tensor
// CHECK-NEXT:    aten.add_.Tensor
// CHECK-NEXT:    %[[N:.*]] = hop.sym_size
// CHECK-NEXT:    func.return %[[A]], %[[B]], %[[N]], %[[N]]

// -----

// Must not fire: a write nested in a region counts as a write of the module.
hop.symbol @s0 backed [2, oo]
func.func @write_in_a_region(%x: !hop.tensor<[s0, 4], f32>) -> (!hop.tensor<[s0, 4], f32>, !hop.tensor<[s0, 4], f32>) {
  %a = aten.sin(%x) : (!hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32>
  %w = hop.wrap(%a) : (!hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32> {
  ^bb0(%y: !hop.tensor<[s0, 4], f32>):
    %m = aten.mul_.Scalar(%y) {other = 2 : i64} : (!hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32>
    hop.yield %m : !hop.tensor<[s0, 4], f32>
  }
  %b = aten.sin(%x) : (!hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32>
  func.return %a, %b : !hop.tensor<[s0, 4], f32>, !hop.tensor<[s0, 4], f32>
}
// CHECK-LABEL: func.func @write_in_a_region
// CHECK:         %[[A:.*]] = aten.sin
// CHECK:         %[[B:.*]] = aten.sin
// CHECK-NEXT:    func.return %[[A]], %[[B]]

// -----

// An assert writes no tensor: equal reads still merge beside one.
hop.symbol @s0 backed [2, oo]
func.func @assert_is_not_a_write(%x: !hop.tensor<[s0, 4], f32>) -> (!hop.tensor<[s0, 4], f32>, !hop.tensor<[s0, 4], f32>) {
  %n = hop.sym_size %x[0] : !hop.tensor<[s0, 4], f32> -> !hop.symint<s0>
  %two = hop.sym_constant : !hop.symint<2>
  %ok = hop.sym_ge %n, %two : !hop.symint<s0>, !hop.symint<2> -> !hop.symbool<Ge(s0, 2)>
  %a = aten.cos(%x) : (!hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32>
  hop.assert %ok, "s0 >= 2" : !hop.symbool<Ge(s0, 2)>
  %b = aten.cos(%x) : (!hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32>
  func.return %a, %b : !hop.tensor<[s0, 4], f32>, !hop.tensor<[s0, 4], f32>
}
// CHECK-LABEL: func.func @assert_is_not_a_write
// CHECK:         %[[A:.*]] = aten.cos
// CHECK-NEXT:    hop.assert
// CHECK-NEXT:    func.return %[[A]], %[[A]]

// -----

// Must not fire: each hop.item defines its own unbacked symbol.
hop.symbol @u0 unbacked [0, oo]
hop.symbol @u1 unbacked [0, oo]
func.func @items(%t: !hop.tensor<[], i64>) -> (!hop.symint<u0>, !hop.symint<u1>) {
  %u = hop.item %t : !hop.tensor<[], i64> -> !hop.symint<u0>
  %v = hop.item %t : !hop.tensor<[], i64> -> !hop.symint<u1>
  func.return %u, %v : !hop.symint<u0>, !hop.symint<u1>
}
// CHECK-LABEL: func.func @items
// CHECK-NEXT:    %[[U:.*]] = hop.item %{{.*}} : !hop.tensor<[], i64> -> !hop.symint<u0>
// CHECK-NEXT:    %[[V:.*]] = hop.item %{{.*}} : !hop.tensor<[], i64> -> !hop.symint<u1>
// CHECK-NEXT:    func.return %[[U]], %[[V]]

// -----

// Must not fire: random ops draw fresh numbers each time.
func.func @random() -> (!hop.tensor<[4], f32>, !hop.tensor<[4], f32>) {
  %a = aten.rand() {size = [4]} : () -> !hop.tensor<[4], f32>
  %b = aten.rand() {size = [4]} : () -> !hop.tensor<[4], f32>
  func.return %a, %b : !hop.tensor<[4], f32>, !hop.tensor<[4], f32>
}
// CHECK-LABEL: func.func @random
// CHECK-NEXT:    %[[A:.*]] = aten.rand()
// CHECK-NEXT:    %[[B:.*]] = aten.rand()
// CHECK-NEXT:    func.return %[[A]], %[[B]]

// -----

// Must not fire: a random op with a tensor operand draws fresh numbers too.
func.func @random_like(%x: !hop.tensor<[4], f32>) -> (!hop.tensor<[4], f32>, !hop.tensor<[4], f32>) {
  %a = aten.bernoulli.p(%x) {p = 0.5 : f64} : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
  %b = aten.bernoulli.p(%x) {p = 0.5 : f64} : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
  func.return %a, %b : !hop.tensor<[4], f32>, !hop.tensor<[4], f32>
}
// CHECK-LABEL: func.func @random_like
// CHECK-NEXT:    %[[A:.*]] = aten.bernoulli.p
// CHECK-NEXT:    %[[B:.*]] = aten.bernoulli.p
// CHECK-NEXT:    func.return %[[A]], %[[B]]

// -----

// Must not fire: the two adds differ in an attribute.
hop.symbol @s0 backed [2, oo]
func.func @different_attributes(%x: !hop.tensor<[s0, 4], f32>) -> (!hop.tensor<[s0, 4], f32>, !hop.tensor<[s0, 4], f32>) {
  %a = aten.add.Tensor(%x, %x) {alpha = 2 : i64} : (!hop.tensor<[s0, 4], f32>, !hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32>
  %b = aten.add.Tensor(%x, %x) {alpha = 3 : i64} : (!hop.tensor<[s0, 4], f32>, !hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32>
  func.return %a, %b : !hop.tensor<[s0, 4], f32>, !hop.tensor<[s0, 4], f32>
}
// CHECK-LABEL: func.func @different_attributes
// CHECK-NEXT:    %[[A:.*]] = aten.add.Tensor(%{{.*}}) {alpha = 2 : i64}
// CHECK-NEXT:    %[[B:.*]] = aten.add.Tensor(%{{.*}}) {alpha = 3 : i64}
// CHECK-NEXT:    func.return %[[A]], %[[B]]

// -----

// Two equal HOPs merge when nothing writes: same operands, same regions.
hop.symbol @s0 backed [2, oo]
func.func @equal_hops(%x: !hop.tensor<[s0, 4], f32>) -> (!hop.tensor<[s0, 4], f32>, !hop.tensor<[s0, 4], f32>) {
  %a = hop.checkpoint(%x) : (!hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32> {
  ^bb0(%y: !hop.tensor<[s0, 4], f32>):
    %s = aten.sin(%y) : (!hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32>
    hop.yield %s : !hop.tensor<[s0, 4], f32>
  }
  %b = hop.checkpoint(%x) : (!hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32> {
  ^bb0(%z: !hop.tensor<[s0, 4], f32>):
    %t = aten.sin(%z) : (!hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32>
    hop.yield %t : !hop.tensor<[s0, 4], f32>
  }
  func.return %a, %b : !hop.tensor<[s0, 4], f32>, !hop.tensor<[s0, 4], f32>
}
// CHECK-LABEL: func.func @equal_hops
// CHECK:         %[[A:.*]] = hop.checkpoint
// CHECK-NOT:     hop.checkpoint
// CHECK:         func.return %[[A]], %[[A]]

// -----

// Must not fire across a HOP region boundary (Note [cse keeps regions
// isolated]): the sym_constant inside the wrap equals the one outside, but
// reusing that would make the body read an outer value; the two inside merge.
func.func @pure_ops_in_regions(%x: !hop.tensor<[4], f32>) -> (!hop.tensor<[4], f32>, !hop.symint<2>, !hop.symint<4>) {
  %two = hop.sym_constant : !hop.symint<2>
  %r, %four = hop.wrap(%x) : (!hop.tensor<[4], f32>) -> (!hop.tensor<[4], f32>, !hop.symint<4>) {
  ^bb0(%y: !hop.tensor<[4], f32>):
    %m = aten.mul_.Scalar(%y) {other = 2 : i64} : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
    %a = hop.sym_constant : !hop.symint<2>
    %b = hop.sym_constant : !hop.symint<2>
    %d = hop.sym_add %a, %b : !hop.symint<2>, !hop.symint<2> -> !hop.symint<4>
    hop.yield %m, %d : !hop.tensor<[4], f32>, !hop.symint<4>
  }
  func.return %r, %two, %four : !hop.tensor<[4], f32>, !hop.symint<2>, !hop.symint<4>
}
// CHECK-LABEL: func.func @pure_ops_in_regions
// CHECK-NEXT:    %[[TWO:.*]] = hop.sym_constant : !hop.symint<2>
// CHECK-NEXT:    hop.wrap
// CHECK-NEXT:    ^{{.*}}(%{{.*}}: !hop.tensor<[4], f32>):
// CHECK-NEXT:      aten.mul_.Scalar
// CHECK-NEXT:      %[[A:.*]] = hop.sym_constant : !hop.symint<2>
// CHECK-NEXT:      hop.sym_add %[[A]], %[[A]]

// -----

// Must not fire across a HOP region boundary, for reads either: with no write
// anywhere, the zeros inside the checkpoint stays apart from the equal one
// outside (Note [cse keeps regions isolated]).
func.func @reads_in_regions(%x: !hop.tensor<[4], f32>) -> (!hop.tensor<[4], f32>, !hop.tensor<[4], f32>) {
  %z = aten.zeros() {size = [4]} : () -> !hop.tensor<[4], f32>
  %r = hop.checkpoint(%x) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32> {
  ^bb0(%y: !hop.tensor<[4], f32>):
    %w = aten.zeros() {size = [4]} : () -> !hop.tensor<[4], f32>
    %s = aten.add.Tensor(%y, %w) : (!hop.tensor<[4], f32>, !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
    hop.yield %s : !hop.tensor<[4], f32>
  }
  func.return %z, %r : !hop.tensor<[4], f32>, !hop.tensor<[4], f32>
}
// CHECK-LABEL: func.func @reads_in_regions
// CHECK-NEXT:    aten.zeros
// CHECK-NEXT:    hop.checkpoint
// CHECK-NEXT:    ^{{.*}}(%[[Y:.*]]: !hop.tensor<[4], f32>):
// CHECK-NEXT:      %[[W:.*]] = aten.zeros
// CHECK-NEXT:      aten.add.Tensor(%[[Y]], %[[W]])

// -----

// Batch norm in training mode writes its running statistics: two equal calls
// both stay (the second sees the first's update). In eval mode they merge.
func.func @batch_norm_writes(%x: !hop.tensor<[2, 3], f32>, %mean: !hop.tensor<[3], f32>, %var: !hop.tensor<[3], f32>) -> (!hop.tensor<[2, 3], f32>, !hop.tensor<[2, 3], f32>) {
  %a = aten.batch_norm(%x, none, none, %mean, %var) {training = true, momentum = 1.000000e-01 : f64, eps = 1.000000e-05 : f64, cudnn_enabled = true} : (!hop.tensor<[2, 3], f32>, !hop.tensor<[3], f32>, !hop.tensor<[3], f32>) -> !hop.tensor<[2, 3], f32>
  %b = aten.batch_norm(%x, none, none, %mean, %var) {training = true, momentum = 1.000000e-01 : f64, eps = 1.000000e-05 : f64, cudnn_enabled = true} : (!hop.tensor<[2, 3], f32>, !hop.tensor<[3], f32>, !hop.tensor<[3], f32>) -> !hop.tensor<[2, 3], f32>
  func.return %a, %b : !hop.tensor<[2, 3], f32>, !hop.tensor<[2, 3], f32>
}
// CHECK-LABEL: func.func @batch_norm_writes
// CHECK-NEXT:    %[[A:.*]] = aten.batch_norm
// CHECK-NEXT:    %[[B:.*]] = aten.batch_norm
// CHECK-NEXT:    func.return %[[A]], %[[B]]

// -----

func.func @batch_norm_eval(%x: !hop.tensor<[2, 3], f32>, %mean: !hop.tensor<[3], f32>, %var: !hop.tensor<[3], f32>) -> (!hop.tensor<[2, 3], f32>, !hop.tensor<[2, 3], f32>) {
  %a = aten.batch_norm(%x, none, none, %mean, %var) {training = false, momentum = 1.000000e-01 : f64, eps = 1.000000e-05 : f64, cudnn_enabled = true} : (!hop.tensor<[2, 3], f32>, !hop.tensor<[3], f32>, !hop.tensor<[3], f32>) -> !hop.tensor<[2, 3], f32>
  %b = aten.batch_norm(%x, none, none, %mean, %var) {training = false, momentum = 1.000000e-01 : f64, eps = 1.000000e-05 : f64, cudnn_enabled = true} : (!hop.tensor<[2, 3], f32>, !hop.tensor<[3], f32>, !hop.tensor<[3], f32>) -> !hop.tensor<[2, 3], f32>
  func.return %a, %b : !hop.tensor<[2, 3], f32>, !hop.tensor<[2, 3], f32>
}
// CHECK-LABEL: func.func @batch_norm_eval
// CHECK-NEXT:    %[[A:.*]] = aten.batch_norm
// CHECK-NEXT:    func.return %[[A]], %[[A]]

// -----

// Must not fire: a call of a subgraph that writes is a write of the module
// (the call has its subgraph's effects), so equal reads stay apart.
hop.subgraph @writes {
^bb0(%a: !hop.tensor<[4], f32>):
  %m = aten.mul_.Scalar(%a) {other = 2 : i64} : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
  hop.yield %m : !hop.tensor<[4], f32>
}
func.func @write_in_a_call(%x: !hop.tensor<[4], f32>) -> (!hop.tensor<[4], f32>, !hop.tensor<[4], f32>) {
  %a = aten.cos(%x) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
  %b = aten.cos(%x) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
  %w = hop.invoke_subgraph @writes(%a) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
  func.return %a, %b : !hop.tensor<[4], f32>, !hop.tensor<[4], f32>
}
// CHECK-LABEL: func.func @write_in_a_call
// CHECK-NEXT:    %[[A:.*]] = aten.cos
// CHECK-NEXT:    %[[B:.*]] = aten.cos
// CHECK-NEXT:    hop.invoke_subgraph @writes
// CHECK-NEXT:    func.return %[[A]], %[[B]]

// -----

// Ops equal but for their provenance (hop.seq_nr) merge; the op kept keeps its number.
func.func @provenance(%w: !hop.tensor<[4, 3], f32>) -> (!hop.tensor<[3, 4], f32>, !hop.tensor<[3, 4], f32>) {
  %a = aten.t(%w) {hop.seq_nr = 0 : i64} : (!hop.tensor<[4, 3], f32>) -> !hop.tensor<[3, 4], f32>
  %b = aten.t(%w) {hop.seq_nr = 1 : i64} : (!hop.tensor<[4, 3], f32>) -> !hop.tensor<[3, 4], f32>
  func.return %a, %b : !hop.tensor<[3, 4], f32>, !hop.tensor<[3, 4], f32>
}
// CHECK-LABEL: func.func @provenance
// CHECK-NEXT:    %[[A:.*]] = aten.t(%{{.*}}) {hop.seq_nr = 0 : i64}
// CHECK-NEXT:    func.return %[[A]], %[[A]]
