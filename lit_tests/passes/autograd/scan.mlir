// RUN: hopc-opt --autograd --split-input-file %s | filecheck %s
// RUN: hopc-opt --autograd --split-input-file %s | hopc-opt --split-input-file | filecheck %s

// An RNN step h <- tanh(h * w + x): the forward scan also yields its per-step
// residuals, stacked (the carry entering the step and tanh's output, which the
// backward does not recompute: Note [recompute policy]; exp's, the backward
// reads from ys); the backward is a reverse scan whose carries are the carry's
// cotangent and the gradient of w accumulated from zeros, scanning the stacked
// residuals and the per-step outputs' cotangents.

// CHECK-LABEL: builtin.module
// CHECK:       hop.entry backward @backward
// CHECK:       func.func @forward(
// CHECK:         %h, %ys, %[[CARRIES:[a-z0-9_]+]], %[[TANHS:[a-z0-9_]+]] = hop.scan init(%h0) xs(%xs) additional(%w) {hop.seq_nr = 0 : i64} : {{.*}} -> !hop.tensor<[4], f32>, !hop.tensor<[s0, 4], f32>, !hop.tensor<[s0, 4], f32>, !hop.tensor<[s0, 4], f32> {
// CHECK-NEXT:    ^bb0(%[[C:.*]]: !hop.tensor<[4], f32>, %{{.*}}: !hop.tensor<[4], f32>, %{{.*}}: !hop.tensor<[4], f32>):
// CHECK:           hop.yield %tanh, %exp, %[[C]], %tanh :
// CHECK:         func.return %h, %ys, %w, %ys, %[[CARRIES]], %[[TANHS]]
// CHECK:       func.func @backward(%w: {{.*}}, %ys: {{.*}}, %[[SAVED:[a-z0-9_]+]]: !hop.tensor<[s0, 4], f32> {hop.saved = 2 : i64}, %[[SAVED_TANHS:[a-z0-9_]+]]: !hop.tensor<[s0, 4], f32> {hop.saved = 3 : i64}, %tangent: {{.*}}, %tangent_1: {{.*}})
// CHECK:         %[[ZERO:.*]] = aten.zeros_like(%w)
// CHECK:         %[[GH:.*]], %[[GW:.*]], %[[GXS:.*]] = hop.scan reverse init(%tangent, %[[ZERO]]) xs(%[[SAVED]], %[[SAVED_TANHS]], %ys, %tangent_1) additional(%w)
// CHECK-NOT:       aten.tanh(
// CHECK:           aten.tanh_backward
// CHECK:           %[[ACC:.*]] = aten.add.Tensor(%{{.*}}, %{{.*}})
// CHECK-NEXT:      hop.yield %{{.*}}, %[[ACC]], %tanh_backward :
// CHECK:         func.return %[[GH]], %[[GXS]], %[[GW]]

builtin.module {
  hop.symbol @s0 backed [2, oo] hint 5
  func.func @forward(%h0: !hop.tensor<[4], f32> {hop.requires_grad}, %xs: !hop.tensor<[s0, 4], f32> {hop.requires_grad}, %w: !hop.tensor<[4], f32> {hop.requires_grad}) -> (!hop.tensor<[4], f32>, !hop.tensor<[s0, 4], f32>) {
    %h, %ys = hop.scan init(%h0) xs(%xs) additional(%w) : (!hop.tensor<[4], f32>), (!hop.tensor<[s0, 4], f32>), (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>, !hop.tensor<[s0, 4], f32> {
    ^bb0(%c: !hop.tensor<[4], f32>, %x: !hop.tensor<[4], f32>, %v: !hop.tensor<[4], f32>):
      %m = aten.mul.Tensor(%c, %v) : (!hop.tensor<[4], f32>, !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
      %a = aten.add.Tensor(%m, %x) : (!hop.tensor<[4], f32>, !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
      %t = aten.tanh(%a) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
      %y = aten.exp(%t) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
      hop.yield %t, %y : !hop.tensor<[4], f32>, !hop.tensor<[4], f32>
    }
    func.return %h, %ys : !hop.tensor<[4], f32>, !hop.tensor<[s0, 4], f32>
  }
}

// -----

// A map whose loop-invariant operand needs a gradient: the backward is a scan
// (in either order) that carries the accumulated gradient of w.
// CHECK-LABEL: builtin.module
// CHECK:       func.func @forward(
// CHECK:         hop.map xs(%xs) additional(%w)
// CHECK:       func.func @backward(
// CHECK:         %[[ZERO:.*]] = aten.zeros_like(%w)
// CHECK:         %[[GW:.*]], %[[GXS:.*]] = hop.scan init(%[[ZERO]]) xs(%xs, %tangent) additional(%w)
// CHECK:         func.return %[[GXS]], %[[GW]]

builtin.module {
  func.func @forward(%xs: !hop.tensor<[5, 3], f32> {hop.requires_grad}, %w: !hop.tensor<[3], f32> {hop.requires_grad}) -> !hop.tensor<[5, 3], f32> {
    %r = hop.map xs(%xs) additional(%w) : (!hop.tensor<[5, 3], f32>), (!hop.tensor<[3], f32>) -> !hop.tensor<[5, 3], f32> {
    ^bb0(%row: !hop.tensor<[3], f32>, %v: !hop.tensor<[3], f32>):
      %m = aten.mul.Tensor(%row, %v) : (!hop.tensor<[3], f32>, !hop.tensor<[3], f32>) -> !hop.tensor<[3], f32>
      %s = aten.sin(%m) : (!hop.tensor<[3], f32>) -> !hop.tensor<[3], f32>
      hop.yield %s : !hop.tensor<[3], f32>
    }
    func.return %r : !hop.tensor<[5, 3], f32>
  }
}

// -----

// Only the scanned operand requires grad: nothing accumulates, the backward is a map.
// CHECK-LABEL: builtin.module
// CHECK:       func.func @backward(
// CHECK-NOT:     hop.scan
// CHECK:         %[[GXS:.*]] = hop.map xs(%xs, %tangent) additional(%w)
// CHECK:         func.return %[[GXS]]

builtin.module {
  func.func @forward(%xs: !hop.tensor<[5, 3], f32> {hop.requires_grad}, %w: !hop.tensor<[3], f32>) -> !hop.tensor<[5, 3], f32> {
    %r = hop.map xs(%xs) additional(%w) : (!hop.tensor<[5, 3], f32>), (!hop.tensor<[3], f32>) -> !hop.tensor<[5, 3], f32> {
    ^bb0(%row: !hop.tensor<[3], f32>, %v: !hop.tensor<[3], f32>):
      %m = aten.mul.Tensor(%row, %v) : (!hop.tensor<[3], f32>, !hop.tensor<[3], f32>) -> !hop.tensor<[3], f32>
      %s = aten.sin(%m) : (!hop.tensor<[3], f32>) -> !hop.tensor<[3], f32>
      hop.yield %s : !hop.tensor<[3], f32>
    }
    func.return %r : !hop.tensor<[5, 3], f32>
  }
}

// -----

// Neither h0 nor xs requires grad, but the body makes the carry depend on w:
// the carry is differentiated too (the per-step carries are stacked for w's gradient).
// CHECK-LABEL: builtin.module
// CHECK:       func.func @forward(
// CHECK:         %h, %[[CARRIES:.*]] = hop.scan init(%h0) xs(%xs) additional(%w)
// CHECK:         hop.yield %add, %c
// CHECK:       func.func @backward({{.*}}) -> (!hop.tensor<[4], f32> {hop.gradient_of = 2 : i64})
// CHECK:         hop.scan reverse init(%tangent, %{{.*}}) xs(%{{.*}}) additional(%w)

builtin.module {
  func.func @forward(%h0: !hop.tensor<[4], f32>, %xs: !hop.tensor<[6, 4], f32>, %w: !hop.tensor<[4], f32> {hop.requires_grad}) -> !hop.tensor<[4], f32> {
    %h = hop.scan init(%h0) xs(%xs) additional(%w) : (!hop.tensor<[4], f32>), (!hop.tensor<[6, 4], f32>), (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32> {
    ^bb0(%c: !hop.tensor<[4], f32>, %x: !hop.tensor<[4], f32>, %v: !hop.tensor<[4], f32>):
      %m = aten.mul.Tensor(%c, %v) : (!hop.tensor<[4], f32>, !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
      %a = aten.add.Tensor(%m, %x) : (!hop.tensor<[4], f32>, !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
      hop.yield %a : !hop.tensor<[4], f32>
    }
    func.return %h : !hop.tensor<[4], f32>
  }
}

// -----

// A size the step's backward needs (sum's gradient expands to [s0, 4]) is no
// stacked residual: lift-symbols binds s0 in the backward map from outside.
// CHECK-LABEL: builtin.module
// CHECK:       func.func @forward(
// CHECK:         %ys = hop.map xs(%xs) additional() {hop.seq_nr = 0 : i64} : {{.*}} -> !hop.tensor<[5], f32> {
// CHECK:       func.func @backward(%[[S0:.*]]: !hop.symint<s0> {hop.saved = 0 : i64}, %tangent: {{.*}})
// CHECK:         hop.map xs(%tangent) additional(%[[S0]])
// CHECK:           aten.expand_copy(%{{.*}}) {size = [#hop.expr<s0>, 4 : i64]

builtin.module {
  hop.symbol @s0 backed [2, oo] hint 3
  func.func @forward(%xs: !hop.tensor<[5, s0, 4], f32> {hop.requires_grad}) -> !hop.tensor<[5], f32> {
    %ys = hop.map xs(%xs) additional() : (!hop.tensor<[5, s0, 4], f32>), () -> !hop.tensor<[5], f32> {
    ^bb0(%x: !hop.tensor<[s0, 4], f32>):
      %s = aten.sum(%x) : (!hop.tensor<[s0, 4], f32>) -> !hop.tensor<[], f32>
      hop.yield %s : !hop.tensor<[], f32>
    }
    func.return %ys : !hop.tensor<[5], f32>
  }
}

// -----

// Nothing requires grad: the scan is left alone, with no stacked residuals.
// CHECK-LABEL: builtin.module
// CHECK-NOT:   hop.entry
// CHECK:       %h, %ys = hop.scan init(%h0) xs(%xs) additional() : {{.*}} -> !hop.tensor<[4], f32>, !hop.tensor<[6, 4], f32> {
// CHECK-NOT:   reverse

builtin.module {
  func.func @forward(%h0: !hop.tensor<[4], f32>, %xs: !hop.tensor<[6, 4], f32>) -> (!hop.tensor<[4], f32>, !hop.tensor<[6, 4], f32>) {
    %h, %ys = hop.scan init(%h0) xs(%xs) additional() : (!hop.tensor<[4], f32>), (!hop.tensor<[6, 4], f32>), () -> !hop.tensor<[4], f32>, !hop.tensor<[6, 4], f32> {
    ^bb0(%c: !hop.tensor<[4], f32>, %x: !hop.tensor<[4], f32>):
      %a = aten.add.Tensor(%c, %x) : (!hop.tensor<[4], f32>, !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
      %t = aten.tanh(%a) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
      hop.yield %a, %t : !hop.tensor<[4], f32>, !hop.tensor<[4], f32>
    }
    func.return %h, %ys : !hop.tensor<[4], f32>, !hop.tensor<[6, 4], f32>
  }
}

// -----

// xs requires grad but only reaches an integer per-step output: nothing to differentiate.
// CHECK-LABEL: builtin.module
// CHECK-NOT:   hop.entry
// CHECK:       %h, %is = hop.scan init(%h0) xs(%xs) additional() : {{.*}} -> !hop.tensor<[4], f32>, !hop.tensor<[6], i64> {
// CHECK:         aten.argmax
// CHECK-NOT:   hop.scan

builtin.module {
  func.func @forward(%h0: !hop.tensor<[4], f32>, %xs: !hop.tensor<[6, 4], f32> {hop.requires_grad}) -> !hop.tensor<[6], i64> {
    %h, %is = hop.scan init(%h0) xs(%xs) additional() : (!hop.tensor<[4], f32>), (!hop.tensor<[6, 4], f32>), () -> !hop.tensor<[4], f32>, !hop.tensor<[6], i64> {
    ^bb0(%c: !hop.tensor<[4], f32>, %x: !hop.tensor<[4], f32>):
      %a = aten.add.Tensor(%c, %x) : (!hop.tensor<[4], f32>, !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
      %i = aten.argmax(%a) : (!hop.tensor<[4], f32>) -> !hop.tensor<[], i64>
      hop.yield %a, %i : !hop.tensor<[4], f32>, !hop.tensor<[], i64>
    }
    func.return %is : !hop.tensor<[6], i64>
  }
}
