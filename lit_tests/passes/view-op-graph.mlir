// RUN: hopc-opt %s --view-op-graph -o %t.viewed 2>&1 | filecheck %s
// RUN: hopc-opt %s -p 'view-op-graph{max-label-length=60}' -o %t.full 2>&1 | filecheck %s --check-prefix=FULL
// RUN: hopc-opt %s -o %t.plain
// RUN: diff %t.plain %t.viewed

// The op graph, in Graphviz DOT, goes to stderr; the module printed is the
// input's (the diff). Each op is a node labelled with its name and result
// types, cut at 20 characters by default; an op with several regions is a
// cluster holding one cluster per region, named after the region; a block
// argument is a node; each operand is an edge from its definer to its reader,
// drawn to the border of a region op's cluster (lhead/ltail). Node numbers
// follow the order of the text.

// CHECK-LABEL: digraph G {
// CHECK-NEXT:    compound = true;
// CHECK-NEXT:    subgraph cluster_1 {
// CHECK-NEXT:      v2 [label = " ", shape = plain];
// CHECK-NEXT:      label = "builtin.module";
// CHECK-NEXT:      subgraph cluster_3 {
// CHECK-NEXT:        v4 [label = " ", shape = plain];
// CHECK-NEXT:        label = "func.func @loop";
// CHECK-NEXT:        v[[X:[0-9]+]] [label = "arg0 : !hop.tensor<[4], f32...", shape = ellipse];
// CHECK-NEXT:        v[[I:[0-9]+]] [label = "arg1 : !hop.tensor<[], i64>", shape = ellipse];
// CHECK-NEXT:        subgraph cluster_[[WHILE:[0-9]+]] {
// CHECK-NEXT:          v[[WHILE_ANCHOR:[0-9]+]] [label = " ", shape = plain];
// CHECK-NEXT:          label = "hop.while : (!hop.tensor<[4], f32...)";
// CHECK-NEXT:          subgraph cluster_{{[0-9]+}} {
// CHECK-NEXT:            v{{[0-9]+}} [label = " ", shape = plain];
// CHECK-NEXT:            label = "cond";
// CHECK-NEXT:            v{{[0-9]+}} [label = "arg0 : !hop.tensor<[4], f32...", shape = ellipse];
// CHECK-NEXT:            v[[CI:[0-9]+]] [label = "arg1 : !hop.tensor<[], i64>", shape = ellipse];
// CHECK-NEXT:            v[[GT:[0-9]+]] [label = "aten.gt.Scalar\n!hop.tensor<[], i1>", shape = box, style = filled, fillcolor = "{{.*}}"];
// CHECK-NEXT:            v[[COND_YIELD:[0-9]+]] [label = "hop.yield", shape = box
// CHECK-NEXT:          }
// CHECK-NEXT:          subgraph cluster_{{[0-9]+}} {
// CHECK-NEXT:            v{{[0-9]+}} [label = " ", shape = plain];
// CHECK-NEXT:            label = "body";
// CHECK-NEXT:            v[[BX:[0-9]+]] [label = "arg0 : !hop.tensor<[4], f32...", shape = ellipse];
// CHECK-NEXT:            v[[BI:[0-9]+]] [label = "arg1 : !hop.tensor<[], i64>", shape = ellipse];
// CHECK-NEXT:            v[[SIN:[0-9]+]] [label = "aten.sin\n!hop.tensor<[4], f32...", shape = box
// CHECK-NEXT:            v[[SUB:[0-9]+]] [label = "aten.sub.Scalar\n!hop.tensor<[], i64>", shape = box
// CHECK-NEXT:            v[[BODY_YIELD:[0-9]+]] [label = "hop.yield", shape = box
// CHECK-NEXT:          }
// CHECK-NEXT:        }
// CHECK-NEXT:        v[[MUL:[0-9]+]] [label = "aten.mul.Tensor\n!hop.tensor<[4], f32...", shape = box
// CHECK-NEXT:        v[[RETURN:[0-9]+]] [label = "func.return", shape = box
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    v[[CI]] -> v[[GT]] [style = solid];
// CHECK-NEXT:    v[[GT]] -> v[[COND_YIELD]] [style = solid];
// CHECK-NEXT:    v[[BX]] -> v[[SIN]] [style = solid];
// CHECK-NEXT:    v[[BI]] -> v[[SUB]] [style = solid];
// CHECK-NEXT:    v[[SIN]] -> v[[BODY_YIELD]] [style = solid, label = "0"];
// CHECK-NEXT:    v[[SUB]] -> v[[BODY_YIELD]] [style = solid, label = "1"];
// CHECK-NEXT:    v[[X]] -> v[[WHILE_ANCHOR]] [style = solid, label = "0", lhead = cluster_[[WHILE]]];
// CHECK-NEXT:    v[[I]] -> v[[WHILE_ANCHOR]] [style = solid, label = "1", lhead = cluster_[[WHILE]]];
// CHECK-NEXT:    v[[WHILE_ANCHOR]] -> v[[MUL]] [style = solid, label = "0", taillabel = "#0", ltail = cluster_[[WHILE]]];
// CHECK-NEXT:    v[[X]] -> v[[MUL]] [style = solid, label = "1"];
// CHECK-NEXT:    v[[MUL]] -> v[[RETURN]] [style = solid];
// CHECK-NEXT:  }

// With a longer limit, the types are whole.
// FULL: label = "hop.while : (!hop.tensor<[4], f32>, !hop.tensor<[], i64>)";
// FULL: [label = "aten.mul.Tensor\n!hop.tensor<[4], f32>", shape = box
func.func @loop(%x: !hop.tensor<[4], f32>, %i: !hop.tensor<[], i64>) -> !hop.tensor<[4], f32> {
  %r:2 = hop.while(%x, %i) : (!hop.tensor<[4], f32>, !hop.tensor<[], i64>) -> (!hop.tensor<[4], f32>, !hop.tensor<[], i64>) cond {
  ^bb0(%cx: !hop.tensor<[4], f32>, %ci: !hop.tensor<[], i64>):
    %go = aten.gt.Scalar(%ci) {other = 0 : i64} : (!hop.tensor<[], i64>) -> !hop.tensor<[], i1>
    hop.yield %go : !hop.tensor<[], i1>
  } body {
  ^bb0(%bx: !hop.tensor<[4], f32>, %bi: !hop.tensor<[], i64>):
    %next = aten.sin(%bx) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
    %dec = aten.sub.Scalar(%bi) {other = 1 : i64} : (!hop.tensor<[], i64>) -> !hop.tensor<[], i64>
    hop.yield %next, %dec : !hop.tensor<[4], f32>, !hop.tensor<[], i64>
  }
  %y = aten.mul.Tensor(%r#0, %x) : (!hop.tensor<[4], f32>, !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
  func.return %y : !hop.tensor<[4], f32>
}
