// RUN: hopc-opt %s --plan-memory --split-input-file | hopc-opt --plan-memory --split-input-file | filecheck %s
// RUN: hopc-opt %s --plan-memory --split-input-file -o %t.once
// RUN: hopc-opt %t.once -p 'plan-memory{report=true}' --split-input-file -o %t.twice 2>&1 | filecheck %s --check-prefix=REPORT

// Planning a planned module changes nothing: every launch keeps its buffer,
// no alloc is added, and the peak counts the buffers planned before (not 0).
// CHECK-LABEL: func.func @forward
// CHECK-SAME:    attributes {kernel.peak_bytes = #hop.expr<20*s0>}
// CHECK:         %[[BUF:.*]] = kernel.alloc(%{{.*}}) : (!hop.symint<s0>) -> !kernel.buffer<[s0, 4], f32, [4, 1], cpu>
// CHECK-NEXT:    %[[A:.*]] = kernel.launch @sin(%x) into(%[[BUF]] :
// CHECK-NEXT:    %[[B:.*]] = kernel.launch @sin(%[[A]]) into(%[[BUF]] :
// CHECK-NEXT:    %[[SUM:.*]] = kernel.alloc(%{{.*}}) : (!hop.symint<s0>) -> !kernel.buffer<[s0], f32, [1], cpu>
// CHECK-NEXT:    kernel.launch @sum(%[[B]]) into(%[[SUM]] :
// CHECK-NOT:     kernel.alloc
// The report of the second run is the first's: the in-place write and the
// reuse are read back from the buffers.
// REPORT: plan-memory: @forward: 3 results in 2 buffers (1 allocs saved by reuse, 1 in place), peak 20*s0 bytes (100 at the hints)
builtin.module attributes {kernel.device = "cpu"} {
  hop.symbol @s0 backed [2, oo] hint 5
  kernel.kernel @sin "pointwise" {
  ^bb0(%a: !hop.tensor<[s0, 4], f32>):
    %s = aten.sin(%a) : (!hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32>
    kernel.yield %s : !hop.tensor<[s0, 4], f32>
  }
  kernel.kernel @sum "reduction" {
  ^bb0(%a: !hop.tensor<[s0, 4], f32>):
    %s = aten.sum.dim_IntList(%a) {dim = [1]} : (!hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0], f32>
    kernel.yield %s : !hop.tensor<[s0], f32>
  }
  func.func @forward(%x: !hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0], f32> {
    %a = kernel.launch @sin(%x) : (!hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32>
    %b = kernel.launch @sin(%a) : (!hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32>
    %c = kernel.launch @sum(%b) : (!hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0], f32>
    func.return %c : !hop.tensor<[s0], f32>
  }
}

// -----

// Must not reuse: %m was planned before; its later writers are not known
// when %b is placed, so %b gets a buffer of its own although %m is dead by
// then. The peak counts %m until @sum reads %a.
// CHECK-LABEL: func.func @partly_planned
// CHECK-SAME:    attributes {kernel.peak_bytes = 160 : i64}
// CHECK:         %[[M:.*]] = kernel.alloc() : () -> !kernel.buffer<[8, 4], f32, [4, 1], cpu>
// CHECK-NEXT:    %[[A:.*]] = kernel.launch @sin(%x) into(%[[M]] :
// CHECK-NEXT:    %[[S:.*]] = kernel.alloc() : () -> !kernel.buffer<[8], f32, [1], cpu>
// CHECK-NEXT:    kernel.launch @sum(%[[A]]) into(%[[S]] :
// CHECK-NEXT:    %[[OWN:.*]] = kernel.alloc() : () -> !kernel.buffer<[8, 4], f32, [4, 1], cpu>
// CHECK-NEXT:    kernel.launch @sin(%x) into(%[[OWN]] :
// REPORT: plan-memory: @partly_planned: 3 results in 3 buffers (0 allocs saved by reuse, 0 in place), peak 160 bytes
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
  func.func @partly_planned(%x: !hop.tensor<[8, 4], f32>) -> (!hop.tensor<[8], f32>, !hop.tensor<[8, 4], f32>) {
    %m = kernel.alloc() : () -> !kernel.buffer<[8, 4], f32, [4, 1], cpu>
    %a = kernel.launch @sin(%x) into(%m : !kernel.buffer<[8, 4], f32, [4, 1], cpu>) : (!hop.tensor<[8, 4], f32>) -> !hop.tensor<[8, 4], f32>
    %s = kernel.launch @sum(%a) : (!hop.tensor<[8, 4], f32>) -> !hop.tensor<[8], f32>
    %b = kernel.launch @sin(%x) : (!hop.tensor<[8, 4], f32>) -> !hop.tensor<[8, 4], f32>
    func.return %s, %b : !hop.tensor<[8], f32>, !hop.tensor<[8, 4], f32>
  }
}
