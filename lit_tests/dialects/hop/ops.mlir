// RUN: hopc-opt %s --split-input-file | filecheck %s
// RUN: hopc-opt %s --split-input-file --print-op-generic | filecheck %s --check-prefix=GENERIC
// RUN: hopc-opt %s --print-op-generic --split-input-file | hopc-opt --split-input-file | filecheck %s

// Round trip of every hop op, in custom and generic form; the last RUN parses
// the generic form back and expects the custom form unchanged.

// A 0-d bool tensor predicate; both branches take the operands.
// CHECK-LABEL: func.func @cond_tensor_predicate
// CHECK:         %r = hop.cond %p(%x) : !hop.tensor<[], i1>, (!hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32> then {
// CHECK-NEXT:    ^bb0(%t: !hop.tensor<[s0, 4], f32>):
// CHECK-NEXT:      %sin = aten.sin(%t) : (!hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32>
// CHECK-NEXT:      hop.yield %sin : !hop.tensor<[s0, 4], f32>
// CHECK-NEXT:    } else {
// CHECK-NEXT:    ^bb0(%e: !hop.tensor<[s0, 4], f32>):
// CHECK-NEXT:      hop.yield %e : !hop.tensor<[s0, 4], f32>
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %r : !hop.tensor<[s0, 4], f32>
// GENERIC-LABEL: "func.func"() <{sym_name = "cond_tensor_predicate"
// GENERIC:         %r = "hop.cond"(%p, %x) ({
// GENERIC:           "hop.yield"(%sin) : (!hop.tensor<[s0, 4], f32>) -> ()
// GENERIC-NEXT:    }, {
// GENERIC:           "hop.yield"(%e) : (!hop.tensor<[s0, 4], f32>) -> ()
// GENERIC-NEXT:    }) : (!hop.tensor<[], i1>, !hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32>
hop.symbol @s0 backed [2, oo]
func.func @cond_tensor_predicate(%p: !hop.tensor<[], i1>, %x: !hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32> {
  %r = hop.cond %p(%x) : !hop.tensor<[], i1>, (!hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32> then {
  ^bb0(%t: !hop.tensor<[s0, 4], f32>):
    %sin = aten.sin(%t) : (!hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32>
    hop.yield %sin : !hop.tensor<[s0, 4], f32>
  } else {
  ^bb0(%e: !hop.tensor<[s0, 4], f32>):
    hop.yield %e : !hop.tensor<[s0, 4], f32>
  }
  func.return %r : !hop.tensor<[s0, 4], f32>
}

// -----

// A symbolic predicate computed from a shape, two results; a cond without
// operands or results.
// CHECK-LABEL: func.func @cond_symbool_predicate
// CHECK:         %big = hop.sym_gt %n, %four : !hop.symint<s0>, !hop.symint<4> -> !hop.symbool<Gt(s0, 4)>
// CHECK-NEXT:    %[[R0:.*]], %[[R1:.*]] = hop.cond %big(%x) : !hop.symbool<Gt(s0, 4)>, (!hop.tensor<[s0], f32>) -> (!hop.tensor<[s0], f32>, !hop.tensor<[s0], f32>) then {
// CHECK:           hop.yield %cos, %t : !hop.tensor<[s0], f32>, !hop.tensor<[s0], f32>
// CHECK:           hop.yield %e, %e : !hop.tensor<[s0], f32>, !hop.tensor<[s0], f32>
// CHECK:         hop.cond %big() : !hop.symbool<Gt(s0, 4)>, () -> () then {
// CHECK-NEXT:      hop.yield
// CHECK-NEXT:    } else {
// CHECK-NEXT:      hop.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %[[R1]] : !hop.tensor<[s0], f32>
// GENERIC-LABEL: "func.func"() <{sym_name = "cond_symbool_predicate"
// GENERIC:         "hop.cond"(%big, %x) ({
// GENERIC:         }) : (!hop.symbool<Gt(s0, 4)>, !hop.tensor<[s0], f32>) -> (!hop.tensor<[s0], f32>, !hop.tensor<[s0], f32>)
// GENERIC:         "hop.cond"(%big) ({
// GENERIC:         }) : (!hop.symbool<Gt(s0, 4)>) -> ()
hop.symbol @s0 backed [2, oo]
func.func @cond_symbool_predicate(%x: !hop.tensor<[s0], f32>) -> !hop.tensor<[s0], f32> {
  %n = hop.sym_size %x[0] : !hop.tensor<[s0], f32> -> !hop.symint<s0>
  %four = hop.sym_constant : !hop.symint<4>
  %big = hop.sym_gt %n, %four : !hop.symint<s0>, !hop.symint<4> -> !hop.symbool<Gt(s0, 4)>
  %r:2 = hop.cond %big(%x) : !hop.symbool<Gt(s0, 4)>, (!hop.tensor<[s0], f32>) -> (!hop.tensor<[s0], f32>, !hop.tensor<[s0], f32>) then {
  ^bb0(%t: !hop.tensor<[s0], f32>):
    %cos = aten.cos(%t) : (!hop.tensor<[s0], f32>) -> !hop.tensor<[s0], f32>
    hop.yield %cos, %t : !hop.tensor<[s0], f32>, !hop.tensor<[s0], f32>
  } else {
  ^bb0(%e: !hop.tensor<[s0], f32>):
    hop.yield %e, %e : !hop.tensor<[s0], f32>, !hop.tensor<[s0], f32>
  }
  hop.cond %big() : !hop.symbool<Gt(s0, 4)>, () -> () then {
    hop.yield
  } else {
    hop.yield
  }
  func.return %r#1 : !hop.tensor<[s0], f32>
}

// -----

// Carried values first, then the loop-invariant additional ones, in both regions.
// CHECK-LABEL: func.func @while_with_additional
// CHECK:         %[[R:.*]], %{{.*}} = hop.while(%x, %i) additional(%w) : (!hop.tensor<[4], f32>, !hop.tensor<[], i64>) -> (!hop.tensor<[4], f32>, !hop.tensor<[], i64>), !hop.tensor<[4, 4], f32> cond {
// CHECK-NEXT:    ^bb0(%cx: !hop.tensor<[4], f32>, %ci: !hop.tensor<[], i64>, %cw: !hop.tensor<[4, 4], f32>):
// CHECK-NEXT:      %go = aten.gt.Scalar(%ci) {other = 0 : i64} : (!hop.tensor<[], i64>) -> !hop.tensor<[], i1>
// CHECK-NEXT:      hop.yield %go : !hop.tensor<[], i1>
// CHECK-NEXT:    } body {
// CHECK-NEXT:    ^bb0(%bx: !hop.tensor<[4], f32>, %bi: !hop.tensor<[], i64>, %bw: !hop.tensor<[4, 4], f32>):
// CHECK:           hop.yield %next, %dec : !hop.tensor<[4], f32>, !hop.tensor<[], i64>
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %[[R]] : !hop.tensor<[4], f32>
// GENERIC-LABEL: "func.func"() <{sym_name = "while_with_additional"
// GENERIC:         "hop.while"(%x, %i, %w) <{operandSegmentSizes = array<i32: 2, 1>}> ({
// GENERIC:           "hop.yield"(%go) : (!hop.tensor<[], i1>) -> ()
// GENERIC-NEXT:    }, {
// GENERIC:           "hop.yield"(%next, %dec) : (!hop.tensor<[4], f32>, !hop.tensor<[], i64>) -> ()
// GENERIC-NEXT:    }) : (!hop.tensor<[4], f32>, !hop.tensor<[], i64>, !hop.tensor<[4, 4], f32>) -> (!hop.tensor<[4], f32>, !hop.tensor<[], i64>)
func.func @while_with_additional(%x: !hop.tensor<[4], f32>, %i: !hop.tensor<[], i64>, %w: !hop.tensor<[4, 4], f32>) -> !hop.tensor<[4], f32> {
  %r:2 = hop.while(%x, %i) additional(%w) : (!hop.tensor<[4], f32>, !hop.tensor<[], i64>) -> (!hop.tensor<[4], f32>, !hop.tensor<[], i64>), !hop.tensor<[4, 4], f32> cond {
  ^bb0(%cx: !hop.tensor<[4], f32>, %ci: !hop.tensor<[], i64>, %cw: !hop.tensor<[4, 4], f32>):
    %go = aten.gt.Scalar(%ci) {other = 0 : i64} : (!hop.tensor<[], i64>) -> !hop.tensor<[], i1>
    hop.yield %go : !hop.tensor<[], i1>
  } body {
  ^bb0(%bx: !hop.tensor<[4], f32>, %bi: !hop.tensor<[], i64>, %bw: !hop.tensor<[4, 4], f32>):
    %next = aten.mv(%bw, %bx) : (!hop.tensor<[4, 4], f32>, !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
    %dec = aten.sub.Scalar(%bi) {other = 1 : i64} : (!hop.tensor<[], i64>) -> !hop.tensor<[], i64>
    hop.yield %next, %dec : !hop.tensor<[4], f32>, !hop.tensor<[], i64>
  }
  func.return %r#0 : !hop.tensor<[4], f32>
}

// -----

// No additional operands: neither the list nor its types are printed.
// CHECK-LABEL: func.func @while_without_additional
// CHECK:         %r = hop.while(%x) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32> cond {
// CHECK-NEXT:    ^bb0(%cx: !hop.tensor<[4], f32>):
// CHECK:         } body {
// CHECK-NEXT:    ^bb0(%bx: !hop.tensor<[4], f32>):
// GENERIC-LABEL: "func.func"() <{sym_name = "while_without_additional"
// GENERIC:         %r = "hop.while"(%x) <{operandSegmentSizes = array<i32: 1, 0>}> ({
func.func @while_without_additional(%x: !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32> {
  %r = hop.while(%x) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32> cond {
  ^bb0(%cx: !hop.tensor<[4], f32>):
    %any = aten.any(%cx) : (!hop.tensor<[4], f32>) -> !hop.tensor<[], i1>
    hop.yield %any : !hop.tensor<[], i1>
  } body {
  ^bb0(%bx: !hop.tensor<[4], f32>):
    %half = aten.mul.Scalar(%bx) {other = 5.000000e-01 : f64} : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
    hop.yield %half : !hop.tensor<[4], f32>
  }
  func.return %r : !hop.tensor<[4], f32>
}

// -----

// An explicitly empty list, `additional() : ..., cond`, still parses and
// prints in the short form.
// CHECK-LABEL: func.func @while_empty_additional_spelled_out
// CHECK:         %r = hop.while(%x) {hop.note = "kept"} : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32> cond {
// CHECK-NOT:     additional
// GENERIC-LABEL: "func.func"() <{sym_name = "while_empty_additional_spelled_out"
// GENERIC:         %r = "hop.while"(%x) <{operandSegmentSizes = array<i32: 1, 0>}> ({
func.func @while_empty_additional_spelled_out(%x: !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32> {
  %r = hop.while(%x) additional() {hop.note = "kept"} : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>, cond {
  ^bb0(%cx: !hop.tensor<[4], f32>):
    %any = aten.any(%cx) : (!hop.tensor<[4], f32>) -> !hop.tensor<[], i1>
    hop.yield %any : !hop.tensor<[], i1>
  } body {
  ^bb0(%bx: !hop.tensor<[4], f32>):
    hop.yield %bx : !hop.tensor<[4], f32>
  }
  func.return %r : !hop.tensor<[4], f32>
}

// -----

// wrap and checkpoint: one body, called once on the operands.
// CHECK-LABEL: func.func @wrap_and_checkpoint
// CHECK:         %w = hop.wrap(%x) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32> {
// CHECK-NEXT:    ^bb0(%a: !hop.tensor<[4], f32>):
// CHECK-NEXT:      %neg = aten.neg(%a) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
// CHECK-NEXT:      hop.yield %neg : !hop.tensor<[4], f32>
// CHECK-NEXT:    }
// CHECK-NEXT:    %c = hop.checkpoint(%w, %y) : (!hop.tensor<[4], f32>, !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32> {
// CHECK-NEXT:    ^bb0(%b: !hop.tensor<[4], f32>, %d: !hop.tensor<[4], f32>):
// CHECK-NEXT:      %prod = aten.mul.Tensor(%b, %d) : (!hop.tensor<[4], f32>, !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
// CHECK-NEXT:      hop.yield %prod : !hop.tensor<[4], f32>
// CHECK-NEXT:    }
// GENERIC-LABEL: "func.func"() <{sym_name = "wrap_and_checkpoint"
// GENERIC:         %w = "hop.wrap"(%x) ({
// GENERIC:         }) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
// GENERIC-NEXT:    %c = "hop.checkpoint"(%w, %y) ({
// GENERIC:         }) : (!hop.tensor<[4], f32>, !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
func.func @wrap_and_checkpoint(%x: !hop.tensor<[4], f32>, %y: !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32> {
  %w = hop.wrap(%x) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32> {
  ^bb0(%a: !hop.tensor<[4], f32>):
    %neg = aten.neg(%a) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
    hop.yield %neg : !hop.tensor<[4], f32>
  }
  %c = hop.checkpoint(%w, %y) : (!hop.tensor<[4], f32>, !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32> {
  ^bb0(%b: !hop.tensor<[4], f32>, %d: !hop.tensor<[4], f32>):
    %prod = aten.mul.Tensor(%b, %d) : (!hop.tensor<[4], f32>, !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
    hop.yield %prod : !hop.tensor<[4], f32>
  }
  func.return %c : !hop.tensor<[4], f32>
}

// -----

// The body sees the carry, one row of xs and the additional operands; the
// per-step outputs are stacked along s0.
// CHECK:       hop.symbol @s0 backed [1, 1024]
// CHECK-LABEL: func.func @scan
// CHECK:         %carry, %ys = hop.scan init(%init) xs(%xs) additional(%scale) : (!hop.tensor<[4], f32>), (!hop.tensor<[s0, 4], f32>), (!hop.tensor<[], f32>) -> !hop.tensor<[4], f32>, !hop.tensor<[s0, 4], f32> {
// CHECK-NEXT:    ^bb0(%c: !hop.tensor<[4], f32>, %row: !hop.tensor<[4], f32>, %k: !hop.tensor<[], f32>):
// CHECK:           hop.yield %sum, %y : !hop.tensor<[4], f32>, !hop.tensor<[4], f32>
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %carry, %ys : !hop.tensor<[4], f32>, !hop.tensor<[s0, 4], f32>
// GENERIC:       "hop.symbol"() <{sym_name = "s0", kind = "backed", lower = 1 : i64, upper = 1024 : i64}> : () -> ()
// GENERIC-LABEL: "func.func"() <{sym_name = "scan"
// GENERIC:         %carry, %ys = "hop.scan"(%init, %xs, %scale) <{operandSegmentSizes = array<i32: 1, 1, 1>}> ({
// GENERIC:         }) : (!hop.tensor<[4], f32>, !hop.tensor<[s0, 4], f32>, !hop.tensor<[], f32>) -> (!hop.tensor<[4], f32>, !hop.tensor<[s0, 4], f32>)
hop.symbol @s0 backed [1, 1024]
func.func @scan(%init: !hop.tensor<[4], f32>, %xs: !hop.tensor<[s0, 4], f32>, %scale: !hop.tensor<[], f32>) -> (!hop.tensor<[4], f32>, !hop.tensor<[s0, 4], f32>) {
  %carry, %ys = hop.scan init(%init) xs(%xs) additional(%scale) : (!hop.tensor<[4], f32>), (!hop.tensor<[s0, 4], f32>), (!hop.tensor<[], f32>) -> !hop.tensor<[4], f32>, !hop.tensor<[s0, 4], f32> {
  ^bb0(%c: !hop.tensor<[4], f32>, %row: !hop.tensor<[4], f32>, %k: !hop.tensor<[], f32>):
    %sum = aten.add.Tensor(%c, %row) : (!hop.tensor<[4], f32>, !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
    %y = aten.mul.Tensor(%sum, %k) : (!hop.tensor<[4], f32>, !hop.tensor<[], f32>) -> !hop.tensor<[4], f32>
    hop.yield %sum, %y : !hop.tensor<[4], f32>, !hop.tensor<[4], f32>
  }
  func.return %carry, %ys : !hop.tensor<[4], f32>, !hop.tensor<[s0, 4], f32>
}

// -----

// reverse scans from the last row; a scan may carry nothing and scan several xs.
// CHECK-LABEL: func.func @scan_reverse
// CHECK:         %ys = hop.scan reverse init() xs(%xs, %zs) additional() : (), (!hop.tensor<[s0, 4], f32>, !hop.tensor<[s0], i64>), () -> !hop.tensor<[s0, 4], f32> {
// CHECK-NEXT:    ^bb0(%row: !hop.tensor<[4], f32>, %z: !hop.tensor<[], i64>):
// GENERIC-LABEL: "func.func"() <{sym_name = "scan_reverse"
// GENERIC:         %ys = "hop.scan"(%xs, %zs) <{reverse, operandSegmentSizes = array<i32: 0, 2, 0>}> ({
hop.symbol @s0 backed [1, 1024]
func.func @scan_reverse(%xs: !hop.tensor<[s0, 4], f32>, %zs: !hop.tensor<[s0], i64>) -> !hop.tensor<[s0, 4], f32> {
  %ys = hop.scan reverse init() xs(%xs, %zs) additional() : (), (!hop.tensor<[s0, 4], f32>, !hop.tensor<[s0], i64>), () -> !hop.tensor<[s0, 4], f32> {
  ^bb0(%row: !hop.tensor<[4], f32>, %z: !hop.tensor<[], i64>):
    %exp = aten.exp(%row) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
    hop.yield %exp : !hop.tensor<[4], f32>
  }
  func.return %ys : !hop.tensor<[s0, 4], f32>
}

// -----

// map applies the body to each row; its results are the yields stacked along dim 0.
// CHECK-LABEL: func.func @map
// CHECK:         %ys = hop.map xs(%xs) additional(%w) : (!hop.tensor<[s0, 4], f32>), (!hop.tensor<[4, 3], f32>) -> !hop.tensor<[s0, 3], f32> {
// CHECK-NEXT:    ^bb0(%row: !hop.tensor<[4], f32>, %m: !hop.tensor<[4, 3], f32>):
// CHECK-NEXT:      %out = aten.matmul(%row, %m) : (!hop.tensor<[4], f32>, !hop.tensor<[4, 3], f32>) -> !hop.tensor<[3], f32>
// CHECK-NEXT:      hop.yield %out : !hop.tensor<[3], f32>
// CHECK-NEXT:    }
// GENERIC-LABEL: "func.func"() <{sym_name = "map"
// GENERIC:         %ys = "hop.map"(%xs, %w) <{operandSegmentSizes = array<i32: 1, 1>}> ({
// GENERIC:         }) : (!hop.tensor<[s0, 4], f32>, !hop.tensor<[4, 3], f32>) -> !hop.tensor<[s0, 3], f32>
hop.symbol @s0 backed [1, 1024]
func.func @map(%xs: !hop.tensor<[s0, 4], f32>, %w: !hop.tensor<[4, 3], f32>) -> !hop.tensor<[s0, 3], f32> {
  %ys = hop.map xs(%xs) additional(%w) : (!hop.tensor<[s0, 4], f32>), (!hop.tensor<[4, 3], f32>) -> !hop.tensor<[s0, 3], f32> {
  ^bb0(%row: !hop.tensor<[4], f32>, %m: !hop.tensor<[4, 3], f32>):
    %out = aten.matmul(%row, %m) : (!hop.tensor<[4], f32>, !hop.tensor<[4, 3], f32>) -> !hop.tensor<[3], f32>
    hop.yield %out : !hop.tensor<[3], f32>
  }
  func.return %ys : !hop.tensor<[s0, 3], f32>
}

// -----

// One subgraph body shared by two calls.
// CHECK:       hop.subgraph @block {
// CHECK-NEXT:  ^bb0(%a: !hop.tensor<[8], f32>, %b: !hop.tensor<[8], f32>):
// CHECK:         hop.yield %act : !hop.tensor<[8], f32>
// CHECK-NEXT:  }
// CHECK-LABEL: func.func @invoke_subgraph
// CHECK:         %first = hop.invoke_subgraph @block(%x, %y) : (!hop.tensor<[8], f32>, !hop.tensor<[8], f32>) -> !hop.tensor<[8], f32>
// CHECK-NEXT:    %second = hop.invoke_subgraph @block(%first, %y) : (!hop.tensor<[8], f32>, !hop.tensor<[8], f32>) -> !hop.tensor<[8], f32>
// GENERIC:       "hop.subgraph"() <{sym_name = "block"}> ({
// GENERIC-LABEL: "func.func"() <{sym_name = "invoke_subgraph"
// GENERIC:         %first = "hop.invoke_subgraph"(%x, %y) <{callee = @block}> : (!hop.tensor<[8], f32>, !hop.tensor<[8], f32>) -> !hop.tensor<[8], f32>
hop.subgraph @block {
^bb0(%a: !hop.tensor<[8], f32>, %b: !hop.tensor<[8], f32>):
  %sum = aten.add.Tensor(%a, %b) : (!hop.tensor<[8], f32>, !hop.tensor<[8], f32>) -> !hop.tensor<[8], f32>
  %act = aten.relu(%sum) : (!hop.tensor<[8], f32>) -> !hop.tensor<[8], f32>
  hop.yield %act : !hop.tensor<[8], f32>
}
func.func @invoke_subgraph(%x: !hop.tensor<[8], f32>, %y: !hop.tensor<[8], f32>) -> !hop.tensor<[8], f32> {
  %first = hop.invoke_subgraph @block(%x, %y) : (!hop.tensor<[8], f32>, !hop.tensor<[8], f32>) -> !hop.tensor<[8], f32>
  %second = hop.invoke_subgraph @block(%first, %y) : (!hop.tensor<[8], f32>, !hop.tensor<[8], f32>) -> !hop.tensor<[8], f32>
  func.return %second : !hop.tensor<[8], f32>
}

// -----

// One subgraph over s0 serves calls of other sizes: each call binds s0 to its
// operand's size (s1, 4, 2*s1) and its results are the yields' types under
// that binding (Note [subgraph symbols]); n binds s1 in the first call and
// s0 in the second.
// CHECK-LABEL: func.func @invoke_subgraph_at_sizes
// CHECK:         %p = hop.invoke_subgraph @flatten(%x, %n) : (!hop.tensor<[s1, 3], f32>, !hop.symint<s0>) -> !hop.tensor<[s0 + 3*s1], f32>
// CHECK-NEXT:    %q = hop.invoke_subgraph @flatten(%c, %m) : (!hop.tensor<[4, 3], f32>, !hop.symint<s1>) -> !hop.tensor<[s1 + 12], f32>
// CHECK-NEXT:    %r = hop.invoke_subgraph @flatten(%d, %m) : (!hop.tensor<[2*s1, 3], f32>, !hop.symint<s1>) -> !hop.tensor<[7*s1], f32>
// GENERIC:       %p = "hop.invoke_subgraph"(%x, %n) <{callee = @flatten}> : (!hop.tensor<[s1, 3], f32>, !hop.symint<s0>) -> !hop.tensor<[s0 + 3*s1], f32>
hop.symbol @s0 backed [2, oo]
hop.symbol @s1 backed [2, oo]
hop.subgraph @flatten {
^bb0(%a: !hop.tensor<[s0, 3], f32>, %k: !hop.symint<s1>):
  %flat = aten.reshape(%a) {shape = [-1 : i64]} : (!hop.tensor<[s0, 3], f32>) -> !hop.tensor<[3*s0], f32>
  %pad = aten.zeros() {size = [#hop.expr<s1>]} : () -> !hop.tensor<[s1], f32>
  %cat = aten.cat([%flat, %pad]) : (!hop.tensor<[3*s0], f32>, !hop.tensor<[s1], f32>) -> !hop.tensor<[3*s0 + s1], f32>
  hop.yield %cat : !hop.tensor<[3*s0 + s1], f32>
}
func.func @invoke_subgraph_at_sizes(%x: !hop.tensor<[s1, 3], f32>, %n: !hop.symint<s0>, %c: !hop.tensor<[4, 3], f32>, %m: !hop.symint<s1>, %d: !hop.tensor<[2*s1, 3], f32>) {
  %p = hop.invoke_subgraph @flatten(%x, %n) : (!hop.tensor<[s1, 3], f32>, !hop.symint<s0>) -> !hop.tensor<[s0 + 3*s1], f32>
  %q = hop.invoke_subgraph @flatten(%c, %m) : (!hop.tensor<[4, 3], f32>, !hop.symint<s1>) -> !hop.tensor<[s1 + 12], f32>
  %r = hop.invoke_subgraph @flatten(%d, %m) : (!hop.tensor<[2*s1, 3], f32>, !hop.symint<s1>) -> !hop.tensor<[7*s1], f32>
  func.return
}

// -----

// Symbol declarations with their ranges, and every op on symbolic integers;
// result expressions are in canonical form.
// CHECK:       hop.symbol @s0 backed [2, oo]
// CHECK-NEXT:  hop.symbol @s1 backed [1, 64]
// CHECK-NEXT:  hop.symbol @u0 unbacked [-oo, oo]
// CHECK-LABEL: func.func @symbol_arithmetic
// CHECK:         %a = hop.sym_size %x[0] : !hop.tensor<[s0, s1], f32> -> !hop.symint<s0>
// CHECK-NEXT:    %b = hop.sym_size %x[1] : !hop.tensor<[s0, s1], f32> -> !hop.symint<s1>
// CHECK-NEXT:    %c = hop.sym_constant : !hop.symint<-3>
// CHECK-NEXT:    %add = hop.sym_add %a, %b : !hop.symint<s0>, !hop.symint<s1> -> !hop.symint<s0 + s1>
// CHECK-NEXT:    %sub = hop.sym_sub %a, %c : !hop.symint<s0>, !hop.symint<-3> -> !hop.symint<s0 + 3>
// CHECK-NEXT:    %mul = hop.sym_mul %add, %b : !hop.symint<s0 + s1>, !hop.symint<s1> -> !hop.symint<s1*(s0 + s1)>
// CHECK-NEXT:    %div = hop.sym_floordiv %a, %b : !hop.symint<s0>, !hop.symint<s1> -> !hop.symint<s0 // s1>
// CHECK-NEXT:    %mod = hop.sym_mod %a, %b : !hop.symint<s0>, !hop.symint<s1> -> !hop.symint<s0 % s1>
// CHECK-NEXT:    %max = hop.sym_max %a, %b : !hop.symint<s0>, !hop.symint<s1> -> !hop.symint<Max(s0, s1)>
// CHECK-NEXT:    %min = hop.sym_min %a, %c : !hop.symint<s0>, !hop.symint<-3> -> !hop.symint<Min(-3, s0)>
// CHECK-NEXT:    %eq = hop.sym_eq %a, %b : !hop.symint<s0>, !hop.symint<s1> -> !hop.symbool<Eq(s0, s1)>
// CHECK-NEXT:    %ne = hop.sym_ne %a, %b : !hop.symint<s0>, !hop.symint<s1> -> !hop.symbool<Ne(s0, s1)>
// CHECK-NEXT:    %lt = hop.sym_lt %a, %b : !hop.symint<s0>, !hop.symint<s1> -> !hop.symbool<Lt(s0, s1)>
// CHECK-NEXT:    %le = hop.sym_le %a, %b : !hop.symint<s0>, !hop.symint<s1> -> !hop.symbool<Le(s0, s1)>
// CHECK-NEXT:    %gt = hop.sym_gt %a, %b : !hop.symint<s0>, !hop.symint<s1> -> !hop.symbool<Gt(s0, s1)>
// CHECK-NEXT:    %ge = hop.sym_ge %a, %b : !hop.symint<s0>, !hop.symint<s1> -> !hop.symbool<Ge(s0, s1)>
// GENERIC:       "hop.symbol"() <{sym_name = "s0", kind = "backed", lower = 2 : i64}> : () -> ()
// GENERIC-NEXT:  "hop.symbol"() <{sym_name = "s1", kind = "backed", lower = 1 : i64, upper = 64 : i64}> : () -> ()
// GENERIC-NEXT:  "hop.symbol"() <{sym_name = "u0", kind = "unbacked"}> : () -> ()
// GENERIC-LABEL: "func.func"() <{sym_name = "symbol_arithmetic"
// GENERIC:         %a = "hop.sym_size"(%x) <{dim = 0 : i64}> : (!hop.tensor<[s0, s1], f32>) -> !hop.symint<s0>
// GENERIC:         %c = "hop.sym_constant"() : () -> !hop.symint<-3>
// GENERIC:         %mul = "hop.sym_mul"(%add, %b) : (!hop.symint<s0 + s1>, !hop.symint<s1>) -> !hop.symint<s1*(s0 + s1)>
// GENERIC:         %ge = "hop.sym_ge"(%a, %b) : (!hop.symint<s0>, !hop.symint<s1>) -> !hop.symbool<Ge(s0, s1)>
hop.symbol @s0 backed [2, oo]
hop.symbol @s1 backed [1, 64]
hop.symbol @u0 unbacked [-oo, oo]
func.func @symbol_arithmetic(%x: !hop.tensor<[s0, s1], f32>) {
  %a = hop.sym_size %x[0] : !hop.tensor<[s0, s1], f32> -> !hop.symint<s0>
  %b = hop.sym_size %x[1] : !hop.tensor<[s0, s1], f32> -> !hop.symint<s1>
  %c = hop.sym_constant : !hop.symint<-3>
  %add = hop.sym_add %a, %b : !hop.symint<s0>, !hop.symint<s1> -> !hop.symint<s0 + s1>
  %sub = hop.sym_sub %a, %c : !hop.symint<s0>, !hop.symint<-3> -> !hop.symint<s0 + 3>
  %mul = hop.sym_mul %add, %b : !hop.symint<s0 + s1>, !hop.symint<s1> -> !hop.symint<s1*(s0 + s1)>
  %div = hop.sym_floordiv %a, %b : !hop.symint<s0>, !hop.symint<s1> -> !hop.symint<s0 // s1>
  %mod = hop.sym_mod %a, %b : !hop.symint<s0>, !hop.symint<s1> -> !hop.symint<s0 % s1>
  %max = hop.sym_max %a, %b : !hop.symint<s0>, !hop.symint<s1> -> !hop.symint<Max(s0, s1)>
  %min = hop.sym_min %a, %c : !hop.symint<s0>, !hop.symint<-3> -> !hop.symint<Min(s0, -3)>
  %eq = hop.sym_eq %a, %b : !hop.symint<s0>, !hop.symint<s1> -> !hop.symbool<Eq(s0, s1)>
  %ne = hop.sym_ne %a, %b : !hop.symint<s0>, !hop.symint<s1> -> !hop.symbool<Ne(s0, s1)>
  %lt = hop.sym_lt %a, %b : !hop.symint<s0>, !hop.symint<s1> -> !hop.symbool<Lt(s0, s1)>
  %le = hop.sym_le %a, %b : !hop.symint<s0>, !hop.symint<s1> -> !hop.symbool<Le(s0, s1)>
  %gt = hop.sym_gt %a, %b : !hop.symint<s0>, !hop.symint<s1> -> !hop.symbool<Gt(s0, s1)>
  %ge = hop.sym_ge %a, %b : !hop.symint<s0>, !hop.symint<s1> -> !hop.symbool<Ge(s0, s1)>
  func.return
}

// -----

// item defines an unbacked symbol from data; assert checks a symbolic boolean
// at run time.
// CHECK:       hop.symbol @u0 unbacked [0, oo]
// CHECK-LABEL: func.func @item_and_assert
// CHECK:         %u = hop.item %n : !hop.tensor<[], i64> -> !hop.symint<u0>
// CHECK:         %ok = hop.sym_ge %u, %zero : !hop.symint<u0>, !hop.symint<0> -> !hop.symbool<Ge(u0, 0)>
// CHECK-NEXT:    hop.assert %ok, "u0 >= 0" : !hop.symbool<Ge(u0, 0)>
// CHECK-NEXT:    %z = aten.zeros() {size = [#hop.expr<u0>]} : () -> !hop.tensor<[u0], f32>
// GENERIC-LABEL: "func.func"() <{sym_name = "item_and_assert"
// GENERIC:         %u = "hop.item"(%n) : (!hop.tensor<[], i64>) -> !hop.symint<u0>
// GENERIC:         "hop.assert"(%ok) <{message = "u0 >= 0"}> : (!hop.symbool<Ge(u0, 0)>) -> ()
hop.symbol @u0 unbacked [0, oo]
func.func @item_and_assert(%n: !hop.tensor<[], i64>) -> !hop.tensor<[u0], f32> {
  %u = hop.item %n : !hop.tensor<[], i64> -> !hop.symint<u0>
  %zero = hop.sym_constant : !hop.symint<0>
  %ok = hop.sym_ge %u, %zero : !hop.symint<u0>, !hop.symint<0> -> !hop.symbool<Ge(u0, 0)>
  hop.assert %ok, "u0 >= 0" : !hop.symbool<Ge(u0, 0)>
  %z = aten.zeros() {size = [#hop.expr<u0>]} : () -> !hop.tensor<[u0], f32>
  func.return %z : !hop.tensor<[u0], f32>
}

// -----

// The entry signature: parameters, buffers and constants by symbol, then the
// user inputs; a mutated buffer is returned with the argument it is copied
// back to.
// CHECK:       hop.parameter @linear.weight : !hop.tensor<[4, 4], f32>
// CHECK-NEXT:  hop.buffer @bn.running_mean : !hop.tensor<[4], f32>
// CHECK-NEXT:  hop.constant @table = dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]> : tensor<4xf32> : !hop.tensor<[4], f32>
// CHECK-LABEL: func.func @entry_signature
// CHECK-SAME:    (%w: !hop.tensor<[4, 4], f32> {hop.parameter = @linear.weight}, %mean: !hop.tensor<[4], f32> {hop.buffer = @bn.running_mean}, %t: !hop.tensor<[4], f32> {hop.constant = @table}, %x: !hop.tensor<[s0, 4], f32>)
// CHECK-SAME:    -> (!hop.tensor<[s0, 4], f32>, !hop.tensor<[4], f32> {hop.copy_back_to = 1 : i64})
// CHECK:         func.return %z, %new_mean : !hop.tensor<[s0, 4], f32>, !hop.tensor<[4], f32>
// GENERIC:       "hop.parameter"() <{sym_name = "linear.weight", type = !hop.tensor<[4, 4], f32>}> : () -> ()
// GENERIC-NEXT:  "hop.buffer"() <{sym_name = "bn.running_mean", type = !hop.tensor<[4], f32>}> : () -> ()
// GENERIC-NEXT:  "hop.constant"() <{sym_name = "table", value = dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]> : tensor<4xf32>, type = !hop.tensor<[4], f32>}> : () -> ()
// GENERIC-LABEL: "func.func"() <{sym_name = "entry_signature"
// GENERIC-SAME:    arg_attrs = [{hop.parameter = @linear.weight}, {hop.buffer = @bn.running_mean}, {hop.constant = @table}, {}], res_attrs = [{}, {hop.copy_back_to = 1 : i64}]
hop.symbol @s0 backed [2, oo]
hop.parameter @linear.weight : !hop.tensor<[4, 4], f32>
hop.buffer @bn.running_mean : !hop.tensor<[4], f32>
hop.constant @table = dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32> : !hop.tensor<[4], f32>
func.func @entry_signature(%w: !hop.tensor<[4, 4], f32> {hop.parameter = @linear.weight}, %mean: !hop.tensor<[4], f32> {hop.buffer = @bn.running_mean}, %t: !hop.tensor<[4], f32> {hop.constant = @table}, %x: !hop.tensor<[s0, 4], f32>) -> (!hop.tensor<[s0, 4], f32>, !hop.tensor<[4], f32> {hop.copy_back_to = 1 : i64}) {
  %y = aten.mm(%x, %w) : (!hop.tensor<[s0, 4], f32>, !hop.tensor<[4, 4], f32>) -> !hop.tensor<[s0, 4], f32>
  %z = aten.add.Tensor(%y, %t) : (!hop.tensor<[s0, 4], f32>, !hop.tensor<[4], f32>) -> !hop.tensor<[s0, 4], f32>
  %m = aten.mean.dim(%z) {dim = [0]} : (!hop.tensor<[s0, 4], f32>) -> !hop.tensor<[4], f32>
  %new_mean = aten.lerp.Scalar(%mean, %m) {weight = 1.000000e-01 : f64} : (!hop.tensor<[4], f32>, !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
  func.return %z, %new_mean : !hop.tensor<[s0, 4], f32>, !hop.tensor<[4], f32>
}

// -----

// Regions nest: a scan in a cond in a while body in a wrap. Each body refers
// only to its own block arguments.
// CHECK-LABEL: func.func @nested_regions
// CHECK:         %out = hop.wrap(%x, %i) : (!hop.tensor<[s0, 4], f32>, !hop.tensor<[], i64>) -> !hop.tensor<[s0, 4], f32> {
// CHECK-NEXT:    ^bb0(%wx: !hop.tensor<[s0, 4], f32>, %wi: !hop.tensor<[], i64>):
// CHECK-NEXT:      %[[LOOP:.*]], %{{.*}} = hop.while(%wx, %wi) : (
// CHECK:           } body {
// CHECK-NEXT:      ^bb0(%bx: !hop.tensor<[s0, 4], f32>, %bi: !hop.tensor<[], i64>):
// CHECK:             %step = hop.cond %p(%bx) : !hop.tensor<[], i1>, (!hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32> then {
// CHECK-NEXT:        ^bb0(%tx: !hop.tensor<[s0, 4], f32>):
// CHECK-NEXT:          %zero = aten.zeros() {size = [4 : i64]} : () -> !hop.tensor<[4], f32>
// CHECK-NEXT:          %c, %cum = hop.scan init(%zero) xs(%tx) additional() : (!hop.tensor<[4], f32>), (!hop.tensor<[s0, 4], f32>), () -> !hop.tensor<[4], f32>, !hop.tensor<[s0, 4], f32> {
// CHECK-NEXT:          ^bb0(%acc: !hop.tensor<[4], f32>, %row: !hop.tensor<[4], f32>):
// CHECK-NEXT:            %sum = aten.add.Tensor(%acc, %row) : (!hop.tensor<[4], f32>, !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
// CHECK-NEXT:            hop.yield %sum, %sum : !hop.tensor<[4], f32>, !hop.tensor<[4], f32>
// CHECK-NEXT:          }
// CHECK-NEXT:          hop.yield %cum : !hop.tensor<[s0, 4], f32>
// CHECK-NEXT:        } else {
// CHECK:             hop.yield %step, %dec : !hop.tensor<[s0, 4], f32>, !hop.tensor<[], i64>
// CHECK-NEXT:      }
// CHECK-NEXT:      hop.yield %[[LOOP]] : !hop.tensor<[s0, 4], f32>
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %out : !hop.tensor<[s0, 4], f32>
// GENERIC-LABEL: "func.func"() <{sym_name = "nested_regions"
// GENERIC:         %out = "hop.wrap"(%x, %i) ({
// GENERIC:           "hop.while"(%wx, %wi) <{operandSegmentSizes = array<i32: 2, 0>}> ({
// GENERIC:             %step = "hop.cond"(%p, %bx) ({
// GENERIC:               %c, %cum = "hop.scan"(%zero, %tx) <{operandSegmentSizes = array<i32: 1, 1, 0>}> ({
hop.symbol @s0 backed [1, 1024]
func.func @nested_regions(%x: !hop.tensor<[s0, 4], f32>, %i: !hop.tensor<[], i64>) -> !hop.tensor<[s0, 4], f32> {
  %out = hop.wrap(%x, %i) : (!hop.tensor<[s0, 4], f32>, !hop.tensor<[], i64>) -> !hop.tensor<[s0, 4], f32> {
  ^bb0(%wx: !hop.tensor<[s0, 4], f32>, %wi: !hop.tensor<[], i64>):
    %loop:2 = hop.while(%wx, %wi) : (!hop.tensor<[s0, 4], f32>, !hop.tensor<[], i64>) -> (!hop.tensor<[s0, 4], f32>, !hop.tensor<[], i64>) cond {
    ^bb0(%cx: !hop.tensor<[s0, 4], f32>, %ci: !hop.tensor<[], i64>):
      %go = aten.gt.Scalar(%ci) {other = 0 : i64} : (!hop.tensor<[], i64>) -> !hop.tensor<[], i1>
      hop.yield %go : !hop.tensor<[], i1>
    } body {
    ^bb0(%bx: !hop.tensor<[s0, 4], f32>, %bi: !hop.tensor<[], i64>):
      %odd = aten.remainder.Scalar(%bi) {other = 2 : i64} : (!hop.tensor<[], i64>) -> !hop.tensor<[], i64>
      %p = aten.eq.Scalar(%odd) {other = 1 : i64} : (!hop.tensor<[], i64>) -> !hop.tensor<[], i1>
      %step = hop.cond %p(%bx) : !hop.tensor<[], i1>, (!hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32> then {
      ^bb0(%tx: !hop.tensor<[s0, 4], f32>):
        %zero = aten.zeros() {size = [4]} : () -> !hop.tensor<[4], f32>
        %c, %cum = hop.scan init(%zero) xs(%tx) additional() : (!hop.tensor<[4], f32>), (!hop.tensor<[s0, 4], f32>), () -> !hop.tensor<[4], f32>, !hop.tensor<[s0, 4], f32> {
        ^bb0(%acc: !hop.tensor<[4], f32>, %row: !hop.tensor<[4], f32>):
          %sum = aten.add.Tensor(%acc, %row) : (!hop.tensor<[4], f32>, !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
          hop.yield %sum, %sum : !hop.tensor<[4], f32>, !hop.tensor<[4], f32>
        }
        hop.yield %cum : !hop.tensor<[s0, 4], f32>
      } else {
      ^bb0(%ex: !hop.tensor<[s0, 4], f32>):
        hop.yield %ex : !hop.tensor<[s0, 4], f32>
      }
      %dec = aten.sub.Scalar(%bi) {other = 1 : i64} : (!hop.tensor<[], i64>) -> !hop.tensor<[], i64>
      hop.yield %step, %dec : !hop.tensor<[s0, 4], f32>, !hop.tensor<[], i64>
    }
    hop.yield %loop#0 : !hop.tensor<[s0, 4], f32>
  }
  func.return %out : !hop.tensor<[s0, 4], f32>
}
