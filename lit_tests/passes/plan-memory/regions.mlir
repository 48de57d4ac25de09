// RUN: hopc-opt %s --plan-memory --split-input-file | filecheck %s

// Must not fire: the while's body yields its argument %v itself, so %r#1 is
// %a, and %a's buffer stays live as long as %r#1 is read: @cos gets a new
// buffer. Each body run allocates its own buffers.
builtin.module attributes {kernel.device = "cpu"} {
  kernel.kernel @sin "pointwise" {
  ^bb0(%a: !hop.tensor<[4], f32>):
    %s = aten.sin(%a) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
    kernel.yield %s : !hop.tensor<[4], f32>
  }
  kernel.kernel @cos "pointwise" {
  ^bb0(%a: !hop.tensor<[4], f32>):
    %s = aten.cos(%a) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
    kernel.yield %s : !hop.tensor<[4], f32>
  }
  kernel.kernel @add "pointwise" {
  ^bb0(%a: !hop.tensor<[4], f32>, %b: !hop.tensor<[4], f32>):
    %s = aten.add.Tensor(%a, %b) : (!hop.tensor<[4], f32>, !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
    kernel.yield %s : !hop.tensor<[4], f32>
  }
  kernel.kernel @positive "pointwise" {
  ^bb0(%i: !hop.tensor<[], i64>):
    %p = aten.gt.Scalar(%i) {other = 0 : i64} : (!hop.tensor<[], i64>) -> !hop.tensor<[], i1>
    kernel.yield %p : !hop.tensor<[], i1>
  }
  kernel.kernel @decrement "pointwise" {
  ^bb0(%i: !hop.tensor<[], i64>):
    %j = aten.sub.Scalar(%i) {other = 1 : i64} : (!hop.tensor<[], i64>) -> !hop.tensor<[], i64>
    kernel.yield %j : !hop.tensor<[], i64>
  }
  func.func @while_aliases_operand(%n: !hop.tensor<[], i64>, %x: !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32> {
    %a = kernel.launch @sin(%x) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
    %r:2 = hop.while(%n, %a) additional() : (!hop.tensor<[], i64>, !hop.tensor<[4], f32>) -> (!hop.tensor<[], i64>, !hop.tensor<[4], f32>), cond {
    ^bb0(%i: !hop.tensor<[], i64>, %v: !hop.tensor<[4], f32>):
      %go = kernel.launch @positive(%i) : (!hop.tensor<[], i64>) -> !hop.tensor<[], i1>
      hop.yield %go : !hop.tensor<[], i1>
    } body {
    ^bb0(%i: !hop.tensor<[], i64>, %v: !hop.tensor<[4], f32>):
      %j = kernel.launch @decrement(%i) : (!hop.tensor<[], i64>) -> !hop.tensor<[], i64>
      hop.yield %j, %v : !hop.tensor<[], i64>, !hop.tensor<[4], f32>
    }
    %b = kernel.launch @cos(%x) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
    %c = kernel.launch @add(%r#1, %b) : (!hop.tensor<[4], f32>, !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
    func.return %c : !hop.tensor<[4], f32>
  }
}
// CHECK-LABEL: func.func @while_aliases_operand
// CHECK:         %[[BUF_A:.*]] = kernel.alloc() : () -> !kernel.buffer<[4], f32, [1], cpu>
// CHECK-NEXT:    %[[A:.*]] = kernel.launch @sin(%{{.*}}) into(%[[BUF_A]] :
// CHECK-NEXT:    %{{.*}}, %[[R1:.*]] = hop.while(%{{.*}}, %[[A]])
// CHECK:           %[[BUF_GO:.*]] = kernel.alloc() : () -> !kernel.buffer<[], i1, [], cpu>
// CHECK-NEXT:      kernel.launch @positive(%{{.*}}) into(%[[BUF_GO]] :
// CHECK:         } body {
// CHECK-NEXT:    ^{{.*}}(%[[I:.*]]: !hop.tensor<[], i64>, %[[V:.*]]: !hop.tensor<[4], f32>):
// CHECK-NEXT:      %[[BUF_J:.*]] = kernel.alloc() : () -> !kernel.buffer<[], i64, [], cpu>
// CHECK-NEXT:      %[[J:.*]] = kernel.launch @decrement(%[[I]]) into(%[[BUF_J]] :
// CHECK-NEXT:      hop.yield %[[J]], %[[V]]
// CHECK:         %[[BUF_B:.*]] = kernel.alloc() : () -> !kernel.buffer<[4], f32, [1], cpu>
// CHECK-NEXT:    %[[B:.*]] = kernel.launch @cos(%{{.*}}) into(%[[BUF_B]] :
// CHECK-NEXT:    kernel.launch @add(%[[R1]], %[[B]]) into(%[[BUF_B]] :

// -----

// A cond's branches are planned on their own: each allocates for its launches;
// %a, read by the cond only, is dead after the cond's results are, so @cos
// after their last read reuses its buffer.
builtin.module attributes {kernel.device = "cpu"} {
  kernel.kernel @sin "pointwise" {
  ^bb0(%a: !hop.tensor<[4], f32>):
    %s = aten.sin(%a) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
    kernel.yield %s : !hop.tensor<[4], f32>
  }
  kernel.kernel @cos "pointwise" {
  ^bb0(%a: !hop.tensor<[4], f32>):
    %s = aten.cos(%a) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
    kernel.yield %s : !hop.tensor<[4], f32>
  }
  kernel.kernel @sum "reduction" {
  ^bb0(%a: !hop.tensor<[4], f32>):
    %s = aten.sum(%a) : (!hop.tensor<[4], f32>) -> !hop.tensor<[], f32>
    kernel.yield %s : !hop.tensor<[], f32>
  }
  func.func @cond_branches(%p: !hop.tensor<[], i1>, %x: !hop.tensor<[4], f32>) -> (!hop.tensor<[], f32>, !hop.tensor<[4], f32>) {
    %a = kernel.launch @sin(%x) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
    %r = hop.cond %p(%a) : !hop.tensor<[], i1>, (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32> then {
    ^bb0(%v: !hop.tensor<[4], f32>):
      %s = kernel.launch @sin(%v) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
      hop.yield %s : !hop.tensor<[4], f32>
    } else {
    ^bb0(%v: !hop.tensor<[4], f32>):
      hop.yield %v : !hop.tensor<[4], f32>
    }
    %t = kernel.launch @sum(%r) : (!hop.tensor<[4], f32>) -> !hop.tensor<[], f32>
    %c = kernel.launch @cos(%x) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
    func.return %t, %c : !hop.tensor<[], f32>, !hop.tensor<[4], f32>
  }
}
// CHECK-LABEL: func.func @cond_branches
// CHECK-SAME:    attributes {kernel.peak_bytes = 32 : i64}
// CHECK:         %[[BUF_A:.*]] = kernel.alloc() : () -> !kernel.buffer<[4], f32, [1], cpu>
// CHECK-NEXT:    %[[A:.*]] = kernel.launch @sin(%{{.*}}) into(%[[BUF_A]] :
// CHECK-NEXT:    %[[R:.*]] = hop.cond
// CHECK-NEXT:    ^{{.*}}(%[[V:.*]]: !hop.tensor<[4], f32>):
// CHECK-NEXT:      %[[BUF_S:.*]] = kernel.alloc() : () -> !kernel.buffer<[4], f32, [1], cpu>
// CHECK-NEXT:      kernel.launch @sin(%[[V]]) into(%[[BUF_S]] :
// CHECK:         } else {
// CHECK-NOT:       kernel.alloc
// CHECK:         }
// CHECK-NEXT:    %[[BUF_T:.*]] = kernel.alloc() : () -> !kernel.buffer<[], f32, [], cpu>
// CHECK-NEXT:    kernel.launch @sum(%[[R]]) into(%[[BUF_T]] :
// CHECK-NEXT:    kernel.launch @cos(%{{.*}}) into(%[[BUF_A]] :
