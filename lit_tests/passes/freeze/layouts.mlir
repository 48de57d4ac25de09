// RUN: hopc-opt --freeze --split-input-file %s | filecheck %s

// Weight layouts prepared once (Note [prepared layouts]): linear is a
// composite that transposes its weight on every call; reading a constant
// weight, it is replaced by PyTorch's decomposition (t_copy + addmm), and the
// transposed weight folds into a constant of its own.
// CHECK-LABEL: builtin.module
// CHECK:       hop.constant @[[T:.*]] = dense<{{\[}}[1.000000e+00, 3.000000e+00, 5.000000e+00], [2.000000e+00, 4.000000e+00, 6.000000e+00]]> : tensor<2x3xf32>
// CHECK:       func.func @forward(%x: !hop.tensor<[4, 2], f32>) -> !hop.tensor<[4, 3], f32> {
// CHECK-NOT:     aten.linear
// CHECK-NOT:     aten.t_copy
// CHECK:         %[[WT:.*]] = hop.get_constant @[[T]] : !hop.tensor<[2, 3], f32>
// CHECK:         aten.addmm(%b, %x, %[[WT]])
builtin.module {
  hop.parameter @w = dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]> : tensor<3x2xf32> : !hop.tensor<[3, 2], f32>
  hop.parameter @b = dense<[1.0, 2.0, 3.0]> : tensor<3xf32> : !hop.tensor<[3], f32>
  func.func @forward(%x: !hop.tensor<[4, 2], f32>, %w: !hop.tensor<[3, 2], f32> {hop.parameter = @w}, %b: !hop.tensor<[3], f32> {hop.parameter = @b}) -> !hop.tensor<[4, 3], f32> {
    %y = aten.linear(%x, %w, %b) : (!hop.tensor<[4, 2], f32>, !hop.tensor<[3, 2], f32>, !hop.tensor<[3], f32>) -> !hop.tensor<[4, 3], f32>
    func.return %y : !hop.tensor<[4, 3], f32>
  }
}

// -----

// A 2-d input of a dynamic batch: the transposed weight folds as well.
// CHECK-LABEL: builtin.module
// CHECK:       func.func @forward(%x: !hop.tensor<[s0, 2], f32>) -> !hop.tensor<[s0, 3], f32> {
// CHECK:         %[[WT:.*]] = hop.get_constant @{{.*}} : !hop.tensor<[2, 3], f32>
// CHECK:         aten.mm(%x, %[[WT]])
builtin.module {
  hop.symbol @s0 backed [2, oo] hint 4
  hop.parameter @w = dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]> : tensor<3x2xf32> : !hop.tensor<[3, 2], f32>
  func.func @forward(%x: !hop.tensor<[s0, 2], f32>, %w: !hop.tensor<[3, 2], f32> {hop.parameter = @w}) -> !hop.tensor<[s0, 3], f32> {
    %y = aten.linear(%x, %w, none) : (!hop.tensor<[s0, 2], f32>, !hop.tensor<[3, 2], f32>) -> !hop.tensor<[s0, 3], f32>
    func.return %y : !hop.tensor<[s0, 3], f32>
  }
}

// -----

// A 3-d input would be flattened by copies around mm (Note [prepared
// layouts]): linear stays, reading the weight constant.
// CHECK-LABEL: builtin.module
// CHECK:       func.func @forward(%x: !hop.tensor<[s0, 5, 2], f32>) -> !hop.tensor<[s0, 5, 3], f32> {
// CHECK-NEXT:    %w = hop.get_constant @w
// CHECK-NEXT:    aten.linear(%x, %w, none)
builtin.module {
  hop.symbol @s0 backed [2, oo] hint 4
  hop.parameter @w = dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]> : tensor<3x2xf32> : !hop.tensor<[3, 2], f32>
  func.func @forward(%x: !hop.tensor<[s0, 5, 2], f32>, %w: !hop.tensor<[3, 2], f32> {hop.parameter = @w}) -> !hop.tensor<[s0, 5, 3], f32> {
    %y = aten.linear(%x, %w, none) : (!hop.tensor<[s0, 5, 2], f32>, !hop.tensor<[3, 2], f32>) -> !hop.tensor<[s0, 5, 3], f32>
    func.return %y : !hop.tensor<[s0, 5, 3], f32>
  }
}

// -----

// A weight that is a user input is no constant: linear stays as it is.
// CHECK-LABEL: builtin.module
// CHECK:       func.func @forward(%x: !hop.tensor<[4, 2], f32>, %w: !hop.tensor<[3, 2], f32>) -> !hop.tensor<[4, 3], f32> {
// CHECK-NEXT:    %y = aten.linear(%x, %w, none)
builtin.module {
  func.func @forward(%x: !hop.tensor<[4, 2], f32>, %w: !hop.tensor<[3, 2], f32>) -> !hop.tensor<[4, 3], f32> {
    %y = aten.linear(%x, %w, none) : (!hop.tensor<[4, 2], f32>, !hop.tensor<[3, 2], f32>) -> !hop.tensor<[4, 3], f32>
    func.return %y : !hop.tensor<[4, 3], f32>
  }
}
