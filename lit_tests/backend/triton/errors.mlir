// Malformed input and kernels no generated code covers give one diagnostic,
// `file:line:col: error: ...`, and exit status 1; never a Python traceback.

// RUN: rm -rf %t && mkdir -p %t

// A syntax error.
// RUN: printf 'kernel.kernel @k "pointwise" {\n' > %t/syntax.mlir
// RUN: not hopc-translate --emit-triton %t/syntax.mlir 2>&1 | filecheck %s --check-prefix=SYNTAX
// SYNTAX-NOT:  Traceback
// SYNTAX:      syntax.mlir:{{[0-9]+}}:{{[0-9]+}}: error:
// SYNTAX-NOT:  Traceback

// No flag: a usage error.
// RUN: not hopc-translate %s 2>&1 | filecheck %s --check-prefix=USAGE
// USAGE: hopc-translate: error: the following arguments are required: --emit-triton; see 'hopc-translate --help'

// A reduction over the first dimension is no generated kernel: located at the op.
// RUN: not hopc-translate --emit-triton %s 2>&1 | filecheck %s --check-prefix=CANNOT
// CANNOT-NOT: Traceback
// CANNOT:     errors.mlir:24:{{[0-9]+}}: error: 'aten.sum.dim_IntList' op cannot be generated as Triton
// CANNOT-NOT: Traceback
kernel.kernel @columns "reduction" {
^bb0(%x: !hop.tensor<[4, 8], f32>):
  %s = aten.sum.dim_IntList(%x) {dim = [0]} : (!hop.tensor<[4, 8], f32>) -> !hop.tensor<[8], f32>
  kernel.yield %s : !hop.tensor<[8], f32>
}
