// RUN: not hopc-opt %s --split-input-file 2>&1 | filecheck %s

// With --split-input-file each chunk is a module of its own, and an error's
// line is its line in the whole file. Processing stops at the first error.

// CHECK-NOT:   Traceback
// CHECK:       split_input_file.mlir:20:3: error: 'aten.view' op requires argument 'size' (SymInt[])
// CHECK-NOT:   error:

func.func @fine(%x: !hop.tensor<[4], f32>) {
  %y = aten.relu(%x) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
  func.return
}

// -----

func.func @broken(%x: !hop.tensor<[4], f32>) {
  %y = aten.relu(%x) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
  // The missing argument is on the next line, line 20 of this file.
  %z = aten.view(%y) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
  func.return
}

// -----

func.func @also_broken(%x: !hop.tensor<[4], f32>) {
  %z = aten.view(%x) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
  func.return
}
