// RUN: hopc-opt %s --split-input-file --verify-diagnostics

// ATen ops that do not match their schema, in custom and generic form.

// ATen has no such operator.
func.func @unknown_op(%x: !hop.tensor<[4], f32>) {
  // expected-error @+1 {{Operation aten.frobnicate is not registered}}
  %r = aten.frobnicate(%x) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
  func.return
}

// -----

// aten.add has overloads (.Tensor, .Scalar, ...) but no `.Matrix` one.
func.func @unknown_overload(%x: !hop.tensor<[4], f32>) {
  // expected-error @+1 {{Operation aten.add.Matrix is not registered}}
  %r = "aten.add.Matrix"(%x, %x) : (!hop.tensor<[4], f32>, !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
  func.return
}

// -----

// view's `size` has no default.
func.func @missing_required_argument(%x: !hop.tensor<[4], f32>) {
  // expected-error @+1 {{'aten.view' op requires argument 'size' (SymInt[])}}
  %r = aten.view(%x) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
  func.return
}

// -----

// to.dtype's `dtype` has no default, in the generic form too.
func.func @missing_required_argument_generic(%x: !hop.tensor<[4], f32>) {
  // expected-error @+1 {{'aten.to.dtype' op requires argument 'dtype' (ScalarType)}}
  %r = "aten.to.dtype"(%x) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
  func.return
}

// -----

// add.Tensor's arguments are self, other and alpha; `beta` is a typo.
func.func @unknown_argument_name(%x: !hop.tensor<[4], f32>) {
  // expected-error @+1 {{aten.add.Tensor has no argument named 'beta' (arguments: alpha)}}
  %r = aten.add.Tensor(%x, %x) {beta = 2 : i64} : (!hop.tensor<[4], f32>, !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
  func.return
}

// -----

// The same in the generic form, where arguments are properties.
func.func @unknown_argument_name_generic(%x: !hop.tensor<[4], f32>) {
  // expected-error @+1 {{property 'beta' is not defined by the operation 'aten.add.Tensor'}}
  %r = "aten.add.Tensor"(%x, %x) <{beta = 2 : i64}> : (!hop.tensor<[4], f32>, !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
  func.return
}

// -----

// A Scalar is a number, not a string.
func.func @wrong_attribute_kind_scalar(%x: !hop.tensor<[4], f32>) {
  // expected-error @+1 {{'aten.add.Tensor' op argument 'alpha' of type Scalar cannot be "two"}}
  %r = aten.add.Tensor(%x, %x) {alpha = "two"} : (!hop.tensor<[4], f32>, !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
  func.return
}

// -----

// A ScalarType is an element type, not an integer code.
func.func @wrong_attribute_kind_dtype(%x: !hop.tensor<[4], f32>) {
  // expected-error @+1 {{'aten.to.dtype' op argument 'dtype' of type ScalarType cannot be 6 : i64}}
  %r = aten.to.dtype(%x) {dtype = 6 : i64} : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
  func.return
}

// -----

// A bool is an i1, not an i64.
func.func @wrong_attribute_kind_bool(%x: !hop.tensor<[4], f32>) {
  // expected-error @+1 {{'aten.max.dim' op argument 'keepdim' of type bool cannot be 1 : i64}}
  %r:2 = aten.max.dim(%x) {dim = 0 : i64, keepdim = 1 : i64} : (!hop.tensor<[4], f32>) -> (!hop.tensor<[1], f32>, !hop.tensor<[1], i64>)
  func.return
}

// -----

// A SymInt[] holds integers and #hop.expr, not floats.
func.func @wrong_attribute_kind_list() {
  // expected-error @+1 {{'aten.zeros' op argument 'size' of type SymInt[] cannot be [2.000000e+00 : f64]}}
  %r = aten.zeros() {size = [2.0]} : () -> !hop.tensor<[2], f32>
  func.return
}

// -----

// add.Tensor takes two tensors.
func.func @too_few_operands(%x: !hop.tensor<[4], f32>) {
  // expected-error @+1 {{aten.add.Tensor takes 2 tensor arguments (self, other), got 1}}
  %r = aten.add.Tensor(%x) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
  func.return
}

// -----

// sin takes one tensor.
func.func @too_many_operands(%x: !hop.tensor<[4], f32>) {
  // expected-error @+1 {{aten.sin takes 1 tensor arguments (self), got more}}
  %r = aten.sin(%x, %x) : (!hop.tensor<[4], f32>, !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
  func.return
}

// -----

// An operand list cut short is a syntax error, not a count of operands.
func.func @unclosed_operands(%x: !hop.tensor<[4], f32>) {
  // expected-error @+1 {{expected ')' after the 1 tensor arguments of aten.sin}}
  %r = aten.sin(%x : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
  func.return
}

// -----

// out= variants take the `out` tensor as an operand.
func.func @out_variant_without_out(%x: !hop.tensor<[4, 4], f32>) {
  // expected-error @+1 {{aten.mm.out takes 3 tensor arguments (self, mat2, out), got 2}}
  %r = aten.mm.out(%x, %x) : (!hop.tensor<[4, 4], f32>, !hop.tensor<[4, 4], f32>) -> !hop.tensor<[4, 4], f32>
  func.return
}

// -----

// The generic form counts operands too.
func.func @wrong_operand_count_generic(%x: !hop.tensor<[4], f32>) {
  // expected-error @+1 {{'aten.sin' op Expected 1 operand, but got 2}}
  %r = "aten.sin"(%x, %x) : (!hop.tensor<[4], f32>, !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
  func.return
}

// -----

// The operand types list has one type per operand.
func.func @operand_types_count(%x: !hop.tensor<[4], f32>) {
  // expected-error @+1 {{expected 2 operand types but had 1}}
  %r = aten.sin(%x) : (!hop.tensor<[4], f32>, !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
  func.return
}

// -----

// `other` is a Tensor, not a Tensor?.
func.func @none_for_required_tensor(%x: !hop.tensor<[4], f32>) {
  // expected-error @+1 {{argument 'other' of aten.add.Tensor is not optional}}
  %r = aten.add.Tensor(%x, none) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
  func.return
}

// -----

// Only a Tensor?[] list holds none; cat's is a Tensor[].
func.func @none_in_tensor_list(%x: !hop.tensor<[4], f32>) {
  // expected-error @+1 {{argument 'tensors' (Tensor[]) cannot hold none}}
  %r = aten.cat([%x, none]) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
  func.return
}

// -----

// max.dim returns values and indices.
func.func @wrong_result_count(%x: !hop.tensor<[4], f32>) {
  // expected-error @+1 {{'aten.max.dim' returns 2 values, got 1 result types}}
  %r = aten.max.dim(%x) {dim = 0 : i64} : (!hop.tensor<[4], f32>) -> !hop.tensor<[], f32>
  func.return
}

// -----

// Tensor operands have !hop.tensor types.
func.func @operand_not_a_tensor(%x: i32) {
  // expected-error @+1 {{'aten.sin' op operand 'self' at position 0 does not verify: i32 should be of base attribute hop.tensor}}
  %r = aten.sin(%x) : (i32) -> !hop.tensor<[4], f32>
  func.return
}

// -----

// A MemoryFormat string names one of torch's memory formats.
func.func @unknown_memory_format(%x: !hop.tensor<[4], f32>) {
  // expected-error @+1 {{'aten.clone' op argument 'memory_format' of type MemoryFormat? cannot be "bogus": a MemoryFormat is one of channels_last, channels_last_3d, contiguous_format, legacy_contiguous_format, preserve_format}}
  %r = aten.clone(%x) {memory_format = "bogus"} : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
  func.return
}

// -----

// The same in the generic form.
func.func @unknown_memory_format_generic(%x: !hop.tensor<[4], f32>) {
  // expected-error @+1 {{'aten.clone' op argument 'memory_format' of type MemoryFormat? cannot be "bogus"}}
  %r = "aten.clone"(%x) <{memory_format = "bogus"}> : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
  func.return
}

// -----

// A Layout string names one of torch's layouts.
func.func @unknown_layout() {
  // expected-error @+1 {{'aten.zeros' op argument 'layout' of type Layout? cannot be "dense": a Layout is one of}}
  %r = aten.zeros() {size = [4], layout = "dense"} : () -> !hop.tensor<[4], f32>
  func.return
}

// -----

// A Device string is a device type torch knows, with an optional index.
func.func @unknown_device_type() {
  // expected-error @+1 {{'aten.zeros' op argument 'device' of type Device? cannot be "gpu": a Device is a device type (cpu, cuda,}}
  %r = aten.zeros() {size = [4], device = "gpu"} : () -> !hop.tensor<[4], f32>
  func.return
}

// -----

// torch.device takes no leading zero (nor sign, nor space) in an index.
func.func @malformed_device_index() {
  // expected-error @+1 {{'aten.zeros' op argument 'device' of type Device? cannot be "cuda:01"}}
  %r = aten.zeros() {size = [4], device = "cuda:01"} : () -> !hop.tensor<[4], f32>
  func.return
}
