// RUN: hopc-opt %s --functionalize --split-input-file | filecheck %s
// RUN: hopc-opt %s --functionalize --verify-functional --split-input-file -o %t

// The functional form of an in-place op has self's type where that is certain,
// without the tracer (Note [in-place result types] in passes/functionalize/mutation.py):
// same dtypes, an int scalar, an operand that broadcasts to self's shape.
// CHECK-LABEL: func.func @same_type
// CHECK: %[[A:.*]] = aten.add.Scalar(%x) {other = 1 : i64} : (!hop.tensor<[s0, 8], f32>) -> !hop.tensor<[s0, 8], f32>
// CHECK: %[[M:.*]] = aten.mul.Tensor(%[[A]], %y) : (!hop.tensor<[s0, 8], f32>, !hop.tensor<[1, 8], f32>) -> !hop.tensor<[s0, 8], f32>
// CHECK: %[[N:.*]] = aten.neg(%[[M]]) : (!hop.tensor<[s0, 8], f32>) -> !hop.tensor<[s0, 8], f32>
// CHECK-NOT: aten._to_copy
// CHECK: func.return %[[N]], %[[N]]
hop.symbol @s0 backed [2, oo]
func.func @same_type(%x: !hop.tensor<[s0, 8], f32>, %y: !hop.tensor<[1, 8], f32>) -> !hop.tensor<[s0, 8], f32> {
  %0 = aten.add_.Scalar(%x) {other = 1 : i64} : (!hop.tensor<[s0, 8], f32>) -> !hop.tensor<[s0, 8], f32>
  %1 = aten.mul_.Tensor(%x, %y) : (!hop.tensor<[s0, 8], f32>, !hop.tensor<[1, 8], f32>) -> !hop.tensor<[s0, 8], f32>
  %2 = aten.neg_(%x) : (!hop.tensor<[s0, 8], f32>) -> !hop.tensor<[s0, 8], f32>
  func.return %2 : !hop.tensor<[s0, 8], f32>
}

// -----

// Operands whose dtype does not decide the result: a bool mask, a copied source.
// CHECK-LABEL: func.func @self_typed
// CHECK: %[[F:.*]] = aten.masked_fill.Scalar(%x, %mask) {value = 0 : i64} : (!hop.tensor<[4, 4], i64>, !hop.tensor<[4], i1>) -> !hop.tensor<[4, 4], i64>
// CHECK: %[[C:.*]] = aten.copy(%[[F]], %src) : (!hop.tensor<[4, 4], i64>, !hop.tensor<[4, 4], f16>) -> !hop.tensor<[4, 4], i64>
// CHECK-NOT: aten._to_copy
// CHECK: func.return %[[C]], %[[C]]
func.func @self_typed(%x: !hop.tensor<[4, 4], i64>, %mask: !hop.tensor<[4], i1>, %src: !hop.tensor<[4, 4], f16>) -> !hop.tensor<[4, 4], i64> {
  %0 = aten.masked_fill_.Scalar(%x, %mask) {value = 0 : i64} : (!hop.tensor<[4, 4], i64>, !hop.tensor<[4], i1>) -> !hop.tensor<[4, 4], i64>
  %1 = aten.copy_(%x, %src) : (!hop.tensor<[4, 4], i64>, !hop.tensor<[4, 4], f16>) -> !hop.tensor<[4, 4], i64>
  func.return %1 : !hop.tensor<[4, 4], i64>
}

// -----

// Not certain, so traced: a wider operand promotes the sum, which is cast back
// to self's dtype.
// CHECK-LABEL: func.func @wider_operand
// CHECK: %[[S:.*]] = aten.add.Tensor(%count, %step) : (!hop.tensor<[4], i32>, !hop.tensor<[4], i64>) -> !hop.tensor<[4], i64>
// CHECK: %[[C:.*]] = aten._to_copy(%[[S]]) {dtype = i32} : (!hop.tensor<[4], i64>) -> !hop.tensor<[4], i32>
// CHECK: func.return %[[C]], %[[C]]
func.func @wider_operand(%count: !hop.tensor<[4], i32>, %step: !hop.tensor<[4], i64>) -> !hop.tensor<[4], i32> {
  %0 = aten.add_.Tensor(%count, %step) : (!hop.tensor<[4], i32>, !hop.tensor<[4], i64>) -> !hop.tensor<[4], i32>
  func.return %0 : !hop.tensor<[4], i32>
}

// -----

// Not certain, so traced: a comparison's functional form returns bool.
// CHECK-LABEL: func.func @comparison
// CHECK: %[[E:.*]] = aten.eq.Scalar(%x) {other = 0 : i64} : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], i1>
// CHECK: %[[C:.*]] = aten._to_copy(%[[E]]) {dtype = f32} : (!hop.tensor<[4], i1>) -> !hop.tensor<[4], f32>
// CHECK: func.return %[[C]], %[[C]]
func.func @comparison(%x: !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32> {
  %0 = aten.eq_.Scalar(%x) {other = 0 : i64} : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
  func.return %0 : !hop.tensor<[4], f32>
}

// -----

// Not certain, so traced: the dtypes differ, yet a 0-d operand does not
// promote a dimensioned one, so the tracer finds f32 and nothing is cast.
// CHECK-LABEL: func.func @zero_dim_other
// CHECK: %[[S:.*]] = aten.add.Tensor(%x, %y) : (!hop.tensor<[4], f32>, !hop.tensor<[], f64>) -> !hop.tensor<[4], f32>
// CHECK-NOT: aten._to_copy
// CHECK: func.return %[[S]], %[[S]]
func.func @zero_dim_other(%x: !hop.tensor<[4], f32>, %y: !hop.tensor<[], f64>) -> !hop.tensor<[4], f32> {
  %0 = aten.add_.Tensor(%x, %y) : (!hop.tensor<[4], f32>, !hop.tensor<[], f64>) -> !hop.tensor<[4], f32>
  func.return %0 : !hop.tensor<[4], f32>
}

// -----

// Not certain, so traced: a bool operand of another dtype, which the tracer
// finds does not promote a float.
// CHECK-LABEL: func.func @bool_operand
// CHECK: %[[M:.*]] = aten.mul.Tensor(%x, %keep) : (!hop.tensor<[4], f32>, !hop.tensor<[4], i1>) -> !hop.tensor<[4], f32>
// CHECK-NOT: aten._to_copy
// CHECK: func.return %[[M]], %[[M]]
func.func @bool_operand(%x: !hop.tensor<[4], f32>, %keep: !hop.tensor<[4], i1>) -> !hop.tensor<[4], f32> {
  %0 = aten.mul_.Tensor(%x, %keep) : (!hop.tensor<[4], f32>, !hop.tensor<[4], i1>) -> !hop.tensor<[4], f32>
  func.return %0 : !hop.tensor<[4], f32>
}
