// RUN: hopc-opt %s | filecheck %s
// RUN: hopc-opt %s --print-op-generic | filecheck %s --check-prefix=GENERIC
// RUN: hopc-opt %s --print-op-generic | hopc-opt | filecheck %s

// Round trip of kernel.graph, with an operand read in place and an IF node, in
// custom and generic form; the last RUN parses the generic form back.

// CHECK:       %r = kernel.graph(%x, %w, %p) {in_place = array<i64: 1>} : (!hop.tensor<[s0], f32>, !hop.tensor<[s0], f32>, !hop.tensor<[], i1>) -> !hop.tensor<[s0], f32> {
// CHECK-NEXT:  ^bb0(%a: !hop.tensor<[s0], f32>, %b: !hop.tensor<[s0], f32>, %q: !hop.tensor<[], i1>):
// CHECK:         %c = hop.cond %q(%a, %b) {kernel.conditional_node = "if"}
// CHECK:         kernel.yield %c : !hop.tensor<[s0], f32>
// GENERIC:     "kernel.graph"(%{{.*}}, %{{.*}}, %{{.*}}) <{in_place = array<i64: 1>}> ({
builtin.module attributes {kernel.device = "cuda"} {
  hop.symbol @s0 backed [2, oo]
  kernel.kernel @mul "pointwise" {
  ^bb0(%a: !hop.tensor<[s0], f32>, %b: !hop.tensor<[s0], f32>):
    %m = aten.mul.Tensor(%a, %b) : (!hop.tensor<[s0], f32>, !hop.tensor<[s0], f32>) -> !hop.tensor<[s0], f32>
    kernel.yield %m : !hop.tensor<[s0], f32>
  }
  func.func @forward(%x: !hop.tensor<[s0], f32>, %w: !hop.tensor<[s0], f32>, %p: !hop.tensor<[], i1>) -> !hop.tensor<[s0], f32> {
    %r = kernel.graph(%x, %w, %p) {in_place = array<i64: 1>} : (!hop.tensor<[s0], f32>, !hop.tensor<[s0], f32>, !hop.tensor<[], i1>) -> !hop.tensor<[s0], f32> {
    ^bb0(%a: !hop.tensor<[s0], f32>, %b: !hop.tensor<[s0], f32>, %q: !hop.tensor<[], i1>):
      %c = hop.cond %q(%a, %b) {kernel.conditional_node = "if"} : !hop.tensor<[], i1>, (!hop.tensor<[s0], f32>, !hop.tensor<[s0], f32>) -> !hop.tensor<[s0], f32> then {
      ^bb0(%u: !hop.tensor<[s0], f32>, %v: !hop.tensor<[s0], f32>):
        %m = kernel.launch @mul(%u, %v) : (!hop.tensor<[s0], f32>, !hop.tensor<[s0], f32>) -> !hop.tensor<[s0], f32>
        hop.yield %m : !hop.tensor<[s0], f32>
      } else {
      ^bb0(%u: !hop.tensor<[s0], f32>, %v: !hop.tensor<[s0], f32>):
        hop.yield %u : !hop.tensor<[s0], f32>
      }
      kernel.yield %c : !hop.tensor<[s0], f32>
    }
    func.return %r : !hop.tensor<[s0], f32>
  }
}
