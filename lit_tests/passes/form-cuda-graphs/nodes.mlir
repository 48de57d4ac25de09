// RUN: hopc-opt %s --form-cuda-graphs --split-input-file | filecheck %s

// A cond on a tensor predicate stays in the segment as an IF node: the device
// tests the predicate at replay.
builtin.module attributes {kernel.device = "cuda"} {
  kernel.kernel @positive "pointwise" {
  ^bb0(%a: !hop.tensor<[], f32>):
    %p = aten.gt.Scalar(%a) {other = 0 : i64} : (!hop.tensor<[], f32>) -> !hop.tensor<[], i1>
    kernel.yield %p : !hop.tensor<[], i1>
  }
  kernel.kernel @sin "pointwise" {
  ^bb0(%a: !hop.tensor<[8, 16], f32>):
    %s = aten.sin(%a) : (!hop.tensor<[8, 16], f32>) -> !hop.tensor<[8, 16], f32>
    kernel.yield %s : !hop.tensor<[8, 16], f32>
  }
  kernel.kernel @cos "pointwise" {
  ^bb0(%a: !hop.tensor<[8, 16], f32>):
    %s = aten.cos(%a) : (!hop.tensor<[8, 16], f32>) -> !hop.tensor<[8, 16], f32>
    kernel.yield %s : !hop.tensor<[8, 16], f32>
  }
  func.func @cond_as_if_node(%t: !hop.tensor<[], f32>, %x: !hop.tensor<[8, 16], f32>) -> !hop.tensor<[8, 16], f32> {
    %pbuf = kernel.alloc() : () -> !kernel.buffer<[], i1, [], cuda>
    %p = kernel.launch @positive(%t) into(%pbuf : !kernel.buffer<[], i1, [], cuda>) : (!hop.tensor<[], f32>) -> !hop.tensor<[], i1>
    %r = hop.cond %p(%x) : !hop.tensor<[], i1>, (!hop.tensor<[8, 16], f32>) -> !hop.tensor<[8, 16], f32> then {
    ^bb0(%a: !hop.tensor<[8, 16], f32>):
      %buf = kernel.alloc() : () -> !kernel.buffer<[8, 16], f32, [16, 1], cuda>
      %s = kernel.launch @sin(%a) into(%buf : !kernel.buffer<[8, 16], f32, [16, 1], cuda>) : (!hop.tensor<[8, 16], f32>) -> !hop.tensor<[8, 16], f32>
      hop.yield %s : !hop.tensor<[8, 16], f32>
    } else {
    ^bb0(%a: !hop.tensor<[8, 16], f32>):
      %buf = kernel.alloc() : () -> !kernel.buffer<[8, 16], f32, [16, 1], cuda>
      %c = kernel.launch @cos(%a) into(%buf : !kernel.buffer<[8, 16], f32, [16, 1], cuda>) : (!hop.tensor<[8, 16], f32>) -> !hop.tensor<[8, 16], f32>
      hop.yield %c : !hop.tensor<[8, 16], f32>
    }
    func.return %r : !hop.tensor<[8, 16], f32>
  }
}
// CHECK-LABEL: func.func @cond_as_if_node
// CHECK-NEXT:    %[[R:.*]] = kernel.graph(%{{.*}}, %{{.*}}) : (!hop.tensor<[], f32>, !hop.tensor<[8, 16], f32>) -> !hop.tensor<[8, 16], f32> {
// CHECK:           %[[P:.*]] = kernel.launch @positive
// CHECK-NEXT:      %[[C:.*]] = hop.cond %[[P]](%{{.*}}) {kernel.conditional_node = "if"}
// CHECK:             kernel.launch @sin
// CHECK:             kernel.launch @cos
// CHECK:           kernel.yield %[[C]]
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %[[R]]

// -----

// A while on a tensor predicate stays in the segment as a WHILE node, its
// cond region and body captured.
builtin.module attributes {kernel.device = "cuda"} {
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
  kernel.kernel @tanh "pointwise" {
  ^bb0(%v: !hop.tensor<[16], f32>):
    %h = aten.tanh(%v) : (!hop.tensor<[16], f32>) -> !hop.tensor<[16], f32>
    kernel.yield %h : !hop.tensor<[16], f32>
  }
  func.func @while_as_while_node(%n: !hop.tensor<[], i64>, %x: !hop.tensor<[16], f32>) -> !hop.tensor<[16], f32> {
    %r:2 = hop.while(%n, %x) : (!hop.tensor<[], i64>, !hop.tensor<[16], f32>) -> (!hop.tensor<[], i64>, !hop.tensor<[16], f32>) cond {
    ^bb0(%i: !hop.tensor<[], i64>, %v: !hop.tensor<[16], f32>):
      %pbuf = kernel.alloc() : () -> !kernel.buffer<[], i1, [], cuda>
      %go = kernel.launch @positive(%i) into(%pbuf : !kernel.buffer<[], i1, [], cuda>) : (!hop.tensor<[], i64>) -> !hop.tensor<[], i1>
      hop.yield %go : !hop.tensor<[], i1>
    } body {
    ^bb0(%i: !hop.tensor<[], i64>, %v: !hop.tensor<[16], f32>):
      %jbuf = kernel.alloc() : () -> !kernel.buffer<[], i64, [], cuda>
      %hbuf = kernel.alloc() : () -> !kernel.buffer<[16], f32, [1], cuda>
      %j = kernel.launch @decrement(%i) into(%jbuf : !kernel.buffer<[], i64, [], cuda>) : (!hop.tensor<[], i64>) -> !hop.tensor<[], i64>
      %h = kernel.launch @tanh(%v) into(%hbuf : !kernel.buffer<[16], f32, [1], cuda>) : (!hop.tensor<[16], f32>) -> !hop.tensor<[16], f32>
      hop.yield %j, %h : !hop.tensor<[], i64>, !hop.tensor<[16], f32>
    }
    func.return %r#1 : !hop.tensor<[16], f32>
  }
}
// CHECK-LABEL: func.func @while_as_while_node
// CHECK-NEXT:    %[[R:.*]] = kernel.graph(%{{.*}}, %{{.*}}) : (!hop.tensor<[], i64>, !hop.tensor<[16], f32>) -> !hop.tensor<[16], f32> {
// CHECK:           %{{.*}}, %[[W:.*]] = hop.while(%{{.*}}, %{{.*}}) {kernel.conditional_node = "while"}
// CHECK:             kernel.launch @positive
// CHECK:           } body {
// CHECK:             kernel.launch @decrement
// CHECK:             kernel.launch @tanh
// CHECK:           kernel.yield %[[W]] :
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %[[R]]

// -----

// Must not fire on the cond: PyTorch refuses random numbers in a conditional
// body, so the cond reads its predicate on the host between two segments, and
// its branches get segments of their own.
builtin.module attributes {kernel.device = "cuda"} {
  kernel.kernel @positive "pointwise" {
  ^bb0(%a: !hop.tensor<[], f32>):
    %p = aten.gt.Scalar(%a) {other = 0 : i64} : (!hop.tensor<[], f32>) -> !hop.tensor<[], i1>
    kernel.yield %p : !hop.tensor<[], i1>
  }
  kernel.kernel @noise "extern" {
  ^bb0(%a: !hop.tensor<[16], f32>):
    %r = aten.rand_like(%a) : (!hop.tensor<[16], f32>) -> !hop.tensor<[16], f32>
    kernel.yield %r : !hop.tensor<[16], f32>
  }
  kernel.kernel @sin "pointwise" {
  ^bb0(%a: !hop.tensor<[16], f32>):
    %s = aten.sin(%a) : (!hop.tensor<[16], f32>) -> !hop.tensor<[16], f32>
    kernel.yield %s : !hop.tensor<[16], f32>
  }
  func.func @random_branch(%t: !hop.tensor<[], f32>, %x: !hop.tensor<[16], f32>) -> !hop.tensor<[16], f32> {
    %pbuf = kernel.alloc() : () -> !kernel.buffer<[], i1, [], cuda>
    %p = kernel.launch @positive(%t) into(%pbuf : !kernel.buffer<[], i1, [], cuda>) : (!hop.tensor<[], f32>) -> !hop.tensor<[], i1>
    %r = hop.cond %p(%x) : !hop.tensor<[], i1>, (!hop.tensor<[16], f32>) -> !hop.tensor<[16], f32> then {
    ^bb0(%a: !hop.tensor<[16], f32>):
      %buf = kernel.alloc() : () -> !kernel.buffer<[16], f32, [1], cuda>
      %n = kernel.launch @noise(%a) into(%buf : !kernel.buffer<[16], f32, [1], cuda>) : (!hop.tensor<[16], f32>) -> !hop.tensor<[16], f32>
      hop.yield %n : !hop.tensor<[16], f32>
    } else {
    ^bb0(%a: !hop.tensor<[16], f32>):
      %buf = kernel.alloc() : () -> !kernel.buffer<[16], f32, [1], cuda>
      %s = kernel.launch @sin(%a) into(%buf : !kernel.buffer<[16], f32, [1], cuda>) : (!hop.tensor<[16], f32>) -> !hop.tensor<[16], f32>
      hop.yield %s : !hop.tensor<[16], f32>
    }
    func.return %r : !hop.tensor<[16], f32>
  }
}
// CHECK-LABEL: func.func @random_branch
// CHECK-NEXT:    %[[P:.*]] = kernel.graph
// CHECK:           kernel.launch @positive
// CHECK:         %[[R:.*]] = hop.cond %[[P]](%{{.*}}) : !hop.tensor<[], i1>,
// CHECK-NEXT:    ^{{.*}}(%[[A:.*]]: !hop.tensor<[16], f32>):
// CHECK-NEXT:      %{{.*}} = kernel.graph(%[[A]])
// CHECK:             kernel.launch @noise
// CHECK:         } else {
// CHECK-NEXT:    ^{{.*}}(%[[B:.*]]: !hop.tensor<[16], f32>):
// CHECK-NEXT:      %{{.*}} = kernel.graph(%[[B]])
// CHECK:             kernel.launch @sin
// CHECK:         func.return %[[R]]
