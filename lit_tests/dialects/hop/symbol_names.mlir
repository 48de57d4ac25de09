// RUN: hopc-opt %s --split-input-file | filecheck %s
// RUN: hopc-opt %s --split-input-file | hopc-opt --split-input-file | filecheck %s

// Symbol names that are not identifiers print quoted, as MLIR prints them, so a
// name can never print as IR the input did not hold; the second RUN parses the
// printed form back and expects it unchanged.

// A name holding a newline and the text of a function prints as one quoted
// symbol: no @evil function appears.
// CHECK-LABEL: builtin.module
// CHECK-NEXT:    hop.symbol @"s0 backed [1, 2]\0A  func.func @evil() {" backed [0, 10]{{$}}
// CHECK-NEXT:    hop.parameter @"w x" : !hop.tensor<[4], f32>{{$}}
// CHECK-NEXT:    func.func @forward(
// CHECK-NOT:     @evil()
hop.symbol @"s0 backed [1, 2]\n  func.func @evil() {" backed [0, 10]
hop.parameter @"w x" : !hop.tensor<[4], f32>
func.func @forward(%x: !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32> {
  func.return %x : !hop.tensor<[4], f32>
}

// -----

// An identifier prints bare, in the integer and the float form.
// CHECK-LABEL: builtin.module
// CHECK-NEXT:    hop.symbol @s0 backed [2, oo]{{$}}
// CHECK-NEXT:    hop.symbol @zf0 unbacked float{{$}}
hop.symbol @s0 backed [2, oo]
hop.symbol @zf0 unbacked float
func.func @plain(%x: !hop.tensor<[s0], f32>) -> !hop.tensor<[s0], f32> {
  func.return %x : !hop.tensor<[s0], f32>
}
