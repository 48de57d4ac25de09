// RUN: hopc-opt %s --verify-symbol-closed --split-input-file --verify-diagnostics | filecheck %s

// The checker of Note [where a symbol is bound] (passes/lift_symbols_analysis.py).

// Symbol-closed: the cond's branches bind s0 by an argument, the function by
// %x's shape; the checker passes the module through unchanged.
// CHECK-LABEL: func.func @closed
// CHECK:         hop.cond %{{.*}}(%{{.*}}, %{{.*}})
hop.symbol @s0 backed [2, oo]
func.func @closed(%p: !hop.tensor<[], i1>, %x: !hop.tensor<[s0], f32>) -> !hop.tensor<[s0], f32> {
  %n = hop.sym_size %x[0] : !hop.tensor<[s0], f32> -> !hop.symint<s0>
  %r = hop.cond %p(%x, %n) : !hop.tensor<[], i1>, (!hop.tensor<[s0], f32>, !hop.symint<s0>) -> !hop.tensor<[s0], f32> then {
  ^bb0(%a: !hop.tensor<[s0], f32>, %m: !hop.symint<s0>):
    %s = aten.sin(%a) : (!hop.tensor<[s0], f32>) -> !hop.tensor<[s0], f32>
    hop.yield %s : !hop.tensor<[s0], f32>
  } else {
  ^bb0(%a: !hop.tensor<[s0], f32>, %m: !hop.symint<s0>):
    hop.yield %a : !hop.tensor<[s0], f32>
  }
  func.return %r : !hop.tensor<[s0], f32>
}

// -----

// Symbol-closed: an unbacked symbol defined inside the region by hop.item.
// CHECK-LABEL: func.func @defined_inside
hop.symbol @u0 unbacked [0, oo]
func.func @defined_inside(%i: !hop.tensor<[], i64>) -> !hop.tensor<[], f32> {
  %r = hop.wrap(%i) : (!hop.tensor<[], i64>) -> !hop.tensor<[], f32> {
  ^bb0(%j: !hop.tensor<[], i64>):
    %u = hop.item %j : !hop.tensor<[], i64> -> !hop.symint<u0>
    %o = aten.ones() {size = [#hop.expr<u0>]} : () -> !hop.tensor<[u0], f32>
    %t = aten.sum(%o) : (!hop.tensor<[u0], f32>) -> !hop.tensor<[], f32>
    hop.yield %t : !hop.tensor<[], f32>
  }
  func.return %r : !hop.tensor<[], f32>
}

// -----

// Free in a block argument's type: reported at the HOP that owns the region.
hop.symbol @s0 backed [2, oo]
func.func @free_in_argument(%x: !hop.tensor<[s0], f32>) -> !hop.tensor<[s0], f32> {
  // expected-error@+1 {{'hop.wrap' op uses shape symbol 's0' in an argument type of its region #0, which the region does not bind}}
  %r = hop.wrap(%x) : (!hop.tensor<[s0], f32>) -> !hop.tensor<[s0], f32> {
  ^bb0(%a: !hop.tensor<[s0], f32>):
    hop.yield %a : !hop.tensor<[s0], f32>
  }
  func.return %r : !hop.tensor<[s0], f32>
}

// -----

// Free in a compound size attribute, in a region whose types are static:
// reported at the op, naming each free symbol's first use (s0 here).
hop.symbol @s0 backed [2, oo]
hop.symbol @s1 backed [1, oo]
func.func @free_in_attribute(%x: !hop.tensor<[4], f32>, %y: !hop.tensor<[s0, s1], f32>) -> !hop.tensor<[4], f32> {
  %r = hop.checkpoint(%x) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32> {
  ^bb0(%a: !hop.tensor<[4], f32>):
    // expected-error@+1 {{'aten.ones' op uses shape symbol 's0' in a region of 'hop.checkpoint', which the region does not bind: it has no !hop.symint<s0> argument}}
    %o = aten.ones() {size = [#hop.expr<s0*s1>]} : () -> !hop.tensor<[s0*s1], f32>
    %t = aten.sum(%o) : (!hop.tensor<[s0*s1], f32>) -> !hop.tensor<[], f32>
    %e = aten.add.Tensor(%a, %t) : (!hop.tensor<[4], f32>, !hop.tensor<[], f32>) -> !hop.tensor<[4], f32>
    hop.yield %e : !hop.tensor<[4], f32>
  }
  func.return %r : !hop.tensor<[4], f32>
}

// -----

// Bound one level up is not enough: the wrap binds s0, its cond's branches
// do not.
hop.symbol @s0 backed [2, oo]
func.func @free_one_level_down(%p: !hop.tensor<[], i1>, %x: !hop.tensor<[s0], f32>) -> !hop.tensor<[s0], f32> {
  %n = hop.sym_size %x[0] : !hop.tensor<[s0], f32> -> !hop.symint<s0>
  %r = hop.wrap(%p, %x, %n) : (!hop.tensor<[], i1>, !hop.tensor<[s0], f32>, !hop.symint<s0>) -> !hop.tensor<[s0], f32> {
  ^bb0(%q: !hop.tensor<[], i1>, %a: !hop.tensor<[s0], f32>, %m: !hop.symint<s0>):
    // expected-error@+1 {{'hop.cond' op uses shape symbol 's0' in an argument type of its region #0}}
    %c = hop.cond %q(%a) : !hop.tensor<[], i1>, (!hop.tensor<[s0], f32>) -> !hop.tensor<[s0], f32> then {
    ^bb0(%b: !hop.tensor<[s0], f32>):
      hop.yield %b : !hop.tensor<[s0], f32>
    } else {
    ^bb0(%b: !hop.tensor<[s0], f32>):
      hop.yield %b : !hop.tensor<[s0], f32>
    }
    hop.yield %c : !hop.tensor<[s0], f32>
  }
  func.return %r : !hop.tensor<[s0], f32>
}

// -----

// The entry function binds only symbols that are whole dimensions of its
// arguments: s0 in 2*s0 alone is free.
hop.symbol @s0 backed [1, oo]
// expected-error@+1 {{'func.func' op uses shape symbol 's0' in an argument type of its region #0}}
func.func @free_in_entry(%x: !hop.tensor<[2*s0], f32>) -> !hop.tensor<[2*s0], f32> {
  func.return %x : !hop.tensor<[2*s0], f32>
}
