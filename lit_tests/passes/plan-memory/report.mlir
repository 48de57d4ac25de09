// RUN: hopc-opt %s -p 'plan-memory{report=true}' -o %t 2>&1 | filecheck %s

// One remark per function: results planned, buffers, allocations saved by
// reuse (in place among them), peak bytes (at the symbols' hints if dynamic).
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
  func.func private @static(%x: !hop.tensor<[2, 4], f32>) -> !hop.tensor<[2, 4], f32> {
    func.return %x : !hop.tensor<[2, 4], f32>
  }
}
// CHECK:      plan-memory: @forward: 3 results in 2 buffers (1 allocs saved by reuse, 1 in place), peak 20*s0 bytes (100 at the hints)
// CHECK-NEXT: plan-memory: @static: 0 results in 0 buffers (0 allocs saved by reuse, 0 in place), peak 0 bytes
