// RUN: hopc-opt %s --plan-memory --split-input-file | filecheck %s

// A view shares its operand's storage: the buffer of %a stays live while
// the view %t is read, so %c cannot reuse it; and %d, the last reader of %a,
// does not write in place, since it also reads %a through %t at other
// indices (add(a, t(a))).
// CHECK-LABEL: func.func @f
// CHECK:         %[[B0:.*]] = kernel.alloc() : () -> !kernel.buffer<[4, 4], f32, [4, 1], cpu>
// CHECK-NEXT:    %a = kernel.launch @neg(%x) into(%[[B0]]
// CHECK-NEXT:    %t = kernel.launch @t(%a)
// CHECK-NEXT:    %[[B1:.*]] = kernel.alloc() : () -> !kernel.buffer<[4, 4], f32, [4, 1], cpu>
// CHECK-NEXT:    %d = kernel.launch @add(%a, %t) into(%[[B1]]
builtin.module attributes {kernel.device = "cpu"} {
  kernel.kernel @neg "pointwise" {
  ^bb0(%0: !hop.tensor<[4, 4], f32>):
    %1 = aten.neg(%0) : (!hop.tensor<[4, 4], f32>) -> !hop.tensor<[4, 4], f32>
    kernel.yield %1 : !hop.tensor<[4, 4], f32>
  }
  kernel.kernel @t "extern" {
  ^bb0(%0: !hop.tensor<[4, 4], f32>):
    %1 = aten.t(%0) : (!hop.tensor<[4, 4], f32>) -> !hop.tensor<[4, 4], f32>
    kernel.yield %1 : !hop.tensor<[4, 4], f32>
  }
  kernel.kernel @add "pointwise" {
  ^bb0(%0: !hop.tensor<[4, 4], f32>, %1: !hop.tensor<[4, 4], f32>):
    %2 = aten.add.Tensor(%0, %1) : (!hop.tensor<[4, 4], f32>, !hop.tensor<[4, 4], f32>) -> !hop.tensor<[4, 4], f32>
    kernel.yield %2 : !hop.tensor<[4, 4], f32>
  }
  func.func @f(%x: !hop.tensor<[4, 4], f32>) -> !hop.tensor<[4, 4], f32> {
    %a = kernel.launch @neg(%x) : (!hop.tensor<[4, 4], f32>) -> !hop.tensor<[4, 4], f32>
    %t = kernel.launch @t(%a) : (!hop.tensor<[4, 4], f32>) -> !hop.tensor<[4, 4], f32>
    %d = kernel.launch @add(%a, %t) : (!hop.tensor<[4, 4], f32>, !hop.tensor<[4, 4], f32>) -> !hop.tensor<[4, 4], f32>
    func.return %d : !hop.tensor<[4, 4], f32>
  }
}

// -----

// The view keeps its operand's buffer live: %b (same type) cannot reuse the
// buffer of %a while %t may still be read; %c then writes in place into %b's.
// CHECK-LABEL: func.func @g
// CHECK:         %[[B0:.*]] = kernel.alloc()
// CHECK-NEXT:    %a = kernel.launch @neg(%x) into(%[[B0]]
// CHECK-NEXT:    %t = kernel.launch @t(%a)
// CHECK-NEXT:    %[[B1:.*]] = kernel.alloc()
// CHECK-NEXT:    %b = kernel.launch @add(%x, %x) into(%[[B1]]
// CHECK-NEXT:    %c = kernel.launch @add(%t, %b) into(%[[B1]]
builtin.module attributes {kernel.device = "cpu"} {
  kernel.kernel @neg "pointwise" {
  ^bb0(%0: !hop.tensor<[4, 4], f32>):
    %1 = aten.neg(%0) : (!hop.tensor<[4, 4], f32>) -> !hop.tensor<[4, 4], f32>
    kernel.yield %1 : !hop.tensor<[4, 4], f32>
  }
  kernel.kernel @t "extern" {
  ^bb0(%0: !hop.tensor<[4, 4], f32>):
    %1 = aten.t(%0) : (!hop.tensor<[4, 4], f32>) -> !hop.tensor<[4, 4], f32>
    kernel.yield %1 : !hop.tensor<[4, 4], f32>
  }
  kernel.kernel @add "pointwise" {
  ^bb0(%0: !hop.tensor<[4, 4], f32>, %1: !hop.tensor<[4, 4], f32>):
    %2 = aten.add.Tensor(%0, %1) : (!hop.tensor<[4, 4], f32>, !hop.tensor<[4, 4], f32>) -> !hop.tensor<[4, 4], f32>
    kernel.yield %2 : !hop.tensor<[4, 4], f32>
  }
  func.func @g(%x: !hop.tensor<[4, 4], f32>) -> !hop.tensor<[4, 4], f32> {
    %a = kernel.launch @neg(%x) : (!hop.tensor<[4, 4], f32>) -> !hop.tensor<[4, 4], f32>
    %t = kernel.launch @t(%a) : (!hop.tensor<[4, 4], f32>) -> !hop.tensor<[4, 4], f32>
    %b = kernel.launch @add(%x, %x) : (!hop.tensor<[4, 4], f32>, !hop.tensor<[4, 4], f32>) -> !hop.tensor<[4, 4], f32>
    %c = kernel.launch @add(%t, %b) : (!hop.tensor<[4, 4], f32>, !hop.tensor<[4, 4], f32>) -> !hop.tensor<[4, 4], f32>
    func.return %c : !hop.tensor<[4, 4], f32>
  }
}
