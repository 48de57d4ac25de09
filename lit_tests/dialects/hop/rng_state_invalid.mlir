// RUN: hopc-opt %s --split-input-file --verify-diagnostics

// The random-number-state ops' verifier messages: a state is a !hop.rng_state,
// never a tensor, in either direction.

// The state is set from a state, not from a tensor holding one.
func.func @set_from_a_tensor(%t: !hop.tensor<[5056], ui8>) {
  // expected-error @+1 {{operand 'state' at position 0 does not verify}}
  "hop.set_rng_state"(%t) : (!hop.tensor<[5056], ui8>) -> ()
  func.return
}

// -----

// Reading the state gives a !hop.rng_state.
func.func @get_as_a_tensor() {
  // expected-error @+1 {{result 'state' at position 0 does not verify}}
  %s = "hop.get_rng_state"() : () -> !hop.tensor<[5056], ui8>
  func.return
}

// -----

// Reading takes no operand.
func.func @get_of_a_state(%s: !hop.rng_state) {
  // expected-error @+1 {{Expected 0 operands, but got 1}}
  %t = "hop.get_rng_state"(%s) : (!hop.rng_state) -> !hop.rng_state
  func.return
}

// -----

// Setting returns nothing.
func.func @set_with_a_result(%s: !hop.rng_state) {
  // expected-error @+1 {{Expected 0 results, but got 1}}
  %t = "hop.set_rng_state"(%s) : (!hop.rng_state) -> !hop.rng_state
  func.return
}

// -----

// The custom form's operand is a state: a tensor there is a type mismatch.
func.func @custom_set_from_a_tensor(%t: !hop.tensor<[5056], ui8>) {
  // expected-error @+1 {{operand is used with type !hop.rng_state, but has been previously used or defined with type !hop.tensor<[5056], ui8>}}
  hop.set_rng_state %t
  func.return
}
