// RUN: hopc-opt %s --split-input-file --verify-diagnostics

// The verifier messages of module constants and their reads: a read names a
// hop.constant of the module, at its type; a value has its global's type and,
// as a dense_resource, a blob of exactly its bytes.

// A read of a symbol the module does not declare.
func.func @forward() -> !hop.tensor<[2], f32> {
  // expected-error @+1 {{'hop.get_constant' op %c reads @missing, which the module does not declare}}
  %c = hop.get_constant @missing : !hop.tensor<[2], f32>
  func.return %c : !hop.tensor<[2], f32>
}

// -----

// A parameter is an argument of the entry, not a constant to read.
hop.parameter @w : !hop.tensor<[2], f32>
func.func @forward() -> !hop.tensor<[2], f32> {
  // expected-error @+1 {{'hop.get_constant' op %c reads @w, a hop.parameter, not a hop.constant}}
  %c = hop.get_constant @w : !hop.tensor<[2], f32>
  func.return %c : !hop.tensor<[2], f32>
}

// -----

// A read at another type than the constant's.
hop.constant @c = dense<[1.0, 2.0]> : tensor<2xf32> : !hop.tensor<[2], f32>
func.func @forward() -> !hop.tensor<[2], f64> {
  // expected-error @+1 {{'hop.get_constant' op %c has type !hop.tensor<[2], f64>, but hop.constant @c has type !hop.tensor<[2], f32>}}
  %c = hop.get_constant @c : !hop.tensor<[2], f64>
  func.return %c : !hop.tensor<[2], f64>
}

// -----

// A value whose element type is not its constant's.
// expected-error @+1 {{'hop.constant' op @c value has type tensor<2xi32>, its type is !hop.tensor<[2], f32>}}
hop.constant @c = dense<[1, 2]> : tensor<2xi32> : !hop.tensor<[2], f32>
func.func @forward() {
  func.return
}

// -----

// A parameter's value of another shape.
// expected-error @+1 {{'hop.parameter' op @w value has type tensor<2xf32>, its type is !hop.tensor<[3], f32>}}
hop.parameter @w = dense<[1.0, 2.0]> : tensor<2xf32> : !hop.tensor<[3], f32>
func.func @forward() {
  func.return
}

// -----

// A dense_resource whose blob the file does not define.
// expected-error @+1 {{'hop.constant' op @c value dense_resource<undefined_blob> has no blob: the resource section does not define it}}
hop.constant @c = dense_resource<undefined_blob> : tensor<4xf32> : !hop.tensor<[4], f32>
func.func @forward() {
  func.return
}

// -----

// A blob shorter than its tensor (one float for four).
// expected-error @+1 {{'hop.buffer' op @b value dense_resource<short_blob> holds 4 bytes, a tensor<4xf32> has 16}}
hop.buffer @b = dense_resource<short_blob> : tensor<4xf32> : !hop.tensor<[4], f32>
func.func @forward() {
  func.return
}

{-#
  dialect_resources: {
    builtin: {
      short_blob: "0x040000000000803F"
    }
  }
#-}
