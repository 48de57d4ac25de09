// RUN: hopc-opt %s --lift-symbols | filecheck %s

// lift-symbols passes a symbol that a hop.flex_attention body uses as a new
// buffer (the op's loop-invariant operands), which both bodies take last
// (Note [flex attention semantics]), after the index block arguments that no
// operand feeds.
// CHECK-LABEL: func.func @symbolic_buffer
// CHECK:         %[[N:.*]] = hop.sym_size %table[0] : !hop.tensor<[s0], f32> -> !hop.symint<s0>
// CHECK:         hop.flex_attention(%q, %k, %v) buffers(%table, %[[N]])
// CHECK-NEXT:    ^bb0(%s: {{.*}}, %b: {{.*}}, %h: {{.*}}, %m: {{.*}}, %n: {{.*}}, %t: !hop.tensor<[s0], f32>, %{{.*}}: !hop.symint<s0>):
// CHECK:         } mask {
// CHECK-NEXT:    ^bb0(%b2: {{.*}}, %h2: {{.*}}, %m2: {{.*}}, %n2: {{.*}}, %t2: !hop.tensor<[s0], f32>, %{{.*}}: !hop.symint<s0>):
hop.symbol @s0 backed [2, oo] hint 8
func.func @symbolic_buffer(%q: !hop.tensor<[1, 2, 8, 4], f32>, %k: !hop.tensor<[1, 2, 8, 4], f32>, %v: !hop.tensor<[1, 2, 8, 4], f32>, %table: !hop.tensor<[s0], f32>) -> !hop.tensor<[1, 2, 8, 4], f32> {
  %o = hop.flex_attention(%q, %k, %v) buffers(%table) {scale = 5.000000e-01 : f64} : (!hop.tensor<[1, 2, 8, 4], f32>, !hop.tensor<[1, 2, 8, 4], f32>, !hop.tensor<[1, 2, 8, 4], f32>), (!hop.tensor<[s0], f32>) -> !hop.tensor<[1, 2, 8, 4], f32> score {
  ^bb0(%s: !hop.tensor<[], f32>, %b: !hop.tensor<[], i32>, %h: !hop.tensor<[], i32>, %m: !hop.tensor<[], i32>, %n: !hop.tensor<[], i32>, %t: !hop.tensor<[s0], f32>):
    %w = aten.sum(%t) : (!hop.tensor<[s0], f32>) -> !hop.tensor<[], f32>
    %x = aten.add.Tensor(%s, %w) : (!hop.tensor<[], f32>, !hop.tensor<[], f32>) -> !hop.tensor<[], f32>
    hop.yield %x : !hop.tensor<[], f32>
  } mask {
  ^bb0(%b2: !hop.tensor<[], i32>, %h2: !hop.tensor<[], i32>, %m2: !hop.tensor<[], i32>, %n2: !hop.tensor<[], i32>, %t2: !hop.tensor<[s0], f32>):
    %keep = aten.ge.Tensor(%m2, %n2) : (!hop.tensor<[], i32>, !hop.tensor<[], i32>) -> !hop.tensor<[], i1>
    hop.yield %keep : !hop.tensor<[], i1>
  }
  func.return %o : !hop.tensor<[1, 2, 8, 4], f32>
}
