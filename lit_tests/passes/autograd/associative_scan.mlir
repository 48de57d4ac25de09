// RUN: hopc-opt --autograd --split-input-file %s | filecheck %s
// RUN: hopc-opt --autograd --split-input-file %s | hopc-opt --split-input-file | filecheck %s

// A running product with a loop-invariant scale, p_i = p_{i-1} * x_i * w
// (Note [associative scan backward]): the forward is the scan the op is (the
// carry from slice 0, the other slices scanned, slice 0 put back in front), and
// the backward is hop.scan's: a reverse scan accumulating w's gradient.

// CHECK-LABEL: builtin.module
// CHECK:       func.func @forward(
// CHECK-NOT:     hop.associative_scan
// CHECK:         %[[FIRST:.*]] = aten.select_copy.int(%x) {dim = 0 : i64, index = 0 : i64{{.*}}}
// CHECK:         %[[REST:.*]] = aten.slice_copy.Tensor(%x) {start = 1 : i64{{.*}}} : (!hop.tensor<[s0, 3], f32>) -> !hop.tensor<[s0 - 1, 3], f32>
// CHECK:         hop.scan init(%[[FIRST]]) xs(%[[REST]]) additional(%w)
// CHECK:         aten.cat
// CHECK:       func.func @backward(
// CHECK:         hop.scan reverse init
// CHECK:         aten.slice_backward
// CHECK:         aten.select_backward

builtin.module {
  hop.symbol @s0 backed [2, oo] hint 5
  func.func @forward(%x: !hop.tensor<[s0, 3], f32> {hop.requires_grad}, %w: !hop.tensor<[3], f32> {hop.requires_grad}) -> !hop.tensor<[s0, 3], f32> {
    %r = hop.associative_scan xs(%x) additional(%w) : (!hop.tensor<[s0, 3], f32>), (!hop.tensor<[3], f32>) -> !hop.tensor<[s0, 3], f32> {
    ^bb0(%a: !hop.tensor<[3], f32>, %b: !hop.tensor<[3], f32>, %v: !hop.tensor<[3], f32>):
      %m = aten.mul.Tensor(%a, %b) : (!hop.tensor<[3], f32>, !hop.tensor<[3], f32>) -> !hop.tensor<[3], f32>
      %s = aten.mul.Tensor(%m, %v) : (!hop.tensor<[3], f32>, !hop.tensor<[3], f32>) -> !hop.tensor<[3], f32>
      hop.yield %s : !hop.tensor<[3], f32>
    }
    func.return %r : !hop.tensor<[s0, 3], f32>
  }
}
