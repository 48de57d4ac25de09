// RUN: hopc-opt %s --split-input-file | filecheck %s
// RUN: hopc-opt %s --split-input-file --print-op-generic | filecheck %s --check-prefix=GENERIC
// RUN: hopc-opt %s --split-input-file --print-op-generic | hopc-opt --split-input-file | filecheck %s
// RUN: hopc-opt %s --split-input-file --cse --dce | filecheck %s --check-prefix=CSE

// Module constants (hop.constant, inline or dense_resource), their reads
// (hop.get_constant), and the optional values of parameters and buffers, in
// custom and generic form; the third RUN parses the generic form back, blobs
// included. A read names its constant by symbol, so it may sit in an isolated
// region. The last RUN checks that reads are pure: --cse merges two reads of
// one constant and --dce drops an unused one.

// A small constant is inline; reads in the entry and in a cond branch.
// CHECK-LABEL: hop.constant @offset = dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32> : !hop.tensor<[2], f32>
// CHECK:         func.func @forward
// CHECK:           %[[C:.*]] = hop.get_constant @offset : !hop.tensor<[2], f32>
// CHECK:           hop.cond
// CHECK:             %[[INNER:.*]] = hop.get_constant @offset : !hop.tensor<[2], f32>
// CHECK-NEXT:        aten.add.Tensor(%{{.*}}, %[[INNER]])
// GENERIC-LABEL: "hop.constant"() <{sym_name = "offset", value = dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>, type = !hop.tensor<[2], f32>}> : () -> ()
// GENERIC:         "hop.get_constant"() <{constant = @offset}> : () -> !hop.tensor<[2], f32>
// CSE-LABEL:   hop.constant @offset
// CSE:           %[[C:.*]] = hop.get_constant @offset
// CSE-NOT:       hop.get_constant @offset
// CSE:           hop.cond
// CSE:             hop.get_constant @offset
hop.constant @offset = dense<[1.0, 2.0]> : tensor<2xf32> : !hop.tensor<[2], f32>
func.func @forward(%x: !hop.tensor<[2], f32>, %p: !hop.tensor<[], i1>) -> (!hop.tensor<[2], f32>, !hop.tensor<[2], f32>) {
  %c = hop.get_constant @offset : !hop.tensor<[2], f32>
  %again = hop.get_constant @offset : !hop.tensor<[2], f32>
  %unused = hop.get_constant @offset : !hop.tensor<[2], f32>
  %sum = aten.add.Tensor(%c, %again) : (!hop.tensor<[2], f32>, !hop.tensor<[2], f32>) -> !hop.tensor<[2], f32>
  %r = hop.cond %p(%x) : !hop.tensor<[], i1>, (!hop.tensor<[2], f32>) -> !hop.tensor<[2], f32> then {
  ^bb0(%a: !hop.tensor<[2], f32>):
    %inner = hop.get_constant @offset : !hop.tensor<[2], f32>
    %y = aten.add.Tensor(%a, %inner) : (!hop.tensor<[2], f32>, !hop.tensor<[2], f32>) -> !hop.tensor<[2], f32>
    hop.yield %y : !hop.tensor<[2], f32>
  } else {
  ^bb0(%a: !hop.tensor<[2], f32>):
    hop.yield %a : !hop.tensor<[2], f32>
  }
  func.return %sum, %r : !hop.tensor<[2], f32>, !hop.tensor<[2], f32>
}

// -----

// A dense_resource constant: its bytes (a 4-byte alignment, then the
// little-endian floats 1, 2, 3, 4) print in the file's resource section.
// CHECK-LABEL: hop.constant @weight = dense_resource<weight> : tensor<4xf32> : !hop.tensor<[4], f32>
// CHECK:       {-#
// CHECK-NEXT:    dialect_resources: {
// CHECK-NEXT:      builtin: {
// CHECK-NEXT:        weight: "0x040000000000803F000000400000404000008040"
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:  #-}
// GENERIC-LABEL: "hop.constant"() <{sym_name = "weight", value = dense_resource<weight> : tensor<4xf32>, type = !hop.tensor<[4], f32>}> : () -> ()
// GENERIC:       weight: "0x040000000000803F000000400000404000008040"
hop.constant @weight = dense_resource<weight> : tensor<4xf32> : !hop.tensor<[4], f32>
func.func @forward(%x: !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32> {
  %w = hop.get_constant @weight : !hop.tensor<[4], f32>
  %y = aten.mul.Tensor(%x, %w) : (!hop.tensor<[4], f32>, !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
  func.return %y : !hop.tensor<[4], f32>
}

{-#
  dialect_resources: {
    builtin: {
      weight: "0x040000000000803F000000400000404000008040"
    }
  }
#-}

// -----

// Another chunk's blob of the same name holds other bytes (5, 6, 7, 8): the
// blob store keeps one set of bytes per handle, so this one is renamed.
// CHECK-LABEL: hop.constant @weight = dense_resource<weight_1> : tensor<4xf32> : !hop.tensor<[4], f32>
// CHECK:         weight_1: "0x040000000000A0400000C0400000E04000000041"
hop.constant @weight = dense_resource<weight> : tensor<4xf32> : !hop.tensor<[4], f32>
func.func @forward() -> !hop.tensor<[4], f32> {
  %w = hop.get_constant @weight : !hop.tensor<[4], f32>
  func.return %w : !hop.tensor<[4], f32>
}

{-#
  dialect_resources: {
    builtin: {
      weight: "0x040000000000A0400000C0400000E04000000041"
    }
  }
#-}

// -----

// Parameters and buffers may carry their values (what --freeze folds); one
// without a value prints as before.
// CHECK-LABEL: hop.parameter @linear.weight = dense_resource<linear.weight> : tensor<2x2xf32> : !hop.tensor<[2, 2], f32>
// CHECK-NEXT:  hop.parameter @linear.bias : !hop.tensor<[2], f32>
// CHECK-NEXT:  hop.buffer @steps = dense<3> : tensor<i64> : !hop.tensor<[], i64>
// CHECK:         linear.weight: "0x040000000000803F000000400000404000008040"
// GENERIC-LABEL: "hop.parameter"() <{sym_name = "linear.weight", value = dense_resource<linear.weight> : tensor<2x2xf32>, type = !hop.tensor<[2, 2], f32>}> : () -> ()
// GENERIC-NEXT:  "hop.parameter"() <{sym_name = "linear.bias", type = !hop.tensor<[2], f32>}> : () -> ()
// GENERIC-NEXT:  "hop.buffer"() <{sym_name = "steps", value = dense<3> : tensor<i64>, type = !hop.tensor<[], i64>}> : () -> ()
hop.parameter @linear.weight = dense_resource<linear.weight> : tensor<2x2xf32> : !hop.tensor<[2, 2], f32>
hop.parameter @linear.bias : !hop.tensor<[2], f32>
hop.buffer @steps = dense<3> : tensor<i64> : !hop.tensor<[], i64>
func.func @forward(%w: !hop.tensor<[2, 2], f32> {hop.parameter = @linear.weight}, %b: !hop.tensor<[2], f32> {hop.parameter = @linear.bias}, %s: !hop.tensor<[], i64> {hop.buffer = @steps}) -> !hop.tensor<[2], f32> {
  %y = aten.mv(%w, %b) : (!hop.tensor<[2, 2], f32>, !hop.tensor<[2], f32>) -> !hop.tensor<[2], f32>
  func.return %y : !hop.tensor<[2], f32>
}

{-#
  dialect_resources: {
    builtin: {
      linear.weight: "0x040000000000803F000000400000404000008040"
    }
  }
#-}
