// RUN: hopc-opt %s --split-input-file | filecheck %s
// RUN: hopc-opt %s --split-input-file --print-op-generic | filecheck %s --check-prefix=GENERIC
// RUN: hopc-opt %s --split-input-file --print-op-generic | hopc-opt --split-input-file | filecheck %s
// RUN: hopc-opt %s --split-input-file --functionalize --lift-symbols --canonicalize --cse --dce | filecheck %s --check-prefix=KEPT

// hop.associative_scan (Note [associative scan semantics] in
// hopc.dialects.hops.associative_scan) in custom and generic form; the third RUN
// parses the generic form back. The combine body takes two slices of each xs,
// then the additional operands. The last RUN checks that the pipeline keeps the
// scan itself whole, its unused result %r included (every result feeds the next
// step of the others); only the unread additional operand %w goes.

// A running affine composition of two scanned operands, with a loop-invariant scale.
hop.symbol @s0 backed [2, oo]
// CHECK-LABEL: func.func @affine
// CHECK:         %r, %s = hop.associative_scan xs(%a, %b) additional(%w) : (!hop.tensor<[s0, 3], f32>, !hop.tensor<[s0, 3], f32>), (!hop.tensor<[3], f32>) -> !hop.tensor<[s0, 3], f32>, !hop.tensor<[s0, 3], f32> {
// CHECK-NEXT:    ^bb0(%a0: !hop.tensor<[3], f32>, %b0: !hop.tensor<[3], f32>, %a1: !hop.tensor<[3], f32>, %b1: !hop.tensor<[3], f32>, %v: !hop.tensor<[3], f32>):
// CHECK:           hop.yield %p, %q : !hop.tensor<[3], f32>, !hop.tensor<[3], f32>
// GENERIC:       "hop.associative_scan"(%a, %b, %w) <{operandSegmentSizes = array<i32: 2, 1>}>
// KEPT-LABEL:    func.func @affine
// KEPT:          hop.associative_scan xs(%a, %b) additional()
func.func @affine(%a: !hop.tensor<[s0, 3], f32>, %b: !hop.tensor<[s0, 3], f32>, %w: !hop.tensor<[3], f32>) -> !hop.tensor<[s0, 3], f32> {
  %r, %s = hop.associative_scan xs(%a, %b) additional(%w) : (!hop.tensor<[s0, 3], f32>, !hop.tensor<[s0, 3], f32>), (!hop.tensor<[3], f32>) -> !hop.tensor<[s0, 3], f32>, !hop.tensor<[s0, 3], f32> {
  ^bb0(%a0: !hop.tensor<[3], f32>, %b0: !hop.tensor<[3], f32>, %a1: !hop.tensor<[3], f32>, %b1: !hop.tensor<[3], f32>, %v: !hop.tensor<[3], f32>):
    %p = aten.mul.Tensor(%a0, %a1) : (!hop.tensor<[3], f32>, !hop.tensor<[3], f32>) -> !hop.tensor<[3], f32>
    %m = aten.mul.Tensor(%b0, %a1) : (!hop.tensor<[3], f32>, !hop.tensor<[3], f32>) -> !hop.tensor<[3], f32>
    %q = aten.add.Tensor(%m, %b1) : (!hop.tensor<[3], f32>, !hop.tensor<[3], f32>) -> !hop.tensor<[3], f32>
    hop.yield %p, %q : !hop.tensor<[3], f32>, !hop.tensor<[3], f32>
  }
  func.return %s : !hop.tensor<[s0, 3], f32>
}
