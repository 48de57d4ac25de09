// REQUIRES: mlir-opt
// RUN: hopc-opt %s --print-op-generic | %mlir-opt --allow-unregistered-dialect | filecheck %s

// Real MLIR reads hopc's generic form of a module with a dense_resource
// constant: the attribute and the file's resource section are MLIR's own, so
// mlir-opt keeps the blob and prints it back byte for byte.

// CHECK:      "hop.constant"() <{sym_name = "weight", type = !hop.tensor<[4], f32>, value = dense_resource<weight> : tensor<4xf32>}> : () -> ()
// CHECK:      "hop.get_constant"() <{constant = @weight}> : () -> !hop.tensor<[4], f32>
// CHECK:      {-#
// CHECK-NEXT:   dialect_resources: {
// CHECK-NEXT:     builtin: {
// CHECK-NEXT:       weight: "0x040000000000803F000000400000404000008040"
// CHECK-NEXT:     }
// CHECK-NEXT:   }
// CHECK-NEXT: #-}
hop.constant @weight = dense_resource<weight> : tensor<4xf32> : !hop.tensor<[4], f32>
func.func @forward() -> !hop.tensor<[4], f32> {
  %w = hop.get_constant @weight : !hop.tensor<[4], f32>
  func.return %w : !hop.tensor<[4], f32>
}

{-#
  dialect_resources: {
    builtin: {
      weight: "0x040000000000803F000000400000404000008040"
    }
  }
#-}
