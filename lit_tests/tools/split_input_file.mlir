// RUN: not hopc-opt %s --split-input-file 2> %t.stderr | filecheck %s
// RUN: filecheck %s --check-prefix=ERRORS --input-file %t.stderr
// RUN: rm -f %t.out
// RUN: not hopc-opt %s --split-input-file -o %t.out
// RUN: not ls %t.out

// With --split-input-file each chunk is a module of its own, and an error's
// line is its line in the whole file. As in mlir-opt, a chunk's error does not
// stop the others: every chunk's error is reported, the output has one entry
// per chunk (empty where it failed), and -o writes no file when any failed.

// ERRORS-NOT:  Traceback

// CHECK:       func.func @fine
// CHECK:       // -----
// CHECK-NEXT:  // -----
// CHECK-NEXT:  // -----
// CHECK-NEXT:  builtin.module {
// CHECK-NEXT:    func.func @also_fine

func.func @fine(%x: !hop.tensor<[4], f32>) {
  %y = aten.relu(%x) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
  func.return
}

// -----

func.func @broken(%x: !hop.tensor<[4], f32>) {
  %y = aten.relu(%x) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
  // ERRORS: split_input_file.mlir:[[# @LINE + 1]]:3: error: 'aten.view' op requires argument 'size' (SymInt[])
  %z = aten.view(%y) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
  func.return
}

// -----

func.func @also_broken(%x: !hop.tensor<[4], f32>) {
  // ERRORS-NEXT: split_input_file.mlir:[[# @LINE + 1]]:3: error: 'aten.view' op requires argument 'size' (SymInt[])
  %z = aten.view(%x) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
  func.return
}
// ERRORS-NOT:  error:

// -----

func.func @also_fine() {
  func.return
}
