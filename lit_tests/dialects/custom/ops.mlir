// RUN: hopc-opt %s --split-input-file | filecheck %s
// RUN: hopc-opt %s --split-input-file --print-op-generic | filecheck %s --check-prefix=GENERIC
// RUN: hopc-opt %s --print-op-generic --split-input-file | hopc-opt --split-input-file | filecheck %s

// Round trip of a custom operator's op (Note [custom operators] in dialects/custom.py): an op
// of the operator's schema, as an ATen op is. `prims::sin` is a non-ATen operator every
// process that imports torch registers; a user's operator parses where its library is imported.

// CHECK-LABEL: func.func @registered_operator
// CHECK:         %y = custom.prims.sin(%x) : (!hop.tensor<[3, 4], f32>) -> !hop.tensor<[3, 4], f32>
// GENERIC:       %y = "custom.prims.sin"(%x) : (!hop.tensor<[3, 4], f32>) -> !hop.tensor<[3, 4], f32>
func.func @registered_operator(%x: !hop.tensor<[3, 4], f32>) -> !hop.tensor<[3, 4], f32> {
  %y = custom.prims.sin(%x) : (!hop.tensor<[3, 4], f32>) -> !hop.tensor<[3, 4], f32>
  func.return %y : !hop.tensor<[3, 4], f32>
}
