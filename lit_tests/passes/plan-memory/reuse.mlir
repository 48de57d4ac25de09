// RUN: hopc-opt %s --plan-memory --split-input-file | filecheck %s

// Reuse fires: %a is dead once @sum has read it, so %b, of the same type,
// goes into %a's buffer; %s, of another type, gets its own.
builtin.module attributes {kernel.device = "cpu"} {
  kernel.kernel @sin "pointwise" {
  ^bb0(%a: !hop.tensor<[8, 4], f32>):
    %s = aten.sin(%a) : (!hop.tensor<[8, 4], f32>) -> !hop.tensor<[8, 4], f32>
    kernel.yield %s : !hop.tensor<[8, 4], f32>
  }
  kernel.kernel @sum "reduction" {
  ^bb0(%a: !hop.tensor<[8, 4], f32>):
    %s = aten.sum.dim_IntList(%a) {dim = [1]} : (!hop.tensor<[8, 4], f32>) -> !hop.tensor<[8], f32>
    kernel.yield %s : !hop.tensor<[8], f32>
  }
  func.func @reuse_dead_value(%x: !hop.tensor<[8, 4], f32>) -> (!hop.tensor<[8], f32>, !hop.tensor<[8, 4], f32>) {
    %a = kernel.launch @sin(%x) : (!hop.tensor<[8, 4], f32>) -> !hop.tensor<[8, 4], f32>
    %s = kernel.launch @sum(%a) : (!hop.tensor<[8, 4], f32>) -> !hop.tensor<[8], f32>
    %b = kernel.launch @sin(%x) : (!hop.tensor<[8, 4], f32>) -> !hop.tensor<[8, 4], f32>
    func.return %s, %b : !hop.tensor<[8], f32>, !hop.tensor<[8, 4], f32>
  }
}
// CHECK-LABEL: func.func @reuse_dead_value
// CHECK-SAME:    attributes {kernel.peak_bytes = 160 : i64}
// CHECK:         %[[BUF:.*]] = kernel.alloc() : () -> !kernel.buffer<[8, 4], f32, [4, 1], cpu>
// CHECK-NEXT:    %[[A:.*]] = kernel.launch @sin(%{{.*}}) into(%[[BUF]] : !kernel.buffer<[8, 4], f32, [4, 1], cpu>)
// CHECK-NEXT:    %[[SUM:.*]] = kernel.alloc() : () -> !kernel.buffer<[8], f32, [1], cpu>
// CHECK-NEXT:    kernel.launch @sum(%[[A]]) into(%[[SUM]] : !kernel.buffer<[8], f32, [1], cpu>)
// CHECK-NEXT:    kernel.launch @sin(%{{.*}}) into(%[[BUF]] : !kernel.buffer<[8, 4], f32, [4, 1], cpu>)
// CHECK-NOT:     kernel.alloc

// -----

// Must not fire: %a is still live when %b is written (@dot reads both).
builtin.module attributes {kernel.device = "cpu"} {
  kernel.kernel @sin "pointwise" {
  ^bb0(%a: !hop.tensor<[8, 4], f32>):
    %s = aten.sin(%a) : (!hop.tensor<[8, 4], f32>) -> !hop.tensor<[8, 4], f32>
    kernel.yield %s : !hop.tensor<[8, 4], f32>
  }
  kernel.kernel @dot "reduction" {
  ^bb0(%a: !hop.tensor<[8, 4], f32>, %b: !hop.tensor<[8, 4], f32>):
    %m = aten.mul.Tensor(%a, %b) : (!hop.tensor<[8, 4], f32>, !hop.tensor<[8, 4], f32>) -> !hop.tensor<[8, 4], f32>
    %s = aten.sum.dim_IntList(%m) {dim = [1]} : (!hop.tensor<[8, 4], f32>) -> !hop.tensor<[8], f32>
    kernel.yield %s : !hop.tensor<[8], f32>
  }
  func.func @no_reuse_live_value(%x: !hop.tensor<[8, 4], f32>) -> !hop.tensor<[8], f32> {
    %a = kernel.launch @sin(%x) : (!hop.tensor<[8, 4], f32>) -> !hop.tensor<[8, 4], f32>
    %b = kernel.launch @sin(%a) : (!hop.tensor<[8, 4], f32>) -> !hop.tensor<[8, 4], f32>
    %d = kernel.launch @dot(%a, %b) : (!hop.tensor<[8, 4], f32>, !hop.tensor<[8, 4], f32>) -> !hop.tensor<[8], f32>
    func.return %d : !hop.tensor<[8], f32>
  }
}
// CHECK-LABEL: func.func @no_reuse_live_value
// CHECK:         %[[BUF_A:.*]] = kernel.alloc()
// CHECK-NEXT:    %[[A:.*]] = kernel.launch @sin(%{{.*}}) into(%[[BUF_A]] :
// CHECK-NEXT:    %[[BUF_B:.*]] = kernel.alloc()
// CHECK-NEXT:    %[[B:.*]] = kernel.launch @sin(%[[A]]) into(%[[BUF_B]] :
// CHECK-NEXT:    %[[BUF_D:.*]] = kernel.alloc()
// CHECK-NEXT:    kernel.launch @dot(%[[A]], %[[B]]) into(%[[BUF_D]] :

// -----

// Must not fire: the dead buffer holds [8, 4], the new result is [4, 8]
// (the same bytes, another type).
builtin.module attributes {kernel.device = "cpu"} {
  kernel.kernel @sin "pointwise" {
  ^bb0(%a: !hop.tensor<[8, 4], f32>):
    %s = aten.sin(%a) : (!hop.tensor<[8, 4], f32>) -> !hop.tensor<[8, 4], f32>
    kernel.yield %s : !hop.tensor<[8, 4], f32>
  }
  kernel.kernel @cos "pointwise" {
  ^bb0(%a: !hop.tensor<[4, 8], f32>):
    %s = aten.cos(%a) : (!hop.tensor<[4, 8], f32>) -> !hop.tensor<[4, 8], f32>
    kernel.yield %s : !hop.tensor<[4, 8], f32>
  }
  kernel.kernel @sum "reduction" {
  ^bb0(%a: !hop.tensor<[8, 4], f32>):
    %s = aten.sum.dim_IntList(%a) {dim = [1]} : (!hop.tensor<[8, 4], f32>) -> !hop.tensor<[8], f32>
    kernel.yield %s : !hop.tensor<[8], f32>
  }
  func.func @no_reuse_other_type(%x: !hop.tensor<[8, 4], f32>, %y: !hop.tensor<[4, 8], f32>) -> (!hop.tensor<[8], f32>, !hop.tensor<[4, 8], f32>) {
    %a = kernel.launch @sin(%x) : (!hop.tensor<[8, 4], f32>) -> !hop.tensor<[8, 4], f32>
    %s = kernel.launch @sum(%a) : (!hop.tensor<[8, 4], f32>) -> !hop.tensor<[8], f32>
    %c = kernel.launch @cos(%y) : (!hop.tensor<[4, 8], f32>) -> !hop.tensor<[4, 8], f32>
    func.return %s, %c : !hop.tensor<[8], f32>, !hop.tensor<[4, 8], f32>
  }
}
// CHECK-LABEL: func.func @no_reuse_other_type
// CHECK:         kernel.alloc() : () -> !kernel.buffer<[8, 4], f32, [4, 1], cpu>
// CHECK:         kernel.alloc() : () -> !kernel.buffer<[8], f32, [1], cpu>
// CHECK:         %[[BUF_C:.*]] = kernel.alloc() : () -> !kernel.buffer<[4, 8], f32, [8, 1], cpu>
// CHECK-NEXT:    kernel.launch @cos(%{{.*}}) into(%[[BUF_C]] :

// -----

// Must not fire: arguments and constants are the caller's; @sin reads them
// last but writes a new buffer, and the device is the module's.
builtin.module attributes {kernel.device = "cuda"} {
  hop.constant @w = dense<1.000000e+00> : tensor<8x4xf32> : !hop.tensor<[8, 4], f32>
  kernel.kernel @sin "pointwise" {
  ^bb0(%a: !hop.tensor<[8, 4], f32>):
    %s = aten.sin(%a) : (!hop.tensor<[8, 4], f32>) -> !hop.tensor<[8, 4], f32>
    kernel.yield %s : !hop.tensor<[8, 4], f32>
  }
  func.func @caller_owned(%x: !hop.tensor<[8, 4], f32>) -> (!hop.tensor<[8, 4], f32>, !hop.tensor<[8, 4], f32>) {
    %a = kernel.launch @sin(%x) : (!hop.tensor<[8, 4], f32>) -> !hop.tensor<[8, 4], f32>
    %w = hop.get_constant @w : !hop.tensor<[8, 4], f32>
    %b = kernel.launch @sin(%w) : (!hop.tensor<[8, 4], f32>) -> !hop.tensor<[8, 4], f32>
    func.return %a, %b : !hop.tensor<[8, 4], f32>, !hop.tensor<[8, 4], f32>
  }
}
// CHECK-LABEL: func.func @caller_owned
// CHECK-SAME:    (%[[X:.*]]: !hop.tensor<[8, 4], f32>)
// CHECK:         %[[BUF_A:.*]] = kernel.alloc() : () -> !kernel.buffer<[8, 4], f32, [4, 1], cuda>
// CHECK-NEXT:    kernel.launch @sin(%[[X]]) into(%[[BUF_A]] :
// CHECK-NEXT:    %[[W:.*]] = hop.get_constant @w
// CHECK-NEXT:    %[[BUF_B:.*]] = kernel.alloc() : () -> !kernel.buffer<[8, 4], f32, [4, 1], cuda>
// CHECK-NEXT:    kernel.launch @sin(%[[W]]) into(%[[BUF_B]] :
