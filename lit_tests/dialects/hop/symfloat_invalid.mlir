// RUN: hopc-opt %s --split-input-file --verify-diagnostics

// Invalid symbolic floats (Note [float expressions] in hopc.ir.symbolic_float):
// each verifier message names the offending value and its type.

// An integer type cannot hold a float expression.
hop.symbol @s0 backed [2, oo]
// expected-error @+1 {{!hop.symint<s0 / 2> has a float expression (a float is !hop.symfloat)}}
func.func @float_in_symint(%n: !hop.symint<s0 / 2>) {
  func.return
}

// -----

// A float type holds a float-valued expression: `float(s0)`, not `s0`.
hop.symbol @s0 backed [2, oo]
// expected-error @+1 {{!hop.symfloat<s0> has an integer expression (write float(s0))}}
func.func @integer_in_symfloat(%n: !hop.symfloat<s0>) {
  func.return
}

// -----

// A tensor dimension is an integer.
hop.symbol @s0 backed [2, oo]
// expected-error @+1 {{dimension 'sqrt(s0)' is not an integer}}
func.func @float_dimension(%x: !hop.tensor<[sqrt(s0)], f32>) {
  func.return
}

// -----

// A float symbol is declared float, and nothing else is.
// expected-error @+1 {{'hop.symbol' op @zuf0 is declared integer, but its name says otherwise (float symbols are named zuf<n> or zf<n>)}}
hop.symbol @zuf0 unbacked [0, 1]

// -----

// expected-error @+1 {{'hop.symbol' op @u0 is declared float, but its name says otherwise (float symbols are named zuf<n> or zf<n>)}}
hop.symbol @u0 unbacked float

// -----

// Floor division and remainder take integers.
hop.symbol @zuf0 unbacked float
func.func @floordiv_of_float(%a: !hop.symfloat<zuf0>, %b: !hop.symint<2>) {
  // expected-error @+1 {{'hop.sym_floordiv' op is undefined on %a : !hop.symfloat<zuf0> and %b : !hop.symint<2>: 'hop.sym_floordiv' takes integers}}
  %r = hop.sym_floordiv %a, %b : !hop.symfloat<zuf0>, !hop.symint<2> -> !hop.symfloat<zuf0 // 2>
  func.return
}

// -----

// The result type is the operation on the operand's expression.
hop.symbol @s0 backed [2, oo]
func.func @wrong_sqrt(%a: !hop.symint<s0>) {
  // expected-error @+1 {{'hop.sym_sqrt' op result %r has type !hop.symfloat<sqrt(float(s0) + 1)>, expected !hop.symfloat<sqrt(s0)> from %a : !hop.symint<s0>}}
  %r = hop.sym_sqrt %a : !hop.symint<s0> -> !hop.symfloat<sqrt(float(s0) + 1)>
  func.return
}

// -----

// The square root of a negative constant is undefined.
func.func @negative_sqrt() {
  %m = hop.sym_constant : !hop.symint<-4>
  // expected-error @+1 {{'hop.sym_sqrt' op is undefined on %m : !hop.symint<-4>: sqrt of the negative number -4.0}}
  %r = hop.sym_sqrt %m : !hop.symint<-4> -> !hop.symfloat<2.0>
  func.return
}

// -----

// The .item() of a float tensor is a float symbol.
hop.symbol @u0 unbacked [-oo, oo]
func.func @integer_item_of_float(%t: !hop.tensor<[], f32>) {
  // expected-error @+1 {{'hop.item' op result %r has type !hop.symint<u0>, expected a single symbol (!hop.symfloat<zuf0>) for operand %t of type !hop.tensor<[], f32>}}
  %r = hop.item %t : !hop.tensor<[], f32> -> !hop.symint<u0>
  func.return
}

// -----

// sym_ite's result is ITE of its operands, a float if either choice is.
hop.symbol @s0 backed [2, oo]
func.func @wrong_ite(%c: !hop.symbool<Gt(s0, 4)>, %a: !hop.symint<s0>, %b: !hop.symfloat<0.5>) {
  // expected-error @+1 {{'hop.sym_ite' op result %r has type !hop.symint<s0>, expected !hop.symfloat<ITE(Gt(s0, 4), s0, 0.5)> from %c : !hop.symbool<Gt(s0, 4)>, %a : !hop.symint<s0>, %b : !hop.symfloat<0.5>}}
  %r = hop.sym_ite %c, %a, %b : !hop.symbool<Gt(s0, 4)>, !hop.symint<s0>, !hop.symfloat<0.5> -> !hop.symint<s0>
  func.return
}
