// RUN: hopc-opt %s --split-input-file --verify-diagnostics | filecheck %s
// RUN: not hopc-opt %s --split-input-file 2>&1 | filecheck %s --check-prefix=PLAIN
// RUN: sed -e 's/{{requires argument .size.}}/{{requires nothing}}/' %s > %t.mlir
// RUN: not hopc-opt %t.mlir --split-input-file --verify-diagnostics 2>&1 | filecheck %s --check-prefix=MISMATCH
// RUN: sed -e 's/expected-error @+1 {{requires argument/expected-note @+1 {{requires argument/' %s > %t.note.mlir
// RUN: not hopc-opt %t.note.mlir --split-input-file --verify-diagnostics 2>&1 | filecheck %s --check-prefix=NOTE

// --verify-diagnostics passes when each chunk produces exactly the errors its
// `expected-error` annotations name, and otherwise reports, in mlir-opt's
// words, each unexpected error (at the error) and each expected one that did
// not appear (at its annotation). As in mlir-opt, the chunks that pass are
// printed, one output per chunk, empty for a chunk that failed as expected.

// CHECK:       // -----
// CHECK-NEXT:  builtin.module {
// CHECK-NEXT:    func.func @valid

// PLAIN:        verify_diagnostics.mlir:[[# @LINE + 9]]:3: error: 'aten.view' op requires argument 'size' (SymInt[])

// MISMATCH:      verify_diagnostics.mlir.tmp.mlir:[[# @LINE + 7]]:3: error: unexpected error: 'aten.view' op requires argument 'size' (SymInt[])
// MISMATCH-NEXT: verify_diagnostics.mlir.tmp.mlir:[[# @LINE + 5]]:6: error: expected error "requires nothing" was not produced

// NOTE:          error: unexpected error: 'aten.view' op requires argument 'size'
// NOTE-NEXT:     error: expected note "requires argument 'size'" was not produced
func.func @view_without_size(%x: !hop.tensor<[4], f32>) {
  // expected-error @+1 {{requires argument 'size'}}
  %z = aten.view(%x) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
  func.return
}

// -----

func.func @valid(%x: !hop.tensor<[4], f32>) {
  func.return
}
