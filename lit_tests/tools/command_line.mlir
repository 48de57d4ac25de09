// A bad command line is one line on stderr that names the argument, with a
// hint, and exit status 1, like every other hopc-opt error (argparse's usage
// dump and status 2 never show). As in mlir-opt, flags are written in full,
// and only the flags hopc-opt honours exist.

// RUN: not hopc-opt --no-such-flag %s 2> %t.unknown
// RUN: filecheck %s --check-prefix=UNKNOWN --input-file %t.unknown --match-full-lines
// UNKNOWN:      hopc-opt: error: unknown command line argument '--no-such-flag'; see 'hopc-opt --help'
// UNKNOWN-NOT:  {{.}}

// An abbreviation of --canonicalize is no flag; the flag it is close to is suggested.
// RUN: not hopc-opt --canon %s 2>&1 | filecheck %s --check-prefix=ABBREVIATION
// ABBREVIATION: hopc-opt: error: unknown command line argument '--canon' (did you mean '--canonicalize'?); see 'hopc-opt --help'

// xdsl-opt's flags that hopc-opt would ignore are not accepted either.
// RUN: not hopc-opt --target=wgsl %s 2>&1 | filecheck %s --check-prefix=XDSL
// XDSL: hopc-opt: error: unknown command line argument '--target=wgsl'; see 'hopc-opt --help'

// RUN: not hopc-opt %s %s 2>&1 | filecheck %s --check-prefix=TWO-INPUTS
// TWO-INPUTS: hopc-opt: error: more than one input file: '{{.*}}command_line.mlir'; see 'hopc-opt --help'

// RUN: not hopc-opt %s -o 2>&1 | filecheck %s --check-prefix=NO-VALUE
// NO-VALUE: hopc-opt: error: argument -o/--output-file: expected one argument; see 'hopc-opt --help'

// RUN: hopc-opt --version | filecheck %s --check-prefix=VERSION
// VERSION: hopc-opt (hopc {{[0-9.]+}}), built on xDSL {{[0-9.]+}}

func.func @f() {
  func.return
}
