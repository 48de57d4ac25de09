// RUN: hopc-opt %s --convert-hop-to-kernel --split-input-file | filecheck %s

// A size taken for a launch inside the span of a fusion group (the recomputed ones between
// the pointwise group's first op, mul, and its last, mul_2) comes from a value that does not
// move: the argument %x, not %mul, which the group's launch defines after it
// (Note [values that move] in hopc.dialects.symbol_scope).
// CHECK-LABEL: builtin.module
// CHECK:       func.func @backward(
// CHECK-NEXT:    %[[M:.*]] = hop.sym_size %x[0] : !hop.tensor<[s0, 4], f32> -> !hop.symint<s0>
// CHECK-NEXT:    %[[N:.*]] = hop.sym_size %x[0] : !hop.tensor<[s0, 4], f32> -> !hop.symint<s0>
// CHECK-NEXT:    %ones = kernel.launch @extern_ones(%[[N]])
// CHECK-NEXT:    %mul = kernel.launch @pointwise_mul_Tensor_mul_Scalar_add_Tensor_etc(%x, %w, %ones, %tangent, %[[M]])
builtin.module {
  hop.symbol @s0 backed [2, oo] hint 3
  func.func @backward(%x: !hop.tensor<[s0, 4], f32>, %w: !hop.tensor<[1], f32>, %tangent: !hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32> {
    %mul = aten.mul.Tensor(%x, %w) : (!hop.tensor<[s0, 4], f32>, !hop.tensor<[1], f32>) -> !hop.tensor<[s0, 4], f32>
    %ones = aten.ones() {size = [#hop.expr<s0>, 4 : i64], device = "cpu", pin_memory = false} : () -> !hop.tensor<[s0, 4], f32>
    %mul_1 = aten.mul.Scalar(%ones) {other = 2 : i64} : (!hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32>
    %add = aten.add.Tensor(%mul, %mul_1) : (!hop.tensor<[s0, 4], f32>, !hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32>
    %cos = aten.cos(%add) : (!hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32>
    %mul_2 = aten.mul.Tensor(%tangent, %cos) : (!hop.tensor<[s0, 4], f32>, !hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32>
    func.return %mul_2 : !hop.tensor<[s0, 4], f32>
  }
}

// -----

// A value that does not move (the one op of an extern group) is still the nearest to read a
// size from: the nonzero's rows for the ones after it.
// CHECK-LABEL: builtin.module
// CHECK:       func.func @forward(
// CHECK-NEXT:    %nonzero = kernel.launch @extern_nonzero(%m)
// CHECK-NEXT:    %[[U:.*]] = hop.sym_size %nonzero[0] : !hop.tensor<[u0, 1], i64> -> !hop.symint<u0>
// CHECK-NEXT:    %ones = kernel.launch @extern_ones(%[[U]])
builtin.module {
  hop.symbol @u0 unbacked [0, 4]
  func.func @forward(%m: !hop.tensor<[4], i1>) -> !hop.tensor<[u0, 4], f32> {
    %nonzero = aten.nonzero(%m) : (!hop.tensor<[4], i1>) -> !hop.tensor<[u0, 1], i64>
    %ones = aten.ones() {size = [#hop.expr<u0>, 4 : i64], device = "cpu", pin_memory = false} : () -> !hop.tensor<[u0, 4], f32>
    %add = aten.add.Tensor(%ones, %nonzero) : (!hop.tensor<[u0, 4], f32>, !hop.tensor<[u0, 1], i64>) -> !hop.tensor<[u0, 4], f32>
    func.return %add : !hop.tensor<[u0, 4], f32>
  }
}
