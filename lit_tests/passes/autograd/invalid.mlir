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

// -----

// A cond asked to recompute a branch that draws random numbers.
builtin.module {
  func.func @forward(%x: !hop.tensor<[4], f32> {hop.requires_grad}, %p: !hop.tensor<[], i1>) -> !hop.tensor<[4], f32> {
    // expected-error @+1 {{autograd: this cond asks to recompute its branches, but a branch draws random numbers}}
    %r = hop.cond %p(%x) {hop.cond_backward = "recompute"} : !hop.tensor<[], i1>, (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32> then {
    ^bb0(%a: !hop.tensor<[4], f32>):
      %mask = aten.rand_like(%a) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
      %m = aten.mul.Tensor(%a, %mask) : (!hop.tensor<[4], f32>, !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
      hop.yield %m : !hop.tensor<[4], f32>
    } else {
    ^bb0(%a: !hop.tensor<[4], f32>):
      hop.yield %a : !hop.tensor<[4], f32>
    }
    func.return %r : !hop.tensor<[4], f32>
  }
}

// -----

// An unknown backward mode.
builtin.module {
  func.func @forward(%x: !hop.tensor<[4], f32> {hop.requires_grad}, %p: !hop.tensor<[], i1>) -> !hop.tensor<[4], f32> {
    // expected-error @+1 {{autograd: 'hop.cond_backward' must be "save" or "recompute", got "fast"}}
    %r = hop.cond %p(%x) {hop.cond_backward = "fast"} : !hop.tensor<[], i1>, (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32> then {
    ^bb0(%a: !hop.tensor<[4], f32>):
      %s = aten.sin(%a) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
      hop.yield %s : !hop.tensor<[4], f32>
    } else {
    ^bb0(%a: !hop.tensor<[4], f32>):
      hop.yield %a : !hop.tensor<[4], f32>
    }
    func.return %r : !hop.tensor<[4], f32>
  }
}
