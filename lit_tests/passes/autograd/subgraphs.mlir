// RUN: hopc-opt --autograd --split-input-file %s | filecheck %s
// RUN: hopc-opt --autograd --split-input-file %s | hopc-opt --split-input-file | filecheck %s

// The backward rules of hop.invoke_subgraph, hop.checkpoint and hop.wrap
// (hopc.passes.autograd.hops): outlined forward/backward subgraph pairs
// shared by the calls, the checkpoint's recompute calling the subgraph the
// forward called (Note [checkpoint recompute]), and the random state handed
// from the forward to that recompute (Note [replaying random ops]).

// Two calls of @f at different sizes (s0 and 3), both differentiated in their
// first operand: one pair @f_forward_10_1 / @f_backward_10_1 (operand mask 10,
// cotangent mask 1) serves both. The backward reads w and tanh: an operand and
// a result of @f, which the caller passes itself (saved once, not yielded
// again). @f, no longer called, is gone.
// CHECK-LABEL: builtin.module
// CHECK-NOT:   hop.subgraph @f {
// CHECK:       hop.subgraph @f_forward_10_1 {
// CHECK-NEXT:  ^bb0(%{{.*}}: !hop.tensor<[s0, 4], f32>, %{{.*}}: !hop.tensor<[4, 4], f32>):
// CHECK:         %[[TANH:.*]] = aten.tanh
// CHECK-NEXT:    hop.yield %[[TANH]] : !hop.tensor<[s0, 4], f32>
// CHECK:       hop.subgraph @f_backward_10_1 {
// CHECK-NEXT:  ^bb0(%{{.*}}: !hop.tensor<[4, 4], f32>, %{{.*}}: !hop.tensor<[s0, 4], f32>, %{{.*}}: !hop.tensor<[s0, 4], f32>):
// CHECK:         aten.tanh_backward
// CHECK:       func.func @forward(
// CHECK-NEXT:    %p = hop.invoke_subgraph @f_forward_10_1(%x, %w) {hop.seq_nr = 0 : i64} : {{.*}} -> !hop.tensor<[s0, 4], f32>
// CHECK-NEXT:    %q = hop.invoke_subgraph @f_forward_10_1(%y, %w) {hop.seq_nr = 3 : i64} : {{.*}} -> !hop.tensor<[3, 4], f32>
// CHECK-NEXT:    func.return %p, %q, %w, %p, %q
// CHECK:       func.func @backward(%w: {{.*}}, %p: {{.*}}, %q: {{.*}}, %tangent: {{.*}}, %tangent_1: {{.*}})
// CHECK-DAG:     hop.invoke_subgraph @f_backward_10_1(%w, %q, %tangent_1) {hop.seq_nr = 3 : i64} : (!hop.tensor<[4, 4], f32>, !hop.tensor<[3, 4], f32>, !hop.tensor<[3, 4], f32>) -> !hop.tensor<[3, 4], f32>
// CHECK-DAG:     hop.invoke_subgraph @f_backward_10_1(%w, %p, %tangent) {hop.seq_nr = 0 : i64}
builtin.module {
  hop.symbol @s0 backed [2, oo] hint 3
  hop.subgraph @f {
  ^bb0(%a: !hop.tensor<[s0, 4], f32>, %w: !hop.tensor<[4, 4], f32>):
    %m = aten.mm(%a, %w) : (!hop.tensor<[s0, 4], f32>, !hop.tensor<[4, 4], f32>) -> !hop.tensor<[s0, 4], f32>
    %t = aten.tanh(%m) : (!hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32>
    hop.yield %t : !hop.tensor<[s0, 4], f32>
  }
  func.func @forward(%x: !hop.tensor<[s0, 4], f32> {hop.requires_grad}, %y: !hop.tensor<[3, 4], f32> {hop.requires_grad}, %w: !hop.tensor<[4, 4], f32>) -> (!hop.tensor<[s0, 4], f32>, !hop.tensor<[3, 4], f32>) {
    %p = hop.invoke_subgraph @f(%x, %w) : (!hop.tensor<[s0, 4], f32>, !hop.tensor<[4, 4], f32>) -> !hop.tensor<[s0, 4], f32>
    %q = hop.invoke_subgraph @f(%y, %w) : (!hop.tensor<[3, 4], f32>, !hop.tensor<[4, 4], f32>) -> !hop.tensor<[3, 4], f32>
    func.return %p, %q : !hop.tensor<[s0, 4], f32>, !hop.tensor<[3, 4], f32>
  }
}

// -----

// Must not differentiate the call on %y (no operand requires grad): it keeps
// calling @f, which therefore stays beside the pair of the call on %x.
// CHECK-LABEL: builtin.module
// CHECK:       hop.subgraph @f {
// CHECK:       hop.subgraph @f_forward_1_1 {
// CHECK:       hop.subgraph @f_backward_1_1 {
// CHECK:       func.func @forward(
// CHECK-NEXT:    hop.invoke_subgraph @f_forward_1_1(%x)
// CHECK-NEXT:    hop.invoke_subgraph @f(%y)
// CHECK:       func.func @backward(
// CHECK-NEXT:    hop.invoke_subgraph @f_backward_1_1(%x, %tangent)
builtin.module {
  hop.subgraph @f {
  ^bb0(%a: !hop.tensor<[4], f32>):
    %s = aten.sin(%a) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
    hop.yield %s : !hop.tensor<[4], f32>
  }
  func.func @forward(%x: !hop.tensor<[4], f32> {hop.requires_grad}, %y: !hop.tensor<[4], f32>) -> (!hop.tensor<[4], f32>, !hop.tensor<[4], f32>) {
    %p = hop.invoke_subgraph @f(%x) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
    %q = hop.invoke_subgraph @f(%y) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
    func.return %p, %q : !hop.tensor<[4], f32>, !hop.tensor<[4], f32>
  }
}

// -----

// Must not touch a call, a checkpoint or a wrap whose operands do not require
// grad, though the function is differentiated (through the mul): no new
// subgraph, no backward for them.
// CHECK-LABEL: builtin.module
// CHECK-NOT:   _forward
// CHECK:       func.func @forward(
// CHECK-NEXT:    hop.invoke_subgraph @f(%y)
// CHECK-NEXT:    hop.checkpoint(%y)
// CHECK:         hop.wrap(%y)
// CHECK:       func.func @backward(
// CHECK-NEXT:    aten.mul.Tensor
// CHECK-NEXT:    func.return
builtin.module {
  hop.subgraph @f {
  ^bb0(%a: !hop.tensor<[4], f32>):
    %s = aten.sin(%a) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
    hop.yield %s : !hop.tensor<[4], f32>
  }
  func.func @forward(%x: !hop.tensor<[4], f32> {hop.requires_grad}, %y: !hop.tensor<[4], f32>) -> (!hop.tensor<[4], f32>, !hop.tensor<[4], f32>, !hop.tensor<[4], f32>) {
    %q = hop.invoke_subgraph @f(%y) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
    %c = hop.checkpoint(%y) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32> {
    ^bb0(%a: !hop.tensor<[4], f32>):
      %e = aten.exp(%a) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
      hop.yield %e : !hop.tensor<[4], f32>
    }
    %v = hop.wrap(%y) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32> {
    ^bb0(%a: !hop.tensor<[4], f32>):
      %e = aten.cos(%a) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
      hop.yield %e : !hop.tensor<[4], f32>
    }
    %r = aten.mul.Tensor(%x, %q) : (!hop.tensor<[4], f32>, !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
    func.return %r, %c, %v : !hop.tensor<[4], f32>, !hop.tensor<[4], f32>, !hop.tensor<[4], f32>
  }
}

// -----

// A checkpoint: the body is outlined once; the forward calls it and ignores
// its residual, the backward calls the same subgraph again (the recompute)
// and feeds its residual to @checkpoint_backward. Only the region's inputs
// are saved.
// CHECK-LABEL: builtin.module
// CHECK:       hop.subgraph @checkpoint_forward {
// CHECK:       hop.subgraph @checkpoint_backward {
// CHECK:       func.func @forward(%x: {{.*}}, %w: {{.*}}) -> (!hop.tensor<[8, 4], f32>, !hop.tensor<[8, 4], f32> {hop.saved = 0 : i64}, !hop.tensor<[4, 4], f32> {hop.saved = 1 : i64})
// CHECK-NEXT:    %[[C:.*]], %{{.*}} = hop.invoke_subgraph @checkpoint_forward(%x, %w)
// CHECK-NEXT:    func.return %[[C]], %x, %w
// CHECK:       func.func @backward(%x: {{.*}}, %w: {{.*}}, %tangent: {{.*}})
// CHECK-NEXT:    %{{.*}}, %[[RES:.*]] = hop.invoke_subgraph @checkpoint_forward(%x, %w)
// CHECK-NEXT:    %[[DX:.*]], %[[DW:.*]] = hop.invoke_subgraph @checkpoint_backward(%x, %w, %[[RES]], %tangent)
// CHECK-NEXT:    func.return %[[DX]], %[[DW]]
builtin.module {
  func.func @forward(%x: !hop.tensor<[8, 4], f32> {hop.requires_grad}, %w: !hop.tensor<[4, 4], f32> {hop.requires_grad}) -> !hop.tensor<[8, 4], f32> {
    %c = hop.checkpoint(%x, %w) : (!hop.tensor<[8, 4], f32>, !hop.tensor<[4, 4], f32>) -> !hop.tensor<[8, 4], f32> {
    ^bb0(%a: !hop.tensor<[8, 4], f32>, %b: !hop.tensor<[4, 4], f32>):
      %m = aten.mm(%a, %b) : (!hop.tensor<[8, 4], f32>, !hop.tensor<[4, 4], f32>) -> !hop.tensor<[8, 4], f32>
      %t = aten.tanh(%m) : (!hop.tensor<[8, 4], f32>) -> !hop.tensor<[8, 4], f32>
      %n = aten.mm(%t, %b) : (!hop.tensor<[8, 4], f32>, !hop.tensor<[4, 4], f32>) -> !hop.tensor<[8, 4], f32>
      hop.yield %n : !hop.tensor<[8, 4], f32>
    }
    func.return %c : !hop.tensor<[8, 4], f32>
  }
}

// -----

// A checkpoint that draws (dropout): the forward reads the generator's state
// right before its call and saves it; the backward sets it before the
// recompute and restores its own after, so the recompute draws the forward's
// mask again, which @checkpoint_backward reads with the recompute's tanh
// (which it does not compute a third time: Note [recompute policy]).
// CHECK-LABEL: builtin.module
// CHECK:       func.func @forward(
// CHECK-SAME:    !hop.rng_state {hop.saved = 1 : i64}
// CHECK-NEXT:    %[[STATE:.*]] = hop.get_rng_state {hop.seq_nr = 0 : i64} : !hop.rng_state
// CHECK-NEXT:    %[[C:.*]], %{{.*}}, %{{.*}} = hop.invoke_subgraph @checkpoint_forward(%x)
// CHECK-NEXT:    func.return %[[C]], %x, %[[STATE]]
// CHECK:       func.func @backward(%x: {{.*}}, %[[SAVED:.*]]: !hop.rng_state {hop.saved = 1 : i64}, %tangent: {{.*}})
// CHECK-NEXT:    %[[NOW:.*]] = hop.get_rng_state
// CHECK-NEXT:    hop.set_rng_state %[[SAVED]]
// CHECK-NEXT:    %{{.*}}, %[[TANH:.*]], %[[MASK:.*]] = hop.invoke_subgraph @checkpoint_forward(%x) {{.*}} -> (!hop.tensor<[8, 4], f32>, !hop.tensor<[8, 4], f32>, !hop.tensor<[8, 4], i1>)
// CHECK-NEXT:    hop.set_rng_state %[[NOW]]
// CHECK-NEXT:    hop.invoke_subgraph @checkpoint_backward(%[[TANH]], %[[MASK]], %tangent)
builtin.module {
  func.func @forward(%x: !hop.tensor<[8, 4], f32> {hop.requires_grad}) -> !hop.tensor<[8, 4], f32> {
    %c = hop.checkpoint(%x) : (!hop.tensor<[8, 4], f32>) -> !hop.tensor<[8, 4], f32> {
    ^bb0(%a: !hop.tensor<[8, 4], f32>):
      %t = aten.tanh(%a) : (!hop.tensor<[8, 4], f32>) -> !hop.tensor<[8, 4], f32>
      %d, %mask = aten.native_dropout(%t) {p = 0.5 : f64, train = true} : (!hop.tensor<[8, 4], f32>) -> (!hop.tensor<[8, 4], f32>, !hop.tensor<[8, 4], i1>)
      hop.yield %d : !hop.tensor<[8, 4], f32>
    }
    func.return %c : !hop.tensor<[8, 4], f32>
  }
}

// -----

// A wrap stays a wrap on both sides: the forward wrap also yields the
// residual tanh (its operands it need not yield), the backward wrap takes the
// residuals and the cotangent and yields the two gradients.
// CHECK-LABEL: builtin.module
// CHECK:       func.func @forward(
// CHECK-NEXT:    %[[R:.*]], %[[TANH:.*]] = hop.wrap(%x, %w) {hop.seq_nr = 0 : i64} : ({{.*}}) -> (!hop.tensor<[], f32>, !hop.tensor<[8, 4], f32>) {
// CHECK:           hop.yield %{{.*}}, %{{.*}} : !hop.tensor<[], f32>, !hop.tensor<[8, 4], f32>
// CHECK:         func.return %[[R]], %x, %w, %[[TANH]]
// CHECK:       func.func @backward(
// CHECK-NEXT:    %{{.*}}, %{{.*}} = hop.wrap(%x, %w, %{{.*}}, %tangent) {hop.seq_nr = 0 : i64} : ({{.*}}) -> (!hop.tensor<[8, 4], f32>, !hop.tensor<[4, 4], f32>) {
// CHECK:           aten.tanh_backward
builtin.module {
  func.func @forward(%x: !hop.tensor<[8, 4], f32> {hop.requires_grad}, %w: !hop.tensor<[4, 4], f32> {hop.requires_grad}) -> !hop.tensor<[], f32> {
    %r = hop.wrap(%x, %w) : (!hop.tensor<[8, 4], f32>, !hop.tensor<[4, 4], f32>) -> !hop.tensor<[], f32> {
    ^bb0(%a: !hop.tensor<[8, 4], f32>, %b: !hop.tensor<[4, 4], f32>):
      %m = aten.mm(%a, %b) : (!hop.tensor<[8, 4], f32>, !hop.tensor<[4, 4], f32>) -> !hop.tensor<[8, 4], f32>
      %t = aten.tanh(%m) : (!hop.tensor<[8, 4], f32>) -> !hop.tensor<[8, 4], f32>
      %s = aten.sum(%t) : (!hop.tensor<[8, 4], f32>) -> !hop.tensor<[], f32>
      hop.yield %s : !hop.tensor<[], f32>
    }
    func.return %r : !hop.tensor<[], f32>
  }
}

// -----

// Nothing requires grad: the pass leaves the module alone (the checkpoint
// stays a checkpoint, nothing is outlined).
// CHECK-LABEL: builtin.module
// CHECK-NOT:   hop.entry
// CHECK-NOT:   hop.subgraph
// CHECK:       func.func @forward(%x: !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
// CHECK-NEXT:    hop.checkpoint(%x)
builtin.module {
  func.func @forward(%x: !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32> {
    %c = hop.checkpoint(%x) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32> {
    ^bb0(%a: !hop.tensor<[4], f32>):
      %e = aten.exp(%a) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
      hop.yield %e : !hop.tensor<[4], f32>
    }
    func.return %c : !hop.tensor<[4], f32>
  }
}
