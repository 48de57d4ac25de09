// REQUIRES: mlir-opt
// RUN: hopc-opt %s --print-op-generic | %mlir-opt --allow-unregistered-dialect | filecheck %s

// Real MLIR reads the generic form of the rounding ops: their floor/ceil/
// trunc/round calls are a dialect type's body of balanced brackets.

// CHECK: "hop.sym_floor"(%{{.*}}) : (!hop.symfloat<s0 / 2>) -> !hop.symint<floor(s0 / 2)>
// CHECK: "hop.sym_ceil"(%{{.*}}) : (!hop.symfloat<s0 / 2>) -> !hop.symint<ceil(s0 / 2)>
// CHECK: "hop.sym_trunc"(%{{.*}}) : (!hop.symfloat<s0 / 2>) -> !hop.symint<trunc(s0 / 2)>
// CHECK: "hop.sym_round"(%{{.*}}) : (!hop.symfloat<s0 / 2>) -> !hop.symint<round(s0 / 2)>
hop.symbol @s0 backed [2, oo]
func.func @all(%h: !hop.symfloat<s0 / 2>) -> !hop.symint<round(s0 / 2)> {
  %a = hop.sym_floor %h : !hop.symfloat<s0 / 2> -> !hop.symint<floor(s0 / 2)>
  %b = hop.sym_ceil %h : !hop.symfloat<s0 / 2> -> !hop.symint<ceil(s0 / 2)>
  %c = hop.sym_trunc %h : !hop.symfloat<s0 / 2> -> !hop.symint<trunc(s0 / 2)>
  %d = hop.sym_round %h : !hop.symfloat<s0 / 2> -> !hop.symint<round(s0 / 2)>
  func.return %d : !hop.symint<round(s0 / 2)>
}
