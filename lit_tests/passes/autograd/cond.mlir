// RUN: hopc-opt --autograd --split-input-file %s | filecheck %s
// RUN: hopc-opt --autograd --split-input-file %s | hopc-opt --split-input-file | filecheck %s

// The backward is a cond on the same predicate over the branches' backward
// blocks. Each branch saves only operands (x, w): no residual slot, and the
// forward cond keeps its one result; the predicate is saved.
// CHECK-LABEL: builtin.module
// CHECK:       func.func @forward(
// CHECK:         %[[R:.*]] = hop.cond %p(%x, %w, %n) {hop.seq_nr = 0 : i64} : {{.*}} -> !hop.tensor<[s0, 4], f32> then {
// CHECK:           aten.sin
// CHECK:         } else {
// CHECK:           aten.cos
// CHECK:         func.return %[[R]], %x, %w, %p :
// CHECK:       func.func @backward(%x: {{.*}}, %w: {{.*}}, %p: !hop.tensor<[], i1> {hop.saved = 2 : i64}, %tangent:
// CHECK:         %[[GX:.*]], %[[GW:.*]] = hop.cond %p(%x, %w, %tangent, %{{.*}}) {hop.seq_nr = 0 : i64}
// CHECK-SAME:      -> (!hop.tensor<[s0, 4], f32>, !hop.tensor<[4], f32>) then {
// CHECK:           aten.cos
// CHECK:           aten.mul.Tensor
// CHECK:         } else {
// CHECK:           aten.sin
// CHECK:           aten.neg
// CHECK:         func.return %[[GX]], %[[GW]]

builtin.module {
  hop.symbol @s0 backed [2, oo] hint 5
  func.func @forward(%x: !hop.tensor<[s0, 4], f32> {hop.requires_grad}, %w: !hop.tensor<[4], f32> {hop.requires_grad}, %p: !hop.tensor<[], i1>) -> !hop.tensor<[s0, 4], f32> {
    %n = hop.sym_size %x[0] : !hop.tensor<[s0, 4], f32> -> !hop.symint<s0>
    %r = hop.cond %p(%x, %w, %n) : !hop.tensor<[], i1>, (!hop.tensor<[s0, 4], f32>, !hop.tensor<[4], f32>, !hop.symint<s0>) -> !hop.tensor<[s0, 4], f32> then {
    ^bb0(%a: !hop.tensor<[s0, 4], f32>, %b: !hop.tensor<[4], f32>, %m: !hop.symint<s0>):
      %ab = aten.mul.Tensor(%a, %b) : (!hop.tensor<[s0, 4], f32>, !hop.tensor<[4], f32>) -> !hop.tensor<[s0, 4], f32>
      %s = aten.sin(%ab) : (!hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32>
      hop.yield %s : !hop.tensor<[s0, 4], f32>
    } else {
    ^bb0(%a: !hop.tensor<[s0, 4], f32>, %b: !hop.tensor<[4], f32>, %m: !hop.symint<s0>):
      %c = aten.cos(%a) : (!hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32>
      %cb = aten.add.Tensor(%c, %b) : (!hop.tensor<[s0, 4], f32>, !hop.tensor<[4], f32>) -> !hop.tensor<[s0, 4], f32>
      hop.yield %cb : !hop.tensor<[s0, 4], f32>
    }
    func.return %r : !hop.tensor<[s0, 4], f32>
  }
}

// -----

// The then branch saves cos(x @ w) [s0, 3], the else branch tanh(w) [4, 3]
// (its mm needs it in the forward too, so it is not recomputed: Note
// [recompute policy]). cos is flattened into a slot [u0] (a fresh size,
// declared), which the else branch fills with an empty [0]; the backward
// reshapes it. tanh's slot is [4, 3], which the then branch fills with zeros.
// CHECK-LABEL: builtin.module
// CHECK:       hop.symbol @[[U:u[0-9]+]] unbacked [0, oo]
// CHECK:       func.func @forward(
// CHECK:         %r, %[[SLOT:[a-z0-9_]+]], %[[TANH_SLOT:[a-z0-9_]+]] = hop.cond %p(%x, %w, %n) {hop.seq_nr = 0 : i64} : {{.*}} -> (!hop.tensor<[s0, 3], f32>, !hop.tensor<[[[U]]], f32>, !hop.tensor<[4, 3], f32>) then {
// CHECK:           %[[FLAT:.*]] = aten.view_copy(%cos) {size = [-1 : i64]} : (!hop.tensor<[s0, 3], f32>) -> !hop.tensor<[3*s0], f32>
// CHECK:           %[[ZEROS:.*]] = aten.new_zeros(%{{.*}}) {size = [4 : i64, 3 : i64], dtype = f32}
// CHECK:           hop.yield %sin, %[[FLAT]], %[[ZEROS]]
// CHECK:         } else {
// CHECK:           %[[EMPTY:.*]] = aten.new_zeros(%{{.*}}) {size = [0 : i64], dtype = f32}
// CHECK:           hop.yield %{{.*}}, %[[EMPTY]], %tanh
// CHECK:       func.func @backward(
// CHECK:         hop.cond %p(%{{.*}}, %{{.*}}, %x, %w, %tangent, %{{.*}})
// CHECK-NEXT:    ^bb0(%[[SAVED:[a-z0-9_]+]]: !hop.tensor<[[[U]]], f32>,
// CHECK-NEXT:      aten.as_strided_copy(%[[SAVED]]) {size = [#hop.expr<s0>, 3 : i64], stride = [3 : i64, 1 : i64]}
// CHECK:         } else {
// CHECK-NEXT:    ^bb0(%{{[a-z0-9_]+}}: !hop.tensor<[[[U]]], f32>, %[[SAVED_TANH:[a-z0-9_]+]]: !hop.tensor<[4, 3], f32>,
// CHECK-NOT:       as_strided_copy
// CHECK-NOT:       aten.tanh(
// CHECK:           aten.tanh_backward(%{{.*}}, %[[SAVED_TANH]])

builtin.module {
  hop.symbol @s0 backed [2, oo] hint 5
  func.func @forward(%x: !hop.tensor<[s0, 4], f32> {hop.requires_grad}, %w: !hop.tensor<[4, 3], f32> {hop.requires_grad}, %p: !hop.tensor<[], i1>) -> !hop.tensor<[s0, 3], f32> {
    %n = hop.sym_size %x[0] : !hop.tensor<[s0, 4], f32> -> !hop.symint<s0>
    %r = hop.cond %p(%x, %w, %n) {hop.cond_backward = "save"} : !hop.tensor<[], i1>, (!hop.tensor<[s0, 4], f32>, !hop.tensor<[4, 3], f32>, !hop.symint<s0>) -> !hop.tensor<[s0, 3], f32> then {
    ^bb0(%a: !hop.tensor<[s0, 4], f32>, %b: !hop.tensor<[4, 3], f32>, %m: !hop.symint<s0>):
      %mm = aten.mm(%a, %b) : (!hop.tensor<[s0, 4], f32>, !hop.tensor<[4, 3], f32>) -> !hop.tensor<[s0, 3], f32>
      %s = aten.sin(%mm) : (!hop.tensor<[s0, 3], f32>) -> !hop.tensor<[s0, 3], f32>
      hop.yield %s : !hop.tensor<[s0, 3], f32>
    } else {
    ^bb0(%a: !hop.tensor<[s0, 4], f32>, %b: !hop.tensor<[4, 3], f32>, %m: !hop.symint<s0>):
      %t = aten.tanh(%b) : (!hop.tensor<[4, 3], f32>) -> !hop.tensor<[4, 3], f32>
      %mm = aten.mm(%a, %t) : (!hop.tensor<[s0, 4], f32>, !hop.tensor<[4, 3], f32>) -> !hop.tensor<[s0, 3], f32>
      hop.yield %mm : !hop.tensor<[s0, 3], f32>
    }
    func.return %r : !hop.tensor<[s0, 3], f32>
  }
}

// -----

// A size the then branch defines (u3, the count of positive entries) is
// unknown outside it: the saved exp [u3] leaves in a slot of a fresh size u0,
// the else branch yields [0] there, and the backward block names u3 as u0.
// The scalar sum is tiny: the else branch yields a zero of its type. The else
// branch saves its exp (its result; not recomputed: Note [recompute policy]),
// where the then branch yields zeros.
// CHECK-LABEL: builtin.module
// CHECK:       hop.symbol @[[U:u[0-9]+]] unbacked [0, oo]
// CHECK:       func.func @forward(
// CHECK:         hop.cond %p(%x) {hop.seq_nr = 0 : i64} : {{.*}} -> (!hop.tensor<[6], f32>, !hop.tensor<[[[U]]], f32>, !hop.tensor<[], f32>, !hop.tensor<[6], f32>) then {
// CHECK:           hop.yield %mul, %exp, %sum, %{{.*}} : !hop.tensor<[6], f32>, !hop.tensor<[u3], f32>, !hop.tensor<[], f32>, !hop.tensor<[6], f32>
// CHECK:         } else {
// CHECK:           hop.yield %[[E:[a-z0-9_]+]], %{{.*}}, %{{.*}}, %[[E]] : !hop.tensor<[6], f32>, !hop.tensor<[0], f32>, !hop.tensor<[], f32>, !hop.tensor<[6], f32>
// CHECK:       func.func @backward(
// CHECK:         hop.cond %p(
// CHECK-NOT:       u3
// CHECK:           aten.expand_copy(%{{.*}}) {size = [#hop.expr<[[U]]>]
// CHECK:         } else {

builtin.module {
  hop.symbol @u3 unbacked [0, 6]
  func.func @forward(%x: !hop.tensor<[6], f32> {hop.requires_grad}, %p: !hop.tensor<[], i1>) -> !hop.tensor<[6], f32> {
    %r = hop.cond %p(%x) {hop.cond_backward = "save"} : !hop.tensor<[], i1>, (!hop.tensor<[6], f32>) -> !hop.tensor<[6], f32> then {
    ^bb0(%a: !hop.tensor<[6], f32>):
      %positive = aten.gt.Scalar(%a) {other = 0 : i64} : (!hop.tensor<[6], f32>) -> !hop.tensor<[6], i1>
      %picked = aten.index.Tensor(%a, [%positive]) : (!hop.tensor<[6], f32>, !hop.tensor<[6], i1>) -> !hop.tensor<[u3], f32>
      %e = aten.exp(%picked) : (!hop.tensor<[u3], f32>) -> !hop.tensor<[u3], f32>
      %total = aten.sum(%e) : (!hop.tensor<[u3], f32>) -> !hop.tensor<[], f32>
      %scaled = aten.mul.Tensor(%total, %a) : (!hop.tensor<[], f32>, !hop.tensor<[6], f32>) -> !hop.tensor<[6], f32>
      hop.yield %scaled : !hop.tensor<[6], f32>
    } else {
    ^bb0(%a: !hop.tensor<[6], f32>):
      %e = aten.exp(%a) : (!hop.tensor<[6], f32>) -> !hop.tensor<[6], f32>
      hop.yield %e : !hop.tensor<[6], f32>
    }
    func.return %r : !hop.tensor<[6], f32>
  }
}

// -----

// The cond reads only y, which carries no gradient: it keeps its form and
// gets no backward; the backward is x's product rule alone.
// CHECK-LABEL: builtin.module
// CHECK:       func.func @forward(
// CHECK:         %r = hop.cond %p(%y) : {{.*}} -> !hop.tensor<[4], f32> then {
// CHECK:       func.func @backward(
// CHECK-NOT:     hop.cond
// CHECK:         func.return

builtin.module {
  func.func @forward(%x: !hop.tensor<[4], f32> {hop.requires_grad}, %y: !hop.tensor<[4], f32>, %p: !hop.tensor<[], i1>) -> !hop.tensor<[4], f32> {
    %r = hop.cond %p(%y) : !hop.tensor<[], i1>, (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32> then {
    ^bb0(%a: !hop.tensor<[4], f32>):
      %s = aten.sin(%a) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
      hop.yield %s : !hop.tensor<[4], f32>
    } else {
    ^bb0(%a: !hop.tensor<[4], f32>):
      hop.yield %a : !hop.tensor<[4], f32>
    }
    %out = aten.mul.Tensor(%x, %r) : (!hop.tensor<[4], f32>, !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
    func.return %out : !hop.tensor<[4], f32>
  }
}

// -----

// Nothing requires grad: the pass leaves the module and its cond alone.
// CHECK-LABEL: builtin.module
// CHECK-NOT:   hop.entry
// CHECK:       %r = hop.cond %p(%x) : {{.*}} -> !hop.tensor<[4], f32> then {
// CHECK-NOT:   func.func @backward

builtin.module {
  func.func @forward(%x: !hop.tensor<[4], f32>, %p: !hop.tensor<[], i1>) -> !hop.tensor<[4], f32> {
    %r = hop.cond %p(%x) : !hop.tensor<[], i1>, (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32> then {
    ^bb0(%a: !hop.tensor<[4], f32>):
      %s = aten.sin(%a) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
      hop.yield %s : !hop.tensor<[4], f32>
    } else {
    ^bb0(%a: !hop.tensor<[4], f32>):
      hop.yield %a : !hop.tensor<[4], f32>
    }
    func.return %r : !hop.tensor<[4], f32>
  }
}

// -----

// Nested conds: the outer branch's backward holds the inner cond's backward,
// on the inner predicate q, which the outer branch takes as an operand.
// CHECK-LABEL: builtin.module
// CHECK:       func.func @backward(%x: {{.*}}, %p: {{.*}}, %q: {{.*}}, %tangent:
// CHECK:         hop.cond %p(%x, %q, %tangent)
// CHECK-NEXT:    ^bb0(%{{.*}}: !hop.tensor<[4], f32>, %[[Q:.*]]: !hop.tensor<[], i1>, %{{.*}}: !hop.tensor<[4], f32>):
// CHECK-NEXT:      hop.cond %[[Q]](
// CHECK:             aten.tanh_backward
// CHECK:           } else {
// CHECK:             aten.exp
// CHECK:         } else {
// CHECK:           aten.neg

builtin.module {
  func.func @forward(%x: !hop.tensor<[4], f32> {hop.requires_grad}, %p: !hop.tensor<[], i1>, %q: !hop.tensor<[], i1>) -> !hop.tensor<[4], f32> {
    %r = hop.cond %p(%x, %q) : !hop.tensor<[], i1>, (!hop.tensor<[4], f32>, !hop.tensor<[], i1>) -> !hop.tensor<[4], f32> then {
    ^bb0(%a: !hop.tensor<[4], f32>, %inner: !hop.tensor<[], i1>):
      %i = hop.cond %inner(%a) : !hop.tensor<[], i1>, (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32> then {
      ^bb0(%c: !hop.tensor<[4], f32>):
        %t = aten.tanh(%c) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
        hop.yield %t : !hop.tensor<[4], f32>
      } else {
      ^bb0(%c: !hop.tensor<[4], f32>):
        %e = aten.exp(%c) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
        hop.yield %e : !hop.tensor<[4], f32>
      }
      hop.yield %i : !hop.tensor<[4], f32>
    } else {
    ^bb0(%a: !hop.tensor<[4], f32>, %inner: !hop.tensor<[], i1>):
      %n = aten.neg(%a) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
      hop.yield %n : !hop.tensor<[4], f32>
    }
    func.return %r : !hop.tensor<[4], f32>
  }
}

// -----

// The then branch would save cos(x @ w), a value of its own: the cond
// recomputes instead (Note [cond backward modes]), as PyTorch does. The
// forward cond is left as it was (no slot, the attribute-free original), and
// the backward cond's then branch reruns the mm before its backward.
// CHECK-LABEL: builtin.module
// CHECK-NOT:   hop.symbol @u
// CHECK:       func.func @forward(
// CHECK:         %r = hop.cond %p(%x, %w, %s0) {hop.seq_nr = 0 : i64} : {{.*}} -> !hop.tensor<[s0, 3], f32> then {
// CHECK:           hop.yield %s : !hop.tensor<[s0, 3], f32>
// CHECK:         func.return %r, %x, %w, %p :
// CHECK:       func.func @backward(
// CHECK:         hop.cond %p(%x, %w, %tangent, %s0) {hop.seq_nr = 0 : i64}
// CHECK-NEXT:    ^bb0(
// CHECK-NEXT:      %mm = aten.mm(
// CHECK:           aten.cos(%mm)
// CHECK:         } else {
// CHECK:           aten.tanh(

builtin.module {
  hop.symbol @s0 backed [2, oo] hint 5
  func.func @forward(%x: !hop.tensor<[s0, 4], f32> {hop.requires_grad}, %w: !hop.tensor<[4, 3], f32> {hop.requires_grad}, %p: !hop.tensor<[], i1>) -> !hop.tensor<[s0, 3], f32> {
    %r = hop.cond %p(%x, %w) : !hop.tensor<[], i1>, (!hop.tensor<[s0, 4], f32>, !hop.tensor<[4, 3], f32>) -> !hop.tensor<[s0, 3], f32> then {
    ^bb0(%a: !hop.tensor<[s0, 4], f32>, %b: !hop.tensor<[4, 3], f32>):
      %mm = aten.mm(%a, %b) : (!hop.tensor<[s0, 4], f32>, !hop.tensor<[4, 3], f32>) -> !hop.tensor<[s0, 3], f32>
      %s = aten.sin(%mm) : (!hop.tensor<[s0, 3], f32>) -> !hop.tensor<[s0, 3], f32>
      hop.yield %s : !hop.tensor<[s0, 3], f32>
    } else {
    ^bb0(%a: !hop.tensor<[s0, 4], f32>, %b: !hop.tensor<[4, 3], f32>):
      %t = aten.tanh(%b) : (!hop.tensor<[4, 3], f32>) -> !hop.tensor<[4, 3], f32>
      %mm = aten.mm(%a, %t) : (!hop.tensor<[s0, 4], f32>, !hop.tensor<[4, 3], f32>) -> !hop.tensor<[s0, 3], f32>
      hop.yield %mm : !hop.tensor<[s0, 3], f32>
    }
    func.return %r : !hop.tensor<[s0, 3], f32>
  }
}

// -----

// A branch that draws random numbers is never rerun (it would draw others):
// the mask is saved in a slot, though it is a value of the branch's own.
// CHECK-LABEL: builtin.module
// CHECK:       func.func @forward(
// CHECK:         %r, %[[MASK:.*]] = hop.cond %p(%x) {hop.seq_nr = 0 : i64} : {{.*}} -> (!hop.tensor<[4], f32>, !hop.tensor<[4], f32>) then {
// CHECK:           aten.rand_like
// CHECK:       func.func @backward(
// CHECK-NOT:     aten.rand_like
// CHECK:         func.return

builtin.module {
  func.func @forward(%x: !hop.tensor<[4], f32> {hop.requires_grad}, %p: !hop.tensor<[], i1>) -> !hop.tensor<[4], f32> {
    %r = hop.cond %p(%x) : !hop.tensor<[], i1>, (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32> then {
    ^bb0(%a: !hop.tensor<[4], f32>):
      %mask = aten.rand_like(%a) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
      %m = aten.mul.Tensor(%a, %mask) : (!hop.tensor<[4], f32>, !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
      hop.yield %m : !hop.tensor<[4], f32>
    } else {
    ^bb0(%a: !hop.tensor<[4], f32>):
      %n = aten.neg(%a) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
      hop.yield %n : !hop.tensor<[4], f32>
    }
    func.return %r : !hop.tensor<[4], f32>
  }
}
