// RUN: hopc-opt %s --split-input-file --verify-diagnostics

// Invalid & and | on symbolic booleans: each verifier message names the
// offending value and the types.

// The result is And of the operands' conditions.
hop.symbol @u0 unbacked [-oo, oo]
func.func @wrong_conjunction(%a: !hop.symbool<Ge(u0, 0)>, %b: !hop.symbool<Le(u0, 3)>) {
  // expected-error @+1 {{'hop.sym_and' op result %r has type !hop.symbool<Or(Ge(u0, 0), Le(u0, 3))>, expected !hop.symbool<And(Ge(u0, 0), Le(u0, 3))> from %a : !hop.symbool<Ge(u0, 0)> and %b : !hop.symbool<Le(u0, 3)>}}
  %r = hop.sym_and %a, %b : !hop.symbool<Ge(u0, 0)>, !hop.symbool<Le(u0, 3)> -> !hop.symbool<Or(Ge(u0, 0), Le(u0, 3))>
  func.return
}

// -----

// | takes booleans: a bitwise | of integers is no op.
hop.symbol @u0 unbacked [-oo, oo]
func.func @or_of_integers(%a: !hop.symint<u0>, %b: !hop.symint<1>) {
  // expected-error @+1 {{'hop.sym_or' op is undefined on %a : !hop.symint<u0> and %b : !hop.symint<1>: 'hop.sym_or' takes !hop.symbool}}
  %r = hop.sym_or %a, %b : !hop.symint<u0>, !hop.symint<1> -> !hop.symbool<True>
  func.return
}
