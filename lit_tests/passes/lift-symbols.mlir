// RUN: hopc-opt %s --lift-symbols --split-input-file | filecheck %s
// RUN: hopc-opt %s --lift-symbols --lift-symbols --verify-symbol-closed --verify-isolated --split-input-file | filecheck %s

// Lifted argument order: Note [lifted symbol ordering]; binding rules:
// Note [where a symbol is bound] (passes/lift_symbols_analysis.py).

// Both branches of a cond get the symbol of their argument types; the
// function binds s0 by %x's shape, through one hop.sym_size made at its top.
// CHECK-LABEL: func.func @cond_branches
// CHECK-SAME:    %[[X:[^:]*]]: !hop.tensor<[s0], f32>
// CHECK-NEXT:    %[[S0:.*]] = hop.sym_size %[[X]][0] : !hop.tensor<[s0], f32> -> !hop.symint<s0>
// CHECK-NOT:     hop.sym_size
// CHECK:         hop.cond %{{.*}}(%[[X]], %[[S0]]) : !hop.tensor<[], i1>, (!hop.tensor<[s0], f32>, !hop.symint<s0>) -> !hop.tensor<[s0], f32> then {
// CHECK-NEXT:    ^bb0(%{{.*}}: !hop.tensor<[s0], f32>, %{{.*}}: !hop.symint<s0>):
// CHECK:         } else {
// CHECK-NEXT:    ^bb0(%{{.*}}: !hop.tensor<[s0], f32>, %{{.*}}: !hop.symint<s0>):
// CHECK:         hop.wrap(%{{.*}}, %[[S0]]) : (!hop.tensor<[s0], f32>, !hop.symint<s0>) -> !hop.tensor<[s0], f32> {
// CHECK-NEXT:    ^bb0(%{{.*}}: !hop.tensor<[s0], f32>, %{{.*}}: !hop.symint<s0>):

hop.symbol @s0 backed [2, oo]
func.func @cond_branches(%p: !hop.tensor<[], i1>, %x: !hop.tensor<[s0], f32>) -> !hop.tensor<[s0], f32> {
  %r = hop.cond %p(%x) : !hop.tensor<[], i1>, (!hop.tensor<[s0], f32>) -> !hop.tensor<[s0], f32> then {
  ^bb0(%a: !hop.tensor<[s0], f32>):
    %s = aten.sin(%a) : (!hop.tensor<[s0], f32>) -> !hop.tensor<[s0], f32>
    hop.yield %s : !hop.tensor<[s0], f32>
  } else {
  ^bb0(%a: !hop.tensor<[s0], f32>):
    hop.yield %a : !hop.tensor<[s0], f32>
  }
  %w = hop.wrap(%r) : (!hop.tensor<[s0], f32>) -> !hop.tensor<[s0], f32> {
  ^bb0(%b: !hop.tensor<[s0], f32>):
    %c = aten.cos(%b) : (!hop.tensor<[s0], f32>) -> !hop.tensor<[s0], f32>
    hop.yield %c : !hop.tensor<[s0], f32>
  }
  func.return %w : !hop.tensor<[s0], f32>
}

// -----

// A size the cond takes as an operand binds s0 in each branch: nothing is
// lifted, and no second hop.sym_size is made.
// CHECK-LABEL: func.func @size_passed_as_operand
// CHECK:         %[[N:.*]] = hop.sym_size %{{.*}}[0]
// CHECK-NOT:     hop.sym_size
// CHECK:         hop.cond %{{.*}}(%{{.*}}, %[[N]]) :
// CHECK-NEXT:    ^bb0(%{{.*}}: !hop.tensor<[s0], f32>, %[[ARG:.*]]: !hop.symint<s0>):
// CHECK:         hop.sym_mul %[[ARG]], %{{.*}} :
// CHECK:         hop.sym_ge %{{.*}}, %[[ARG]] :

hop.symbol @s0 backed [2, oo]
func.func @size_passed_as_operand(%p: !hop.tensor<[], i1>, %x: !hop.tensor<[s0], f32>) -> !hop.tensor<[s0], f32> {
  %n = hop.sym_size %x[0] : !hop.tensor<[s0], f32> -> !hop.symint<s0>
  %r = hop.cond %p(%x, %n) : !hop.tensor<[], i1>, (!hop.tensor<[s0], f32>, !hop.symint<s0>) -> !hop.tensor<[s0], f32> then {
  ^bb0(%a: !hop.tensor<[s0], f32>, %m: !hop.symint<s0>):
    %two = hop.sym_constant : !hop.symint<2>
    %twice = hop.sym_mul %m, %two : !hop.symint<s0>, !hop.symint<2> -> !hop.symint<2*s0>
    %ok = hop.sym_ge %twice, %m : !hop.symint<2*s0>, !hop.symint<s0> -> !hop.symbool<Ge(2*s0, s0)>
    hop.assert %ok, "twice the size is no smaller" : !hop.symbool<Ge(2*s0, s0)>
    hop.yield %a : !hop.tensor<[s0], f32>
  } else {
  ^bb0(%a: !hop.tensor<[s0], f32>, %m: !hop.symint<s0>):
    hop.yield %a : !hop.tensor<[s0], f32>
  }
  func.return %r : !hop.tensor<[s0], f32>
}

// -----

// Three levels: only the checkpoint uses s1 (through a size), so each
// enclosing region lifts s1 to pass it down; s0 comes from argument types.
// CHECK-LABEL: func.func @three_levels
// CHECK-SAME:    %[[X:[^:]*]]: !hop.tensor<[s0], f32>, %[[Y:[^:]*]]: !hop.tensor<[s1], f32>
// CHECK-NEXT:    %[[S0:.*]] = hop.sym_size %[[X]][0]
// CHECK-NEXT:    %[[S1:.*]] = hop.sym_size %[[Y]][0]
// CHECK-NEXT:    hop.wrap(%{{.*}}, %{{.*}}, %[[S0]], %[[S1]])
// CHECK-NEXT:    ^bb0(%{{.*}}: !hop.tensor<[], i1>, %{{.*}}: !hop.tensor<[s0], f32>, %[[W0:.*]]: !hop.symint<s0>, %[[W1:.*]]: !hop.symint<s1>):
// CHECK-NEXT:    hop.cond %{{.*}}(%{{.*}}, %[[W0]], %[[W1]])
// CHECK-NEXT:    ^bb0(%{{.*}}: !hop.tensor<[s0], f32>, %[[C0:.*]]: !hop.symint<s0>, %[[C1:.*]]: !hop.symint<s1>):
// CHECK-NEXT:    hop.checkpoint(%{{.*}}, %[[C0]], %[[C1]])
// CHECK-NEXT:    ^bb0(%{{.*}}: !hop.tensor<[s0], f32>, %{{.*}}: !hop.symint<s0>, %{{.*}}: !hop.symint<s1>):
// CHECK-NEXT:    aten.zeros() {size = [#hop.expr<s1>]}
// CHECK:         } else {
// CHECK-NEXT:    ^bb0(%{{.*}}: !hop.tensor<[s0], f32>, %{{.*}}: !hop.symint<s0>, %{{.*}}: !hop.symint<s1>):

hop.symbol @s0 backed [2, oo]
hop.symbol @s1 backed [1, oo]
func.func @three_levels(%p: !hop.tensor<[], i1>, %x: !hop.tensor<[s0], f32>, %y: !hop.tensor<[s1], f32>) -> !hop.tensor<[s0], f32> {
  %r = hop.wrap(%p, %x) : (!hop.tensor<[], i1>, !hop.tensor<[s0], f32>) -> !hop.tensor<[s0], f32> {
  ^bb0(%q: !hop.tensor<[], i1>, %a: !hop.tensor<[s0], f32>):
    %c = hop.cond %q(%a) : !hop.tensor<[], i1>, (!hop.tensor<[s0], f32>) -> !hop.tensor<[s0], f32> then {
    ^bb0(%b: !hop.tensor<[s0], f32>):
      %k = hop.checkpoint(%b) : (!hop.tensor<[s0], f32>) -> !hop.tensor<[s0], f32> {
      ^bb0(%d: !hop.tensor<[s0], f32>):
        %z = aten.zeros() {size = [#hop.expr<s1>]} : () -> !hop.tensor<[s1], f32>
        %t = aten.sum(%z) : (!hop.tensor<[s1], f32>) -> !hop.tensor<[], f32>
        %e = aten.add.Tensor(%d, %t) : (!hop.tensor<[s0], f32>, !hop.tensor<[], f32>) -> !hop.tensor<[s0], f32>
        hop.yield %e : !hop.tensor<[s0], f32>
      }
      hop.yield %k : !hop.tensor<[s0], f32>
    } else {
    ^bb0(%b: !hop.tensor<[s0], f32>):
      hop.yield %b : !hop.tensor<[s0], f32>
    }
    hop.yield %c : !hop.tensor<[s0], f32>
  }
  func.return %r : !hop.tensor<[s0], f32>
}

// -----

// The wrap already binds s1 by an argument of its own: it lifts only s0, and
// its cond receives the wrap's %n for s1.
// CHECK-LABEL: func.func @already_bound_above
// CHECK:         hop.wrap(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) : (!hop.tensor<[], i1>, !hop.tensor<[s0], f32>, !hop.symint<s1>, !hop.symint<s0>)
// CHECK-NEXT:    ^bb0(%{{.*}}: !hop.tensor<[], i1>, %{{.*}}: !hop.tensor<[s0], f32>, %[[N:.*]]: !hop.symint<s1>, %[[W0:.*]]: !hop.symint<s0>):
// CHECK-NEXT:    hop.cond %{{.*}}(%{{.*}}, %[[W0]], %[[N]])

hop.symbol @s0 backed [2, oo]
hop.symbol @s1 backed [1, oo]
func.func @already_bound_above(%p: !hop.tensor<[], i1>, %x: !hop.tensor<[s0], f32>, %y: !hop.tensor<[s1], f32>) -> !hop.tensor<[s0], f32> {
  %m = hop.sym_size %y[0] : !hop.tensor<[s1], f32> -> !hop.symint<s1>
  %r = hop.wrap(%p, %x, %m) : (!hop.tensor<[], i1>, !hop.tensor<[s0], f32>, !hop.symint<s1>) -> !hop.tensor<[s0], f32> {
  ^bb0(%q: !hop.tensor<[], i1>, %a: !hop.tensor<[s0], f32>, %n: !hop.symint<s1>):
    %c = hop.cond %q(%a) : !hop.tensor<[], i1>, (!hop.tensor<[s0], f32>) -> !hop.tensor<[s0], f32> then {
    ^bb0(%b: !hop.tensor<[s0], f32>):
      %z = aten.zeros() {size = [#hop.expr<s1>]} : () -> !hop.tensor<[s1], f32>
      %t = aten.sum(%z) : (!hop.tensor<[s1], f32>) -> !hop.tensor<[], f32>
      %e = aten.add.Tensor(%b, %t) : (!hop.tensor<[s0], f32>, !hop.tensor<[], f32>) -> !hop.tensor<[s0], f32>
      hop.yield %e : !hop.tensor<[s0], f32>
    } else {
    ^bb0(%b: !hop.tensor<[s0], f32>):
      hop.yield %b : !hop.tensor<[s0], f32>
    }
    hop.yield %c : !hop.tensor<[s0], f32>
  }
  func.return %r : !hop.tensor<[s0], f32>
}

// -----

// An unbacked symbol is lifted from its hop.item, never re-bound: the cond
// passes %u itself. Lifted arguments follow first need: s0 (argument type)
// before u0 (a size inside).
// CHECK-LABEL: func.func @unbacked_from_item
// CHECK:         %[[S0:.*]] = hop.sym_size
// CHECK-NEXT:    %[[U:.*]] = hop.item %{{.*}} : !hop.tensor<[], i64> -> !hop.symint<u0>
// CHECK-NEXT:    hop.cond %{{.*}}(%{{.*}}, %[[S0]], %[[U]]) : !hop.tensor<[], i1>, (!hop.tensor<[s0], f32>, !hop.symint<s0>, !hop.symint<u0>)
// CHECK-NEXT:    ^bb0(%{{.*}}: !hop.tensor<[s0], f32>, %{{.*}}: !hop.symint<s0>, %{{.*}}: !hop.symint<u0>):
// CHECK-NOT:     hop.symbol @u1

hop.symbol @s0 backed [2, oo]
hop.symbol @u0 unbacked [0, oo]
func.func @unbacked_from_item(%p: !hop.tensor<[], i1>, %i: !hop.tensor<[], i64>, %x: !hop.tensor<[s0], f32>) -> !hop.tensor<[s0], f32> {
  %u = hop.item %i : !hop.tensor<[], i64> -> !hop.symint<u0>
  %r = hop.cond %p(%x) : !hop.tensor<[], i1>, (!hop.tensor<[s0], f32>) -> !hop.tensor<[s0], f32> then {
  ^bb0(%a: !hop.tensor<[s0], f32>):
    %z = aten.ones() {size = [#hop.expr<u0>]} : () -> !hop.tensor<[u0], f32>
    %t = aten.sum(%z) : (!hop.tensor<[u0], f32>) -> !hop.tensor<[], f32>
    %e = aten.add.Tensor(%a, %t) : (!hop.tensor<[s0], f32>, !hop.tensor<[], f32>) -> !hop.tensor<[s0], f32>
    hop.yield %e : !hop.tensor<[s0], f32>
  } else {
  ^bb0(%a: !hop.tensor<[s0], f32>):
    hop.yield %a : !hop.tensor<[s0], f32>
  }
  func.return %r : !hop.tensor<[s0], f32>
}

// -----

// An unbacked symbol defined inside a region is bound there: the wrap lifts
// nothing for u0, and its cond gets %u from the wrap's own hop.item.
// CHECK-LABEL: func.func @unbacked_inside
// CHECK-NEXT:    hop.wrap(%{{.*}}, %{{.*}}) : (!hop.tensor<[], i1>, !hop.tensor<[], i64>) -> !hop.tensor<[], f32> {
// CHECK-NEXT:    ^bb0(%{{.*}}: !hop.tensor<[], i1>, %{{.*}}: !hop.tensor<[], i64>):
// CHECK-NEXT:    %[[U:.*]] = hop.item
// CHECK-NEXT:    hop.cond %{{.*}}(%{{.*}}, %[[U]])

hop.symbol @u0 unbacked [0, oo]
func.func @unbacked_inside(%p: !hop.tensor<[], i1>, %i: !hop.tensor<[], i64>) -> !hop.tensor<[], f32> {
  %r = hop.wrap(%p, %i) : (!hop.tensor<[], i1>, !hop.tensor<[], i64>) -> !hop.tensor<[], f32> {
  ^bb0(%q: !hop.tensor<[], i1>, %j: !hop.tensor<[], i64>):
    %u = hop.item %j : !hop.tensor<[], i64> -> !hop.symint<u0>
    %c = hop.cond %q(%j) : !hop.tensor<[], i1>, (!hop.tensor<[], i64>) -> !hop.tensor<[], f32> then {
    ^bb0(%k: !hop.tensor<[], i64>):
      %z = aten.ones() {size = [#hop.expr<u0>]} : () -> !hop.tensor<[u0], f32>
      %t = aten.sum(%z) : (!hop.tensor<[u0], f32>) -> !hop.tensor<[], f32>
      hop.yield %t : !hop.tensor<[], f32>
    } else {
    ^bb0(%k: !hop.tensor<[], i64>):
      %t = aten.zeros() {size = []} : () -> !hop.tensor<[], f32>
      hop.yield %t : !hop.tensor<[], f32>
    }
    hop.yield %c : !hop.tensor<[], f32>
  }
  func.return %r : !hop.tensor<[], f32>
}

// -----

// An unbacked size (nonzero's u1) defined inside a wrap is passed to the
// nested cond through one hop.sym_size made right after the nonzero.
// CHECK-LABEL: func.func @unbacked_dimension
// CHECK:         %[[NZ:.*]] = aten.nonzero
// CHECK-NEXT:    %[[U1:.*]] = hop.sym_size %[[NZ]][0] : !hop.tensor<[u1, 1], i64> -> !hop.symint<u1>
// CHECK-NEXT:    hop.cond %{{.*}}(%[[NZ]], %[[U1]])

hop.symbol @u1 unbacked [0, oo]
func.func @unbacked_dimension(%p: !hop.tensor<[], i1>, %x: !hop.tensor<[5], f32>) -> !hop.tensor<[], i64> {
  %r = hop.wrap(%p, %x) : (!hop.tensor<[], i1>, !hop.tensor<[5], f32>) -> !hop.tensor<[], i64> {
  ^bb0(%q: !hop.tensor<[], i1>, %a: !hop.tensor<[5], f32>):
    %nz = aten.nonzero(%a) : (!hop.tensor<[5], f32>) -> !hop.tensor<[u1, 1], i64>
    %c = hop.cond %q(%nz) : !hop.tensor<[], i1>, (!hop.tensor<[u1, 1], i64>) -> !hop.tensor<[], i64> then {
    ^bb0(%b: !hop.tensor<[u1, 1], i64>):
      %t = aten.sum(%b) : (!hop.tensor<[u1, 1], i64>) -> !hop.tensor<[], i64>
      hop.yield %t : !hop.tensor<[], i64>
    } else {
    ^bb0(%b: !hop.tensor<[u1, 1], i64>):
      %t = aten.max(%b) : (!hop.tensor<[u1, 1], i64>) -> !hop.tensor<[], i64>
      hop.yield %t : !hop.tensor<[], i64>
    }
    hop.yield %c : !hop.tensor<[], i64>
  }
  func.return %r : !hop.tensor<[], i64>
}

// -----

// Two tensors sharing symbols give one argument per symbol, in order of first
// appearance: s1 (first dim of %a) before s0.
// CHECK-LABEL: func.func @once_each
// CHECK-NEXT:    %[[S1:.*]] = hop.sym_size %{{.*}}[0] : !hop.tensor<[s1, s0], f32> -> !hop.symint<s1>
// CHECK-NEXT:    %[[S0:.*]] = hop.sym_size %{{.*}}[1] : !hop.tensor<[s1, s0], f32> -> !hop.symint<s0>
// CHECK-NEXT:    hop.wrap(%{{.*}}, %{{.*}}, %[[S1]], %[[S0]])
// CHECK-NEXT:    ^bb0(%{{.*}}: !hop.tensor<[s1, s0], f32>, %{{.*}}: !hop.tensor<[s0, s1], f32>, %{{.*}}: !hop.symint<s1>, %{{.*}}: !hop.symint<s0>):

hop.symbol @s0 backed [2, oo]
hop.symbol @s1 backed [1, oo]
func.func @once_each(%x: !hop.tensor<[s1, s0], f32>, %y: !hop.tensor<[s0, s1], f32>) -> !hop.tensor<[s1, s1], f32> {
  %r = hop.wrap(%x, %y) : (!hop.tensor<[s1, s0], f32>, !hop.tensor<[s0, s1], f32>) -> !hop.tensor<[s1, s1], f32> {
  ^bb0(%a: !hop.tensor<[s1, s0], f32>, %b: !hop.tensor<[s0, s1], f32>):
    %m = aten.mm(%a, %b) : (!hop.tensor<[s1, s0], f32>, !hop.tensor<[s0, s1], f32>) -> !hop.tensor<[s1, s1], f32>
    hop.yield %m : !hop.tensor<[s1, s1], f32>
  }
  func.return %r : !hop.tensor<[s1, s1], f32>
}

// -----

// A compound size (s0*s1) lifts its free symbols, not the expression.
// CHECK-LABEL: func.func @compound_expression
// CHECK:         hop.wrap(%{{.*}}, %{{.*}}, %{{.*}}) : (!hop.tensor<[s0, s1], f32>, !hop.symint<s0>, !hop.symint<s1>)
// CHECK-NOT:     !hop.symint<s0*s1>

hop.symbol @s0 backed [2, oo]
hop.symbol @s1 backed [1, oo]
func.func @compound_expression(%x: !hop.tensor<[s0, s1], f32>) -> !hop.tensor<[s0, s1], f32> {
  %r = hop.wrap(%x) : (!hop.tensor<[s0, s1], f32>) -> !hop.tensor<[s0, s1], f32> {
  ^bb0(%a: !hop.tensor<[s0, s1], f32>):
    %f = aten.view(%a) {size = [#hop.expr<s0*s1>]} : (!hop.tensor<[s0, s1], f32>) -> !hop.tensor<[s0*s1], f32>
    %g = aten.sin(%f) : (!hop.tensor<[s0*s1], f32>) -> !hop.tensor<[s0*s1], f32>
    %h = aten.view(%g) {size = [#hop.expr<s0>, #hop.expr<s1>]} : (!hop.tensor<[s0*s1], f32>) -> !hop.tensor<[s0, s1], f32>
    hop.yield %h : !hop.tensor<[s0, s1], f32>
  }
  func.return %r : !hop.tensor<[s0, s1], f32>
}

// -----

// A compound size only in an op's attribute, in a region whose types are
// static: both symbols are lifted, from two different entry arguments.
// CHECK-LABEL: func.func @compound_attribute_only
// CHECK-SAME:    %[[Y:[^:]*]]: !hop.tensor<[s0], f32>, %[[Z:[^:]*]]: !hop.tensor<[s1], f32>
// CHECK-NEXT:    %[[S0:.*]] = hop.sym_size %[[Y]][0]
// CHECK-NEXT:    %[[S1:.*]] = hop.sym_size %[[Z]][0]
// CHECK-NEXT:    hop.wrap(%{{.*}}, %[[S0]], %[[S1]]) : (!hop.tensor<[4], f32>, !hop.symint<s0>, !hop.symint<s1>)
// CHECK-NOT:     !hop.symint<2*s0 + s1>

hop.symbol @s0 backed [2, oo]
hop.symbol @s1 backed [1, oo]
func.func @compound_attribute_only(%x: !hop.tensor<[4], f32>, %y: !hop.tensor<[s0], f32>, %z: !hop.tensor<[s1], f32>) -> !hop.tensor<[4], f32> {
  %r = hop.wrap(%x) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32> {
  ^bb0(%a: !hop.tensor<[4], f32>):
    %o = aten.ones() {size = [#hop.expr<2*s0 + s1>]} : () -> !hop.tensor<[2*s0 + s1], f32>
    %t = aten.sum(%o) : (!hop.tensor<[2*s0 + s1], f32>) -> !hop.tensor<[], f32>
    %e = aten.add.Tensor(%a, %t) : (!hop.tensor<[4], f32>, !hop.tensor<[], f32>) -> !hop.tensor<[4], f32>
    hop.yield %e : !hop.tensor<[4], f32>
  }
  func.return %r : !hop.tensor<[4], f32>
}

// -----

// hop.while: lifted symbols are loop-invariant, so they join `additional`,
// after %y, and both regions get them (cond's needs first, then body's: s0
// from the argument types, then s1 from a size in the body).
// CHECK-LABEL: func.func @while_additional
// CHECK:         hop.while(%{{.*}}, %{{.*}}) additional(%{{.*}}, %[[S0:.*]], %[[S1:.*]]) : (!hop.tensor<[], i64>, !hop.tensor<[s0], f32>) -> (!hop.tensor<[], i64>, !hop.tensor<[s0], f32>), !hop.tensor<[s0], f32>, !hop.symint<s0>, !hop.symint<s1> cond {
// CHECK-NEXT:    ^bb0(%{{.*}}: !hop.tensor<[], i64>, %{{.*}}: !hop.tensor<[s0], f32>, %{{.*}}: !hop.tensor<[s0], f32>, %{{.*}}: !hop.symint<s0>, %{{.*}}: !hop.symint<s1>):
// CHECK:         } body {
// CHECK-NEXT:    ^bb0(%{{.*}}: !hop.tensor<[], i64>, %{{.*}}: !hop.tensor<[s0], f32>, %{{.*}}: !hop.tensor<[s0], f32>, %{{.*}}: !hop.symint<s0>, %{{.*}}: !hop.symint<s1>):

hop.symbol @s0 backed [2, oo]
hop.symbol @s1 backed [1, oo]
func.func @while_additional(%i: !hop.tensor<[], i64>, %acc: !hop.tensor<[s0], f32>, %y: !hop.tensor<[s0], f32>, %z: !hop.tensor<[s1], f32>) -> !hop.tensor<[s0], f32> {
  %r:2 = hop.while (%i, %acc) additional (%y) : (!hop.tensor<[], i64>, !hop.tensor<[s0], f32>) -> (!hop.tensor<[], i64>, !hop.tensor<[s0], f32>), !hop.tensor<[s0], f32> cond {
  ^bb0(%j: !hop.tensor<[], i64>, %a: !hop.tensor<[s0], f32>, %b: !hop.tensor<[s0], f32>):
    %go = aten.lt.Scalar(%j) {other = 3 : i64} : (!hop.tensor<[], i64>) -> !hop.tensor<[], i1>
    hop.yield %go : !hop.tensor<[], i1>
  } body {
  ^bb0(%j: !hop.tensor<[], i64>, %a: !hop.tensor<[s0], f32>, %b: !hop.tensor<[s0], f32>):
    %next = aten.add.Scalar(%j) {other = 1 : i64} : (!hop.tensor<[], i64>) -> !hop.tensor<[], i64>
    %o = aten.ones() {size = [#hop.expr<s1>]} : () -> !hop.tensor<[s1], f32>
    %t = aten.sum(%o) : (!hop.tensor<[s1], f32>) -> !hop.tensor<[], f32>
    %sum = aten.add.Tensor(%a, %b) : (!hop.tensor<[s0], f32>, !hop.tensor<[s0], f32>) -> !hop.tensor<[s0], f32>
    %new = aten.add.Tensor(%sum, %t) : (!hop.tensor<[s0], f32>, !hop.tensor<[], f32>) -> !hop.tensor<[s0], f32>
    hop.yield %next, %new : !hop.tensor<[], i64>, !hop.tensor<[s0], f32>
  }
  func.return %r#1 : !hop.tensor<[s0], f32>
}

// -----

// hop.scan: the body sees slices ([s1]), so it lifts s1 only, after the
// additional operand %w; s0 stays outside as the scanned length.
// CHECK-LABEL: func.func @scan_additional
// CHECK-SAME:    %[[XS:[^:]*]]: !hop.tensor<[s0, s1], f32>
// CHECK-NEXT:    %[[S1:.*]] = hop.sym_size %[[XS]][1]
// CHECK-NOT:     !hop.symint<s0>
// CHECK-NEXT:    hop.scan init(%{{.*}}) xs(%[[XS]]) additional(%{{.*}}, %[[S1]]) : (!hop.tensor<[], f32>), (!hop.tensor<[s0, s1], f32>), (!hop.tensor<[], f32>, !hop.symint<s1>)
// CHECK-NEXT:    ^bb0(%{{.*}}: !hop.tensor<[], f32>, %{{.*}}: !hop.tensor<[s1], f32>, %{{.*}}: !hop.tensor<[], f32>, %{{.*}}: !hop.symint<s1>):

hop.symbol @s0 backed [1, oo]
hop.symbol @s1 backed [1, oo]
func.func @scan_additional(%c: !hop.tensor<[], f32>, %xs: !hop.tensor<[s0, s1], f32>, %w: !hop.tensor<[], f32>) -> (!hop.tensor<[], f32>, !hop.tensor<[s0, s1], f32>) {
  %r:2 = hop.scan init(%c) xs(%xs) additional(%w) : (!hop.tensor<[], f32>), (!hop.tensor<[s0, s1], f32>), (!hop.tensor<[], f32>) -> !hop.tensor<[], f32>, !hop.tensor<[s0, s1], f32> {
  ^bb0(%carry: !hop.tensor<[], f32>, %x: !hop.tensor<[s1], f32>, %b: !hop.tensor<[], f32>):
    %t = aten.sum(%x) : (!hop.tensor<[s1], f32>) -> !hop.tensor<[], f32>
    %next = aten.add.Tensor(%carry, %t) : (!hop.tensor<[], f32>, !hop.tensor<[], f32>) -> !hop.tensor<[], f32>
    %y = aten.mul.Tensor(%x, %b) : (!hop.tensor<[s1], f32>, !hop.tensor<[], f32>) -> !hop.tensor<[s1], f32>
    hop.yield %next, %y : !hop.tensor<[], f32>, !hop.tensor<[s1], f32>
  }
  func.return %r#0, %r#1 : !hop.tensor<[], f32>, !hop.tensor<[s0, s1], f32>
}

// -----

// hop.map: s2 comes from the additional operand's type, s1 from the slice;
// both go after %v, in order of first need.
// CHECK-LABEL: func.func @map_additional
// CHECK:         hop.map xs(%{{.*}}) additional(%{{.*}}, %[[S1:.*]], %[[S2:.*]]) : (!hop.tensor<[s0, s1], f32>), (!hop.tensor<[s2], f32>, !hop.symint<s1>, !hop.symint<s2>)
// CHECK-NEXT:    ^bb0(%{{.*}}: !hop.tensor<[s1], f32>, %{{.*}}: !hop.tensor<[s2], f32>, %{{.*}}: !hop.symint<s1>, %{{.*}}: !hop.symint<s2>):

hop.symbol @s0 backed [1, oo]
hop.symbol @s1 backed [1, oo]
hop.symbol @s2 backed [1, oo]
func.func @map_additional(%xs: !hop.tensor<[s0, s1], f32>, %v: !hop.tensor<[s2], f32>) -> !hop.tensor<[s0, s1], f32> {
  %r = hop.map xs(%xs) additional(%v) : (!hop.tensor<[s0, s1], f32>), (!hop.tensor<[s2], f32>) -> !hop.tensor<[s0, s1], f32> {
  ^bb0(%x: !hop.tensor<[s1], f32>, %b: !hop.tensor<[s2], f32>):
    %t = aten.sum(%b) : (!hop.tensor<[s2], f32>) -> !hop.tensor<[], f32>
    %y = aten.add.Tensor(%x, %t) : (!hop.tensor<[s1], f32>, !hop.tensor<[], f32>) -> !hop.tensor<[s1], f32>
    hop.yield %y : !hop.tensor<[s1], f32>
  }
  func.return %r : !hop.tensor<[s0, s1], f32>
}

// -----

// A subgraph binds the symbols of its tensor arguments, as a function does
// (Note [subgraph symbols]): nothing is lifted for s0, and the calls at sizes
// s0 and s1 pass nothing extra. The wrap inside the subgraph gets s0 from a
// hop.sym_size of the subgraph's own argument.
// CHECK:         hop.subgraph @double {
// CHECK-NEXT:    ^bb0(%[[A:[^:]*]]: !hop.tensor<[s0], f32>):
// CHECK-NEXT:      %[[S0:.*]] = hop.sym_size %[[A]][0] : !hop.tensor<[s0], f32> -> !hop.symint<s0>
// CHECK-NEXT:      hop.wrap(%[[A]], %[[S0]]) : (!hop.tensor<[s0], f32>, !hop.symint<s0>) -> !hop.tensor<[s0], f32> {
// CHECK-LABEL: func.func @subgraph_calls
// CHECK-NEXT:    %[[S1:.*]] = hop.sym_size %{{.*}}[0] : !hop.tensor<[s1], f32> -> !hop.symint<s1>
// CHECK-NEXT:    hop.invoke_subgraph @double(%{{[^,]*}}) : (!hop.tensor<[s0], f32>) -> !hop.tensor<[s0], f32>
// CHECK-NEXT:    hop.wrap(%{{.*}}, %[[S1]])
// CHECK-NEXT:    ^bb0(%{{.*}}: !hop.tensor<[s1], f32>, %{{.*}}: !hop.symint<s1>):
// CHECK-NEXT:    hop.invoke_subgraph @double(%{{[^,]*}}) : (!hop.tensor<[s1], f32>) -> !hop.tensor<[s1], f32>

hop.symbol @s0 backed [2, oo]
hop.symbol @s1 backed [2, oo]
hop.subgraph @double {
^bb0(%a: !hop.tensor<[s0], f32>):
  %w = hop.wrap(%a) : (!hop.tensor<[s0], f32>) -> !hop.tensor<[s0], f32> {
  ^bb0(%b: !hop.tensor<[s0], f32>):
    %d = aten.add.Tensor(%b, %b) : (!hop.tensor<[s0], f32>, !hop.tensor<[s0], f32>) -> !hop.tensor<[s0], f32>
    hop.yield %d : !hop.tensor<[s0], f32>
  }
  hop.yield %w : !hop.tensor<[s0], f32>
}
func.func @subgraph_calls(%x: !hop.tensor<[s0], f32>, %y: !hop.tensor<[s1], f32>) -> (!hop.tensor<[s0], f32>, !hop.tensor<[s1], f32>) {
  %r0 = hop.invoke_subgraph @double(%x) : (!hop.tensor<[s0], f32>) -> !hop.tensor<[s0], f32>
  %r1 = hop.wrap(%y) : (!hop.tensor<[s1], f32>) -> !hop.tensor<[s1], f32> {
  ^bb0(%a: !hop.tensor<[s1], f32>):
    %r2 = hop.invoke_subgraph @double(%a) : (!hop.tensor<[s1], f32>) -> !hop.tensor<[s1], f32>
    hop.yield %r2 : !hop.tensor<[s1], f32>
  }
  func.return %r0, %r1 : !hop.tensor<[s0], f32>, !hop.tensor<[s1], f32>
}

// -----

// A symbol that a subgraph uses but its arguments do not bind (s1, in an
// attribute) means the same at every call: it is lifted once, and each call,
// whatever size it binds s0 to, passes its own binding of s1.
// CHECK:         hop.subgraph @scale {
// CHECK-NEXT:    ^bb0(%{{.*}}: !hop.tensor<[s0], f32>, %{{.*}}: !hop.symint<s1>):
// CHECK-LABEL: func.func @subgraph_free_symbol
// CHECK-NEXT:    %[[S1:.*]] = hop.sym_size %{{.*}}[0] : !hop.tensor<[s1], f32> -> !hop.symint<s1>
// CHECK-NEXT:    hop.invoke_subgraph @scale(%{{.*}}, %[[S1]]) : (!hop.tensor<[s0], f32>, !hop.symint<s1>) -> !hop.tensor<[s0], f32>
// CHECK-NEXT:    hop.invoke_subgraph @scale(%{{.*}}, %[[S1]]) : (!hop.tensor<[s1], f32>, !hop.symint<s1>) -> !hop.tensor<[s1], f32>

hop.symbol @s0 backed [2, oo]
hop.symbol @s1 backed [2, oo]
hop.subgraph @scale {
^bb0(%a: !hop.tensor<[s0], f32>):
  %m = aten.mul.Scalar(%a) {other = #hop.expr<s1>} : (!hop.tensor<[s0], f32>) -> !hop.tensor<[s0], f32>
  hop.yield %m : !hop.tensor<[s0], f32>
}
func.func @subgraph_free_symbol(%x: !hop.tensor<[s0], f32>, %y: !hop.tensor<[s1], f32>) -> (!hop.tensor<[s0], f32>, !hop.tensor<[s1], f32>) {
  %r0 = hop.invoke_subgraph @scale(%x) : (!hop.tensor<[s0], f32>) -> !hop.tensor<[s0], f32>
  %r1 = hop.invoke_subgraph @scale(%y) : (!hop.tensor<[s1], f32>) -> !hop.tensor<[s1], f32>
  func.return %r0, %r1 : !hop.tensor<[s0], f32>, !hop.tensor<[s1], f32>
}

// -----

// A compound size the cond takes as an operand does not bind s0, which its
// type uses: s0 is lifted after it, passed by the existing hop.sym_size.
// CHECK-LABEL: func.func @compound_size_passed_as_operand
// CHECK:         %[[N:.*]] = hop.sym_size
// CHECK-NEXT:    %[[SQ:.*]] = hop.sym_mul
// CHECK-NEXT:    hop.cond %{{.*}}(%{{.*}}, %[[SQ]], %[[N]]) : !hop.tensor<[], i1>, (!hop.tensor<[s0], f32>, !hop.symint<s0*s0>, !hop.symint<s0>)
// CHECK-NEXT:    ^bb0(%{{.*}}: !hop.tensor<[s0], f32>, %[[ARG:.*]]: !hop.symint<s0*s0>, %{{.*}}: !hop.symint<s0>):
// CHECK:         hop.sym_ge %[[ARG]], %{{.*}} :

hop.symbol @s0 backed [2, oo]
func.func @compound_size_passed_as_operand(%p: !hop.tensor<[], i1>, %x: !hop.tensor<[s0], f32>) -> !hop.tensor<[s0], f32> {
  %n = hop.sym_size %x[0] : !hop.tensor<[s0], f32> -> !hop.symint<s0>
  %sq = hop.sym_mul %n, %n : !hop.symint<s0>, !hop.symint<s0> -> !hop.symint<s0*s0>
  %r = hop.cond %p(%x, %sq) : !hop.tensor<[], i1>, (!hop.tensor<[s0], f32>, !hop.symint<s0*s0>) -> !hop.tensor<[s0], f32> then {
  ^bb0(%a: !hop.tensor<[s0], f32>, %q: !hop.symint<s0*s0>):
    %one = hop.sym_constant : !hop.symint<1>
    %ok = hop.sym_ge %q, %one : !hop.symint<s0*s0>, !hop.symint<1> -> !hop.symbool<Ge(s0*s0, 1)>
    hop.assert %ok, "a square size is positive" : !hop.symbool<Ge(s0*s0, 1)>
    hop.yield %a : !hop.tensor<[s0], f32>
  } else {
  ^bb0(%a: !hop.tensor<[s0], f32>, %q: !hop.symint<s0*s0>):
    hop.yield %a : !hop.tensor<[s0], f32>
  }
  func.return %r : !hop.tensor<[s0], f32>
}

// -----

// Nothing changes: the region's shapes are static and the function's
// symbols are bound by its argument shapes.
// CHECK-LABEL: func.func @static_region
// CHECK-NOT:     hop.sym_size
// CHECK:         hop.wrap(%{{.*}}) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32> {
// CHECK-NEXT:    ^bb0(%{{.*}}: !hop.tensor<[4], f32>):
// CHECK-NOT:     hop.sym_size

hop.symbol @s0 backed [2, oo]
func.func @static_region(%x: !hop.tensor<[4], f32>, %y: !hop.tensor<[s0], f32>) -> (!hop.tensor<[4], f32>, !hop.tensor<[2*s0], f32>) {
  %r = hop.wrap(%x) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32> {
  ^bb0(%a: !hop.tensor<[4], f32>):
    %s = aten.sin(%a) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
    hop.yield %s : !hop.tensor<[4], f32>
  }
  %c = aten.cat([%y, %y]) : (!hop.tensor<[s0], f32>, !hop.tensor<[s0], f32>) -> !hop.tensor<[2*s0], f32>
  func.return %r, %c : !hop.tensor<[4], f32>, !hop.tensor<[2*s0], f32>
}

// -----

// Nothing changes: the checkpoint already binds s0 by its argument %n (the
// output of a previous run of the pass is a fixed point).
// CHECK-LABEL: func.func @already_bound
// CHECK-NEXT:    %[[N:.*]] = hop.sym_size
// CHECK-NEXT:    hop.checkpoint(%{{.*}}, %[[N]]) : (!hop.tensor<[s0], f32>, !hop.symint<s0>) -> !hop.tensor<[s0], f32> {
// CHECK-NEXT:    ^bb0(%{{.*}}: !hop.tensor<[s0], f32>, %{{.*}}: !hop.symint<s0>):

hop.symbol @s0 backed [2, oo]
func.func @already_bound(%x: !hop.tensor<[s0], f32>) -> !hop.tensor<[s0], f32> {
  %n = hop.sym_size %x[0] : !hop.tensor<[s0], f32> -> !hop.symint<s0>
  %r = hop.checkpoint(%x, %n) : (!hop.tensor<[s0], f32>, !hop.symint<s0>) -> !hop.tensor<[s0], f32> {
  ^bb0(%a: !hop.tensor<[s0], f32>, %m: !hop.symint<s0>):
    %v = aten.view(%a) {size = [#hop.expr<s0>, 1 : i64]} : (!hop.tensor<[s0], f32>) -> !hop.tensor<[s0, 1], f32>
    %f = aten.view(%v) {size = [#hop.expr<s0>]} : (!hop.tensor<[s0, 1], f32>) -> !hop.tensor<[s0], f32>
    hop.yield %f : !hop.tensor<[s0], f32>
  }
  func.return %r : !hop.tensor<[s0], f32>
}

// -----

// A float symbol (a float .item()) used inside a region is lifted as a
// !hop.symfloat argument, passed the item's own value.
// CHECK-LABEL: func.func @float_symbol
// CHECK:         %[[F:.*]] = hop.item %{{.*}} : !hop.tensor<[], f32> -> !hop.symfloat<zuf0>
// CHECK:         hop.wrap(%{{.*}}, %[[F]]) : (!hop.tensor<[4], f32>, !hop.symfloat<zuf0>) -> !hop.tensor<[4], f32> {
// CHECK-NEXT:    ^bb0(%{{.*}}: !hop.tensor<[4], f32>, %{{.*}}: !hop.symfloat<zuf0>):
// CHECK:           aten.mul.Scalar(%{{.*}}) {other = #hop.expr<2.0*zuf0>}

hop.symbol @zuf0 unbacked float
func.func @float_symbol(%x: !hop.tensor<[4], f32>, %t: !hop.tensor<[], f32>) -> !hop.tensor<[4], f32> {
  %f = hop.item %t : !hop.tensor<[], f32> -> !hop.symfloat<zuf0>
  %w = hop.wrap(%x) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32> {
  ^bb0(%a: !hop.tensor<[4], f32>):
    %m = aten.mul.Scalar(%a) {other = #hop.expr<2.0*zuf0>} : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
    hop.yield %m : !hop.tensor<[4], f32>
  }
  func.return %w : !hop.tensor<[4], f32>
}

// -----

// A call's later result binds the size its earlier result has only in an
// expression (cat of four mask-picked rows, then the rows): u2 is bound by the
// call itself, so nothing is free in @four_times (Note [where a symbol is bound]).
// CHECK-LABEL: func.func @four_times
// CHECK:         %r, %r_1 = hop.invoke_subgraph @positive_four_times(%x) : (!hop.tensor<[4], f32>) -> (!hop.tensor<[4*u2], f32>, !hop.tensor<[u2], f32>)
// CHECK-NEXT:    aten.sum
hop.symbol @u0 unbacked [0, oo]
hop.symbol @u2 unbacked [0, oo]
hop.subgraph @positive_four_times {
^bb0(%a: !hop.tensor<[4], f32>):
  %mask = aten.gt.Scalar(%a) {other = 0 : i64} : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], i1>
  %picked = aten.index.Tensor(%a, [%mask]) : (!hop.tensor<[4], f32>, !hop.tensor<[4], i1>) -> !hop.tensor<[u0], f32>
  %four = aten.cat([%picked, %picked, %picked, %picked]) : (!hop.tensor<[u0], f32>, !hop.tensor<[u0], f32>, !hop.tensor<[u0], f32>, !hop.tensor<[u0], f32>) -> !hop.tensor<[4*u0], f32>
  hop.yield %four, %picked : !hop.tensor<[4*u0], f32>, !hop.tensor<[u0], f32>
}
func.func @four_times(%x: !hop.tensor<[4], f32>) -> !hop.tensor<[], f32> {
  %r:2 = hop.invoke_subgraph @positive_four_times(%x) : (!hop.tensor<[4], f32>) -> (!hop.tensor<[4*u2], f32>, !hop.tensor<[u2], f32>)
  %s = aten.sum(%r#0) : (!hop.tensor<[4*u2], f32>) -> !hop.tensor<[], f32>
  func.return %s : !hop.tensor<[], f32>
}
