// RUN: hopc-opt %s --split-input-file --verify-diagnostics

// Custom operators' ops that cannot be read: an operator the process has not registered, an
// argument the schema does not have (Note [custom operators] in dialects/custom.py).

// No library of this process defines `hopclit::scaled_tanh`.
func.func @unregistered_operator(%x: !hop.tensor<[4], f32>) {
  // expected-error @+1 {{custom.hopclit.scaled_tanh names the custom operator hopclit::scaled_tanh, which this process has not registered}}
  %y = custom.hopclit.scaled_tanh(%x) {scale = 2.0 : f64} : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
  func.return
}

// -----

// `prims::sin(Tensor self) -> Tensor` takes no `scale`.
func.func @unknown_argument(%x: !hop.tensor<[4], f32>) {
  // expected-error @+1 {{custom.prims.sin has no argument named 'scale'}}
  %y = custom.prims.sin(%x) {scale = 2.0 : f64} : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
  func.return
}
