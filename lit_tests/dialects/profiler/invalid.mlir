// RUN: hopc-opt %s --split-input-file --verify-diagnostics

// The profiler ops' verifier messages.

// A range is closed by its handle, not by a tensor.
func.func @exit_of_a_tensor(%x: !hop.tensor<[3], f32>) {
  // expected-error @+1 {{operand 'range' at position 0 does not verify}}
  "profiler.record_function_exit"(%x) : (!hop.tensor<[3], f32>) -> ()
  func.return
}

// -----

// A range has a name.
func.func @enter_without_a_name() {
  // expected-error @+1 {{property 'name' expected}}
  %r = "profiler.record_function_enter"() : () -> !profiler.range
  func.return
}
