// RUN: hopc-opt %s --split-input-file | filecheck %s
// RUN: hopc-opt %s --split-input-file --print-op-generic | filecheck %s --check-prefix=GENERIC
// RUN: hopc-opt %s --print-op-generic --split-input-file | hopc-opt --split-input-file | filecheck %s

// Round trip of ATen ops in custom and generic form: tensor arguments are
// operands in schema order, every other argument a property named as in the
// schema and omitted when it takes its default.

// Defaults omitted and given; a float Scalar.
// CHECK-LABEL: func.func @arguments_and_defaults
// CHECK:         %add = aten.add.Tensor(%x, %y) : (!hop.tensor<[s0, 4], f32>, !hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32>
// CHECK-NEXT:    %add2 = aten.add.Tensor(%x, %y) {alpha = 2 : i64} : (!hop.tensor<[s0, 4], f32>, !hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32>
// CHECK-NEXT:    %half = aten.mul.Scalar(%x) {other = 5.000000e-01 : f64} : (!hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32>
// CHECK-NEXT:    %mm = aten.mm(%x, %w) : (!hop.tensor<[s0, 4], f32>, !hop.tensor<[4, 4], f32>) -> !hop.tensor<[s0, 4], f32>
// CHECK-NEXT:    %where = aten.where.self(%m, %x, %y) : (!hop.tensor<[s0, 4], i1>, !hop.tensor<[s0, 4], f32>, !hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32>
// CHECK-NEXT:    %soft = aten._softmax(%x) {dim = -1 : i64, half_to_float = false} : (!hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32>
// GENERIC-LABEL: "func.func"() <{sym_name = "arguments_and_defaults"
// GENERIC:         %add = "aten.add.Tensor"(%x, %y) : (!hop.tensor<[s0, 4], f32>, !hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32>
// GENERIC-NEXT:    %add2 = "aten.add.Tensor"(%x, %y) <{alpha = 2 : i64}> : (!hop.tensor<[s0, 4], f32>, !hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32>
// GENERIC-NEXT:    %half = "aten.mul.Scalar"(%x) <{other = 5.000000e-01 : f64}> : (!hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32>
hop.symbol @s0 backed [2, oo]
func.func @arguments_and_defaults(%x: !hop.tensor<[s0, 4], f32>, %y: !hop.tensor<[s0, 4], f32>, %w: !hop.tensor<[4, 4], f32>, %m: !hop.tensor<[s0, 4], i1>) {
  %add = aten.add.Tensor(%x, %y) : (!hop.tensor<[s0, 4], f32>, !hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32>
  %add2 = aten.add.Tensor(%x, %y) {alpha = 2 : i64} : (!hop.tensor<[s0, 4], f32>, !hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32>
  %half = aten.mul.Scalar(%x) {other = 5.000000e-01 : f64} : (!hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32>
  %mm = aten.mm(%x, %w) : (!hop.tensor<[s0, 4], f32>, !hop.tensor<[4, 4], f32>) -> !hop.tensor<[s0, 4], f32>
  %where = aten.where.self(%m, %x, %y) : (!hop.tensor<[s0, 4], i1>, !hop.tensor<[s0, 4], f32>, !hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32>
  %soft = aten._softmax(%x) {dim = -1 : i64, half_to_float = false} : (!hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32>
  func.return
}

// -----

// An optional tensor is an operand or `none`; an optional scalar is absent,
// or `#hop.none` written out.
// CHECK-LABEL: func.func @optional_arguments
// CHECK:         %no_bias = aten.linear(%x, %w, none) : (!hop.tensor<[2, 4], f32>, !hop.tensor<[3, 4], f32>) -> !hop.tensor<[2, 3], f32>
// CHECK-NEXT:    %bias = aten.linear(%x, %w, %b) : (!hop.tensor<[2, 4], f32>, !hop.tensor<[3, 4], f32>, !hop.tensor<[3], f32>) -> !hop.tensor<[2, 3], f32>
// CHECK-NEXT:    %norm, %norm_1, %norm_2 = aten.native_layer_norm(%x, none, %c) {normalized_shape = [4 : i64], eps = 1.000000e-05 : f64}
// CHECK-NEXT:    %clamp = aten.clamp(%x) {min = 0 : i64, max = #hop.none} : (!hop.tensor<[2, 4], f32>) -> !hop.tensor<[2, 4], f32>
// GENERIC-LABEL: "func.func"() <{sym_name = "optional_arguments"
// GENERIC:         %no_bias = "aten.linear"(%x, %w) : (!hop.tensor<[2, 4], f32>, !hop.tensor<[3, 4], f32>) -> !hop.tensor<[2, 3], f32>
// GENERIC-NEXT:    %bias = "aten.linear"(%x, %w, %b) : (!hop.tensor<[2, 4], f32>, !hop.tensor<[3, 4], f32>, !hop.tensor<[3], f32>) -> !hop.tensor<[2, 3], f32>
// GENERIC-NEXT:    "aten.native_layer_norm"(%x, %c) <{normalized_shape = [4 : i64], eps = 1.000000e-05 : f64, operandSegmentSizes = array<i32: 1, 0, 1>}>
// GENERIC-NEXT:    %clamp = "aten.clamp"(%x) <{min = 0 : i64, max = #hop.none}>
func.func @optional_arguments(%x: !hop.tensor<[2, 4], f32>, %w: !hop.tensor<[3, 4], f32>, %b: !hop.tensor<[3], f32>, %c: !hop.tensor<[4], f32>) {
  %no_bias = aten.linear(%x, %w, none) : (!hop.tensor<[2, 4], f32>, !hop.tensor<[3, 4], f32>) -> !hop.tensor<[2, 3], f32>
  %bias = aten.linear(%x, %w, %b) : (!hop.tensor<[2, 4], f32>, !hop.tensor<[3, 4], f32>, !hop.tensor<[3], f32>) -> !hop.tensor<[2, 3], f32>
  %norm:3 = aten.native_layer_norm(%x, none, %c) {normalized_shape = [4], eps = 1.000000e-05 : f64} : (!hop.tensor<[2, 4], f32>, !hop.tensor<[4], f32>) -> (!hop.tensor<[2, 4], f32>, !hop.tensor<[2, 1], f32>, !hop.tensor<[2, 1], f32>)
  %clamp = aten.clamp(%x) {min = 0 : i64, max = #hop.none} : (!hop.tensor<[2, 4], f32>) -> !hop.tensor<[2, 4], f32>
  func.return
}

// -----

// Tensor lists; a `Tensor?[]` list holds `none` entries, kept in the generic
// form as the positions `indices_nones`.
// CHECK-LABEL: func.func @tensor_lists
// CHECK:         %cat = aten.cat([%x, %y]) {dim = 1 : i64} : (!hop.tensor<[s0, 4], f32>, !hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 8], f32>
// CHECK-NEXT:    %stack = aten.stack([%x, %y, %x]) : (!hop.tensor<[s0, 4], f32>, !hop.tensor<[s0, 4], f32>, !hop.tensor<[s0, 4], f32>) -> !hop.tensor<[3, s0, 4], f32>
// CHECK-NEXT:    %empty_cat = aten.cat([]) : () -> !hop.tensor<[0], f32>
// CHECK-NEXT:    %columns = aten.index.Tensor(%x, [none, %i]) : (!hop.tensor<[s0, 4], f32>, !hop.tensor<[3], i64>) -> !hop.tensor<[s0, 3], f32>
// CHECK-NEXT:    %points = aten.index.Tensor(%x, [%i, %i]) : (!hop.tensor<[s0, 4], f32>, !hop.tensor<[3], i64>, !hop.tensor<[3], i64>) -> !hop.tensor<[3], f32>
// CHECK-NEXT:    %rows = aten.index.Tensor(%x, [%i, none]) : (!hop.tensor<[s0, 4], f32>, !hop.tensor<[3], i64>) -> !hop.tensor<[3, 4], f32>
// GENERIC-LABEL: "func.func"() <{sym_name = "tensor_lists"
// GENERIC:         %cat = "aten.cat"(%x, %y) <{dim = 1 : i64}>
// GENERIC:         %empty_cat = "aten.cat"() : () -> !hop.tensor<[0], f32>
// GENERIC-NEXT:    %columns = "aten.index.Tensor"(%x, %i) <{indices_nones = [0 : i64]}> : (!hop.tensor<[s0, 4], f32>, !hop.tensor<[3], i64>) -> !hop.tensor<[s0, 3], f32>
// GENERIC-NEXT:    %points = "aten.index.Tensor"(%x, %i, %i) : (!hop.tensor<[s0, 4], f32>, !hop.tensor<[3], i64>, !hop.tensor<[3], i64>) -> !hop.tensor<[3], f32>
// GENERIC-NEXT:    %rows = "aten.index.Tensor"(%x, %i) <{indices_nones = [1 : i64]}>
hop.symbol @s0 backed [2, oo]
func.func @tensor_lists(%x: !hop.tensor<[s0, 4], f32>, %y: !hop.tensor<[s0, 4], f32>, %i: !hop.tensor<[3], i64>) {
  %cat = aten.cat([%x, %y]) {dim = 1 : i64} : (!hop.tensor<[s0, 4], f32>, !hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 8], f32>
  %stack = aten.stack([%x, %y, %x]) : (!hop.tensor<[s0, 4], f32>, !hop.tensor<[s0, 4], f32>, !hop.tensor<[s0, 4], f32>) -> !hop.tensor<[3, s0, 4], f32>
  %empty_cat = aten.cat([]) : () -> !hop.tensor<[0], f32>
  %columns = aten.index.Tensor(%x, [none, %i]) : (!hop.tensor<[s0, 4], f32>, !hop.tensor<[3], i64>) -> !hop.tensor<[s0, 3], f32>
  %points = aten.index.Tensor(%x, [%i, %i]) : (!hop.tensor<[s0, 4], f32>, !hop.tensor<[3], i64>, !hop.tensor<[3], i64>) -> !hop.tensor<[3], f32>
  %rows = aten.index.Tensor(%x, [%i, none]) : (!hop.tensor<[s0, 4], f32>, !hop.tensor<[3], i64>) -> !hop.tensor<[3, 4], f32>
  func.return
}

// -----

// ScalarType arguments are element types; Device, Layout and MemoryFormat are
// strings; symbolic sizes are #hop.expr.
// CHECK-LABEL: func.func @dtype_device_layout
// CHECK:         %zeros = aten.zeros() {size = [#hop.expr<s0>, 4 : i64], dtype = bf16} : () -> !hop.tensor<[s0, 4], bf16>
// CHECK-NEXT:    %all = aten.zeros() {size = [2 : i64, 3 : i64], dtype = i64, layout = "strided", device = "cpu", pin_memory = false} : () -> !hop.tensor<[2, 3], i64>
// CHECK-NEXT:    %f16 = aten.to.dtype(%x) {dtype = f16} : (!hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f16>
// CHECK-NEXT:    %copy = aten.to.dtype(%x) {dtype = f64, non_blocking = false, copy = true, memory_format = "preserve_format"} : (!hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f64>
// CHECK-NEXT:    %complex = aten._to_copy(%x) {dtype = complex<f32>} : (!hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], complex<f32>>
// CHECK-NEXT:    %empty = aten.empty.memory_format() {size = [#hop.expr<2*s0>], memory_format = "contiguous_format"} : () -> !hop.tensor<[2*s0], ui8>
// CHECK-NEXT:    %range = aten.arange.start() {start = 0 : i64, end = #hop.expr<s0>} : () -> !hop.tensor<[s0], i64>
// CHECK-NEXT:    %full = aten.full() {size = [2 : i64], fill_value = 1.500000e+00 : f64, dtype = f32} : () -> !hop.tensor<[2], f32>
// GENERIC-LABEL: "func.func"() <{sym_name = "dtype_device_layout"
// GENERIC:         %zeros = "aten.zeros"() <{size = [#hop.expr<s0>, 4 : i64], dtype = bf16}> : () -> !hop.tensor<[s0, 4], bf16>
// GENERIC-NEXT:    %all = "aten.zeros"() <{size = [2 : i64, 3 : i64], dtype = i64, layout = "strided", device = "cpu", pin_memory = false}>
hop.symbol @s0 backed [2, oo]
func.func @dtype_device_layout(%x: !hop.tensor<[s0, 4], f32>) {
  %zeros = aten.zeros() {size = [#hop.expr<s0>, 4], dtype = bf16} : () -> !hop.tensor<[s0, 4], bf16>
  %all = aten.zeros() {size = [2, 3], dtype = i64, layout = "strided", device = "cpu", pin_memory = false} : () -> !hop.tensor<[2, 3], i64>
  %f16 = aten.to.dtype(%x) {dtype = f16} : (!hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f16>
  %copy = aten.to.dtype(%x) {dtype = f64, non_blocking = false, copy = true, memory_format = "preserve_format"} : (!hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f64>
  %complex = aten._to_copy(%x) {dtype = complex<f32>} : (!hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], complex<f32>>
  %empty = aten.empty.memory_format() {size = [#hop.expr<s0 + s0>], memory_format = "contiguous_format"} : () -> !hop.tensor<[2*s0], ui8>
  %range = aten.arange.start() {start = 0 : i64, end = #hop.expr<s0>} : () -> !hop.tensor<[s0], i64>
  %full = aten.full() {size = [2], fill_value = 1.500000e+00 : f64, dtype = f32} : () -> !hop.tensor<[2], f32>
  func.return
}

// -----

// Views with symbolic sizes and bounds.
// CHECK-LABEL: func.func @views
// CHECK:         %flat = aten.view(%x) {size = [-1 : i64]} : (!hop.tensor<[s0, 4], f32>) -> !hop.tensor<[4*s0], f32>
// CHECK-NEXT:    %pairs = aten.view(%x) {size = [#hop.expr<2*s0>, 2 : i64]} : (!hop.tensor<[s0, 4], f32>) -> !hop.tensor<[2*s0, 2], f32>
// CHECK-NEXT:    %inner = aten.slice.Tensor(%x) {dim = 0 : i64, start = 1 : i64, end = #hop.expr<s0 - 1>} : (!hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0 - 2, 4], f32>
// CHECK-NEXT:    %even = aten.slice.Tensor(%x) {start = #hop.none, end = #hop.none, step = 2 : i64} : (!hop.tensor<[s0, 4], f32>) -> !hop.tensor<[(s0 + 1) // 2, 4], f32>
// CHECK-NEXT:    %t = aten.permute(%x) {dims = [1 : i64, 0 : i64]} : (!hop.tensor<[s0, 4], f32>) -> !hop.tensor<[4, s0], f32>
// CHECK-NEXT:    %wide = aten.expand(%col) {size = [#hop.expr<s0>, 4 : i64]} : (!hop.tensor<[s0, 1], f32>) -> !hop.tensor<[s0, 4], f32>
hop.symbol @s0 backed [2, oo]
func.func @views(%x: !hop.tensor<[s0, 4], f32>, %col: !hop.tensor<[s0, 1], f32>) {
  %flat = aten.view(%x) {size = [-1]} : (!hop.tensor<[s0, 4], f32>) -> !hop.tensor<[4*s0], f32>
  %pairs = aten.view(%x) {size = [#hop.expr<2*s0>, 2]} : (!hop.tensor<[s0, 4], f32>) -> !hop.tensor<[2*s0, 2], f32>
  %inner = aten.slice.Tensor(%x) {dim = 0 : i64, start = 1 : i64, end = #hop.expr<s0 - 1>} : (!hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0 - 2, 4], f32>
  %even = aten.slice.Tensor(%x) {start = #hop.none, end = #hop.none, step = 2 : i64} : (!hop.tensor<[s0, 4], f32>) -> !hop.tensor<[(s0 + 1) // 2, 4], f32>
  %t = aten.permute(%x) {dims = [1, 0]} : (!hop.tensor<[s0, 4], f32>) -> !hop.tensor<[4, s0], f32>
  %wide = aten.expand(%col) {size = [#hop.expr<s0>, 4]} : (!hop.tensor<[s0, 1], f32>) -> !hop.tensor<[s0, 4], f32>
  func.return
}

// -----

// Several results (max.dim returns values and indices) and a list result
// (split.Tensor returns one tensor per piece).
// CHECK-LABEL: func.func @multiple_results
// CHECK:         %values, %indices = aten.max.dim(%x) {dim = 1 : i64, keepdim = true} : (!hop.tensor<[s0, 4], f32>) -> (!hop.tensor<[s0, 1], f32>, !hop.tensor<[s0, 1], i64>)
// CHECK-NEXT:    %[[A:.*]], %[[B:.*]] = aten.split.Tensor(%w) {split_size = 2 : i64} : (!hop.tensor<[4, 4], f32>) -> (!hop.tensor<[2, 4], f32>, !hop.tensor<[2, 4], f32>)
// CHECK-NEXT:    %{{.*}}, %{{.*}}, %[[C:.*]] = aten.split_with_sizes(%w) {split_sizes = [1 : i64, 1 : i64, 2 : i64], dim = 1 : i64} : (!hop.tensor<[4, 4], f32>) -> (!hop.tensor<[4, 1], f32>, !hop.tensor<[4, 1], f32>, !hop.tensor<[4, 2], f32>)
// CHECK-NEXT:    %[[D:.*]] = aten.unbind.int(%w) : (!hop.tensor<[4, 4], f32>) -> (!hop.tensor<[4], f32>, !hop.tensor<[4], f32>, !hop.tensor<[4], f32>, !hop.tensor<[4], f32>)
// CHECK-NEXT:    %sum = aten.add.Tensor(%[[B]], %[[A]])
// GENERIC-LABEL: "func.func"() <{sym_name = "multiple_results"
// GENERIC:         %values, %indices = "aten.max.dim"(%x) <{dim = 1 : i64, keepdim = true}> : (!hop.tensor<[s0, 4], f32>) -> (!hop.tensor<[s0, 1], f32>, !hop.tensor<[s0, 1], i64>)
// GENERIC-NEXT:    "aten.split.Tensor"(%w) <{split_size = 2 : i64}> : (!hop.tensor<[4, 4], f32>) -> (!hop.tensor<[2, 4], f32>, !hop.tensor<[2, 4], f32>)
hop.symbol @s0 backed [2, oo]
func.func @multiple_results(%x: !hop.tensor<[s0, 4], f32>, %w: !hop.tensor<[4, 4], f32>) {
  %values, %indices = aten.max.dim(%x) {dim = 1 : i64, keepdim = true} : (!hop.tensor<[s0, 4], f32>) -> (!hop.tensor<[s0, 1], f32>, !hop.tensor<[s0, 1], i64>)
  %halves:2 = aten.split.Tensor(%w) {split_size = 2 : i64} : (!hop.tensor<[4, 4], f32>) -> (!hop.tensor<[2, 4], f32>, !hop.tensor<[2, 4], f32>)
  %pieces:3 = aten.split_with_sizes(%w) {split_sizes = [1, 1, 2], dim = 1 : i64} : (!hop.tensor<[4, 4], f32>) -> (!hop.tensor<[4, 1], f32>, !hop.tensor<[4, 1], f32>, !hop.tensor<[4, 2], f32>)
  %rows:4 = aten.unbind.int(%w) : (!hop.tensor<[4, 4], f32>) -> (!hop.tensor<[4], f32>, !hop.tensor<[4], f32>, !hop.tensor<[4], f32>, !hop.tensor<[4], f32>)
  %sum = aten.add.Tensor(%halves#1, %halves#0) : (!hop.tensor<[2, 4], f32>, !hop.tensor<[2, 4], f32>) -> !hop.tensor<[2, 4], f32>
  func.return
}

// -----

// In-place ops (their first argument is mutated) and out= variants (the `out`
// argument is the last operand).
// CHECK-LABEL: func.func @mutation
// CHECK:         %added = aten.add_.Tensor(%x, %y) {alpha = 3 : i64} : (!hop.tensor<[4, 4], f32>, !hop.tensor<[4, 4], f32>) -> !hop.tensor<[4, 4], f32>
// CHECK-NEXT:    %relu = aten.relu_(%x) : (!hop.tensor<[4, 4], f32>) -> !hop.tensor<[4, 4], f32>
// CHECK-NEXT:    %copied = aten.copy_(%x, %y) : (!hop.tensor<[4, 4], f32>, !hop.tensor<[4, 4], f32>) -> !hop.tensor<[4, 4], f32>
// CHECK-NEXT:    %put = aten.index_put_(%x, [%i, none], %row) {accumulate = true} : (!hop.tensor<[4, 4], f32>, !hop.tensor<[3], i64>, !hop.tensor<[4], f32>) -> !hop.tensor<[4, 4], f32>
// CHECK-NEXT:    %out = aten.mm.out(%x, %y, %z) : (!hop.tensor<[4, 4], f32>, !hop.tensor<[4, 4], f32>, !hop.tensor<[4, 4], f32>) -> !hop.tensor<[4, 4], f32>
// CHECK-NEXT:    %max, %argmax = aten.max.dim_max(%x, %v, %k) {dim = 0 : i64} : (!hop.tensor<[4, 4], f32>, !hop.tensor<[4], f32>, !hop.tensor<[4], i64>) -> (!hop.tensor<[4], f32>, !hop.tensor<[4], i64>)
// GENERIC-LABEL: "func.func"() <{sym_name = "mutation"
// GENERIC:         %put = "aten.index_put_"(%x, %i, %row) <{accumulate = true, indices_nones = [1 : i64]}>
// GENERIC-NEXT:    %out = "aten.mm.out"(%x, %y, %z) : (!hop.tensor<[4, 4], f32>, !hop.tensor<[4, 4], f32>, !hop.tensor<[4, 4], f32>) -> !hop.tensor<[4, 4], f32>
func.func @mutation(%x: !hop.tensor<[4, 4], f32>, %y: !hop.tensor<[4, 4], f32>, %z: !hop.tensor<[4, 4], f32>, %i: !hop.tensor<[3], i64>, %row: !hop.tensor<[4], f32>, %v: !hop.tensor<[4], f32>, %k: !hop.tensor<[4], i64>) {
  %added = aten.add_.Tensor(%x, %y) {alpha = 3 : i64} : (!hop.tensor<[4, 4], f32>, !hop.tensor<[4, 4], f32>) -> !hop.tensor<[4, 4], f32>
  %relu = aten.relu_(%x) : (!hop.tensor<[4, 4], f32>) -> !hop.tensor<[4, 4], f32>
  %copied = aten.copy_(%x, %y) : (!hop.tensor<[4, 4], f32>, !hop.tensor<[4, 4], f32>) -> !hop.tensor<[4, 4], f32>
  %put = aten.index_put_(%x, [%i, none], %row) {accumulate = true} : (!hop.tensor<[4, 4], f32>, !hop.tensor<[3], i64>, !hop.tensor<[4], f32>) -> !hop.tensor<[4, 4], f32>
  %out = aten.mm.out(%x, %y, %z) : (!hop.tensor<[4, 4], f32>, !hop.tensor<[4, 4], f32>, !hop.tensor<[4, 4], f32>) -> !hop.tensor<[4, 4], f32>
  %max, %argmax = aten.max.dim_max(%x, %v, %k) {dim = 0 : i64} : (!hop.tensor<[4, 4], f32>, !hop.tensor<[4], f32>, !hop.tensor<[4], i64>) -> (!hop.tensor<[4], f32>, !hop.tensor<[4], i64>)
  func.return
}

// -----

// A discardable attribute names its dialect and is kept beside the arguments.
// CHECK-LABEL: func.func @discardable_attribute
// CHECK:         %r = aten.relu(%x) {hop.note = "kept"} : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
// GENERIC-LABEL: "func.func"() <{sym_name = "discardable_attribute"
// GENERIC:         %r = "aten.relu"(%x) {hop.note = "kept"} : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
func.func @discardable_attribute(%x: !hop.tensor<[4], f32>) {
  %r = aten.relu(%x) {hop.note = "kept"} : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
  func.return
}
