// RUN: hopc-opt %s --split-input-file --verify-diagnostics

// hop.associative_scan's verifier messages (Note [associative scan semantics]):
// the body takes two slices of each xs then the additional operands, and yields
// one value of each slice's type; the results have the xs' types.

// The body takes one slice of each xs, not two.
func.func @one_slice(%x: !hop.tensor<[5, 3], f32>) -> !hop.tensor<[5, 3], f32> {
  // expected-error @+1 {{'hop.associative_scan' op body region arguments: expected 2 values, got 1}}
  %r = hop.associative_scan xs(%x) additional() : (!hop.tensor<[5, 3], f32>), () -> !hop.tensor<[5, 3], f32> {
  ^bb0(%a: !hop.tensor<[3], f32>):
    hop.yield %a : !hop.tensor<[3], f32>
  }
  func.return %r : !hop.tensor<[5, 3], f32>
}

// -----

// The combine yields another shape than a slice (a combine that is not elementwise).
func.func @wrong_yield(%x: !hop.tensor<[5, 3], f32>) -> !hop.tensor<[5, 3], f32> {
  // expected-error @+1 {{'hop.associative_scan' op body region yields: yielded value #0 has type !hop.tensor<[], f32>, expected !hop.tensor<[3], f32>}}
  %r = hop.associative_scan xs(%x) additional() : (!hop.tensor<[5, 3], f32>), () -> !hop.tensor<[5, 3], f32> {
  ^bb0(%a: !hop.tensor<[3], f32>, %b: !hop.tensor<[3], f32>):
    %d = aten.dot(%a, %b) : (!hop.tensor<[3], f32>, !hop.tensor<[3], f32>) -> !hop.tensor<[], f32>
    hop.yield %d : !hop.tensor<[], f32>
  }
  func.return %r : !hop.tensor<[5, 3], f32>
}

// -----

// The scanned operands differ in dim 0.
func.func @lengths(%x: !hop.tensor<[5, 3], f32>, %y: !hop.tensor<[4, 3], f32>) -> !hop.tensor<[5, 3], f32> {
  // expected-error @+1 {{'hop.associative_scan' op xs operands differ in dim 0: %x has type !hop.tensor<[5, 3], f32>, %y has type !hop.tensor<[4, 3], f32>}}
  %r, %s = hop.associative_scan xs(%x, %y) additional() : (!hop.tensor<[5, 3], f32>, !hop.tensor<[4, 3], f32>), () -> !hop.tensor<[5, 3], f32>, !hop.tensor<[4, 3], f32> {
  ^bb0(%a: !hop.tensor<[3], f32>, %b: !hop.tensor<[3], f32>, %c: !hop.tensor<[3], f32>, %d: !hop.tensor<[3], f32>):
    hop.yield %a, %b : !hop.tensor<[3], f32>, !hop.tensor<[3], f32>
  }
  func.return %r : !hop.tensor<[5, 3], f32>
}

// -----

// A result of another type than its scanned operand.
func.func @wrong_result(%x: !hop.tensor<[5, 3], f32>) -> !hop.tensor<[5, 3], f64> {
  // expected-error @+1 {{'hop.associative_scan' op results: result #0 has type !hop.tensor<[5, 3], f64>, expected !hop.tensor<[5, 3], f32>}}
  %r = hop.associative_scan xs(%x) additional() : (!hop.tensor<[5, 3], f32>), () -> !hop.tensor<[5, 3], f64> {
  ^bb0(%a: !hop.tensor<[3], f32>, %b: !hop.tensor<[3], f32>):
    hop.yield %a : !hop.tensor<[3], f32>
  }
  func.return %r : !hop.tensor<[5, 3], f64>
}
