// RUN: hopc-opt %s --split-input-file --verify-diagnostics

// Where xDSL's own parse messages are vague, hopc's parser says what is wrong
// and where: the bracket left open in a type, the op the input ends inside,
// the token that starts no op, the first use of an undefined value.

// A shape whose `]` is missing: at the `>` found instead, naming the `[`.
// expected-error @+1 {{'[' at 9:30 is not closed: expected ']', found '>'}}
func.func @f(%x: !hop.tensor<[s0, 4, f32>) {
  func.return
}

// -----

// A `)` where the type's `>` belongs.
// expected-error @+1 {{'<' at 17:29 is not closed: expected '>', found ')'}}
func.func @f(%x: !hop.tensor<[4], f32) {
  func.return
}

// -----

// One `]` too many.
// expected-error @+1 {{'<' at 25:29 is not closed: expected '>', found ']'}}
func.func @f(%x: !hop.tensor<[4]], f32>) {
  func.return
}

// -----

// A bracket inside a type that the input ends before closing: at the bracket.
// expected-error @+1 {{'<' is not closed: expected '>' before the end of the input}}
hop.parameter @w : !hop.tensor<[4], f32

// -----

// An op the input ends inside: at the op, not at the end of the input.
// expected-error @+1 {{unexpected end of the input: this op is not finished}}
func.func @f(%x: !hop.tensor<[4], f32>) {
  %y = aten.relu(%x) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>

// -----

// The innermost unfinished op, when ops are nested.
func.func @f(%x: !hop.tensor<[4], f32>) {
  // expected-error @+1 {{unexpected end of the input: this op is not finished}}
  %r = hop.wrap(%x) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32> {
  ^bb0(%a: !hop.tensor<[4], f32>):
    hop.yield %a : !hop.tensor<[4], f32>

// -----

// A stray `}` after the last op.
func.func @f() {
  func.return
}
// expected-error @+1 {{expected an operation, found '}'}}
}

// -----

// A value used and never defined: at its first use.
func.func @f(%x: !hop.tensor<[4], f32>) {
  // expected-error @+1 {{use of undefined value %y}}
  %z = aten.relu(%y) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
  %w = aten.relu(%y) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
  func.return
}

// -----

// A `%` with no name after it.
func.func @f(%x: !hop.tensor<[4], f32>) {
  // expected-error @+1 {{expected a name after '%'}}
  %y = aten.relu(% ) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
  func.return
}
