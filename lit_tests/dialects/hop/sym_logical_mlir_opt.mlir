// REQUIRES: mlir-opt
// RUN: hopc-opt %s --print-op-generic | %mlir-opt --allow-unregistered-dialect | filecheck %s

// Real MLIR reads the generic form of hop.sym_and and hop.sym_or: their
// And/Or conditions are a dialect type's body of balanced brackets.

// CHECK: "hop.sym_and"(%{{.*}}, %{{.*}}) : (!hop.symbool<Ge(u0, 0)>, !hop.symbool<Le(u0, 3)>) -> !hop.symbool<And(Ge(u0, 0), Le(u0, 3))>
// CHECK: "hop.sym_or"(%{{.*}}, %{{.*}}) : (!hop.symbool<Ge(u0, 0)>, !hop.symbool<Le(u0, 3)>) -> !hop.symbool<Or(Ge(u0, 0), Le(u0, 3))>
hop.symbol @u0 unbacked [-oo, oo]
func.func @both(%a: !hop.symbool<Ge(u0, 0)>, %b: !hop.symbool<Le(u0, 3)>) -> !hop.symbool<Or(Ge(u0, 0), Le(u0, 3))> {
  %c = hop.sym_and %a, %b : !hop.symbool<Ge(u0, 0)>, !hop.symbool<Le(u0, 3)> -> !hop.symbool<And(Ge(u0, 0), Le(u0, 3))>
  %d = hop.sym_or %a, %b : !hop.symbool<Ge(u0, 0)>, !hop.symbool<Le(u0, 3)> -> !hop.symbool<Or(Ge(u0, 0), Le(u0, 3))>
  func.return %d : !hop.symbool<Or(Ge(u0, 0), Le(u0, 3))>
}
