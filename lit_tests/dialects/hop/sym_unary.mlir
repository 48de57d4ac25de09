// RUN: hopc-opt %s --split-input-file | filecheck %s
// RUN: hopc-opt %s --split-input-file --print-op-generic | filecheck %s --check-prefix=GENERIC
// RUN: hopc-opt %s --print-op-generic --split-input-file | hopc-opt --split-input-file | filecheck %s

// Python's unary operators on symbolic numbers: -n, abs(n) (written Max(a, -a)),
// not c; each result has its operand's kind, in custom and generic form; the
// last RUN parses the generic form back.

// -n of an integer, as x[-n:] computes it.
// CHECK-LABEL: func.func @negated
// CHECK:         hop.sym_neg %n : !hop.symint<s0> -> !hop.symint<-s0>
// GENERIC:       "hop.sym_neg"(%n) : (!hop.symint<s0>) -> !hop.symint<-s0>
hop.symbol @s0 backed [2, oo]
func.func @negated(%n: !hop.symint<s0>) -> !hop.symint<-s0> {
  %r = hop.sym_neg %n : !hop.symint<s0> -> !hop.symint<-s0>
  func.return %r : !hop.symint<-s0>
}

// -----

// -f of a float stays a float.
// CHECK-LABEL: func.func @negated_float
// CHECK:         hop.sym_neg %f : !hop.symfloat<float(s0)> -> !hop.symfloat<-float(s0)>
hop.symbol @s0 backed [2, oo]
func.func @negated_float(%f: !hop.symfloat<float(s0)>) -> !hop.symfloat<-float(s0)> {
  %r = hop.sym_neg %f : !hop.symfloat<float(s0)> -> !hop.symfloat<-float(s0)>
  func.return %r : !hop.symfloat<-float(s0)>
}

// -----

// abs(s0 - s1) is Max(s0 - s1, s1 - s0).
// CHECK-LABEL: func.func @absolute
// CHECK:         hop.sym_abs %d : !hop.symint<s0 - s1> -> !hop.symint<Max(-s0 + s1, s0 - s1)>
// GENERIC:       "hop.sym_abs"(%d) : (!hop.symint<s0 - s1>) -> !hop.symint<Max(-s0 + s1, s0 - s1)>
hop.symbol @s0 backed [2, oo]
hop.symbol @s1 backed [2, oo]
func.func @absolute(%d: !hop.symint<s0 - s1>) -> !hop.symint<Max(-s0 + s1, s0 - s1)> {
  %r = hop.sym_abs %d : !hop.symint<s0 - s1> -> !hop.symint<Max(-s0 + s1, s0 - s1)>
  func.return %r : !hop.symint<Max(-s0 + s1, s0 - s1)>
}

// -----

// not (s0 > 4) is s0 <= 4 (torch.sym_not).
// CHECK-LABEL: func.func @negated_condition
// CHECK:         hop.sym_not %c : !hop.symbool<Gt(s0, 4)> -> !hop.symbool<Le(s0, 4)>
// GENERIC:       "hop.sym_not"(%c) : (!hop.symbool<Gt(s0, 4)>) -> !hop.symbool<Le(s0, 4)>
hop.symbol @s0 backed [2, oo]
func.func @negated_condition(%c: !hop.symbool<Gt(s0, 4)>) -> !hop.symbool<Le(s0, 4)> {
  %r = hop.sym_not %c : !hop.symbool<Gt(s0, 4)> -> !hop.symbool<Le(s0, 4)>
  func.return %r : !hop.symbool<Le(s0, 4)>
}
