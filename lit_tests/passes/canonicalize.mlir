// RUN: hopc-opt %s --canonicalize --split-input-file | filecheck %s

// A static dimension's size is a constant; a symbolic one is not (must not fire).
hop.symbol @s0 backed [2, oo]
func.func @sym_size_of_static_dim(%x: !hop.tensor<[s0, 4], f32>) -> (!hop.symint<4>, !hop.symint<s0>) {
  %four = hop.sym_size %x[1] : !hop.tensor<[s0, 4], f32> -> !hop.symint<4>
  %n = hop.sym_size %x[0] : !hop.tensor<[s0, 4], f32> -> !hop.symint<s0>
  func.return %four, %n : !hop.symint<4>, !hop.symint<s0>
}
// CHECK-LABEL: func.func @sym_size_of_static_dim
// CHECK-NEXT:    %[[FOUR:.*]] = hop.sym_constant : !hop.symint<4>
// CHECK-NEXT:    %[[N:.*]] = hop.sym_size %{{.*}}[0] : !hop.tensor<[s0, 4], f32> -> !hop.symint<s0>
// CHECK-NEXT:    func.return %[[FOUR]], %[[N]]

// -----

// Arithmetic whose result type is an integer folds, even on symbolic operands;
// arithmetic with a symbolic result stays (must not fire).
hop.symbol @s0 backed [2, oo]
func.func @fold_arithmetic(%x: !hop.tensor<[s0, 4], f32>) -> (!hop.symint<16>, !hop.symint<0>, !hop.symint<s0 + 4>) {
  %four = hop.sym_size %x[1] : !hop.tensor<[s0, 4], f32> -> !hop.symint<4>
  %n = hop.sym_size %x[0] : !hop.tensor<[s0, 4], f32> -> !hop.symint<s0>
  %sixteen = hop.sym_mul %four, %four : !hop.symint<4>, !hop.symint<4> -> !hop.symint<16>
  %zero = hop.sym_sub %n, %n : !hop.symint<s0>, !hop.symint<s0> -> !hop.symint<0>
  %sum = hop.sym_add %n, %four : !hop.symint<s0>, !hop.symint<4> -> !hop.symint<s0 + 4>
  func.return %sixteen, %zero, %sum : !hop.symint<16>, !hop.symint<0>, !hop.symint<s0 + 4>
}
// CHECK-LABEL: func.func @fold_arithmetic
// CHECK-DAG:     %[[SIXTEEN:.*]] = hop.sym_constant : !hop.symint<16>
// CHECK-DAG:     %[[ZERO:.*]] = hop.sym_constant : !hop.symint<0>
// CHECK-DAG:     %[[FOUR:.*]] = hop.sym_constant : !hop.symint<4>
// CHECK-DAG:     %[[N:.*]] = hop.sym_size %{{.*}}[0]
// CHECK:         %[[SUM:.*]] = hop.sym_add %[[N]], %[[FOUR]] : !hop.symint<s0>, !hop.symint<4> -> !hop.symint<s0 + 4>
// CHECK-NOT:     hop.sym_mul
// CHECK-NOT:     hop.sym_sub
// CHECK:         func.return %[[SIXTEEN]], %[[ZERO]], %[[SUM]]

// -----

// A comparison whose result type is True or False folds to a constant; one
// whose truth depends on a symbol stays (must not fire: s0 >= 3 is not known).
hop.symbol @s0 backed [2, oo]
func.func @fold_comparison(%x: !hop.tensor<[s0, 4], f32>) -> (!hop.symbool<True>, !hop.symbool<False>, !hop.symbool<Ge(s0, 3)>) {
  %n = hop.sym_size %x[0] : !hop.tensor<[s0, 4], f32> -> !hop.symint<s0>
  %three = hop.sym_constant : !hop.symint<3>
  %same = hop.sym_le %n, %n : !hop.symint<s0>, !hop.symint<s0> -> !hop.symbool<True>
  %differ = hop.sym_ne %n, %n : !hop.symint<s0>, !hop.symint<s0> -> !hop.symbool<False>
  %big = hop.sym_ge %n, %three : !hop.symint<s0>, !hop.symint<3> -> !hop.symbool<Ge(s0, 3)>
  func.return %same, %differ, %big : !hop.symbool<True>, !hop.symbool<False>, !hop.symbool<Ge(s0, 3)>
}
// CHECK-LABEL: func.func @fold_comparison
// CHECK-DAG:     %[[TRUE:.*]] = hop.sym_constant : !hop.symbool<True>
// CHECK-DAG:     %[[FALSE:.*]] = hop.sym_constant : !hop.symbool<False>
// CHECK-DAG:     %[[BIG:.*]] = hop.sym_ge %{{.*}}, %{{.*}} : !hop.symint<s0>, !hop.symint<3> -> !hop.symbool<Ge(s0, 3)>
// CHECK-NOT:     hop.sym_le
// CHECK-NOT:     hop.sym_ne
// CHECK:         func.return %[[TRUE]], %[[FALSE]], %[[BIG]]

// -----

// A cond on a constant-true comparison inlines its then branch.
hop.symbol @s0 backed [2, oo]
func.func @cond_true(%x: !hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32> {
  %n = hop.sym_size %x[0] : !hop.tensor<[s0, 4], f32> -> !hop.symint<s0>
  %p = hop.sym_eq %n, %n : !hop.symint<s0>, !hop.symint<s0> -> !hop.symbool<True>
  %r = hop.cond %p(%x) : !hop.symbool<True>, (!hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32> then {
  ^bb0(%a: !hop.tensor<[s0, 4], f32>):
    %s = aten.sin(%a) : (!hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32>
    hop.yield %s : !hop.tensor<[s0, 4], f32>
  } else {
  ^bb0(%a: !hop.tensor<[s0, 4], f32>):
    %c = aten.cos(%a) : (!hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32>
    hop.yield %c : !hop.tensor<[s0, 4], f32>
  }
  func.return %r : !hop.tensor<[s0, 4], f32>
}
// CHECK-LABEL: func.func @cond_true
// CHECK-SAME:    (%[[X:.*]]: !hop.tensor<[s0, 4], f32>)
// CHECK-NEXT:    %[[S:.*]] = aten.sin(%[[X]])
// CHECK-NEXT:    func.return %[[S]]

// -----

// A cond on a constant-false predicate inlines its else branch.
hop.symbol @s0 backed [2, oo]
func.func @cond_false(%x: !hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32> {
  %p = hop.sym_constant : !hop.symbool<False>
  %r = hop.cond %p(%x) : !hop.symbool<False>, (!hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32> then {
  ^bb0(%a: !hop.tensor<[s0, 4], f32>):
    %s = aten.sin(%a) : (!hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32>
    hop.yield %s : !hop.tensor<[s0, 4], f32>
  } else {
  ^bb0(%a: !hop.tensor<[s0, 4], f32>):
    %c = aten.cos(%a) : (!hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32>
    hop.yield %c : !hop.tensor<[s0, 4], f32>
  }
  func.return %r : !hop.tensor<[s0, 4], f32>
}
// CHECK-LABEL: func.func @cond_false
// CHECK-SAME:    (%[[X:.*]]: !hop.tensor<[s0, 4], f32>)
// CHECK-NEXT:    %[[C:.*]] = aten.cos(%[[X]])
// CHECK-NEXT:    func.return %[[C]]

// -----

// Must not fire: the predicate is a tensor known only at run time, and the
// branches differ.
hop.symbol @s0 backed [2, oo]
func.func @cond_runtime_predicate(%p: !hop.tensor<[], i1>, %x: !hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32> {
  %r = hop.cond %p(%x) : !hop.tensor<[], i1>, (!hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32> then {
  ^bb0(%a: !hop.tensor<[s0, 4], f32>):
    %s = aten.sin(%a) : (!hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32>
    hop.yield %s : !hop.tensor<[s0, 4], f32>
  } else {
  ^bb0(%a: !hop.tensor<[s0, 4], f32>):
    %c = aten.cos(%a) : (!hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32>
    hop.yield %c : !hop.tensor<[s0, 4], f32>
  }
  func.return %r : !hop.tensor<[s0, 4], f32>
}
// CHECK-LABEL: func.func @cond_runtime_predicate
// CHECK:         hop.cond
// CHECK:         aten.sin
// CHECK:         aten.cos

// -----

// Must not fire: the predicate is a symbolic boolean (s0 >= 3 is not known).
hop.symbol @s0 backed [2, oo]
func.func @cond_symbolic_predicate(%x: !hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32> {
  %n = hop.sym_size %x[0] : !hop.tensor<[s0, 4], f32> -> !hop.symint<s0>
  %three = hop.sym_constant : !hop.symint<3>
  %p = hop.sym_ge %n, %three : !hop.symint<s0>, !hop.symint<3> -> !hop.symbool<Ge(s0, 3)>
  %r = hop.cond %p(%x) : !hop.symbool<Ge(s0, 3)>, (!hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32> then {
  ^bb0(%a: !hop.tensor<[s0, 4], f32>):
    %s = aten.sin(%a) : (!hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32>
    hop.yield %s : !hop.tensor<[s0, 4], f32>
  } else {
  ^bb0(%a: !hop.tensor<[s0, 4], f32>):
    hop.yield %a : !hop.tensor<[s0, 4], f32>
  }
  func.return %r : !hop.tensor<[s0, 4], f32>
}
// CHECK-LABEL: func.func @cond_symbolic_predicate
// CHECK:         hop.cond %{{.*}}(%{{.*}}) : !hop.symbool<Ge(s0, 3)>

// -----

// A constant cond nested in a wrap is inlined into the wrap's body.
hop.symbol @s0 backed [2, oo]
func.func @cond_nested_in_wrap(%x: !hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32> {
  %r = hop.wrap(%x) : (!hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32> {
  ^bb0(%a: !hop.tensor<[s0, 4], f32>):
    %n = hop.sym_size %a[0] : !hop.tensor<[s0, 4], f32> -> !hop.symint<s0>
    %p = hop.sym_gt %n, %n : !hop.symint<s0>, !hop.symint<s0> -> !hop.symbool<False>
    %c = hop.cond %p(%a) : !hop.symbool<False>, (!hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32> then {
    ^bb1(%b: !hop.tensor<[s0, 4], f32>):
      hop.yield %b : !hop.tensor<[s0, 4], f32>
    } else {
    ^bb1(%b: !hop.tensor<[s0, 4], f32>):
      %e = aten.exp(%b) : (!hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32>
      hop.yield %e : !hop.tensor<[s0, 4], f32>
    }
    hop.yield %c : !hop.tensor<[s0, 4], f32>
  }
  func.return %r : !hop.tensor<[s0, 4], f32>
}
// CHECK-LABEL: func.func @cond_nested_in_wrap
// CHECK:         hop.wrap
// CHECK-NEXT:    ^{{.*}}(%[[A:.*]]: !hop.tensor<[s0, 4], f32>):
// CHECK-NEXT:      %[[E:.*]] = aten.exp(%[[A]])
// CHECK-NEXT:      hop.yield %[[E]]
// CHECK-NOT:     hop.cond

// -----

// A cond whose branches are the same ops on the same arguments is its then branch.
hop.symbol @s0 backed [2, oo]
func.func @cond_identical_branches(%p: !hop.tensor<[], i1>, %x: !hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32> {
  %r = hop.cond %p(%x) : !hop.tensor<[], i1>, (!hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32> then {
  ^bb0(%a: !hop.tensor<[s0, 4], f32>):
    %s = aten.add.Tensor(%a, %a) {alpha = 2 : i64} : (!hop.tensor<[s0, 4], f32>, !hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32>
    hop.yield %s : !hop.tensor<[s0, 4], f32>
  } else {
  ^bb0(%b: !hop.tensor<[s0, 4], f32>):
    %t = aten.add.Tensor(%b, %b) {alpha = 2 : i64} : (!hop.tensor<[s0, 4], f32>, !hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32>
    hop.yield %t : !hop.tensor<[s0, 4], f32>
  }
  func.return %r : !hop.tensor<[s0, 4], f32>
}
// CHECK-LABEL: func.func @cond_identical_branches
// CHECK-SAME:    (%{{.*}}: !hop.tensor<[], i1>, %[[X:.*]]: !hop.tensor<[s0, 4], f32>)
// CHECK-NEXT:    %[[S:.*]] = aten.add.Tensor(%[[X]], %[[X]]) {alpha = 2 : i64}
// CHECK-NEXT:    func.return %[[S]]

// -----

// Must not fire: the branches differ only in an attribute (alpha).
hop.symbol @s0 backed [2, oo]
func.func @cond_branches_differ(%p: !hop.tensor<[], i1>, %x: !hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32> {
  %r = hop.cond %p(%x) : !hop.tensor<[], i1>, (!hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32> then {
  ^bb0(%a: !hop.tensor<[s0, 4], f32>):
    %s = aten.add.Tensor(%a, %a) {alpha = 2 : i64} : (!hop.tensor<[s0, 4], f32>, !hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32>
    hop.yield %s : !hop.tensor<[s0, 4], f32>
  } else {
  ^bb0(%b: !hop.tensor<[s0, 4], f32>):
    %t = aten.add.Tensor(%b, %b) {alpha = 3 : i64} : (!hop.tensor<[s0, 4], f32>, !hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32>
    hop.yield %t : !hop.tensor<[s0, 4], f32>
  }
  func.return %r : !hop.tensor<[s0, 4], f32>
}
// CHECK-LABEL: func.func @cond_branches_differ
// CHECK:         hop.cond
// CHECK:         {alpha = 2 : i64}
// CHECK:         {alpha = 3 : i64}

// -----

// An assert of True is erased; one of False must not be (it raises at run
// time), nor one of a symbolic condition.
hop.symbol @s0 backed [2, oo]
func.func @asserts(%x: !hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32> {
  %n = hop.sym_size %x[0] : !hop.tensor<[s0, 4], f32> -> !hop.symint<s0>
  %two = hop.sym_constant : !hop.symint<2>
  %yes = hop.sym_ge %n, %n : !hop.symint<s0>, !hop.symint<s0> -> !hop.symbool<True>
  %maybe = hop.sym_gt %n, %two : !hop.symint<s0>, !hop.symint<2> -> !hop.symbool<Gt(s0, 2)>
  hop.assert %yes, "always" : !hop.symbool<True>
  hop.assert %maybe, "s0 > 2" : !hop.symbool<Gt(s0, 2)>
  func.return %x : !hop.tensor<[s0, 4], f32>
}
// CHECK-LABEL: func.func @asserts
// CHECK-NOT:     "always"
// CHECK:         hop.assert %{{.*}}, "s0 > 2" : !hop.symbool<Gt(s0, 2)>
// CHECK-NOT:     "always"

// -----

// Must not fire: an assert of False raises, so it stays.
hop.symbol @s0 backed [2, oo]
func.func @assert_false(%x: !hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32> {
  %n = hop.sym_size %x[0] : !hop.tensor<[s0, 4], f32> -> !hop.symint<s0>
  %no = hop.sym_lt %n, %n : !hop.symint<s0>, !hop.symint<s0> -> !hop.symbool<False>
  hop.assert %no, "never" : !hop.symbool<False>
  func.return %x : !hop.tensor<[s0, 4], f32>
}
// CHECK-LABEL: func.func @assert_false
// CHECK-NEXT:    %[[NO:.*]] = hop.sym_constant : !hop.symbool<False>
// CHECK-NEXT:    hop.assert %[[NO]], "never" : !hop.symbool<False>

// -----

// A while whose condition is constant false returns its carried operands; the
// condition's ops still run once (the in-place op stays), the body never.
hop.symbol @s0 backed [2, oo]
func.func @while_false(%x: !hop.tensor<[s0, 4], f32>, %y: !hop.tensor<[4], f32>) -> !hop.tensor<[s0, 4], f32> {
  %r = hop.while(%x) additional(%y) : (!hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32>, !hop.tensor<[4], f32> cond {
  ^bb0(%a: !hop.tensor<[s0, 4], f32>, %b: !hop.tensor<[4], f32>):
    %unused = aten.neg(%a) : (!hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32>
    %bumped = aten.add_.Scalar(%b) {other = 1 : i64} : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
    %f = hop.sym_constant : !hop.symbool<False>
    hop.yield %f : !hop.symbool<False>
  } body {
  ^bb0(%a: !hop.tensor<[s0, 4], f32>, %b: !hop.tensor<[4], f32>):
    %s = aten.sin(%a) : (!hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32>
    hop.yield %s : !hop.tensor<[s0, 4], f32>
  }
  func.return %r : !hop.tensor<[s0, 4], f32>
}
// CHECK-LABEL: func.func @while_false
// CHECK-SAME:    (%[[X:.*]]: !hop.tensor<[s0, 4], f32>, %[[Y:.*]]: !hop.tensor<[4], f32>)
// CHECK-NEXT:    aten.add_.Scalar(%[[Y]]) {other = 1 : i64}
// CHECK-NEXT:    func.return %[[X]]

// -----

// Must not fire: the condition depends on the carried value.
hop.symbol @s0 backed [2, oo]
func.func @while_runtime_condition(%x: !hop.tensor<[], i64>) -> !hop.tensor<[], i64> {
  %r = hop.while(%x) additional() : (!hop.tensor<[], i64>) -> !hop.tensor<[], i64>,  cond {
  ^bb0(%a: !hop.tensor<[], i64>):
    %c = aten.lt.Scalar(%a) {other = 10 : i64} : (!hop.tensor<[], i64>) -> !hop.tensor<[], i1>
    hop.yield %c : !hop.tensor<[], i1>
  } body {
  ^bb0(%a: !hop.tensor<[], i64>):
    %n = aten.add.Scalar(%a) {other = 3 : i64} : (!hop.tensor<[], i64>) -> !hop.tensor<[], i64>
    hop.yield %n : !hop.tensor<[], i64>
  }
  func.return %r : !hop.tensor<[], i64>
}
// CHECK-LABEL: func.func @while_runtime_condition
// CHECK:         hop.while

// -----

// Region DCE runs after the patterns: unused reads go, in-place ops stay.
hop.symbol @s0 backed [2, oo]
func.func @dead_code_after(%x: !hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32> {
  %dead = aten.exp(%x) : (!hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32>
  %kept = aten.mul_.Scalar(%x) {other = 2 : i64} : (!hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32>
  func.return %x : !hop.tensor<[s0, 4], f32>
}
// CHECK-LABEL: func.func @dead_code_after
// CHECK-NOT:     aten.exp
// CHECK:         aten.mul_.Scalar

// -----

// Must not fire: the item's result is unused, but it binds u0, which aten.zeros
// reads by name (Note [unbacked symbols are read by name]).
hop.symbol @u0 unbacked [0, oo]
func.func @item_read_by_name(%t: !hop.tensor<[], i64>) -> !hop.tensor<[u0], f32> {
  %u = hop.item %t : !hop.tensor<[], i64> -> !hop.symint<u0>
  %z = aten.zeros() {size = [#hop.expr<u0>]} : () -> !hop.tensor<[u0], f32>
  func.return %z : !hop.tensor<[u0], f32>
}
// CHECK-LABEL: func.func @item_read_by_name
// CHECK-NEXT:    hop.item
// CHECK-NEXT:    aten.zeros

// -----

// Float ops whose result type is a float literal fold to a constant (sqrt of a
// static size, a float difference that cancels); sqrt of a symbolic size stays
// (must not fire).
hop.symbol @s0 backed [2, oo]
func.func @fold_floats(%x: !hop.tensor<[s0, 4], f32>) -> (!hop.symfloat<2.0>, !hop.symfloat<0.0>, !hop.symfloat<sqrt(s0)>) {
  %four = hop.sym_size %x[1] : !hop.tensor<[s0, 4], f32> -> !hop.symint<4>
  %n = hop.sym_size %x[0] : !hop.tensor<[s0, 4], f32> -> !hop.symint<s0>
  %two = hop.sym_sqrt %four : !hop.symint<4> -> !hop.symfloat<2.0>
  %root = hop.sym_sqrt %n : !hop.symint<s0> -> !hop.symfloat<sqrt(s0)>
  %zero = hop.sym_sub %root, %root : !hop.symfloat<sqrt(s0)>, !hop.symfloat<sqrt(s0)> -> !hop.symfloat<0.0>
  func.return %two, %zero, %root : !hop.symfloat<2.0>, !hop.symfloat<0.0>, !hop.symfloat<sqrt(s0)>
}
// CHECK-LABEL: func.func @fold_floats
// CHECK-DAG:     %[[TWO:.*]] = hop.sym_constant : !hop.symfloat<2.0>
// CHECK-DAG:     %[[ZERO:.*]] = hop.sym_constant : !hop.symfloat<0.0>
// CHECK-DAG:     %[[ROOT:.*]] = hop.sym_sqrt %{{.*}} : !hop.symint<s0> -> !hop.symfloat<sqrt(s0)>
// CHECK-NOT:     hop.sym_sub
// CHECK:         func.return %[[TWO]], %[[ZERO]], %[[ROOT]]
