// RUN: hopc-opt %s --freeze --split-input-file | filecheck %s

// Weights as hopc.capture(..., weights=True) records them (Note [captured
// weights]): each parameter and buffer starts with a dense_resource value whose
// bytes are in the resource section. Freeze folds them: the globals become
// constants, the transpose of the weight folds into a new one, and the entry
// takes the user input alone. No blob is left to print.
// CHECK-LABEL: builtin.module
// CHECK-NOT:     hop.parameter
// CHECK-NOT:     hop.buffer
// CHECK:         hop.constant @scale = dense<[5.000000e-01, 2.500000e+00]> : tensor<2xf32>
// CHECK:         hop.constant @[[T:folded.*]] = dense<{{\[\[}}1.000000e+00, 4.000000e+00], [2.000000e+00, 5.000000e+00], [3.000000e+00, 6.000000e+00]]> : tensor<3x2xf32>
// CHECK:         func.func @forward(%x: !hop.tensor<[4, 3], f32>) -> !hop.tensor<[4, 2], f32>
// CHECK-DAG:     %[[S:.*]] = hop.get_constant @scale
// CHECK-DAG:     %[[W:.*]] = hop.get_constant @[[T]]
// CHECK:         %[[M:.*]] = aten.mm(%x, %[[W]])
// CHECK:         %[[Y:.*]] = aten.mul.Tensor(%[[M]], %[[S]])
// CHECK:         func.return %[[Y]]
// CHECK-NOT:     dialect_resources
builtin.module {
  hop.parameter @lin.weight = dense_resource<lin.weight> : tensor<2x3xf32> : !hop.tensor<[2, 3], f32>
  hop.buffer @scale = dense_resource<scale> : tensor<2xf32> : !hop.tensor<[2], f32>
  func.func @forward(%x: !hop.tensor<[4, 3], f32>, %lin_weight: !hop.tensor<[2, 3], f32> {hop.parameter = @lin.weight}, %scale: !hop.tensor<[2], f32> {hop.buffer = @scale}) -> !hop.tensor<[4, 2], f32> {
    %t = aten.t_copy(%lin_weight) : (!hop.tensor<[2, 3], f32>) -> !hop.tensor<[3, 2], f32>
    %mm = aten.mm(%x, %t) : (!hop.tensor<[4, 3], f32>, !hop.tensor<[3, 2], f32>) -> !hop.tensor<[4, 2], f32>
    %y = aten.mul.Tensor(%mm, %scale) : (!hop.tensor<[4, 2], f32>, !hop.tensor<[2], f32>) -> !hop.tensor<[4, 2], f32>
    func.return %y : !hop.tensor<[4, 2], f32>
  }
}

{-#
  dialect_resources: {
    builtin: {
      lin.weight: "0x040000000000803F0000004000004040000080400000A0400000C040",
      scale: "0x040000000000003F00002040"
    }
  }
#-}

// -----

// Must not fire: the same program captured without weights. Its globals have
// no value, so nothing is known to fold: both stay entry arguments, each says
// why, and the transpose stays.
// CHECK-LABEL: builtin.module
// CHECK:         hop.parameter @lin.weight : !hop.tensor<[2, 3], f32> {hop.not_frozen = "its value is unknown (give it one, or pass it to freeze)"}
// CHECK:         hop.buffer @scale : !hop.tensor<[2], f32> {hop.not_frozen = "its value is unknown (give it one, or pass it to freeze)"}
// CHECK-NOT:     hop.constant
// CHECK:         func.func @forward(%x: !hop.tensor<[4, 3], f32>, %lin_weight: !hop.tensor<[2, 3], f32> {hop.parameter = @lin.weight}, %scale: !hop.tensor<[2], f32> {hop.buffer = @scale})
// CHECK:         %[[T:.*]] = aten.t_copy(%lin_weight)
// CHECK:         aten.mm(%x, %[[T]])
builtin.module {
  hop.parameter @lin.weight : !hop.tensor<[2, 3], f32>
  hop.buffer @scale : !hop.tensor<[2], f32>
  func.func @forward(%x: !hop.tensor<[4, 3], f32>, %lin_weight: !hop.tensor<[2, 3], f32> {hop.parameter = @lin.weight}, %scale: !hop.tensor<[2], f32> {hop.buffer = @scale}) -> !hop.tensor<[4, 2], f32> {
    %t = aten.t_copy(%lin_weight) : (!hop.tensor<[2, 3], f32>) -> !hop.tensor<[3, 2], f32>
    %mm = aten.mm(%x, %t) : (!hop.tensor<[4, 3], f32>, !hop.tensor<[3, 2], f32>) -> !hop.tensor<[4, 2], f32>
    %y = aten.mul.Tensor(%mm, %scale) : (!hop.tensor<[4, 2], f32>, !hop.tensor<[2], f32>) -> !hop.tensor<[4, 2], f32>
    func.return %y : !hop.tensor<[4, 2], f32>
  }
}
