// RUN: hopc-opt %s --split-input-file --verify-diagnostics

// Invalid roundings of symbolic numbers: each verifier message names the
// offending value and its type.

// The result is the rounding call on the operand's expression.
hop.symbol @s0 backed [2, oo]
func.func @wrong_floor(%h: !hop.symfloat<s0 / 2>) {
  // expected-error @+1 {{'hop.sym_floor' op result %r has type !hop.symint<s0 // 2>, expected !hop.symint<floor(s0 / 2)> from %h : !hop.symfloat<s0 / 2>}}
  %r = hop.sym_floor %h : !hop.symfloat<s0 / 2> -> !hop.symint<s0 // 2>
  func.return
}

// -----

// round(2.5) is 2 in Python, not 3.
hop.symbol @s0 backed [2, oo]
func.func @round_half_up(%h: !hop.symfloat<2.5>) {
  // expected-error @+1 {{'hop.sym_round' op result %r has type !hop.symint<3>, expected !hop.symint<2> from %h : !hop.symfloat<2.5>}}
  %r = hop.sym_round %h : !hop.symfloat<2.5> -> !hop.symint<3>
  func.return
}

// -----

// A rounding takes a number, not a boolean.
hop.symbol @s0 backed [2, oo]
func.func @boolean_ceil(%c: !hop.symbool<Gt(s0, 4)>) {
  // expected-error @+1 {{'hop.sym_ceil' op is undefined on %c : !hop.symbool<Gt(s0, 4)>: 'hop.sym_ceil' takes !hop.symint or !hop.symfloat}}
  %r = hop.sym_ceil %c : !hop.symbool<Gt(s0, 4)> -> !hop.symint<1>
  func.return
}

// -----

// The result is an integer, never a float.
hop.symbol @zuf0 unbacked float
func.func @float_trunc(%f: !hop.symfloat<zuf0>) {
  // expected-error @+1 {{'hop.sym_trunc' op result %r has type !hop.symfloat<zuf0>, expected !hop.symint<trunc(zuf0)> from %f : !hop.symfloat<zuf0>}}
  %r = hop.sym_trunc %f : !hop.symfloat<zuf0> -> !hop.symfloat<zuf0>
  func.return
}

// -----

// A rounded size plus a float is a float: no tensor dimension.
hop.symbol @s0 backed [2, oo]
// expected-error @+1 {{dimension 'floor(s0 / 2) + 0.5' is not an integer}}
func.func @float_dimension(%x: !hop.tensor<[floor(s0 / 2) + 0.5], f32>) {
  func.return
}
