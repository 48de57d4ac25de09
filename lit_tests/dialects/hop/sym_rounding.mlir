// RUN: hopc-opt %s --split-input-file | filecheck %s
// RUN: hopc-opt %s --split-input-file --print-op-generic | filecheck %s --check-prefix=GENERIC
// RUN: hopc-opt %s --print-op-generic --split-input-file | hopc-opt --split-input-file | filecheck %s

// Python's roundings to an integer on symbolic numbers: math.floor, math.ceil,
// math.trunc (int(f)) and round; each result is a !hop.symint (Note [rounding
// expressions]), in custom and generic form; the last RUN parses the generic form back.

// math.floor(x.size(0) / 2), as a slice bound computes it.
// CHECK-LABEL: func.func @floor_of_half
// CHECK:         hop.sym_floor %h : !hop.symfloat<s0 / 2> -> !hop.symint<floor(s0 / 2)>
// GENERIC:       "hop.sym_floor"(%h) : (!hop.symfloat<s0 / 2>) -> !hop.symint<floor(s0 / 2)>
hop.symbol @s0 backed [2, oo]
func.func @floor_of_half(%h: !hop.symfloat<s0 / 2>) -> !hop.symint<floor(s0 / 2)> {
  %r = hop.sym_floor %h : !hop.symfloat<s0 / 2> -> !hop.symint<floor(s0 / 2)>
  func.return %r : !hop.symint<floor(s0 / 2)>
}

// -----

// math.ceil(1.5 * k) of an item; its sum with an integer stays an integer.
// CHECK-LABEL: func.func @ceil_of_product
// CHECK:         hop.sym_ceil %f : !hop.symfloat<1.5*u0> -> !hop.symint<ceil(1.5*u0)>
// CHECK:         hop.sym_add %r, %one : !hop.symint<ceil(1.5*u0)>, !hop.symint<1> -> !hop.symint<ceil(1.5*u0) + 1>
// GENERIC:       "hop.sym_ceil"(%f) : (!hop.symfloat<1.5*u0>) -> !hop.symint<ceil(1.5*u0)>
hop.symbol @u0 unbacked [0, oo]
func.func @ceil_of_product(%f: !hop.symfloat<1.5*u0>, %one: !hop.symint<1>) -> !hop.symint<ceil(1.5*u0) + 1> {
  %r = hop.sym_ceil %f : !hop.symfloat<1.5*u0> -> !hop.symint<ceil(1.5*u0)>
  %s = hop.sym_add %r, %one : !hop.symint<ceil(1.5*u0)>, !hop.symint<1> -> !hop.symint<ceil(1.5*u0) + 1>
  func.return %s : !hop.symint<ceil(1.5*u0) + 1>
}

// -----

// int(f) of a float item is math.trunc; round(f) rounds a tie to even.
// CHECK-LABEL: func.func @trunc_and_round
// CHECK:         hop.sym_trunc %f : !hop.symfloat<zuf0> -> !hop.symint<trunc(zuf0)>
// CHECK:         hop.sym_round %f : !hop.symfloat<zuf0> -> !hop.symint<round(zuf0)>
// GENERIC:       "hop.sym_trunc"(%f) : (!hop.symfloat<zuf0>) -> !hop.symint<trunc(zuf0)>
// GENERIC:       "hop.sym_round"(%f) : (!hop.symfloat<zuf0>) -> !hop.symint<round(zuf0)>
hop.symbol @zuf0 unbacked float
func.func @trunc_and_round(%f: !hop.symfloat<zuf0>) -> (!hop.symint<trunc(zuf0)>, !hop.symint<round(zuf0)>) {
  %t = hop.sym_trunc %f : !hop.symfloat<zuf0> -> !hop.symint<trunc(zuf0)>
  %r = hop.sym_round %f : !hop.symfloat<zuf0> -> !hop.symint<round(zuf0)>
  func.return %t, %r : !hop.symint<trunc(zuf0)>, !hop.symint<round(zuf0)>
}

// -----

// An integer rounds to itself; a constant folds as Python does (round(2.5) is 2).
// CHECK-LABEL: func.func @folded
// CHECK:         hop.sym_floor %n : !hop.symint<s0> -> !hop.symint<s0>
// CHECK:         hop.sym_round %h : !hop.symfloat<2.5> -> !hop.symint<2>
// CHECK:         hop.sym_ceil %h : !hop.symfloat<2.5> -> !hop.symint<3>
// CHECK:         hop.sym_trunc %m : !hop.symfloat<-2.5> -> !hop.symint<-2>
hop.symbol @s0 backed [2, oo]
func.func @folded(%n: !hop.symint<s0>, %h: !hop.symfloat<2.5>, %m: !hop.symfloat<-2.5>) {
  %a = hop.sym_floor %n : !hop.symint<s0> -> !hop.symint<s0>
  %b = hop.sym_round %h : !hop.symfloat<2.5> -> !hop.symint<2>
  %c = hop.sym_ceil %h : !hop.symfloat<2.5> -> !hop.symint<3>
  %d = hop.sym_trunc %m : !hop.symfloat<-2.5> -> !hop.symint<-2>
  func.return
}

// -----

// A rounded size is a tensor dimension: it is an integer though its text has a '/'.
// CHECK-LABEL: func.func @rounded_dimension
// CHECK-SAME:    !hop.tensor<[floor(s0 / 2)], f32>
hop.symbol @s0 backed [2, oo]
func.func @rounded_dimension(%x: !hop.tensor<[floor(s0 / 2)], f32>) -> !hop.tensor<[floor(s0 / 2)], f32> {
  func.return %x : !hop.tensor<[floor(s0 / 2)], f32>
}
