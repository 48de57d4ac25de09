// RUN: hopc-opt %s --split-input-file --verify-diagnostics

// Every verifier message of the hop dialect and of the module structure; each
// names the offending value and both types where there are two.

// The else branch yields a type that differs from the cond's result.
hop.symbol @s0 backed [2, oo]
func.func @cond_branch_results_differ(%p: !hop.tensor<[], i1>, %x: !hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32> {
  // expected-error @+1 {{'hop.cond' op else region yields: yielded value #0 %sum has type !hop.tensor<[], f32>, expected !hop.tensor<[s0, 4], f32>}}
  %r = hop.cond %p(%x) : !hop.tensor<[], i1>, (!hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32> then {
  ^bb0(%a: !hop.tensor<[s0, 4], f32>):
    hop.yield %a : !hop.tensor<[s0, 4], f32>
  } else {
  ^bb0(%a: !hop.tensor<[s0, 4], f32>):
    %sum = aten.sum(%a) : (!hop.tensor<[s0, 4], f32>) -> !hop.tensor<[], f32>
    hop.yield %sum : !hop.tensor<[], f32>
  }
  func.return %r : !hop.tensor<[s0, 4], f32>
}

// -----

// A branch yields fewer values than the cond has results.
func.func @cond_branch_yields_too_few(%p: !hop.tensor<[], i1>, %x: !hop.tensor<[4], f32>) {
  // expected-error @+1 {{'hop.cond' op then region yields: expected 1 values (!hop.tensor<[4], f32>), got 0 ()}}
  %r = hop.cond %p(%x) : !hop.tensor<[], i1>, (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32> then {
  ^bb0(%a: !hop.tensor<[4], f32>):
    hop.yield
  } else {
  ^bb0(%a: !hop.tensor<[4], f32>):
    hop.yield %a : !hop.tensor<[4], f32>
  }
  func.return
}

// -----

// A branch's block arguments must mirror the operands.
func.func @cond_block_argument_type(%p: !hop.tensor<[], i1>, %x: !hop.tensor<[4], f32>) {
  // expected-error @+1 {{'hop.cond' op then region arguments: block argument #0 %a has type !hop.tensor<[4], f64>, expected !hop.tensor<[4], f32>}}
  %r = hop.cond %p(%x) : !hop.tensor<[], i1>, (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32> then {
  ^bb0(%a: !hop.tensor<[4], f64>):
    %c = aten._to_copy(%a) {dtype = f32} : (!hop.tensor<[4], f64>) -> !hop.tensor<[4], f32>
    hop.yield %c : !hop.tensor<[4], f32>
  } else {
  ^bb0(%b: !hop.tensor<[4], f32>):
    hop.yield %b : !hop.tensor<[4], f32>
  }
  func.return
}

// -----

// A predicate must be a 0-d bool tensor or a symbool, not a 1-d one.
func.func @cond_predicate_not_scalar(%p: !hop.tensor<[4], i1>, %x: !hop.tensor<[4], f32>) {
  // expected-error @+1 {{'hop.cond' op predicate %p has type !hop.tensor<[4], i1>, expected a scalar boolean (!hop.tensor<[], i1> or !hop.symbool)}}
  %r = hop.cond %p(%x) : !hop.tensor<[4], i1>, (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32> then {
  ^bb0(%a: !hop.tensor<[4], f32>):
    hop.yield %a : !hop.tensor<[4], f32>
  } else {
  ^bb0(%a: !hop.tensor<[4], f32>):
    hop.yield %a : !hop.tensor<[4], f32>
  }
  func.return
}

// -----

// A symbolic integer is not a boolean either.
func.func @cond_predicate_symint(%x: !hop.tensor<[4], f32>) {
  %n = hop.sym_size %x[0] : !hop.tensor<[4], f32> -> !hop.symint<4>
  // expected-error @+1 {{'hop.cond' op predicate %n has type !hop.symint<4>, expected a scalar boolean}}
  hop.cond %n() : !hop.symint<4>, () -> () then {
    hop.yield
  } else {
    hop.yield
  }
  func.return
}

// -----

// The body yields an f32 counter where the loop carries an i64 one.
func.func @while_body_yields_wrong_carried_type(%x: !hop.tensor<[4], f32>, %i: !hop.tensor<[], i64>) {
  // expected-error @+1 {{'hop.while' op body region yields: yielded value #1 %next has type !hop.tensor<[], f32>, expected !hop.tensor<[], i64>}}
  %r:2 = hop.while(%x, %i) : (!hop.tensor<[4], f32>, !hop.tensor<[], i64>) -> (!hop.tensor<[4], f32>, !hop.tensor<[], i64>) cond {
  ^bb0(%a: !hop.tensor<[4], f32>, %j: !hop.tensor<[], i64>):
    %go = aten.gt.Scalar(%j) {other = 0 : i64} : (!hop.tensor<[], i64>) -> !hop.tensor<[], i1>
    hop.yield %go : !hop.tensor<[], i1>
  } body {
  ^bb0(%a: !hop.tensor<[4], f32>, %j: !hop.tensor<[], i64>):
    %next = aten._to_copy(%j) {dtype = f32} : (!hop.tensor<[], i64>) -> !hop.tensor<[], f32>
    hop.yield %a, %next : !hop.tensor<[4], f32>, !hop.tensor<[], f32>
  }
  func.return
}

// -----

// The results of a while are its carried values.
func.func @while_results_differ_from_carried(%x: !hop.tensor<[4], f32>) {
  // expected-error @+1 {{'hop.while' op results: result #0 %r has type !hop.tensor<[4], f64>, expected !hop.tensor<[4], f32>}}
  %r = hop.while(%x) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f64> cond {
  ^bb0(%a: !hop.tensor<[4], f32>):
    %go = aten.any(%a) : (!hop.tensor<[4], f32>) -> !hop.tensor<[], i1>
    hop.yield %go : !hop.tensor<[], i1>
  } body {
  ^bb0(%a: !hop.tensor<[4], f32>):
    hop.yield %a : !hop.tensor<[4], f32>
  }
  func.return
}

// -----

// Both regions take the carried values then the additional ones.
func.func @while_missing_additional_argument(%x: !hop.tensor<[4], f32>, %w: !hop.tensor<[4, 4], f32>) {
  // expected-error @+1 {{'hop.while' op cond region arguments: expected 2 values (!hop.tensor<[4], f32>, !hop.tensor<[4, 4], f32>), got 1 (!hop.tensor<[4], f32>)}}
  %r = hop.while(%x) additional(%w) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>, !hop.tensor<[4, 4], f32> cond {
  ^bb0(%a: !hop.tensor<[4], f32>):
    %go = aten.any(%a) : (!hop.tensor<[4], f32>) -> !hop.tensor<[], i1>
    hop.yield %go : !hop.tensor<[], i1>
  } body {
  ^bb0(%a: !hop.tensor<[4], f32>, %b: !hop.tensor<[4, 4], f32>):
    hop.yield %a : !hop.tensor<[4], f32>
  }
  func.return
}

// -----

// The condition must be a boolean, not a float sum.
func.func @while_cond_not_boolean(%x: !hop.tensor<[4], f32>) {
  // expected-error @+1 {{'hop.while' op cond region yields %total of type !hop.tensor<[], f32>, expected a scalar boolean (!hop.tensor<[], i1> or !hop.symbool)}}
  %r = hop.while(%x) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32> cond {
  ^bb0(%a: !hop.tensor<[4], f32>):
    %total = aten.sum(%a) : (!hop.tensor<[4], f32>) -> !hop.tensor<[], f32>
    hop.yield %total : !hop.tensor<[], f32>
  } body {
  ^bb0(%a: !hop.tensor<[4], f32>):
    hop.yield %a : !hop.tensor<[4], f32>
  }
  func.return
}

// -----

// The condition is exactly one value.
func.func @while_cond_yields_two(%x: !hop.tensor<[4], f32>) {
  // expected-error @+1 {{'hop.while' op cond region must yield one scalar boolean, yields 2 values (!hop.tensor<[], i1>, !hop.tensor<[], i1>)}}
  %r = hop.while(%x) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32> cond {
  ^bb0(%a: !hop.tensor<[4], f32>):
    %go = aten.any(%a) : (!hop.tensor<[4], f32>) -> !hop.tensor<[], i1>
    hop.yield %go, %go : !hop.tensor<[], i1>, !hop.tensor<[], i1>
  } body {
  ^bb0(%a: !hop.tensor<[4], f32>):
    hop.yield %a : !hop.tensor<[4], f32>
  }
  func.return
}

// -----

// hop.yield terminates hop regions only; a function returns with func.return.
func.func @yield_outside_hop_region(%x: !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32> {
  // expected-error @+1 {{'hop.yield' op expects parent op to be one of 'hop.associative_scan', 'hop.cond', 'hop.while', 'hop.flex_attention', 'hop.scan', 'hop.map', 'hop.wrap', 'hop.checkpoint', 'hop.subgraph'}}
  hop.yield %x : !hop.tensor<[4], f32>
}

// -----

// wrap's body takes the operands' types.
func.func @wrap_block_argument_type(%x: !hop.tensor<[4], f32>) {
  // expected-error @+1 {{'hop.wrap' op body region arguments: block argument #0 %b has type !hop.tensor<[4], i64>, expected !hop.tensor<[4], f32>}}
  %r = hop.wrap(%x) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], i64> {
  ^bb0(%b: !hop.tensor<[4], i64>):
    hop.yield %b : !hop.tensor<[4], i64>
  }
  func.return
}

// -----

// checkpoint yields its result types.
func.func @checkpoint_yield_type(%x: !hop.tensor<[4], f32>) {
  // expected-error @+1 {{'hop.checkpoint' op body region yields: yielded value #0 %s has type !hop.tensor<[], f32>, expected !hop.tensor<[4], f32>}}
  %r = hop.checkpoint(%x) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32> {
  ^bb0(%b: !hop.tensor<[4], f32>):
    %s = aten.sum(%b) : (!hop.tensor<[4], f32>) -> !hop.tensor<[], f32>
    hop.yield %s : !hop.tensor<[], f32>
  }
  func.return
}

// -----

// A subgraph is a module-level symbol: it cannot sit in a function (where it
// could read the function's values). The body reads only its argument, so
// this is the one error (xDSL checks an op's traits in no fixed order, and
// reading %x would also break IsolatedFromAbove).
func.func @nested_subgraph(%x: !hop.tensor<[4], f32>) {
  // expected-error @+1 {{'hop.subgraph' op expects parent op 'builtin.module'}}
  hop.subgraph @g {
  ^bb0(%a: !hop.tensor<[4], f32>):
    %0 = aten.add.Tensor(%a, %a) : (!hop.tensor<[4], f32>, !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
    hop.yield %0 : !hop.tensor<[4], f32>
  }
  func.return
}

// -----

// No hop.subgraph is called @missing.
func.func @unknown_subgraph(%x: !hop.tensor<[4], f32>) {
  // expected-error @+1 {{'hop.invoke_subgraph' op calls unknown subgraph @missing}}
  %r = hop.invoke_subgraph @missing(%x) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
  func.return
}

// -----

// A function is not a subgraph.
func.func @invoke_a_function(%x: !hop.tensor<[4], f32>) {
  // expected-error @+1 {{'hop.invoke_subgraph' op calls unknown subgraph @invoke_a_function}}
  hop.invoke_subgraph @invoke_a_function(%x) : (!hop.tensor<[4], f32>) -> ()
  func.return
}

// -----

// The operand types of a call are the subgraph's block argument types.
hop.subgraph @double {
^bb0(%a: !hop.tensor<[4], f32>):
  %r = aten.add.Tensor(%a, %a) : (!hop.tensor<[4], f32>, !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
  hop.yield %r : !hop.tensor<[4], f32>
}
func.func @invoke_operand_type_mismatch(%x: !hop.tensor<[4], f64>) {
  // expected-error @+1 {{'hop.invoke_subgraph' op operands of @double: operand #0 %x has type !hop.tensor<[4], f64>, expected !hop.tensor<[4], f32>}}
  %r = hop.invoke_subgraph @double(%x) : (!hop.tensor<[4], f64>) -> !hop.tensor<[4], f32>
  func.return
}

// -----

// The result types of a call are the subgraph's yield types.
hop.subgraph @double {
^bb0(%a: !hop.tensor<[4], f32>):
  %r = aten.add.Tensor(%a, %a) : (!hop.tensor<[4], f32>, !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
  hop.yield %r : !hop.tensor<[4], f32>
}
func.func @invoke_result_type_mismatch(%x: !hop.tensor<[4], f32>) {
  // expected-error @+1 {{'hop.invoke_subgraph' op results of @double: result #0 %y has type !hop.tensor<[8], f32>, expected !hop.tensor<[4], f32>}}
  %y = hop.invoke_subgraph @double(%x) : (!hop.tensor<[4], f32>) -> !hop.tensor<[8], f32>
  func.return
}

// -----

// Both operands bind the subgraph's s0, one to s1 and one to 4: no single
// substitution makes the call (Note [subgraph symbols]).
hop.symbol @s0 backed [2, oo]
hop.symbol @s1 backed [2, oo]
hop.subgraph @add {
^bb0(%a: !hop.tensor<[s0], f32>, %b: !hop.tensor<[s0], f32>):
  %r = aten.add.Tensor(%a, %b) : (!hop.tensor<[s0], f32>, !hop.tensor<[s0], f32>) -> !hop.tensor<[s0], f32>
  hop.yield %r : !hop.tensor<[s0], f32>
}
func.func @invoke_binds_inconsistently(%x: !hop.tensor<[s1], f32>, %y: !hop.tensor<[4], f32>) {
  // expected-error @+1 {{'hop.invoke_subgraph' op operands bind symbol s0 of @add inconsistently: operand #0 %x to s1, operand #1 %y to 4}}
  %r = hop.invoke_subgraph @add(%x, %y) : (!hop.tensor<[s1], f32>, !hop.tensor<[4], f32>) -> !hop.tensor<[s1], f32>
  func.return
}

// -----

// The call binds s0 to s1, so the result is 2*s1, not the subgraph's own 2*s0.
hop.symbol @s0 backed [2, oo]
hop.symbol @s1 backed [2, oo]
hop.subgraph @twice {
^bb0(%a: !hop.tensor<[s0], f32>):
  %r = aten.cat([%a, %a]) : (!hop.tensor<[s0], f32>, !hop.tensor<[s0], f32>) -> !hop.tensor<[2*s0], f32>
  hop.yield %r : !hop.tensor<[2*s0], f32>
}
func.func @invoke_result_not_substituted(%x: !hop.tensor<[s1], f32>) {
  // expected-error @+1 {{'hop.invoke_subgraph' op results of @twice under s0 -> s1: result #0 %y has type !hop.tensor<[2*s0], f32>, expected !hop.tensor<[2*s1], f32>}}
  %y = hop.invoke_subgraph @twice(%x) : (!hop.tensor<[s1], f32>) -> !hop.tensor<[2*s0], f32>
  func.return
}

// -----

// s0 is only part of a dimension (2*s0), so the argument does not bind it:
// the subgraph is not parametric in it, and the operand must be 2*s0 itself.
hop.symbol @s0 backed [2, oo]
hop.symbol @s1 backed [2, oo]
hop.subgraph @even {
^bb0(%a: !hop.tensor<[2*s0], f32>):
  hop.yield %a : !hop.tensor<[2*s0], f32>
}
func.func @invoke_compound_is_not_a_parameter(%x: !hop.tensor<[2*s1], f32>) {
  // expected-error @+1 {{'hop.invoke_subgraph' op operands of @even: operand #0 %x has type !hop.tensor<[2*s1], f32>, expected !hop.tensor<[2*s0], f32>}}
  %y = hop.invoke_subgraph @even(%x) : (!hop.tensor<[2*s1], f32>) -> !hop.tensor<[2*s1], f32>
  func.return
}

// -----

// The size of dim 1 is 4, not s0.
hop.symbol @s0 backed [2, oo]
func.func @sym_size_wrong_result(%x: !hop.tensor<[s0, 4], f32>) {
  // expected-error @+1 {{'hop.sym_size' op result has type !hop.symint<s0>, expected !hop.symint<4> (dim 1 of %x : !hop.tensor<[s0, 4], f32>)}}
  %n = hop.sym_size %x[1] : !hop.tensor<[s0, 4], f32> -> !hop.symint<s0>
  func.return
}

// -----

// A rank-2 tensor has no dim 2.
hop.symbol @s0 backed [2, oo]
func.func @sym_size_dim_out_of_range(%x: !hop.tensor<[s0, 4], f32>) {
  // expected-error @+1 {{'hop.sym_size' op dim 2 out of range for %x of type !hop.tensor<[s0, 4], f32> (rank 2)}}
  %n = hop.sym_size %x[2] : !hop.tensor<[s0, 4], f32> -> !hop.symint<s0>
  func.return
}

// -----

// s0 * 4 is 4*s0, not s0 + 4.
hop.symbol @s0 backed [2, oo]
func.func @sym_mul_wrong_expression(%x: !hop.tensor<[s0, 4], f32>) {
  %a = hop.sym_size %x[0] : !hop.tensor<[s0, 4], f32> -> !hop.symint<s0>
  %b = hop.sym_size %x[1] : !hop.tensor<[s0, 4], f32> -> !hop.symint<4>
  // expected-error @+1 {{'hop.sym_mul' op result %c has type !hop.symint<s0 + 4>, expected !hop.symint<4*s0> from %a : !hop.symint<s0> and %b : !hop.symint<4>}}
  %c = hop.sym_mul %a, %b : !hop.symint<s0>, !hop.symint<4> -> !hop.symint<s0 + 4>
  func.return
}

// -----

// A comparison gives a symbool, not a symint.
hop.symbol @s0 backed [2, oo]
func.func @sym_lt_result_kind(%x: !hop.tensor<[s0], f32>) {
  %a = hop.sym_size %x[0] : !hop.tensor<[s0], f32> -> !hop.symint<s0>
  %b = hop.sym_constant : !hop.symint<8>
  // expected-error @+1 {{'hop.sym_lt' op result %c has type !hop.symint<Lt(s0, 8)>, expected !hop.symbool<Lt(s0, 8)>}}
  %c = hop.sym_lt %a, %b : !hop.symint<s0>, !hop.symint<8> -> !hop.symint<Lt(s0, 8)>
  func.return
}

// -----

// Floor division by a constant zero has no value.
hop.symbol @s0 backed [2, oo]
func.func @sym_floordiv_by_zero(%x: !hop.tensor<[s0], f32>) {
  %a = hop.sym_size %x[0] : !hop.tensor<[s0], f32> -> !hop.symint<s0>
  %z = hop.sym_constant : !hop.symint<0>
  // expected-error @+1 {{'hop.sym_floordiv' op is undefined on %a : !hop.symint<s0> and %z : !hop.symint<0>: floor division by zero}}
  %c = hop.sym_floordiv %a, %z : !hop.symint<s0>, !hop.symint<0> -> !hop.symint<0>
  func.return
}

// -----

// A sym_constant's type holds an integer, not an expression.
hop.symbol @s0 backed [2, oo]
func.func @sym_constant_not_constant() {
  // expected-error @+1 {{'hop.sym_constant' op type !hop.symint<s0> is not a constant}}
  %c = hop.sym_constant : !hop.symint<s0>
  func.return
}

// -----

// item defines one fresh symbol; 2*u0 is an expression.
hop.symbol @u0 unbacked [0, oo]
func.func @item_result_not_a_symbol(%n: !hop.tensor<[], i64>) {
  // expected-error @+1 {{'hop.item' op result %u has type !hop.symint<2*u0>, expected a single symbol (!hop.symint<u0>)}}
  %u = hop.item %n : !hop.tensor<[], i64> -> !hop.symint<2*u0>
  func.return
}

// -----

// item reads a tensor of one element.
hop.symbol @u0 unbacked [0, oo]
func.func @item_operand_not_one_element(%n: !hop.tensor<[2], i64>) {
  // expected-error @+1 {{'hop.item' op operand %n has type !hop.tensor<[2], i64>, expected a tensor of exactly one element}}
  %u = hop.item %n : !hop.tensor<[2], i64> -> !hop.symint<u0>
  func.return
}

// -----

// item defines its symbol from data: a backed one (an input size) cannot be.
hop.symbol @s0 backed [2, oo]
func.func @item_symbol_backed(%n: !hop.tensor<[], i64>) {
  // expected-error @+1 {{'hop.item' op result %u has type !hop.symint<s0>, but @s0 is declared backed; the symbol of a hop.item must be declared unbacked (hop.symbol @s0 unbacked [...])}}
  %u = hop.item %n : !hop.tensor<[], i64> -> !hop.symint<s0>
  func.return
}

// -----

// Scanned operands share their leading dimension: s0 steps or 3?
hop.symbol @s0 backed [2, oo]
func.func @scan_xs_differ_in_dim_0(%x: !hop.tensor<[s0, 4], f32>, %y: !hop.tensor<[3, 4], f32>) {
  // expected-error @+1 {{'hop.scan' op xs operands differ in dim 0: %x has type !hop.tensor<[s0, 4], f32>, %y has type !hop.tensor<[3, 4], f32>}}
  %r = hop.scan init() xs(%x, %y) additional() : (), (!hop.tensor<[s0, 4], f32>, !hop.tensor<[3, 4], f32>), () -> !hop.tensor<[s0, 4], f32> {
  ^bb0(%a: !hop.tensor<[4], f32>, %b: !hop.tensor<[4], f32>):
    hop.yield %a : !hop.tensor<[4], f32>
  }
  func.return
}

// -----

// A scan needs something to scan over.
func.func @scan_without_xs(%x: !hop.tensor<[3, 4], f32>) {
  // expected-error @+1 {{'hop.scan' op needs at least one operand in xs}}
  %r = hop.scan init(%x) xs() additional() : (!hop.tensor<[3, 4], f32>), (), () -> !hop.tensor<[3, 4], f32> {
  ^bb0(%a: !hop.tensor<[3, 4], f32>):
    hop.yield %a : !hop.tensor<[3, 4], f32>
  }
  func.return
}

// -----

// The body yields the next carry first, of the carry's type.
func.func @scan_carry_type(%x: !hop.tensor<[3, 4], f32>, %init: !hop.tensor<[4], f32>) {
  // expected-error @+1 {{'hop.scan' op body yields (carry): yielded value #0 %s has type !hop.tensor<[], f32>, expected !hop.tensor<[4], f32>}}
  %c, %r = hop.scan init(%init) xs(%x) additional() : (!hop.tensor<[4], f32>), (!hop.tensor<[3, 4], f32>), () -> !hop.tensor<[4], f32>, !hop.tensor<[3, 4], f32> {
  ^bb0(%a: !hop.tensor<[4], f32>, %row: !hop.tensor<[4], f32>):
    %s = aten.sum(%a) : (!hop.tensor<[4], f32>) -> !hop.tensor<[], f32>
    hop.yield %s, %row : !hop.tensor<[], f32>, !hop.tensor<[4], f32>
  }
  func.return
}

// -----

// The per-step outputs are stacked along a new dim 0 of length 3.
func.func @scan_output_not_stacked(%x: !hop.tensor<[3, 4], f32>) {
  // expected-error @+1 {{'hop.scan' op results: result #0 %r has type !hop.tensor<[4], f32>, expected !hop.tensor<[3, 4], f32>}}
  %r = hop.scan init() xs(%x) additional() : (), (!hop.tensor<[3, 4], f32>), () -> !hop.tensor<[4], f32> {
  ^bb0(%row: !hop.tensor<[4], f32>):
    hop.yield %row : !hop.tensor<[4], f32>
  }
  func.return
}

// -----

// A per-step output must be a tensor to be stacked.
func.func @scan_output_not_a_tensor(%x: !hop.tensor<[3, 4], f32>) {
  // expected-error @+1 {{'hop.scan' op body yields %k of type !hop.symint<3> as a per-step output, expected a tensor}}
  %r = hop.scan init() xs(%x) additional() : (), (!hop.tensor<[3, 4], f32>), () -> !hop.tensor<[3], f32> {
  ^bb0(%row: !hop.tensor<[4], f32>):
    %k = hop.sym_constant : !hop.symint<3>
    hop.yield %k : !hop.symint<3>
  }
  func.return
}

// -----

// map slices along dim 0, so a 0-d operand cannot be mapped over.
func.func @map_over_scalar(%x: !hop.tensor<[], f32>) {
  // expected-error @+1 {{'hop.map' op xs operand %x has type !hop.tensor<[], f32>, expected a tensor of rank >= 1}}
  %r = hop.map xs(%x) additional() : (!hop.tensor<[], f32>), () -> !hop.tensor<[], f32> {
  ^bb0(%a: !hop.tensor<[], f32>):
    hop.yield %a : !hop.tensor<[], f32>
  }
  func.return
}

// -----

// map's result has s0 rows, one per slice, not 4.
hop.symbol @s0 backed [2, oo]
func.func @map_result_shape(%x: !hop.tensor<[s0, 4], f32>) {
  // expected-error @+1 {{'hop.map' op results: result #0 %r has type !hop.tensor<[4, 4], f32>, expected !hop.tensor<[s0, 4], f32>}}
  %r = hop.map xs(%x) additional() : (!hop.tensor<[s0, 4], f32>), () -> !hop.tensor<[4, 4], f32> {
  ^bb0(%row: !hop.tensor<[4], f32>):
    hop.yield %row : !hop.tensor<[4], f32>
  }
  func.return
}

// -----

// The body sees one slice of each xs: [4], not [s0, 4].
hop.symbol @s0 backed [2, oo]
func.func @map_block_argument_not_sliced(%x: !hop.tensor<[s0, 4], f32>) {
  // expected-error @+1 {{'hop.map' op body region arguments: block argument #0 %row has type !hop.tensor<[s0, 4], f32>, expected !hop.tensor<[4], f32>}}
  %r = hop.map xs(%x) additional() : (!hop.tensor<[s0, 4], f32>), () -> !hop.tensor<[s0, s0, 4], f32> {
  ^bb0(%row: !hop.tensor<[s0, 4], f32>):
    hop.yield %row : !hop.tensor<[s0, 4], f32>
  }
  func.return
}

// -----

// Every shape symbol is declared by a hop.symbol; s9 is not.
hop.symbol @s0 backed [2, oo]
func.func @undeclared_symbol(%x: !hop.tensor<[s0], f32>) {
  // expected-error @+1 {{'aten.nonzero' op uses shape symbol 's9', which no hop.symbol declares}}
  %r = aten.nonzero(%x) : (!hop.tensor<[s0], f32>) -> !hop.tensor<[s9, 1], i64>
  func.return
}

// -----

// Symbols in block argument types must be declared too.
// expected-error @+1 {{'func.func' op uses shape symbol 's0', which no hop.symbol declares}}
func.func @undeclared_symbol_in_signature(%x: !hop.tensor<[s0], f32>) {
  func.return
}

// -----

// A symbol's range is not empty.
// expected-error @+1 {{'hop.symbol' op @s0 has an empty range [5, 2]}}
hop.symbol @s0 backed [5, 2]
func.func @empty_range() {
  func.return
}

// -----

// A symbol is backed or unbacked.
// expected-error @+1 {{expected 'backed' or 'unbacked'}}
hop.symbol @s0 backing [2, oo]

// -----

// A copied-back result has the type of the argument it is copied into.
hop.buffer @mean : !hop.tensor<[4], f32>
// expected-error @+1 {{'func.func' op result 0 is copied back to argument 0 but has type !hop.tensor<[4], f64>, the argument has type !hop.tensor<[4], f32>}}
func.func @copy_back_type_mismatch(%m: !hop.tensor<[4], f32> {hop.buffer = @mean}) -> (!hop.tensor<[4], f64> {hop.copy_back_to = 0 : i64}) {
  %r = aten._to_copy(%m) {dtype = f64} : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f64>
  func.return %r : !hop.tensor<[4], f64>
}

// -----

// copy_back_to names an argument by its index; there is no argument 3.
// expected-error @+1 {{'func.func' op result 0: hop.copy_back_to must be an argument index, got 3 : i64}}
func.func @copy_back_to_out_of_range(%x: !hop.tensor<[4], f32>) -> (!hop.tensor<[4], f32> {hop.copy_back_to = 3 : i64}) {
  func.return %x : !hop.tensor<[4], f32>
}

// -----

// hop.strides lists one stride per dimension of the argument.
// expected-error @+1 {{'func.func' op argument 0: hop.strides must list one integer or #hop.expr per dimension of a tensor, got [1 : i64]}}
func.func @strides_of_wrong_rank(%x: !hop.tensor<[4, 3], f32> {hop.strides = [1 : i64]}) {
  func.return
}

// -----

// A parameter argument names a hop.parameter of the module.
// expected-error @+1 {{'func.func' op argument 0: hop.parameter @weight is not declared by a hop.parameter op}}
func.func @parameter_not_declared(%w: !hop.tensor<[4], f32> {hop.parameter = @weight}) {
  func.return
}

// -----

// A buffer argument does not name a parameter.
hop.parameter @weight : !hop.tensor<[4], f32>
// expected-error @+1 {{'func.func' op argument 0: hop.buffer @weight is not declared by a hop.buffer op}}
func.func @buffer_names_a_parameter(%w: !hop.tensor<[4], f32> {hop.buffer = @weight}) {
  func.return
}

// -----

// A parameter argument has the parameter's type.
hop.parameter @weight : !hop.tensor<[4], f32>
// expected-error @+1 {{'func.func' op argument 0 has type !hop.tensor<[5], f32>, but hop.parameter @weight is !hop.tensor<[4], f32>}}
func.func @parameter_type_mismatch(%w: !hop.tensor<[5], f32> {hop.parameter = @weight}) {
  func.return
}

// -----

// An argument has one role.
hop.parameter @weight : !hop.tensor<[4], f32>
hop.buffer @mean : !hop.tensor<[4], f32>
// expected-error @+1 {{'func.func' op argument 0 has several roles ['hop.parameter', 'hop.buffer']}}
func.func @two_roles(%w: !hop.tensor<[4], f32> {hop.parameter = @weight, hop.buffer = @mean}) {
  func.return
}

// -----

// A constant's value has the shape of its type.
// expected-error @+1 {{'hop.constant' op @table value has type tensor<2xf32>, its type is !hop.tensor<[3], f32>}}
hop.constant @table = dense<[1.0, 2.0]> : tensor<2xf32> : !hop.tensor<[3], f32>
func.func @constant_shape_mismatch() {
  func.return
}

// -----

// A module has exactly one public function, its entry; a second one is an error.
func.func @first() {
  func.return
}
// expected-error @+1 {{a hop module needs exactly one public func.func, found 2: @first, @second}}
func.func @second() {
  func.return
}

// -----

// A module without a public function has no entry; the error points at the
// start of the module.
// expected-error @+1 {{a hop module needs exactly one public func.func, found 0}}
func.func private @helper()

// -----

// A dimension is an integer or an expression; `s0 +` is neither.
hop.symbol @s0 backed [2, oo]
// expected-error @+1 {{malformed dimension 's0 +': expected an expression, found end of input}}
func.func @malformed_dimension(%x: !hop.tensor<[s0 +, 4], f32>) {
  func.return
}

// -----

// A static dimension is a size, never negative.
// expected-error @+1 {{negative dimension -5}}
func.func @negative_dimension(%x: !hop.tensor<[4, -5], f32>) {
  func.return
}

// -----

// Expressions use the functions of the expression language only.
hop.symbol @s0 backed [2, oo]
func.func @unknown_function_in_symint(%x: !hop.tensor<[s0], f32>) {
  // expected-error @+1 {{malformed expression 'Floor(s0)': unknown function 'Floor'}}
  %n = hop.sym_constant : !hop.symint<Floor(s0)>
  func.return
}

// -----

// Element types are the MLIR types of torch dtypes.
// expected-error @+1 {{unknown element type 'f12'}}
func.func @unknown_element_type(%x: !hop.tensor<[4], f12>) {
  func.return
}
