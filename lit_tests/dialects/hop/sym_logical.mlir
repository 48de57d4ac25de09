// RUN: hopc-opt %s --split-input-file | filecheck %s
// RUN: hopc-opt %s --split-input-file --print-op-generic | filecheck %s --check-prefix=GENERIC
// RUN: hopc-opt %s --print-op-generic --split-input-file | hopc-opt --split-input-file | filecheck %s

// Python's & and | on symbolic booleans: each result is And/Or of the
// operands' conditions, in custom and generic form; the last RUN parses the
// generic form back.

// (k >= 0) & (k + 2 <= s0), as a torch._check before x.narrow(0, k, 2) records it.
// CHECK-LABEL: func.func @both
// CHECK:         hop.sym_and %a, %b : !hop.symbool<Ge(u0, 0)>, !hop.symbool<Le(u0 + 2, s0)> -> !hop.symbool<And(Ge(u0, 0), Le(u0 + 2, s0))>
// GENERIC:       "hop.sym_and"(%a, %b) : (!hop.symbool<Ge(u0, 0)>, !hop.symbool<Le(u0 + 2, s0)>) -> !hop.symbool<And(Ge(u0, 0), Le(u0 + 2, s0))>
hop.symbol @s0 backed [2, oo]
hop.symbol @u0 unbacked [-oo, oo]
func.func @both(%a: !hop.symbool<Ge(u0, 0)>, %b: !hop.symbool<Le(u0 + 2, s0)>) -> !hop.symbool<And(Ge(u0, 0), Le(u0 + 2, s0))> {
  %r = hop.sym_and %a, %b : !hop.symbool<Ge(u0, 0)>, !hop.symbool<Le(u0 + 2, s0)> -> !hop.symbool<And(Ge(u0, 0), Le(u0 + 2, s0))>
  func.return %r : !hop.symbool<And(Ge(u0, 0), Le(u0 + 2, s0))>
}

// -----

// (k < 0) | (k > 3).
// CHECK-LABEL: func.func @either
// CHECK:         hop.sym_or %a, %b : !hop.symbool<Lt(u0, 0)>, !hop.symbool<Gt(u0, 3)> -> !hop.symbool<Or(Gt(u0, 3), Lt(u0, 0))>
// GENERIC:       "hop.sym_or"(%a, %b) : (!hop.symbool<Lt(u0, 0)>, !hop.symbool<Gt(u0, 3)>) -> !hop.symbool<Or(Gt(u0, 3), Lt(u0, 0))>
hop.symbol @u0 unbacked [-oo, oo]
func.func @either(%a: !hop.symbool<Lt(u0, 0)>, %b: !hop.symbool<Gt(u0, 3)>) -> !hop.symbool<Or(Gt(u0, 3), Lt(u0, 0))> {
  %r = hop.sym_or %a, %b : !hop.symbool<Lt(u0, 0)>, !hop.symbool<Gt(u0, 3)> -> !hop.symbool<Or(Gt(u0, 3), Lt(u0, 0))>
  func.return %r : !hop.symbool<Or(Gt(u0, 3), Lt(u0, 0))>
}

// -----

// A constant operand folds into the condition: c & True is c.
// CHECK-LABEL: func.func @and_true
// CHECK:         hop.sym_and %a, %t : !hop.symbool<Ge(u0, 0)>, !hop.symbool<True> -> !hop.symbool<Ge(u0, 0)>
hop.symbol @u0 unbacked [-oo, oo]
func.func @and_true(%a: !hop.symbool<Ge(u0, 0)>, %t: !hop.symbool<True>) -> !hop.symbool<Ge(u0, 0)> {
  %r = hop.sym_and %a, %t : !hop.symbool<Ge(u0, 0)>, !hop.symbool<True> -> !hop.symbool<Ge(u0, 0)>
  func.return %r : !hop.symbool<Ge(u0, 0)>
}
