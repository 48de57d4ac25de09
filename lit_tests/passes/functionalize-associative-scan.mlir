// RUN: hopc-opt %s --functionalize --verify-functional | filecheck %s --check-prefix=FUNCTIONAL
// RUN: hopc-opt %s --functionalize --lift-symbols --verify-symbol-closed | filecheck %s --check-prefix=LIFTED

// hop.associative_scan through functionalize and lift-symbols, which ask its
// HopRegionInterface (two slices of each xs, then the additional operands):
// an in-place op on a value of the combine body becomes its functional form,
// whose result the body yields in place of the changed value, and the free symbol s1 of the body's slice types becomes a !hop.symint
// operand, appended to the additional ones and taken as the last block argument.

// FUNCTIONAL-LABEL: func.func @scale_then_add
// FUNCTIONAL:         hop.associative_scan xs(%x) additional()
// FUNCTIONAL-NOT:     aten.add_.Tensor
// FUNCTIONAL:         %[[SUM:.*]] = aten.add.Tensor(%{{.*}}, %b)
// FUNCTIONAL-NEXT:    hop.yield %[[SUM]]

// LIFTED-LABEL: func.func @scale_then_add
// LIFTED:         %[[S1:.*]] = hop.sym_size %x[1]
// LIFTED:         hop.associative_scan xs(%x) additional(%[[S1]]) : (!hop.tensor<[s0, s1], f32>), (!hop.symint<s1>) -> !hop.tensor<[s0, s1], f32> {
// LIFTED-NEXT:    ^bb0(%a: !hop.tensor<[s1], f32>, %b: !hop.tensor<[s1], f32>, %{{.*}}: !hop.symint<s1>):
hop.symbol @s0 backed [2, oo]
hop.symbol @s1 backed [2, oo]
func.func @scale_then_add(%x: !hop.tensor<[s0, s1], f32>) -> !hop.tensor<[s0, s1], f32> {
  %r = hop.associative_scan xs(%x) additional() : (!hop.tensor<[s0, s1], f32>), () -> !hop.tensor<[s0, s1], f32> {
  ^bb0(%a: !hop.tensor<[s1], f32>, %b: !hop.tensor<[s1], f32>):
    %m = aten.mul.Tensor(%a, %b) : (!hop.tensor<[s1], f32>, !hop.tensor<[s1], f32>) -> !hop.tensor<[s1], f32>
    %s = aten.add_.Tensor(%m, %b) : (!hop.tensor<[s1], f32>, !hop.tensor<[s1], f32>) -> !hop.tensor<[s1], f32>
    hop.yield %m : !hop.tensor<[s1], f32>
  }
  func.return %r : !hop.tensor<[s0, s1], f32>
}
