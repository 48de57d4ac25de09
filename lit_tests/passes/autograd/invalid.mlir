// RUN: hopc-opt %s --autograd --split-input-file --verify-diagnostics

// An op PyTorch has no derivative for is an error at that op, naming it.
builtin.module {
  func.func @forward(%x: !hop.tensor<[4], f32> {hop.requires_grad}) -> !hop.tensor<[4], f32> {
    // expected-error @+1 {{aten.floor_divide.Scalar has no derivative in PyTorch}}
    %y = aten.floor_divide.Scalar(%x) {other = 2 : i64} : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
    func.return %y : !hop.tensor<[4], f32>
  }
}

// -----

// A module that has a backward already is not differentiated again.
builtin.module {
  hop.entry forward @forward
  hop.entry backward @backward
  func.func @forward(%x: !hop.tensor<[4], f32> {hop.requires_grad}) -> (!hop.tensor<[4], f32>, !hop.tensor<[4], f32> {hop.saved = 0 : i64}) {
    %y = aten.mul.Tensor(%x, %x) : (!hop.tensor<[4], f32>, !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
    func.return %y, %x : !hop.tensor<[4], f32>, !hop.tensor<[4], f32>
  }
  // expected-error @+1 {{autograd: the module is differentiated already}}
  func.func @backward(%x: !hop.tensor<[4], f32> {hop.saved = 0 : i64}, %ct: !hop.tensor<[4], f32> {hop.cotangent_of = 0 : i64}) -> (!hop.tensor<[4], f32> {hop.gradient_of = 0 : i64}) {
    %g = aten.mul.Tensor(%ct, %x) : (!hop.tensor<[4], f32>, !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
    func.return %g : !hop.tensor<[4], f32>
  }
}
