// RUN: hopc-opt %s --convert-hop-to-kernel --split-input-file | filecheck %s

// hop.flex_attention on symbolic lengths (passes/convert_hop_to_kernel/flex_attention.py,
// Note [symbolic positions]): each index the mask reads is an arange of the scores' symbolic
// size along its dim, viewed along that dim, as on static sizes; no full [B, H, L, S] index
// is built. The key and value share the key's length symbol.
// CHECK-LABEL: builtin.module
// CHECK-NOT:     aten.cumsum
// CHECK:         aten.arange() {end = #hop.expr<s0>, dtype = i32} : () -> !hop.tensor<[s0], i32>
// CHECK:         aten.reshape(%{{.*}}) {shape = [1 : i64, 1 : i64, #hop.expr<s0>, 1 : i64]} : (!hop.tensor<[s0], i32>) -> !hop.tensor<[1, 1, s0, 1], i32>
// CHECK:         aten.arange() {end = #hop.expr<s1>, dtype = i32} : () -> !hop.tensor<[s1], i32>
// CHECK:         aten.reshape(%{{.*}}) {shape = [1 : i64, 1 : i64, 1 : i64, #hop.expr<s1>]} : (!hop.tensor<[s1], i32>) -> !hop.tensor<[1, 1, 1, s1], i32>
// CHECK-NOT:     aten.cumsum
// CHECK:         aten.ge.Tensor(%{{.*}}, %{{.*}}) : (!hop.tensor<[1, 1, s0, 1], i32>, !hop.tensor<[1, 1, 1, s1], i32>) -> !hop.tensor<[1, 1, s0, s1], i1>
// CHECK:         aten._safe_softmax
// CHECK:       func.func @forward(
// CHECK-NOT:     hop.flex_attention
builtin.module {
  hop.symbol @s0 backed [2, oo] hint 8
  hop.symbol @s1 backed [2, oo] hint 8
  func.func @forward(%q: !hop.tensor<[1, 2, s0, 4], f32>, %k: !hop.tensor<[1, 2, s1, 4], f32>, %v: !hop.tensor<[1, 2, s1, 4], f32>) -> !hop.tensor<[1, 2, s0, 4], f32> {
    %o = hop.flex_attention(%q, %k, %v) buffers() {scale = 5.000000e-01 : f64} : (!hop.tensor<[1, 2, s0, 4], f32>, !hop.tensor<[1, 2, s1, 4], f32>, !hop.tensor<[1, 2, s1, 4], f32>), () -> !hop.tensor<[1, 2, s0, 4], f32> score {
    ^bb0(%s: !hop.tensor<[], f32>, %b: !hop.tensor<[], i32>, %h: !hop.tensor<[], i32>, %m: !hop.tensor<[], i32>, %n: !hop.tensor<[], i32>):
      hop.yield %s : !hop.tensor<[], f32>
    } mask {
    ^bb0(%b2: !hop.tensor<[], i32>, %h2: !hop.tensor<[], i32>, %m2: !hop.tensor<[], i32>, %n2: !hop.tensor<[], i32>):
      %keep = aten.ge.Tensor(%m2, %n2) : (!hop.tensor<[], i32>, !hop.tensor<[], i32>) -> !hop.tensor<[], i1>
      hop.yield %keep : !hop.tensor<[], i1>
    }
    func.return %o : !hop.tensor<[1, 2, s0, 4], f32>
  }
}

// -----

// Static sizes keep arange, viewed along the index's dim.
// CHECK-LABEL: builtin.module
// CHECK-NOT:     aten.cumsum
// CHECK:         aten.arange() {end = 8 : i64, dtype = i32} : () -> !hop.tensor<[8], i32>
// CHECK-NOT:     aten.cumsum
// CHECK:       func.func @forward(
// CHECK-NOT:     hop.flex_attention

builtin.module {
  func.func @forward(%q: !hop.tensor<[1, 2, 8, 4], f32>, %k: !hop.tensor<[1, 2, 8, 4], f32>, %v: !hop.tensor<[1, 2, 8, 4], f32>) -> !hop.tensor<[1, 2, 8, 4], f32> {
    %o = hop.flex_attention(%q, %k, %v) buffers() {scale = 5.000000e-01 : f64} : (!hop.tensor<[1, 2, 8, 4], f32>, !hop.tensor<[1, 2, 8, 4], f32>, !hop.tensor<[1, 2, 8, 4], f32>), () -> !hop.tensor<[1, 2, 8, 4], f32> score {
    ^bb0(%s: !hop.tensor<[], f32>, %b: !hop.tensor<[], i32>, %h: !hop.tensor<[], i32>, %m: !hop.tensor<[], i32>, %n: !hop.tensor<[], i32>):
      hop.yield %s : !hop.tensor<[], f32>
    } mask {
    ^bb0(%b2: !hop.tensor<[], i32>, %h2: !hop.tensor<[], i32>, %m2: !hop.tensor<[], i32>, %n2: !hop.tensor<[], i32>):
      %keep = aten.ge.Tensor(%m2, %n2) : (!hop.tensor<[], i32>, !hop.tensor<[], i32>) -> !hop.tensor<[], i1>
      hop.yield %keep : !hop.tensor<[], i1>
    }
    func.return %o : !hop.tensor<[1, 2, 8, 4], f32>
  }
}

// -----

// A score body narrower than the scores on a symbolic length (a bias per head, [1, 2, 1, 1])
// is expand_copy'd to the scores' symbolic sizes, not added to a zeros_like of them.
// CHECK-LABEL: builtin.module
// CHECK-NOT:     aten.zeros_like
// CHECK:         aten.index.Tensor(%{{.*}}, [%{{.*}}]) : (!hop.tensor<[2], f32>, !hop.tensor<[1, 2, 1, 1], i32>) -> !hop.tensor<[1, 2, 1, 1], f32>
// CHECK:         aten.expand_copy(%{{.*}}) {size = [1 : i64, 2 : i64, #hop.expr<s0>, #hop.expr<s0>]} : (!hop.tensor<[1, 2, 1, 1], f32>) -> !hop.tensor<[1, 2, s0, s0], f32>
// CHECK-NOT:     aten.zeros_like
// CHECK:       func.func @forward(
// CHECK-NOT:     hop.flex_attention
builtin.module {
  hop.symbol @s0 backed [2, oo] hint 8
  func.func @forward(%q: !hop.tensor<[1, 2, s0, 4], f32>, %k: !hop.tensor<[1, 2, s0, 4], f32>, %v: !hop.tensor<[1, 2, s0, 4], f32>, %bias: !hop.tensor<[2], f32>) -> !hop.tensor<[1, 2, s0, 4], f32> {
    %o = hop.flex_attention(%q, %k, %v) buffers(%bias) {scale = 5.000000e-01 : f64} : (!hop.tensor<[1, 2, s0, 4], f32>, !hop.tensor<[1, 2, s0, 4], f32>, !hop.tensor<[1, 2, s0, 4], f32>), (!hop.tensor<[2], f32>) -> !hop.tensor<[1, 2, s0, 4], f32> score {
    ^bb0(%s: !hop.tensor<[], f32>, %b: !hop.tensor<[], i32>, %h: !hop.tensor<[], i32>, %m: !hop.tensor<[], i32>, %n: !hop.tensor<[], i32>, %table: !hop.tensor<[2], f32>):
      %w = aten.index.Tensor(%table, [%h]) : (!hop.tensor<[2], f32>, !hop.tensor<[], i32>) -> !hop.tensor<[], f32>
      hop.yield %w : !hop.tensor<[], f32>
    } mask {
    ^bb0(%b2: !hop.tensor<[], i32>, %h2: !hop.tensor<[], i32>, %m2: !hop.tensor<[], i32>, %n2: !hop.tensor<[], i32>, %table2: !hop.tensor<[2], f32>):
      %keep = aten.ge.Tensor(%m2, %n2) : (!hop.tensor<[], i32>, !hop.tensor<[], i32>) -> !hop.tensor<[], i1>
      hop.yield %keep : !hop.tensor<[], i1>
    }
    func.return %o : !hop.tensor<[1, 2, s0, 4], f32>
  }
}
