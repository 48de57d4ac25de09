// Malformed input of any kind gives one diagnostic on stderr,
// `file:line:col: error: ...` where the input has a position and
// `hopc-opt: error: ...` where it does not, and a failing exit status; never a
// Python traceback. (The inputs avoid `%`, which lit would substitute.)

// RUN: rm -rf %t && mkdir -p %t

// A syntax error: `(` opens an argument list that never closes.
// RUN: printf 'func.func @f( {\n' > %t/syntax.mlir
// RUN: not hopc-opt %t/syntax.mlir 2>&1 | filecheck %s --check-prefix=SYNTAX
// SYNTAX-NOT:  Traceback
// SYNTAX:      syntax.mlir:1:15: error: Expected argument or type
// SYNTAX-NOT:  Traceback

// An op no dialect defines, on line 2.
// RUN: printf 'func.func @f() {\n  "foo.bar"() : () -> ()\n  func.return\n}\n' > %t/unknown_op.mlir
// RUN: not hopc-opt %t/unknown_op.mlir 2>&1 | filecheck %s --check-prefix=UNKNOWN-OP
// UNKNOWN-OP-NOT:  Traceback
// UNKNOWN-OP:      unknown_op.mlir:2:{{[0-9]+}}: error: Operation foo.bar is not registered
// UNKNOWN-OP-NOT:  Traceback

// A tensor type whose shape's `]` is missing: the error is at the `>` found
// instead and names where the `[` is.
// RUN: printf 'hop.parameter @w : !hop.tensor<[4, f32>\n' > %t/bad_type.mlir
// RUN: not hopc-opt %t/bad_type.mlir 2>&1 | filecheck %s --check-prefix=BAD-TYPE
// BAD-TYPE-NOT:  Traceback
// BAD-TYPE:      bad_type.mlir:1:39: error: '[' at 1:32 is not closed: expected ']', found '>'
// BAD-TYPE-NOT:  Traceback

// A malformed dimension expression points at the fault inside the type.
// RUN: printf 'hop.symbol @s0 backed [1, oo]\nhop.parameter @w : !hop.tensor<[s0 * * 2], f32>\n' > %t/bad_dim.mlir
// RUN: not hopc-opt %t/bad_dim.mlir 2>&1 | filecheck %s --check-prefix=BAD-DIM
// BAD-DIM-NOT:  Traceback
// BAD-DIM:      bad_dim.mlir:2:38: error: malformed dimension 's0 * * 2': expected an expression, found '*'
// BAD-DIM-NOT:  Traceback

// A string literal that never closes, on a long line (this once hung the lexer).
// RUN: printf 'hop.symbol @s0 backed [1, oo]\nhop.symbol @s1 backed [1, oo] {hop.note = "the batch size, as the program was traced by dynamo}\n' > %t/unterminated.mlir
// RUN: not hopc-opt %t/unterminated.mlir 2>&1 | filecheck %s --check-prefix=STRING
// STRING-NOT:  Traceback
// STRING:      unterminated.mlir:2:43: error: End of file reached before closing string literal.
// STRING-NOT:  Traceback

// An empty file, or one of comments or type aliases only, is an empty module
// (as in MLIR), which has no entry function.
// RUN: printf '' > %t/empty.mlir
// RUN: not hopc-opt %t/empty.mlir 2>&1 | filecheck %s --check-prefix=EMPTY
// RUN: printf '// only a comment\n' > %t/comment_only.mlir
// RUN: not hopc-opt %t/comment_only.mlir 2>&1 | filecheck %s --check-prefix=EMPTY
// RUN: printf '!t = !hop.tensor<[4], f32>\n' > %t/aliases_only.mlir
// RUN: not hopc-opt %t/aliases_only.mlir 2>&1 | filecheck %s --check-prefix=EMPTY
// EMPTY-NOT:  Traceback
// EMPTY:      {{empty|comment_only|aliases_only}}.mlir:1:1: error: a hop module needs exactly one public func.func, found 0
// EMPTY-NOT:  Traceback

// Binary junk: the first byte that is not UTF-8 is located.
// RUN: printf 'ab\n\x89PNG\r\n\x1a\n\x00\xff\xfe' > %t/junk.mlir
// RUN: not hopc-opt %t/junk.mlir 2>&1 | filecheck %s --check-prefix=JUNK
// JUNK-NOT:  Traceback
// JUNK:      junk.mlir:2:1: error: input is not UTF-8 text (byte 0x89)
// JUNK-NOT:  Traceback

// Binary junk that is valid UTF-8 is a syntax error.
// RUN: printf '\x01\x02\x03 \xe2\x82\xac\n' > %t/control.mlir
// RUN: not hopc-opt %t/control.mlir 2>&1 | filecheck %s --check-prefix=CONTROL
// CONTROL-NOT:  Traceback
// CONTROL:      control.mlir:1:1: error: Unexpected character
// CONTROL-NOT:  Traceback

// A file that does not exist has no position.
// RUN: not hopc-opt %t/missing.mlir 2>&1 | filecheck %s --check-prefix=MISSING
// MISSING-NOT:  Traceback
// MISSING:      hopc-opt: error: cannot read input file '{{.*}}missing.mlir': No such file or directory
// MISSING-NOT:  Traceback

// Neither does a directory.
// RUN: not hopc-opt %t 2>&1 | filecheck %s --check-prefix=DIRECTORY
// DIRECTORY-NOT:  Traceback
// DIRECTORY:      hopc-opt: error: cannot read input file '{{.*}}': Is a directory
// DIRECTORY-NOT:  Traceback

// An output file that cannot be created.
// RUN: printf 'func.func @f() {\n  func.return\n}\n' > %t/ok.mlir
// RUN: not hopc-opt %t/ok.mlir -o %t/no/such/dir/out.mlir 2>&1 | filecheck %s --check-prefix=OUTPUT
// OUTPUT-NOT:  Traceback
// OUTPUT:      hopc-opt: error: cannot write output file '{{.*}}out.mlir': No such file or directory
// OUTPUT-NOT:  Traceback

// A pass that does not exist, in --pass-pipeline and in -p.
// RUN: not hopc-opt %t/ok.mlir --pass-pipeline='builtin.module(canonicalize,no-such-pass)' 2>&1 | filecheck %s --check-prefix=PASS
// RUN: not hopc-opt %t/ok.mlir -p no-such-pass 2>&1 | filecheck %s --check-prefix=PASS
// PASS-NOT:  Traceback
// PASS:      hopc-opt: error: Unrecognized passes: ['no-such-pass']
// PASS-NOT:  Traceback

// A pipeline that does not parse.
// RUN: not hopc-opt %t/ok.mlir --pass-pipeline='builtin.module(canonicalize' 2>&1 | filecheck %s --check-prefix=PIPELINE
// PIPELINE-NOT:  Traceback
// PIPELINE:      hopc-opt: error: Error parsing pass pipeline specification:
// PIPELINE-NOT:  Traceback

// An option a pass does not have.
// RUN: not hopc-opt %t/ok.mlir --pass-pipeline='cse{bogus=1}' 2>&1 | filecheck %s --check-prefix=PASS-OPTION
// PASS-OPTION-NOT:  Traceback
// PASS-OPTION:      hopc-opt: error: {{.*}}bogus
// PASS-OPTION-NOT:  Traceback
