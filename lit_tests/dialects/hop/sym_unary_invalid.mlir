// RUN: hopc-opt %s --split-input-file --verify-diagnostics

// Invalid unary ops on symbolic numbers: each verifier message names the
// offending value and its type.

// The result is the operation on the operand's expression.
hop.symbol @s0 backed [2, oo]
func.func @wrong_negation(%n: !hop.symint<s0>) {
  // expected-error @+1 {{'hop.sym_neg' op result %r has type !hop.symint<s0>, expected !hop.symint<-s0> from %n : !hop.symint<s0>}}
  %r = hop.sym_neg %n : !hop.symint<s0> -> !hop.symint<s0>
  func.return
}

// -----

// The result has the operand's kind: the absolute value of an integer is one.
hop.symbol @s0 backed [2, oo]
func.func @float_absolute(%n: !hop.symint<s0>) {
  // expected-error @+1 {{'hop.sym_abs' op result %r has type !hop.symfloat<float(s0)>, expected !hop.symint<Max(s0, -s0)> from %n : !hop.symint<s0>}}
  %r = hop.sym_abs %n : !hop.symint<s0> -> !hop.symfloat<float(s0)>
  func.return
}

// -----

// not takes a boolean.
hop.symbol @s0 backed [2, oo]
func.func @not_of_integer(%n: !hop.symint<s0>) {
  // expected-error @+1 {{'hop.sym_not' op is undefined on %n : !hop.symint<s0>: 'hop.sym_not' takes !hop.symbool}}
  %r = hop.sym_not %n : !hop.symint<s0> -> !hop.symbool<True>
  func.return
}

// -----

// Negation takes a number, not a boolean.
hop.symbol @s0 backed [2, oo]
func.func @negated_boolean(%c: !hop.symbool<Gt(s0, 4)>) {
  // expected-error @+1 {{'hop.sym_neg' op is undefined on %c : !hop.symbool<Gt(s0, 4)>: 'hop.sym_neg' takes !hop.symint or !hop.symfloat}}
  %r = hop.sym_neg %c : !hop.symbool<Gt(s0, 4)> -> !hop.symbool<Le(s0, 4)>
  func.return
}
