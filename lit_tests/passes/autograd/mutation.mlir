// RUN: hopc-opt --functionalize --lift-symbols --autograd --split-input-file %s | filecheck %s

// Mutation inside a HOP body together with autograd: functionalize first turns
// the branch's in-place update of the buffer into a result and a copy-back
// (hop.copy_back_to), then autograd differentiates the functional module. The
// copy-back result of the buffer stays a forward result and takes no
// cotangent; only the user output does.

// CHECK-LABEL: builtin.module
// CHECK:       func.func @forward(%x: !hop.tensor<[4], f32> {hop.requires_grad}, %count: !hop.tensor<[4], f32> {hop.buffer = @count})
// CHECK-SAME:    -> (!hop.tensor<[4], f32>, !hop.tensor<[4], f32> {hop.copy_back_to = 1 : i64}, {{.*}}{hop.saved = 0 : i64}
// CHECK:         hop.cond
// CHECK:       func.func @backward(%x: {{.*}} {hop.saved = 0 : i64}, %p: !hop.tensor<[], i1> {hop.saved = 1 : i64}, %tangent: !hop.tensor<[4], f32> {hop.cotangent_of = 0 : i64})
// CHECK-SAME:    -> (!hop.tensor<[4], f32> {hop.gradient_of = 0 : i64})
// CHECK:         hop.cond
builtin.module {
  hop.buffer @count : !hop.tensor<[4], f32>
  func.func @forward(%x: !hop.tensor<[4], f32> {hop.requires_grad}, %count: !hop.tensor<[4], f32> {hop.buffer = @count}) -> !hop.tensor<[4], f32> {
    %s = aten.sum(%x) : (!hop.tensor<[4], f32>) -> !hop.tensor<[], f32>
    %p = aten.gt.Scalar(%s) {other = 0 : i64} : (!hop.tensor<[], f32>) -> !hop.tensor<[], i1>
    %y = hop.cond %p(%x, %count) : !hop.tensor<[], i1>, (!hop.tensor<[4], f32>, !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32> then {
    ^bb0(%a: !hop.tensor<[4], f32>, %c: !hop.tensor<[4], f32>):
      %bumped = aten.add_.Scalar(%c) {other = 1 : i64} : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
      %r = aten.sin(%a) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
      hop.yield %r : !hop.tensor<[4], f32>
    } else {
    ^bb0(%a: !hop.tensor<[4], f32>, %c: !hop.tensor<[4], f32>):
      %r = aten.mul.Tensor(%a, %a) : (!hop.tensor<[4], f32>, !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
      hop.yield %r : !hop.tensor<[4], f32>
    }
    func.return %y : !hop.tensor<[4], f32>
  }
}

// -----

// An input that requires grad, changed in place (x.mul_(w); return x.sin()):
// its copy-back takes a cotangent too (as AOTAutograd: the caller copies the
// new value back under autograd, so a later use of x sends a gradient here).
// CHECK-LABEL: builtin.module
// CHECK:       func.func @forward(%x: !hop.tensor<[4], f32> {hop.requires_grad}, %w: !hop.tensor<[4], f32> {hop.requires_grad})
// CHECK-SAME:    -> (!hop.tensor<[4], f32>, !hop.tensor<[4], f32> {hop.copy_back_to = 0 : i64},
// CHECK:       func.func @backward(
// CHECK-SAME:    %tangent: !hop.tensor<[4], f32> {hop.cotangent_of = 0 : i64}, %tangent_1: !hop.tensor<[4], f32> {hop.cotangent_of = 1 : i64})
// CHECK-SAME:    -> (!hop.tensor<[4], f32> {hop.gradient_of = 0 : i64}, !hop.tensor<[4], f32> {hop.gradient_of = 1 : i64})
// CHECK:         aten.add.Tensor(%tangent_1,
builtin.module {
  func.func @forward(%x: !hop.tensor<[4], f32> {hop.requires_grad}, %w: !hop.tensor<[4], f32> {hop.requires_grad}) -> !hop.tensor<[4], f32> {
    %m = aten.mul_.Tensor(%x, %w) : (!hop.tensor<[4], f32>, !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
    %y = aten.sin(%x) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
    func.return %y : !hop.tensor<[4], f32>
  }
}
