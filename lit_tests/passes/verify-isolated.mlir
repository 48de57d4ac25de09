// RUN: hopc-opt %s --verify-isolated --split-input-file --verify-diagnostics | filecheck %s
// RUN: hopc-opt %s --disable-verify --verify-isolated --split-input-file --verify-diagnostics | filecheck %s

// The checker of Note [isolated regions] (dialects/hop_interface.py). The
// module verifier checks the same after parsing (the first RUN); with
// --disable-verify the pass alone reports each capture, at the same place.

// Isolated: the wrap takes %s as an operand; the checker passes the module
// through unchanged.
// CHECK-LABEL: func.func @isolated
// CHECK:         hop.wrap(%{{.*}}, %{{.*}})
func.func @isolated(%x: !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32> {
  %s = aten.sin(%x) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
  %r = hop.wrap(%x, %s) : (!hop.tensor<[4], f32>, !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32> {
  ^bb0(%a: !hop.tensor<[4], f32>, %b: !hop.tensor<[4], f32>):
    %t = aten.add.Tensor(%a, %b) : (!hop.tensor<[4], f32>, !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
    hop.yield %t : !hop.tensor<[4], f32>
  }
  func.return %r : !hop.tensor<[4], f32>
}

// -----

// A branch yields the outer %s (what cse once made of a branch's own sin).
func.func @captured_tensor(%p: !hop.tensor<[], i1>, %x: !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32> {
  %s = aten.sin(%x) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
  %r = hop.cond %p(%x) : !hop.tensor<[], i1>, (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32> then {
  ^bb0(%a: !hop.tensor<[4], f32>):
    // expected-error@+1 {{'hop.yield' op uses %s of type !hop.tensor<[4], f32>, defined outside the region of 'hop.cond' that holds it; pass it to 'hop.cond' as an operand (Note [isolated regions])}}
    hop.yield %s : !hop.tensor<[4], f32>
  } else {
  ^bb0(%a: !hop.tensor<[4], f32>):
    hop.yield %a : !hop.tensor<[4], f32>
  }
  func.return %r : !hop.tensor<[4], f32>
}

// -----

// A !hop.symint value is an SSA value too, read here two levels down: the
// innermost HOP around the reader reports it.
hop.symbol @s0 backed [2, oo]
func.func @captured_size(%x: !hop.tensor<[s0], f32>) -> !hop.tensor<[s0], f32> {
  %n = hop.sym_size %x[0] : !hop.tensor<[s0], f32> -> !hop.symint<s0>
  %r = hop.wrap(%x) : (!hop.tensor<[s0], f32>) -> !hop.tensor<[s0], f32> {
  ^bb0(%a: !hop.tensor<[s0], f32>):
    %q = hop.checkpoint(%a) : (!hop.tensor<[s0], f32>) -> !hop.tensor<[s0], f32> {
    ^bb0(%b: !hop.tensor<[s0], f32>):
      // expected-error@+1 {{'hop.sym_add' op uses %n of type !hop.symint<s0>, defined outside the region of 'hop.checkpoint' that holds it}}
      %d = hop.sym_add %n, %n : !hop.symint<s0>, !hop.symint<s0> -> !hop.symint<2*s0>
      hop.yield %b : !hop.tensor<[s0], f32>
    }
    hop.yield %q : !hop.tensor<[s0], f32>
  }
  func.return %r : !hop.tensor<[s0], f32>
}
