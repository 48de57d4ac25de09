// Where hopc-opt reads and writes: `-` (or no file) is stdin, `-o` writes the
// file and nothing to stdout, and --split-input-file prints one module per
// chunk, separated by `// -----`.

// RUN: rm -rf %t && mkdir -p %t
// RUN: hopc-opt %s --split-input-file | filecheck %s
// RUN: hopc-opt - --split-input-file < %s | filecheck %s
// RUN: hopc-opt --split-input-file < %s | filecheck %s
// RUN: hopc-opt %s --split-input-file -o %t/out.mlir > %t/stdout.txt
// RUN: filecheck %s --input-file %t/out.mlir
// RUN: filecheck %s --check-prefix=NOTHING --input-file %t/stdout.txt --allow-empty

// CHECK:       builtin.module {
// CHECK-NEXT:    func.func @first() {
// CHECK-NEXT:      func.return
// CHECK-NEXT:    }
// CHECK-NEXT:  }
// CHECK-NEXT:  // -----
// CHECK-NEXT:  builtin.module {
// CHECK-NEXT:    func.func private @second()
// CHECK-NEXT:    func.func @third() {
// CHECK:         }
// CHECK-NEXT:  }
// CHECK-NOT:   // -----

// NOTHING-NOT: {{.}}

func.func @first() {
  func.return
}

// -----

func.func private @second()
func.func @third() {
  func.call @second() : () -> ()
  func.return
}
