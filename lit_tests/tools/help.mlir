// RUN: hopc-opt --help | filecheck %s
// RUN: hopc-opt -h | filecheck %s
// RUN: hopc-opt --help | filecheck %s --check-prefix=ONLY-HONOURED

// `--help` exits 0 and lists each pass as a flag with a one-line summary
// (the first line of the pass's docstring) on the flag's own line, and the
// driver's own flags.

// CHECK:       usage: hopc-opt
// CHECK-DAG:     -o OUTPUT_FILE, --output-file OUTPUT_FILE
// CHECK-DAG:     --split-input-file
// CHECK-DAG:     --verify-diagnostics
// CHECK-DAG:     --pass-pipeline PASS_PIPELINE
// CHECK-DAG:     -v, --version
// CHECK:       passes (run in the order given):
// CHECK-DAG:     --canonicalize {{ *}}{{[A-Z][a-z]+ .*}}
// CHECK-DAG:     --cse {{ *}}{{[A-Z][a-z]+ .*}}
// CHECK-DAG:     --dce {{ *}}{{[A-Z][a-z]+ .*}}

// xdsl-opt's flags that hopc-opt does not honour are not offered.
// ONLY-HONOURED-NOT: --target
// ONLY-HONOURED-NOT: --frontend
// ONLY-HONOURED-NOT: --time-passes
// ONLY-HONOURED-NOT: --shrink
