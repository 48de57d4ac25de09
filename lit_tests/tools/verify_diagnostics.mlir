// RUN: hopc-opt %s --split-input-file --verify-diagnostics
// RUN: not hopc-opt %s --split-input-file 2>&1 | filecheck %s --check-prefix=PLAIN
// RUN: sed -e 's/{{requires argument .size.}}/{{requires nothing}}/' %s > %t.mlir
// RUN: not hopc-opt %t.mlir --split-input-file --verify-diagnostics 2>&1 | filecheck %s --check-prefix=MISMATCH

// --verify-diagnostics passes when each chunk produces exactly the errors its
// `expected-error` annotations name, and otherwise reports each unexpected
// error and each expected one that did not appear.

// PLAIN:        verify_diagnostics.mlir:18:3: error: 'aten.view' op requires argument 'size' (SymInt[])

// MISMATCH:     error: 'aten.view' op requires argument 'size' (SymInt[])
// MISMATCH-NEXT:  (unexpected error)
// MISMATCH-NEXT: error: expected error "requires nothing" on line 18 was not produced

func.func @view_without_size(%x: !hop.tensor<[4], f32>) {
  // expected-error @+1 {{requires argument 'size'}}
  %z = aten.view(%x) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
  func.return
}

// -----

func.func @valid(%x: !hop.tensor<[4], f32>) {
  func.return
}
