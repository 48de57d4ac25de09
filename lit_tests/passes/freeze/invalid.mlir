// RUN: hopc-opt %s --freeze --split-input-file --verify-diagnostics

// Freezing is for inference: a module with a backward entry is refused.
builtin.module {
  hop.entry forward @forward
  // expected-error @+1 {{freeze: the module has a backward entry; freezing is for inference}}
  hop.entry backward @backward
  func.func @forward(%x: !hop.tensor<[4], f32> {hop.requires_grad}) -> (!hop.tensor<[4], f32>, !hop.tensor<[4], f32> {hop.saved = 0 : i64}) {
    %y = aten.mul.Tensor(%x, %x) : (!hop.tensor<[4], f32>, !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
    func.return %y, %x : !hop.tensor<[4], f32>, !hop.tensor<[4], f32>
  }
  func.func @backward(%x: !hop.tensor<[4], f32> {hop.saved = 0 : i64}, %ct: !hop.tensor<[4], f32> {hop.cotangent_of = 0 : i64}) -> (!hop.tensor<[4], f32> {hop.gradient_of = 0 : i64}) {
    %g = aten.mul.Tensor(%ct, %x) : (!hop.tensor<[4], f32>, !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
    func.return %g : !hop.tensor<[4], f32>
  }
}

// -----

// A module that changes a parameter in place is not functional: which globals
// the program changes is known only after --functionalize.
hop.parameter @w = dense<[1.0, 2.0]> : tensor<2xf32> : !hop.tensor<[2], f32>
func.func @forward(%x: !hop.tensor<[2], f32>, %w: !hop.tensor<[2], f32> {hop.parameter = @w}) -> !hop.tensor<[2], f32> {
  // expected-error @+1 {{'aten.add_.Tensor' op changes its argument self in place; the module is not functional (run --functionalize)}}
  %0 = aten.add_.Tensor(%w, %x) : (!hop.tensor<[2], f32>, !hop.tensor<[2], f32>) -> !hop.tensor<[2], f32>
  func.return %0 : !hop.tensor<[2], f32>
}
