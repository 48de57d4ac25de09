// RUN: hopc-opt %s --split-input-file --verify-diagnostics

// Every verifier message about entry points and the roles of their arguments
// and results (Note [entry signature] in dialects/hop_module.py); each names
// the function, the argument or result, and both types where there are two.

// An entry names a function of the module.
// expected-error @+1 {{'hop.entry' op forward names @nowhere, which is not a func.func of the module}}
hop.entry forward @nowhere
func.func @forward(%x: !hop.tensor<[4], f32>) {
  func.return
}

// -----

// An entry names a func.func, not another kind of symbol.
hop.parameter @weight : !hop.tensor<[4], f32>
// expected-error @+1 {{'hop.entry' op forward names @weight, which is not a func.func of the module}}
hop.entry forward @weight

// -----

// The kinds are forward, backward and joint.
// expected-error @+1 {{expected an entry kind (forward, backward, joint)}}
hop.entry sideways @forward

// -----

// The generic form is checked for the kind too.
// expected-error @+1 {{'hop.entry' op kind must be one of forward, backward, joint, got 'sideways'}}
"hop.entry"() <{kind = "sideways", function = @forward}> : () -> ()
func.func @forward() {
  func.return
}

// -----

// Each kind is named at most once; the second is the error.
hop.entry forward @first
// expected-error @+1 {{'hop.entry' op forward @second: the module already names @first as its forward entry}}
hop.entry forward @second
func.func @first() {
  func.return
}
func.func @second() {
  func.return
}

// -----

// A backward differentiates the forward, which the module must name.
// expected-error @+1 {{'hop.entry' op backward @backward needs a hop.entry forward}}
hop.entry backward @backward
func.func @backward() {
  func.return
}

// -----

// The backward takes every value the forward saves: here one of two.
hop.entry forward @forward
hop.entry backward @backward
func.func @forward(%x: !hop.tensor<[4], f32> {hop.requires_grad}) -> (!hop.tensor<[4], f32>, !hop.tensor<[4], f32> {hop.saved = 0 : i64}, !hop.tensor<[4], f32> {hop.saved = 1 : i64}) {
  func.return %x, %x, %x : !hop.tensor<[4], f32>, !hop.tensor<[4], f32>, !hop.tensor<[4], f32>
}
// expected-error @+1 {{'func.func' op @backward takes 1 saved values, @forward saves 2: no argument takes hop.saved = 1 (@forward result 2)}}
func.func @backward(%a: !hop.tensor<[4], f32> {hop.saved = 0 : i64}) {
  func.return
}

// -----

// The backward takes no saved value the forward does not save.
hop.entry forward @forward
hop.entry backward @backward
func.func @forward(%x: !hop.tensor<[4], f32>) -> (!hop.tensor<[4], f32> {hop.saved = 0 : i64}) {
  func.return %x : !hop.tensor<[4], f32>
}
// expected-error @+1 {{'func.func' op @backward argument 1 (hop.saved = 1): @forward saves no such value}}
func.func @backward(%a: !hop.tensor<[4], f32> {hop.saved = 0 : i64}, %b: !hop.tensor<[4], f32> {hop.saved = 1 : i64}) {
  func.return
}

// -----

// A saved value has the same type on both sides.
hop.entry forward @forward
hop.entry backward @backward
func.func @forward(%x: !hop.tensor<[4], f32>) -> (!hop.tensor<[4], f32> {hop.saved = 0 : i64}) {
  func.return %x : !hop.tensor<[4], f32>
}
// expected-error @+1 {{'func.func' op @backward argument 0 (hop.saved = 0) has type !hop.tensor<[4], f64>, but @forward result 0 has type !hop.tensor<[4], f32>}}
func.func @backward(%a: !hop.tensor<[4], f64> {hop.saved = 0 : i64}) {
  func.return
}

// -----

// The backward takes each saved value once.
hop.entry forward @forward
hop.entry backward @backward
func.func @forward(%x: !hop.tensor<[4], f32>) -> (!hop.tensor<[4], f32> {hop.saved = 0 : i64}) {
  func.return %x : !hop.tensor<[4], f32>
}
// expected-error @+1 {{'func.func' op @backward argument 1 (hop.saved = 0): argument 0 has the same role}}
func.func @backward(%a: !hop.tensor<[4], f32> {hop.saved = 0 : i64}, %b: !hop.tensor<[4], f32> {hop.saved = 0 : i64}) {
  func.return
}

// -----

// A forward's saved values are numbered 0..n-1: one saved value is number 0.
hop.entry forward @forward
// expected-error @+1 {{'func.func' op @forward result 0: hop.saved = 1, but its 1 saved values are numbered 0..0}}
func.func @forward(%x: !hop.tensor<[4], f32>) -> (!hop.tensor<[4], f32> {hop.saved = 1 : i64}) {
  func.return %x : !hop.tensor<[4], f32>
}

// -----

// A forward saves each number once.
// expected-error @+1 {{'func.func' op @forward result 1: saved value 0 is already result 0}}
func.func @forward(%x: !hop.tensor<[4], f32>) -> (!hop.tensor<[4], f32> {hop.saved = 0 : i64}, !hop.tensor<[4], f32> {hop.saved = 0 : i64}) {
  func.return %x, %x : !hop.tensor<[4], f32>, !hop.tensor<[4], f32>
}

// -----

// A cotangent is of a user output of the forward; result 1 is a saved value.
hop.entry forward @forward
hop.entry backward @backward
func.func @forward(%x: !hop.tensor<[4], f32>) -> (!hop.tensor<[4], f32>, !hop.tensor<[4], f32> {hop.saved = 0 : i64}) {
  func.return %x, %x : !hop.tensor<[4], f32>, !hop.tensor<[4], f32>
}
// expected-error @+1 {{'func.func' op @backward argument 1 (hop.cotangent_of = 1): @forward has no such user output}}
func.func @backward(%a: !hop.tensor<[4], f32> {hop.saved = 0 : i64}, %ct: !hop.tensor<[4], f32> {hop.cotangent_of = 1 : i64}) {
  func.return
}

// -----

// A cotangent has the type of its output.
hop.entry forward @forward
hop.entry backward @backward
func.func @forward(%x: !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32> {
  func.return %x : !hop.tensor<[4], f32>
}
// expected-error @+1 {{'func.func' op @backward argument 0 (hop.cotangent_of = 0) has type !hop.tensor<[2, 2], f32>, but @forward result 0 has type !hop.tensor<[4], f32>}}
func.func @backward(%ct: !hop.tensor<[2, 2], f32> {hop.cotangent_of = 0 : i64}) {
  func.return
}

// -----

// A gradient is of an argument that requires grad; argument 1 does not.
hop.entry forward @forward
hop.entry backward @backward
func.func @forward(%x: !hop.tensor<[4], f32> {hop.requires_grad}, %y: !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32> {
  func.return %x : !hop.tensor<[4], f32>
}
// expected-error @+1 {{'func.func' op @backward result 0 (hop.gradient_of = 1): @forward has no such argument marked hop.requires_grad}}
func.func @backward(%ct: !hop.tensor<[4], f32> {hop.cotangent_of = 0 : i64}) -> (!hop.tensor<[4], f32> {hop.gradient_of = 1 : i64}) {
  func.return %ct : !hop.tensor<[4], f32>
}

// -----

// A gradient has the type of its argument.
hop.entry joint @joint
// expected-error @+1 {{'func.func' op @joint result 1 (hop.gradient_of = 0) has type !hop.tensor<[4], f64>, but @joint argument 0 has type !hop.tensor<[4], f32>}}
func.func @joint(%x: !hop.tensor<[4], f32> {hop.requires_grad}) -> (!hop.tensor<[4], f32>, !hop.tensor<[4], f64> {hop.gradient_of = 0 : i64}) {
  %g = aten._to_copy(%x) {dtype = f64} : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f64>
  func.return %x, %g : !hop.tensor<[4], f32>, !hop.tensor<[4], f64>
}

// -----

// A forward takes no saved values: those are a backward's arguments.
// expected-error @+1 {{'func.func' op @forward argument 0: a forward entry takes no hop.saved argument}}
func.func @forward(%x: !hop.tensor<[4], f32> {hop.saved = 0 : i64}) {
  func.return
}

// -----

// A backward returns gradients, not saved values.
hop.entry forward @forward
hop.entry backward @backward
func.func @forward(%x: !hop.tensor<[4], f32>) {
  func.return
}
// expected-error @+1 {{'func.func' op @backward result 0: a backward entry returns no hop.saved result}}
func.func @backward(%ct: !hop.tensor<[4], f32>) -> (!hop.tensor<[4], f32> {hop.saved = 0 : i64}) {
  func.return %ct : !hop.tensor<[4], f32>
}

// -----

// requires_grad marks a user input or a parameter, not a buffer.
hop.buffer @mean : !hop.tensor<[4], f32>
// expected-error @+1 {{'func.func' op argument 0: hop.requires_grad marks a user input or a parameter, not a hop.buffer argument}}
func.func @forward(%m: !hop.tensor<[4], f32> {hop.buffer = @mean, hop.requires_grad}) {
  func.return
}

// -----

// A result has one role.
// expected-error @+1 {{'func.func' op result 0 has several roles ['hop.copy_back_to', 'hop.saved']}}
func.func @forward(%x: !hop.tensor<[4], f32>) -> (!hop.tensor<[4], f32> {hop.copy_back_to = 0 : i64, hop.saved = 0 : i64}) {
  func.return %x : !hop.tensor<[4], f32>
}

// -----

// An index role is a non-negative integer.
// expected-error @+1 {{'func.func' op result 0: hop.saved must be a non-negative integer, got "zero"}}
func.func @forward(%x: !hop.tensor<[4], f32>) -> (!hop.tensor<[4], f32> {hop.saved = "zero"}) {
  func.return %x : !hop.tensor<[4], f32>
}

