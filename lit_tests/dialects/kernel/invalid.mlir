// RUN: hopc-opt %s --split-input-file --verify-diagnostics

// Every verifier message of the kernel dialect; each names the offending
// value and both types where there are two.

// A launch of a symbol that is no kernel.
func.func @unknown(%x: !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32> {
  // expected-error @+1 {{'kernel.launch' op launches unknown kernel @missing}}
  %r = kernel.launch @missing(%x) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
  func.return %r : !hop.tensor<[4], f32>
}

// -----

kernel.kernel @neg "pointwise" {
^bb0(%a: !hop.tensor<[4], f32>):
  %n = aten.neg(%a) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
  kernel.yield %n : !hop.tensor<[4], f32>
}
func.func @operand_type(%x: !hop.tensor<[5], f32>) -> !hop.tensor<[4], f32> {
  // expected-error @+1 {{'kernel.launch' op operands of @neg: operand #0 %x has type !hop.tensor<[5], f32>, expected !hop.tensor<[4], f32>}}
  %r = kernel.launch @neg(%x) : (!hop.tensor<[5], f32>) -> !hop.tensor<[4], f32>
  func.return %r : !hop.tensor<[4], f32>
}

// -----

kernel.kernel @neg "pointwise" {
^bb0(%a: !hop.tensor<[4], f32>):
  %n = aten.neg(%a) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
  kernel.yield %n : !hop.tensor<[4], f32>
}
func.func @buffer_type(%x: !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32> {
  %b = kernel.alloc() : () -> !kernel.buffer<[4], f64, [1], cpu>
  // expected-error @+1 {{'kernel.launch' op of @neg: buffer #0 %b has type !kernel.buffer<[4], f64, [1], cpu>, which cannot hold result #0 of type !hop.tensor<[4], f32>}}
  %r = kernel.launch @neg(%x) into(%b : !kernel.buffer<[4], f64, [1], cpu>) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
  func.return %r : !hop.tensor<[4], f32>
}

// -----

// expected-error @+1 {{'kernel.kernel' op @two has unknown kind 'fancy' (expected one of pointwise, reduction, extern)}}
kernel.kernel @two "fancy" {
^bb0(%a: !hop.tensor<[4], f32>):
  kernel.yield %a : !hop.tensor<[4], f32>
}

// -----

// expected-error @+1 {{'kernel.kernel' op @two: an extern kernel holds exactly one op, found 2}}
kernel.kernel @two "extern" {
^bb0(%a: !hop.tensor<[4], f32>):
  %n = aten.neg(%a) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
  %m = aten.neg(%n) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
  kernel.yield %m : !hop.tensor<[4], f32>
}

// -----

hop.symbol @s0 backed [2, oo] hint 5
// expected-error @+1 {{'kernel.kernel' op @sizes_first: argument %n has type !hop.tensor<[4], f32>, expected tensors first, then !hop.symint (or !hop.symfloat) sizes}}
kernel.kernel @sizes_first "pointwise" {
^bb0(%s: !hop.symint<s0>, %n: !hop.tensor<[4], f32>):
  kernel.yield %n : !hop.tensor<[4], f32>
}

// -----

hop.symbol @s0 backed [2, oo] hint 5
func.func @alloc_sizes(%x: !hop.tensor<[s0], f32>) {
  // expected-error @+1 {{'kernel.alloc' op of !kernel.buffer<[s0], f32, [1], cpu> needs the sizes s0 as operands}}
  %b = kernel.alloc() : () -> !kernel.buffer<[s0], f32, [1], cpu>
  func.return
}

// -----

// expected-error @+1 {{!kernel.buffer has 1 dimensions but 2 strides}}
func.func @strides(%b: !kernel.buffer<[4], f32, [1, 1], cpu>) {
  func.return
}

// -----

// expected-error @+1 {{!kernel.buffer has unknown device 'tpu' (expected one of cpu, cuda)}}
func.func @device(%b: !kernel.buffer<[4], f32, [1], tpu>) {
  func.return
}
