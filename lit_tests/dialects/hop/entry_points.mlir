// RUN: hopc-opt %s --split-input-file | filecheck %s
// RUN: hopc-opt %s --split-input-file --print-op-generic | filecheck %s --check-prefix=GENERIC
// RUN: hopc-opt %s --print-op-generic --split-input-file | hopc-opt --split-input-file | filecheck %s

// Named entry points and the roles of their arguments and results (Note
// [entry signature] in dialects/hop_module.py), in custom and generic form;
// the last RUN parses the generic form back and expects the custom form.

// A forward and its backward: y = x * x saves x; the backward returns 2 * x * ct.
// CHECK-LABEL: hop.entry forward @forward
// CHECK-NEXT:  hop.entry backward @backward
// CHECK:       func.func @forward(%x: !hop.tensor<[4], f32> {hop.requires_grad}) -> (!hop.tensor<[4], f32>, !hop.tensor<[4], f32> {hop.saved = 0 : i64})
// CHECK:       func.func @backward(%saved_x: !hop.tensor<[4], f32> {hop.saved = 0 : i64}, %ct: !hop.tensor<[4], f32> {hop.cotangent_of = 0 : i64}) -> (!hop.tensor<[4], f32> {hop.gradient_of = 0 : i64})
// GENERIC-LABEL: "hop.entry"() <{kind = "forward", function = @forward}> : () -> ()
// GENERIC-NEXT:  "hop.entry"() <{kind = "backward", function = @backward}> : () -> ()
hop.entry forward @forward
hop.entry backward @backward
func.func @forward(%x: !hop.tensor<[4], f32> {hop.requires_grad}) -> (!hop.tensor<[4], f32>, !hop.tensor<[4], f32> {hop.saved = 0 : i64}) {
  %y = aten.mul.Tensor(%x, %x) : (!hop.tensor<[4], f32>, !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
  func.return %y, %x : !hop.tensor<[4], f32>, !hop.tensor<[4], f32>
}
func.func @backward(%saved_x: !hop.tensor<[4], f32> {hop.saved = 0 : i64}, %ct: !hop.tensor<[4], f32> {hop.cotangent_of = 0 : i64}) -> (!hop.tensor<[4], f32> {hop.gradient_of = 0 : i64}) {
  %twice = aten.mul.Scalar(%saved_x) {other = 2 : i64} : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
  %grad = aten.mul.Tensor(%twice, %ct) : (!hop.tensor<[4], f32>, !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
  func.return %grad : !hop.tensor<[4], f32>
}

// -----

// Roles combine with globals, copy-back and symbolic shapes: a parameter that
// requires grad, a buffer changed in place, two saved values, a private backward
// that takes the parameter directly and returns the gradient of the parameter only.
// CHECK-LABEL: hop.entry forward @train_step
// CHECK-NEXT:  hop.entry backward @train_step_backward
// CHECK:       func.func @train_step(%x: !hop.tensor<[s0, 4], f32>, %w: !hop.tensor<[4], f32> {hop.parameter = @weight, hop.requires_grad}, %n: !hop.tensor<[], i64> {hop.buffer = @count}) -> (!hop.tensor<[s0, 4], f32>, !hop.tensor<[], i64> {hop.copy_back_to = 2 : i64}, !hop.tensor<[s0, 4], f32> {hop.saved = 1 : i64}, !hop.tensor<[s0, 4], f32> {hop.saved = 0 : i64})
// CHECK:       func.func private @train_step_backward(%w: !hop.tensor<[4], f32> {hop.parameter = @weight}, %a: !hop.tensor<[s0, 4], f32> {hop.saved = 0 : i64}, %b: !hop.tensor<[s0, 4], f32> {hop.saved = 1 : i64}, %ct: !hop.tensor<[s0, 4], f32> {hop.cotangent_of = 0 : i64}) -> (!hop.tensor<[4], f32> {hop.gradient_of = 1 : i64})
hop.symbol @s0 backed [2, oo]
hop.parameter @weight : !hop.tensor<[4], f32>
hop.buffer @count : !hop.tensor<[], i64>
hop.entry forward @train_step
hop.entry backward @train_step_backward
func.func @train_step(%x: !hop.tensor<[s0, 4], f32>, %w: !hop.tensor<[4], f32> {hop.parameter = @weight, hop.requires_grad}, %n: !hop.tensor<[], i64> {hop.buffer = @count}) -> (!hop.tensor<[s0, 4], f32>, !hop.tensor<[], i64> {hop.copy_back_to = 2 : i64}, !hop.tensor<[s0, 4], f32> {hop.saved = 1 : i64}, !hop.tensor<[s0, 4], f32> {hop.saved = 0 : i64}) {
  %y = aten.mul.Tensor(%x, %w) : (!hop.tensor<[s0, 4], f32>, !hop.tensor<[4], f32>) -> !hop.tensor<[s0, 4], f32>
  %m = aten.add.Scalar(%n) {other = 1 : i64} : (!hop.tensor<[], i64>) -> !hop.tensor<[], i64>
  func.return %y, %m, %x, %y : !hop.tensor<[s0, 4], f32>, !hop.tensor<[], i64>, !hop.tensor<[s0, 4], f32>, !hop.tensor<[s0, 4], f32>
}
func.func private @train_step_backward(%w: !hop.tensor<[4], f32> {hop.parameter = @weight}, %a: !hop.tensor<[s0, 4], f32> {hop.saved = 0 : i64}, %b: !hop.tensor<[s0, 4], f32> {hop.saved = 1 : i64}, %ct: !hop.tensor<[s0, 4], f32> {hop.cotangent_of = 0 : i64}) -> (!hop.tensor<[4], f32> {hop.gradient_of = 1 : i64}) {
  %product = aten.mul.Tensor(%b, %ct) : (!hop.tensor<[s0, 4], f32>, !hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32>
  %grad = aten.sum.dim_IntList(%product) {dim = [0 : i64]} : (!hop.tensor<[s0, 4], f32>) -> !hop.tensor<[4], f32>
  func.return %grad : !hop.tensor<[4], f32>
}

// -----

// A joint entry alone: it differentiates itself, so its cotangents name its own
// user outputs and its gradients its own arguments.
// CHECK-LABEL: hop.entry joint @joint
// CHECK:       func.func @joint(%x: !hop.tensor<[3], f32> {hop.requires_grad}, %ct: !hop.tensor<[3], f32> {hop.cotangent_of = 0 : i64}) -> (!hop.tensor<[3], f32>, !hop.tensor<[3], f32> {hop.gradient_of = 0 : i64})
// GENERIC-LABEL: "hop.entry"() <{kind = "joint", function = @joint}> : () -> ()
hop.entry joint @joint
func.func @joint(%x: !hop.tensor<[3], f32> {hop.requires_grad}, %ct: !hop.tensor<[3], f32> {hop.cotangent_of = 0 : i64}) -> (!hop.tensor<[3], f32>, !hop.tensor<[3], f32> {hop.gradient_of = 0 : i64}) {
  %y = aten.neg(%x) : (!hop.tensor<[3], f32>) -> !hop.tensor<[3], f32>
  %grad = aten.neg(%ct) : (!hop.tensor<[3], f32>) -> !hop.tensor<[3], f32>
  func.return %y, %grad : !hop.tensor<[3], f32>, !hop.tensor<[3], f32>
}

// -----

// With hop.entry ops, other public functions are not entries: @helper is
// public and unnamed, @forward is named by its entry.
// CHECK-LABEL: hop.entry forward @forward
// CHECK:       func.func @helper
// CHECK:       func.func @forward
hop.entry forward @forward
func.func @helper(%x: !hop.tensor<[2], f32>) -> !hop.tensor<[2], f32> {
  func.return %x : !hop.tensor<[2], f32>
}
func.func @forward(%x: !hop.tensor<[2], f32> {hop.requires_grad}) -> !hop.tensor<[2], f32> {
  func.return %x : !hop.tensor<[2], f32>
}
