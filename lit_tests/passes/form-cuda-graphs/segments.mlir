// RUN: hopc-opt %s --form-cuda-graphs --split-input-file | filecheck %s

// Every op may be captured: the function becomes one segment, its parameter
// read in place, its user input copied in.
builtin.module attributes {kernel.device = "cuda"} {
  hop.symbol @s0 backed [2, oo]
  hop.parameter @weight : !hop.tensor<[4], f32>
  kernel.kernel @mul "pointwise" {
  ^bb0(%a: !hop.tensor<[s0, 4], f32>, %b: !hop.tensor<[4], f32>):
    %m = aten.mul.Tensor(%a, %b) : (!hop.tensor<[s0, 4], f32>, !hop.tensor<[4], f32>) -> !hop.tensor<[s0, 4], f32>
    kernel.yield %m : !hop.tensor<[s0, 4], f32>
  }
  kernel.kernel @sin "pointwise" {
  ^bb0(%a: !hop.tensor<[s0, 4], f32>):
    %s = aten.sin(%a) : (!hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32>
    kernel.yield %s : !hop.tensor<[s0, 4], f32>
  }
  func.func @one_segment(%x: !hop.tensor<[s0, 4], f32>, %w: !hop.tensor<[4], f32> {hop.parameter = @weight}) -> !hop.tensor<[s0, 4], f32> {
    %n = hop.sym_size %x[0] : !hop.tensor<[s0, 4], f32> -> !hop.symint<s0>
    %buf = kernel.alloc(%n) : (!hop.symint<s0>) -> !kernel.buffer<[s0, 4], f32, [4, 1], cuda>
    %m = kernel.launch @mul(%x, %w) into(%buf : !kernel.buffer<[s0, 4], f32, [4, 1], cuda>) : (!hop.tensor<[s0, 4], f32>, !hop.tensor<[4], f32>) -> !hop.tensor<[s0, 4], f32>
    %s = kernel.launch @sin(%m) into(%buf : !kernel.buffer<[s0, 4], f32, [4, 1], cuda>) : (!hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32>
    func.return %s : !hop.tensor<[s0, 4], f32>
  }
}
// CHECK-LABEL: func.func @one_segment
// CHECK-SAME:    (%[[X:.*]]: !hop.tensor<[s0, 4], f32>, %[[W:.*]]: !hop.tensor<[4], f32> {hop.parameter = @weight})
// CHECK-NEXT:    %[[R:.*]] = kernel.graph(%[[X]], %[[W]]) {in_place = array<i64: 1>}
// CHECK-NEXT:    ^{{.*}}(%[[A:.*]]: !hop.tensor<[s0, 4], f32>, %[[B:.*]]: !hop.tensor<[4], f32>):
// CHECK-NEXT:      %[[N:.*]] = hop.sym_size %[[A]][0]
// CHECK-NEXT:      %[[BUF:.*]] = kernel.alloc(%[[N]])
// CHECK-NEXT:      %[[M:.*]] = kernel.launch @mul(%[[A]], %[[B]]) into(%[[BUF]] :
// CHECK-NEXT:      %[[S:.*]] = kernel.launch @sin(%[[M]]) into(%[[BUF]] :
// CHECK-NEXT:      kernel.yield %[[S]] : !hop.tensor<[s0, 4], f32>
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %[[R]] : !hop.tensor<[s0, 4], f32>

// -----

// Split at a host read: hop.item ends the first segment; the second takes the
// unbacked symbol u0 as an operand (its key), and so does its allocation.
builtin.module attributes {kernel.device = "cuda"} {
  hop.symbol @u0 unbacked [0, oo]
  hop.symbol @k0 backed [0, oo]
  kernel.kernel @count "pointwise" {
  ^bb0(%a: !hop.tensor<[], i64>):
    %s = aten.add.Scalar(%a) {other = 2 : i64} : (!hop.tensor<[], i64>) -> !hop.tensor<[], i64>
    kernel.yield %s : !hop.tensor<[], i64>
  }
  kernel.kernel @fill "extern" {
  ^bb0(%a: !hop.tensor<[4], f32>, %n: !hop.symint<k0>):
    %e = aten.expand_copy(%a) {size = [#hop.expr<k0>, 4]} : (!hop.tensor<[4], f32>) -> !hop.tensor<[k0, 4], f32>
    kernel.yield %e : !hop.tensor<[k0, 4], f32>
  }
  func.func @split_at_item(%t: !hop.tensor<[], i64>, %w: !hop.tensor<[4], f32>) -> !hop.tensor<[u0, 4], f32> {
    %cbuf = kernel.alloc() : () -> !kernel.buffer<[], i64, [], cuda>
    %c = kernel.launch @count(%t) into(%cbuf : !kernel.buffer<[], i64, [], cuda>) : (!hop.tensor<[], i64>) -> !hop.tensor<[], i64>
    %u = hop.item %c : !hop.tensor<[], i64> -> !hop.symint<u0>
    %buf = kernel.alloc(%u) : (!hop.symint<u0>) -> !kernel.buffer<[u0, 4], f32, [4, 1], cuda>
    %r = kernel.launch @fill(%w, %u) into(%buf : !kernel.buffer<[u0, 4], f32, [4, 1], cuda>) : (!hop.tensor<[4], f32>, !hop.symint<u0>) -> !hop.tensor<[u0, 4], f32>
    func.return %r : !hop.tensor<[u0, 4], f32>
  }
}
// CHECK-LABEL: func.func @split_at_item
// CHECK-SAME:    (%[[T:.*]]: !hop.tensor<[], i64>, %[[W:.*]]: !hop.tensor<[4], f32>)
// CHECK-NEXT:    %[[C:.*]] = kernel.graph(%[[T]]) : (!hop.tensor<[], i64>) -> !hop.tensor<[], i64> {
// CHECK:           kernel.launch @count
// CHECK:         }
// CHECK-NEXT:    %[[U:.*]] = hop.item %[[C]]
// CHECK-NEXT:    %[[R:.*]] = kernel.graph(%[[U]], %[[W]]) : (!hop.symint<u0>, !hop.tensor<[4], f32>) -> !hop.tensor<[u0, 4], f32> {
// CHECK-NEXT:    ^{{.*}}(%[[V:.*]]: !hop.symint<u0>, %{{.*}}: !hop.tensor<[4], f32>):
// CHECK-NEXT:      %[[BUF:.*]] = kernel.alloc(%[[V]])
// CHECK-NEXT:      kernel.launch @fill({{.*}}) into(%[[BUF]] :
// CHECK:         func.return %[[R]]

// -----

// Must not fire: a data-dependent extern (nonzero: its size is read on the
// host) is no segment, and a segment of symbol arithmetic alone captures no
// launch.
builtin.module attributes {kernel.device = "cuda"} {
  hop.symbol @s0 backed [2, oo]
  hop.symbol @u0 unbacked [0, oo]
  kernel.kernel @nonzero "extern" {
  ^bb0(%a: !hop.tensor<[s0], f32>):
    %n = aten.nonzero(%a) : (!hop.tensor<[s0], f32>) -> !hop.tensor<[u0, 1], i64>
    kernel.yield %n : !hop.tensor<[u0, 1], i64>
  }
  func.func @no_launch_to_capture(%x: !hop.tensor<[s0], f32>) -> !hop.tensor<[u0, 1], i64> {
    %n = kernel.launch @nonzero(%x) : (!hop.tensor<[s0], f32>) -> !hop.tensor<[u0, 1], i64>
    func.return %n : !hop.tensor<[u0, 1], i64>
  }
}
// CHECK-LABEL: func.func @no_launch_to_capture
// CHECK-NOT:     kernel.graph
// CHECK:         kernel.launch @nonzero
// CHECK-NOT:     kernel.graph

// -----

// Must not fire: a CPU module has no CUDA graphs.
builtin.module attributes {kernel.device = "cpu"} {
  kernel.kernel @sin "pointwise" {
  ^bb0(%a: !hop.tensor<[4], f32>):
    %s = aten.sin(%a) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
    kernel.yield %s : !hop.tensor<[4], f32>
  }
  func.func @cpu_module(%x: !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32> {
    %buf = kernel.alloc() : () -> !kernel.buffer<[4], f32, [1], cpu>
    %s = kernel.launch @sin(%x) into(%buf : !kernel.buffer<[4], f32, [1], cpu>) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
    func.return %s : !hop.tensor<[4], f32>
  }
}
// CHECK-LABEL: func.func @cpu_module
// CHECK-NOT:     kernel.graph
// CHECK:         kernel.launch @sin
