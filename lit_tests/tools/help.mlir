// RUN: hopc-opt --help | filecheck %s
// RUN: hopc-opt -h | filecheck %s

// `--help` exits 0 and lists each pass as a flag with a one-line summary
// (the first line of the pass's docstring) on the flag's own line.

// CHECK:       usage: hopc-opt
// CHECK:       passes (run in the order given):
// CHECK-DAG:     --canonicalize {{ *}}{{[A-Z][a-z]+ .*}}
// CHECK-DAG:     --cse {{ *}}{{[A-Z][a-z]+ .*}}
// CHECK-DAG:     --dce {{ *}}{{[A-Z][a-z]+ .*}}
