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

// -----

// aten._unsafe_view shares its operand's storage though its schema declares no
// alias (Note [result storage]): it gets no buffer of its own, and %mm's buffer
// stays live while %v is read, so the second mm cannot reuse it (a Llama
// projection pair once came back in one buffer this way).
// CHECK-LABEL: func.func @projections
// CHECK:         %[[B0:.*]] = kernel.alloc() : () -> !kernel.buffer<[6, 8], f32, [8, 1], cpu>
// CHECK-NEXT:    %mm = kernel.launch @mm(%x, %w) into(%[[B0]]
// CHECK-NEXT:    %v = kernel.launch @unsafe_view(%mm) :
// CHECK-NEXT:    %[[B1:.*]] = kernel.alloc() : () -> !kernel.buffer<[6, 8], f32, [8, 1], cpu>
// CHECK-NEXT:    %mm_1 = kernel.launch @mm(%x, %w) into(%[[B1]]
builtin.module attributes {kernel.device = "cpu"} {
  kernel.kernel @mm "extern" {
  ^bb0(%0: !hop.tensor<[6, 8], f32>, %1: !hop.tensor<[8, 8], f32>):
    %2 = aten.mm(%0, %1) : (!hop.tensor<[6, 8], f32>, !hop.tensor<[8, 8], f32>) -> !hop.tensor<[6, 8], f32>
    kernel.yield %2 : !hop.tensor<[6, 8], f32>
  }
  kernel.kernel @unsafe_view "extern" {
  ^bb0(%0: !hop.tensor<[6, 8], f32>):
    %1 = aten._unsafe_view(%0) {size = [2, 3, 8]} : (!hop.tensor<[6, 8], f32>) -> !hop.tensor<[2, 3, 8], f32>
    kernel.yield %1 : !hop.tensor<[2, 3, 8], f32>
  }
  func.func @projections(%x: !hop.tensor<[6, 8], f32>, %w: !hop.tensor<[8, 8], f32>) -> (!hop.tensor<[2, 3, 8], f32>, !hop.tensor<[6, 8], f32>) {
    %mm = kernel.launch @mm(%x, %w) : (!hop.tensor<[6, 8], f32>, !hop.tensor<[8, 8], f32>) -> !hop.tensor<[6, 8], f32>
    %v = kernel.launch @unsafe_view(%mm) : (!hop.tensor<[6, 8], f32>) -> !hop.tensor<[2, 3, 8], f32>
    %mm_1 = kernel.launch @mm(%x, %w) : (!hop.tensor<[6, 8], f32>, !hop.tensor<[8, 8], f32>) -> !hop.tensor<[6, 8], f32>
    func.return %v, %mm_1 : !hop.tensor<[2, 3, 8], f32>, !hop.tensor<[6, 8], f32>
  }
}

// -----

// aten.dropout is a decomposition that returns its input itself when p = 0
// (Note [result storage]): no buffer for it, and %a's buffer is neither
// reused nor written in place while %d may be read.
// CHECK-LABEL: func.func @dropout_of_zero
// CHECK:         %[[B0:.*]] = kernel.alloc()
// CHECK-NEXT:    %a = kernel.launch @neg(%x) into(%[[B0]]
// CHECK-NEXT:    %d = kernel.launch @dropout(%a) :
// CHECK-NEXT:    %[[B1:.*]] = kernel.alloc()
// CHECK-NEXT:    %b = kernel.launch @neg(%d) into(%[[B1]]
builtin.module attributes {kernel.device = "cpu"} {
  kernel.kernel @neg "pointwise" {
  ^bb0(%0: !hop.tensor<[4, 4], f32>):
    %1 = aten.neg(%0) : (!hop.tensor<[4, 4], f32>) -> !hop.tensor<[4, 4], f32>
    kernel.yield %1 : !hop.tensor<[4, 4], f32>
  }
  kernel.kernel @dropout "extern" {
  ^bb0(%0: !hop.tensor<[4, 4], f32>):
    %1 = aten.dropout(%0) {p = 0.000000e+00 : f64, train = true} : (!hop.tensor<[4, 4], f32>) -> !hop.tensor<[4, 4], f32>
    kernel.yield %1 : !hop.tensor<[4, 4], f32>
  }
  func.func @dropout_of_zero(%x: !hop.tensor<[4, 4], f32>) -> (!hop.tensor<[4, 4], f32>, !hop.tensor<[4, 4], f32>) {
    %a = kernel.launch @neg(%x) : (!hop.tensor<[4, 4], f32>) -> !hop.tensor<[4, 4], f32>
    %d = kernel.launch @dropout(%a) : (!hop.tensor<[4, 4], f32>) -> !hop.tensor<[4, 4], f32>
    %b = kernel.launch @neg(%d) : (!hop.tensor<[4, 4], f32>) -> !hop.tensor<[4, 4], f32>
    func.return %b, %d : !hop.tensor<[4, 4], f32>, !hop.tensor<[4, 4], f32>
  }
}

// -----

// Must not hold back: aten.mm's result owns its storage (PyTorch checks that
// of every op with an autograd kernel), so a dead mm's buffer is reused.
// CHECK-LABEL: func.func @mm_reuse
// CHECK:         %[[B0:.*]] = kernel.alloc()
// CHECK-NEXT:    %a = kernel.launch @mm(%x, %w) into(%[[B0]]
// CHECK-NEXT:    %b = kernel.launch @neg(%a) into(%[[B0]]
builtin.module attributes {kernel.device = "cpu"} {
  kernel.kernel @mm "extern" {
  ^bb0(%0: !hop.tensor<[4, 4], f32>, %1: !hop.tensor<[4, 4], f32>):
    %2 = aten.mm(%0, %1) : (!hop.tensor<[4, 4], f32>, !hop.tensor<[4, 4], f32>) -> !hop.tensor<[4, 4], f32>
    kernel.yield %2 : !hop.tensor<[4, 4], f32>
  }
  kernel.kernel @neg "pointwise" {
  ^bb0(%0: !hop.tensor<[4, 4], f32>):
    %1 = aten.neg(%0) : (!hop.tensor<[4, 4], f32>) -> !hop.tensor<[4, 4], f32>
    kernel.yield %1 : !hop.tensor<[4, 4], f32>
  }
  func.func @mm_reuse(%x: !hop.tensor<[4, 4], f32>, %w: !hop.tensor<[4, 4], f32>) -> !hop.tensor<[4, 4], f32> {
    %a = kernel.launch @mm(%x, %w) : (!hop.tensor<[4, 4], f32>, !hop.tensor<[4, 4], f32>) -> !hop.tensor<[4, 4], f32>
    %b = kernel.launch @neg(%a) : (!hop.tensor<[4, 4], f32>) -> !hop.tensor<[4, 4], f32>
    func.return %b : !hop.tensor<[4, 4], f32>
  }
}
