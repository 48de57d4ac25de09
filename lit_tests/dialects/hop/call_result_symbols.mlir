// RUN: hopc-opt %s --split-input-file | filecheck %s
// RUN: hopc-opt %s --print-op-generic --split-input-file | hopc-opt --split-input-file | filecheck %s

// A size a body defines is fresh at each call: each call's result names it by
// a symbol of its own (Note [call result symbols] in
// hopc.dialects.hop_call_results).

// Two calls of one subgraph whose nonzero size is u0: the calls name it u1 and
// u2, the second under its parameter s0 -> 6 as well.
// CHECK-LABEL: func.func @two_calls
// CHECK:         %p = hop.invoke_subgraph @positions(%x) : (!hop.tensor<[s1], f32>) -> !hop.tensor<[u1, 1], i64>
// CHECK-NEXT:    %q = hop.invoke_subgraph @positions(%y) : (!hop.tensor<[6], f32>) -> !hop.tensor<[u2, 1], i64>
hop.symbol @s0 backed [2, oo]
hop.symbol @s1 backed [2, oo]
hop.symbol @u0 unbacked [0, oo]
hop.symbol @u1 unbacked [0, oo]
hop.symbol @u2 unbacked [0, oo]
hop.subgraph @positions {
^bb0(%a: !hop.tensor<[s0], f32>):
  %i = aten.nonzero(%a) : (!hop.tensor<[s0], f32>) -> !hop.tensor<[u0, 1], i64>
  hop.yield %i : !hop.tensor<[u0, 1], i64>
}
func.func @two_calls(%x: !hop.tensor<[s1], f32>, %y: !hop.tensor<[6], f32>) -> (!hop.tensor<[u1, 1], i64>, !hop.tensor<[u2, 1], i64>) {
  %p = hop.invoke_subgraph @positions(%x) : (!hop.tensor<[s1], f32>) -> !hop.tensor<[u1, 1], i64>
  %q = hop.invoke_subgraph @positions(%y) : (!hop.tensor<[6], f32>) -> !hop.tensor<[u2, 1], i64>
  func.return %p, %q : !hop.tensor<[u1, 1], i64>, !hop.tensor<[u2, 1], i64>
}

// -----

// One body size in two results (and in an expression of a third) takes one
// name; a call may also keep the body's own name, which no operand mentions.
// CHECK-LABEL: func.func @one_size_three_results
// CHECK:         hop.invoke_subgraph @masked(%x) : (!hop.tensor<[4], f32>) -> (!hop.tensor<[u1], f32>, !hop.tensor<[u1, 1], i64>, !hop.tensor<[2*u1], f32>)
// CHECK-NEXT:    hop.invoke_subgraph @masked(%x) : (!hop.tensor<[4], f32>) -> (!hop.tensor<[u0], f32>, !hop.tensor<[u0, 1], i64>, !hop.tensor<[2*u0], f32>)
hop.symbol @u0 unbacked [0, oo]
hop.symbol @u1 unbacked [0, oo]
hop.subgraph @masked {
^bb0(%a: !hop.tensor<[4], f32>):
  %i = aten.nonzero(%a) : (!hop.tensor<[4], f32>) -> !hop.tensor<[u0, 1], i64>
  %flat = aten.view_copy(%i) {size = [-1]} : (!hop.tensor<[u0, 1], i64>) -> !hop.tensor<[u0], i64>
  %v = aten.index_select(%a, %flat) {dim = 0 : i64} : (!hop.tensor<[4], f32>, !hop.tensor<[u0], i64>) -> !hop.tensor<[u0], f32>
  %twice = aten.cat([%v, %v]) : (!hop.tensor<[u0], f32>, !hop.tensor<[u0], f32>) -> !hop.tensor<[2*u0], f32>
  hop.yield %v, %i, %twice : !hop.tensor<[u0], f32>, !hop.tensor<[u0, 1], i64>, !hop.tensor<[2*u0], f32>
}
func.func @one_size_three_results(%x: !hop.tensor<[4], f32>) {
  %r:3 = hop.invoke_subgraph @masked(%x) : (!hop.tensor<[4], f32>) -> (!hop.tensor<[u1], f32>, !hop.tensor<[u1, 1], i64>, !hop.tensor<[2*u1], f32>)
  %s:3 = hop.invoke_subgraph @masked(%x) : (!hop.tensor<[4], f32>) -> (!hop.tensor<[u0], f32>, !hop.tensor<[u0, 1], i64>, !hop.tensor<[2*u0], f32>)
  func.return
}

// -----

// A checkpoint of a slice by .item(): the body's u0 is the result's u1.
// CHECK-LABEL: func.func @checkpoint_item_slice
// CHECK:         %r = hop.checkpoint(%x, %k) : (!hop.tensor<[8, 4], f32>, !hop.tensor<[], i64>) -> !hop.tensor<[u1, 4], f32> {
// CHECK:           hop.yield %head : !hop.tensor<[u0, 4], f32>
hop.symbol @u0 unbacked [0, 8]
hop.symbol @u1 unbacked [0, 8]
func.func @checkpoint_item_slice(%x: !hop.tensor<[8, 4], f32>, %k: !hop.tensor<[], i64>) -> !hop.tensor<[u1, 4], f32> {
  %r = hop.checkpoint(%x, %k) : (!hop.tensor<[8, 4], f32>, !hop.tensor<[], i64>) -> !hop.tensor<[u1, 4], f32> {
  ^bb0(%a: !hop.tensor<[8, 4], f32>, %n: !hop.tensor<[], i64>):
    %count = hop.item %n : !hop.tensor<[], i64> -> !hop.symint<u0>
    %head = aten.slice.Tensor(%a) {dim = 0 : i64, start = 0 : i64, end = #hop.expr<u0>} : (!hop.tensor<[8, 4], f32>) -> !hop.tensor<[u0, 4], f32>
    hop.yield %head : !hop.tensor<[u0, 4], f32>
  }
  func.return %r : !hop.tensor<[u1, 4], f32>
}

// -----

// A wrap that yields the .item() symbol itself names it afresh too.
// CHECK-LABEL: func.func @wrap_item
// CHECK:         %r = hop.wrap(%k) : (!hop.tensor<[], i64>) -> !hop.symint<u1> {
hop.symbol @u0 unbacked [0, oo]
hop.symbol @u1 unbacked [0, oo]
func.func @wrap_item(%k: !hop.tensor<[], i64>) -> !hop.symint<u1> {
  %r = hop.wrap(%k) : (!hop.tensor<[], i64>) -> !hop.symint<u1> {
  ^bb0(%n: !hop.tensor<[], i64>):
    %count = hop.item %n : !hop.tensor<[], i64> -> !hop.symint<u0>
    hop.yield %count : !hop.symint<u0>
  }
  func.return %r : !hop.symint<u1>
}
