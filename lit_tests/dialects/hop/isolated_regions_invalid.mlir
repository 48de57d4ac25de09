// RUN: hopc-opt %s --split-input-file --verify-diagnostics

// Note [isolated regions] (dialects/hop_interface.py): at every level, the
// captured one included, a HOP region reads only its block arguments and its
// own values. Each error is located at the op that reads the outer value and
// names the value, its type and the innermost HOP whose region holds the op.

// A branch yields the outer %s instead of taking it as an operand.
func.func @branch_yields_outer_tensor(%p: !hop.tensor<[], i1>, %x: !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32> {
  %s = aten.sin(%x) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
  %r = hop.cond %p(%x) : !hop.tensor<[], i1>, (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32> then {
  ^bb0(%a: !hop.tensor<[4], f32>):
    // expected-error @+1 {{'hop.yield' op uses %s of type !hop.tensor<[4], f32>, defined outside the region of 'hop.cond' that holds it; pass it to 'hop.cond' as an operand (Note [isolated regions])}}
    hop.yield %s : !hop.tensor<[4], f32>
  } else {
  ^bb0(%a: !hop.tensor<[4], f32>):
    hop.yield %a : !hop.tensor<[4], f32>
  }
  func.return %r : !hop.tensor<[4], f32>
}

// -----

// A body changes a closed-over buffer in place: PyTorch passes the buffer to
// the wrap as an operand (hopc.capture does too), and so must the IR.
hop.buffer @buf : !hop.tensor<[4], f32>
func.func @body_changes_closed_over_buffer(%x: !hop.tensor<[4], f32>, %buf: !hop.tensor<[4], f32> {hop.buffer = @buf}) -> !hop.tensor<[4], f32> {
  %r = hop.wrap(%x) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32> {
  ^bb0(%a: !hop.tensor<[4], f32>):
    // expected-error @+1 {{'aten.add_.Tensor' op uses %buf of type !hop.tensor<[4], f32>, defined outside the region of 'hop.wrap' that holds it}}
    %0 = aten.add_.Tensor(%buf, %a) : (!hop.tensor<[4], f32>, !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
    %1 = aten.mul.Tensor(%a, %0) : (!hop.tensor<[4], f32>, !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
    hop.yield %1 : !hop.tensor<[4], f32>
  }
  func.return %r : !hop.tensor<[4], f32>
}

// -----

// A !hop.symint is an SSA value too; read two levels down, it is the inner
// checkpoint that lacks it (the wrap would pass it on).
hop.symbol @s0 backed [2, oo]
func.func @size_read_two_levels_down(%x: !hop.tensor<[s0], f32>) -> !hop.tensor<[s0], f32> {
  %n = hop.sym_size %x[0] : !hop.tensor<[s0], f32> -> !hop.symint<s0>
  %r = hop.wrap(%x) : (!hop.tensor<[s0], f32>) -> !hop.tensor<[s0], f32> {
  ^bb0(%a: !hop.tensor<[s0], f32>):
    %q = hop.checkpoint(%a) : (!hop.tensor<[s0], f32>) -> !hop.tensor<[s0], f32> {
    ^bb0(%b: !hop.tensor<[s0], f32>):
      // expected-error @+1 {{'hop.sym_add' op uses %n of type !hop.symint<s0>, defined outside the region of 'hop.checkpoint' that holds it; pass it to 'hop.checkpoint' as an operand}}
      %d = hop.sym_add %n, %n : !hop.symint<s0>, !hop.symint<s0> -> !hop.symint<2*s0>
      hop.yield %b : !hop.tensor<[s0], f32>
    }
    hop.yield %q : !hop.tensor<[s0], f32>
  }
  func.return %r : !hop.tensor<[s0], f32>
}

// -----

// A nested HOP is a reader like any op: this cond's predicate comes from
// outside the wrap.
func.func @nested_predicate(%p: !hop.tensor<[], i1>, %x: !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32> {
  %r = hop.wrap(%x) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32> {
  ^bb0(%a: !hop.tensor<[4], f32>):
    // expected-error @+1 {{'hop.cond' op uses %p of type !hop.tensor<[], i1>, defined outside the region of 'hop.wrap' that holds it}}
    %c = hop.cond %p(%a) : !hop.tensor<[], i1>, (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32> then {
    ^bb0(%b: !hop.tensor<[4], f32>):
      hop.yield %b : !hop.tensor<[4], f32>
    } else {
    ^bb0(%b: !hop.tensor<[4], f32>):
      hop.yield %b : !hop.tensor<[4], f32>
    }
    hop.yield %c : !hop.tensor<[4], f32>
  }
  func.return %r : !hop.tensor<[4], f32>
}

// -----

// A loop body's matrix is loop-invariant: it belongs in additional().
func.func @while_body_reads_outer(%x: !hop.tensor<[4], f32>, %i: !hop.tensor<[], i64>, %w: !hop.tensor<[4, 4], f32>) -> !hop.tensor<[4], f32> {
  %r:2 = hop.while(%x, %i) : (!hop.tensor<[4], f32>, !hop.tensor<[], i64>) -> (!hop.tensor<[4], f32>, !hop.tensor<[], i64>) cond {
  ^bb0(%cx: !hop.tensor<[4], f32>, %ci: !hop.tensor<[], i64>):
    %go = aten.gt.Scalar(%ci) {other = 0 : i64} : (!hop.tensor<[], i64>) -> !hop.tensor<[], i1>
    hop.yield %go : !hop.tensor<[], i1>
  } body {
  ^bb0(%bx: !hop.tensor<[4], f32>, %bi: !hop.tensor<[], i64>):
    // expected-error @+1 {{'aten.mv' op uses %w of type !hop.tensor<[4, 4], f32>, defined outside the region of 'hop.while' that holds it}}
    %next = aten.mv(%w, %bx) : (!hop.tensor<[4, 4], f32>, !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
    %dec = aten.sub.Scalar(%bi) {other = 1 : i64} : (!hop.tensor<[], i64>) -> !hop.tensor<[], i64>
    hop.yield %next, %dec : !hop.tensor<[4], f32>, !hop.tensor<[], i64>
  }
  func.return %r#0 : !hop.tensor<[4], f32>
}

// -----

// A scan step reads an outer scale it does not take as additional.
hop.symbol @s0 backed [1, oo]
func.func @scan_step_reads_outer(%init: !hop.tensor<[4], f32>, %xs: !hop.tensor<[s0, 4], f32>, %scale: !hop.tensor<[], f32>) -> !hop.tensor<[4], f32> {
  %carry, %ys = hop.scan init(%init) xs(%xs) additional() : (!hop.tensor<[4], f32>), (!hop.tensor<[s0, 4], f32>), () -> !hop.tensor<[4], f32>, !hop.tensor<[s0, 4], f32> {
  ^bb0(%c: !hop.tensor<[4], f32>, %row: !hop.tensor<[4], f32>):
    // expected-error @+1 {{'aten.mul.Tensor' op uses %scale of type !hop.tensor<[], f32>, defined outside the region of 'hop.scan' that holds it}}
    %scaled = aten.mul.Tensor(%row, %scale) : (!hop.tensor<[4], f32>, !hop.tensor<[], f32>) -> !hop.tensor<[4], f32>
    %next = aten.add.Tensor(%c, %scaled) : (!hop.tensor<[4], f32>, !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
    hop.yield %next, %scaled : !hop.tensor<[4], f32>, !hop.tensor<[4], f32>
  }
  func.return %carry : !hop.tensor<[4], f32>
}

// -----

// A map body reads an outer !hop.symbool.
hop.symbol @s0 backed [1, oo]
func.func @map_body_reads_outer_symbool(%xs: !hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32> {
  %n = hop.sym_size %xs[0] : !hop.tensor<[s0, 4], f32> -> !hop.symint<s0>
  %one = hop.sym_constant : !hop.symint<1>
  %big = hop.sym_ge %n, %one : !hop.symint<s0>, !hop.symint<1> -> !hop.symbool<Ge(s0, 1)>
  %ys = hop.map xs(%xs) additional() : (!hop.tensor<[s0, 4], f32>), () -> !hop.tensor<[s0, 4], f32> {
  ^bb0(%x: !hop.tensor<[4], f32>):
    // expected-error @+1 {{'hop.assert' op uses %big of type !hop.symbool<Ge(s0, 1)>, defined outside the region of 'hop.map' that holds it}}
    hop.assert %big, "not empty" : !hop.symbool<Ge(s0, 1)>
    hop.yield %x : !hop.tensor<[4], f32>
  }
  func.return %ys : !hop.tensor<[s0, 4], f32>
}

// -----

// Passing the values as operands is what makes the same programs valid; a
// shape symbol (s0 in the branch's types) is a name, not a value, and may
// stay free until lift-symbols binds it.
hop.symbol @s0 backed [2, oo]
func.func @explicit_operands(%p: !hop.tensor<[], i1>, %x: !hop.tensor<[s0], f32>) -> !hop.tensor<[s0], f32> {
  %n = hop.sym_size %x[0] : !hop.tensor<[s0], f32> -> !hop.symint<s0>
  %s = aten.sin(%x) : (!hop.tensor<[s0], f32>) -> !hop.tensor<[s0], f32>
  %r = hop.cond %p(%x, %s, %n) : !hop.tensor<[], i1>, (!hop.tensor<[s0], f32>, !hop.tensor<[s0], f32>, !hop.symint<s0>) -> !hop.tensor<[s0], f32> then {
  ^bb0(%a: !hop.tensor<[s0], f32>, %b: !hop.tensor<[s0], f32>, %m: !hop.symint<s0>):
    %d = hop.sym_add %m, %m : !hop.symint<s0>, !hop.symint<s0> -> !hop.symint<2*s0>
    hop.yield %b : !hop.tensor<[s0], f32>
  } else {
  ^bb0(%a: !hop.tensor<[s0], f32>, %b: !hop.tensor<[s0], f32>, %m: !hop.symint<s0>):
    %z = aten.zeros() {size = [#hop.expr<s0>]} : () -> !hop.tensor<[s0], f32>
    hop.yield %z : !hop.tensor<[s0], f32>
  }
  func.return %r : !hop.tensor<[s0], f32>
}
