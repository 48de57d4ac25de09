// RUN: hopc-opt %s --split-input-file --verify-diagnostics

// hop.flex_attention's verifier messages (Note [flex attention semantics]):
// query, key and value fit (the key's heads divide the query's), the score
// body takes a score and four i32 indices then the buffers and yields a score,
// the mask body yields i1.

// The key's heads do not divide the query's (grouped-query attention needs them to).
func.func @heads_do_not_divide(%q: !hop.tensor<[1, 3, 8, 4], f32>, %k: !hop.tensor<[1, 2, 8, 4], f32>, %v: !hop.tensor<[1, 2, 8, 4], f32>) -> !hop.tensor<[1, 3, 8, 4], f32> {
  // expected-error @+1 {{'hop.flex_attention' op key %k has 2 heads, which do not divide the 3 heads of query %q (grouped-query attention)}}
  %o = hop.flex_attention(%q, %k, %v) buffers() {scale = 5.000000e-01 : f64} : (!hop.tensor<[1, 3, 8, 4], f32>, !hop.tensor<[1, 2, 8, 4], f32>, !hop.tensor<[1, 2, 8, 4], f32>), () -> !hop.tensor<[1, 3, 8, 4], f32> score {
  ^bb0(%s: !hop.tensor<[], f32>, %b: !hop.tensor<[], i32>, %h: !hop.tensor<[], i32>, %m: !hop.tensor<[], i32>, %n: !hop.tensor<[], i32>):
    hop.yield %s : !hop.tensor<[], f32>
  } mask {
  ^bb0(%b2: !hop.tensor<[], i32>, %h2: !hop.tensor<[], i32>, %m2: !hop.tensor<[], i32>, %n2: !hop.tensor<[], i32>):
    %keep = aten.ge.Tensor(%m2, %n2) : (!hop.tensor<[], i32>, !hop.tensor<[], i32>) -> !hop.tensor<[], i1>
    hop.yield %keep : !hop.tensor<[], i1>
  }
  func.return %o : !hop.tensor<[1, 3, 8, 4], f32>
}

// -----

// The value's length is not the key's.
func.func @value_length(%q: !hop.tensor<[1, 2, 8, 4], f32>, %k: !hop.tensor<[1, 2, 8, 4], f32>, %v: !hop.tensor<[1, 2, 6, 4], f32>) -> !hop.tensor<[1, 2, 8, 4], f32> {
  // expected-error @+1 {{'hop.flex_attention' op value %v has type !hop.tensor<[1, 2, 6, 4], f32>, which does not fit !hop.tensor<[1, 2, 8, 4], f32> in dims [0, 1, 2]}}
  %o = hop.flex_attention(%q, %k, %v) buffers() {scale = 5.000000e-01 : f64} : (!hop.tensor<[1, 2, 8, 4], f32>, !hop.tensor<[1, 2, 8, 4], f32>, !hop.tensor<[1, 2, 6, 4], f32>), () -> !hop.tensor<[1, 2, 8, 4], f32> score {
  ^bb0(%s: !hop.tensor<[], f32>, %b: !hop.tensor<[], i32>, %h: !hop.tensor<[], i32>, %m: !hop.tensor<[], i32>, %n: !hop.tensor<[], i32>):
    hop.yield %s : !hop.tensor<[], f32>
  } mask {
  ^bb0(%b2: !hop.tensor<[], i32>, %h2: !hop.tensor<[], i32>, %m2: !hop.tensor<[], i32>, %n2: !hop.tensor<[], i32>):
    %keep = aten.ge.Tensor(%m2, %n2) : (!hop.tensor<[], i32>, !hop.tensor<[], i32>) -> !hop.tensor<[], i1>
    hop.yield %keep : !hop.tensor<[], i1>
  }
  func.return %o : !hop.tensor<[1, 2, 8, 4], f32>
}

// -----

// The indices are i64, not the i32 PyTorch traces them as.
func.func @index_type(%q: !hop.tensor<[1, 2, 8, 4], f32>, %k: !hop.tensor<[1, 2, 8, 4], f32>, %v: !hop.tensor<[1, 2, 8, 4], f32>) -> !hop.tensor<[1, 2, 8, 4], f32> {
  // expected-error @+1 {{'hop.flex_attention' op score region arguments: expected (!hop.tensor<[], f32>, !hop.tensor<[], i32>, !hop.tensor<[], i32>, !hop.tensor<[], i32>, !hop.tensor<[], i32>), got (!hop.tensor<[], f32>, !hop.tensor<[], i64>, !hop.tensor<[], i32>, !hop.tensor<[], i32>, !hop.tensor<[], i32>)}}
  %o = hop.flex_attention(%q, %k, %v) buffers() {scale = 5.000000e-01 : f64} : (!hop.tensor<[1, 2, 8, 4], f32>, !hop.tensor<[1, 2, 8, 4], f32>, !hop.tensor<[1, 2, 8, 4], f32>), () -> !hop.tensor<[1, 2, 8, 4], f32> score {
  ^bb0(%s: !hop.tensor<[], f32>, %b: !hop.tensor<[], i64>, %h: !hop.tensor<[], i32>, %m: !hop.tensor<[], i32>, %n: !hop.tensor<[], i32>):
    hop.yield %s : !hop.tensor<[], f32>
  } mask {
  ^bb0(%b2: !hop.tensor<[], i32>, %h2: !hop.tensor<[], i32>, %m2: !hop.tensor<[], i32>, %n2: !hop.tensor<[], i32>):
    %keep = aten.ge.Tensor(%m2, %n2) : (!hop.tensor<[], i32>, !hop.tensor<[], i32>) -> !hop.tensor<[], i1>
    hop.yield %keep : !hop.tensor<[], i1>
  }
  func.return %o : !hop.tensor<[1, 2, 8, 4], f32>
}

// -----

// The mask body yields a score, not a boolean.
func.func @mask_yields_float(%q: !hop.tensor<[1, 2, 8, 4], f32>, %k: !hop.tensor<[1, 2, 8, 4], f32>, %v: !hop.tensor<[1, 2, 8, 4], f32>) -> !hop.tensor<[1, 2, 8, 4], f32> {
  // expected-error @+1 {{'hop.flex_attention' op mask region yields (!hop.tensor<[], f32>), expected !hop.tensor<[], i1>}}
  %o = hop.flex_attention(%q, %k, %v) buffers() {scale = 5.000000e-01 : f64} : (!hop.tensor<[1, 2, 8, 4], f32>, !hop.tensor<[1, 2, 8, 4], f32>, !hop.tensor<[1, 2, 8, 4], f32>), () -> !hop.tensor<[1, 2, 8, 4], f32> score {
  ^bb0(%s: !hop.tensor<[], f32>, %b: !hop.tensor<[], i32>, %h: !hop.tensor<[], i32>, %m: !hop.tensor<[], i32>, %n: !hop.tensor<[], i32>):
    hop.yield %s : !hop.tensor<[], f32>
  } mask {
  ^bb0(%b2: !hop.tensor<[], i32>, %h2: !hop.tensor<[], i32>, %m2: !hop.tensor<[], i32>, %n2: !hop.tensor<[], i32>):
    %f = aten._to_copy(%m2) {dtype = f32} : (!hop.tensor<[], i32>) -> !hop.tensor<[], f32>
    hop.yield %f : !hop.tensor<[], f32>
  }
  func.return %o : !hop.tensor<[1, 2, 8, 4], f32>
}

// -----

// A 16-bit query: eager computes its scores in f32, which its score body does not take.
func.func @half_query(%q: !hop.tensor<[1, 2, 8, 4], f16>, %k: !hop.tensor<[1, 2, 8, 4], f16>, %v: !hop.tensor<[1, 2, 8, 4], f16>) -> !hop.tensor<[1, 2, 8, 4], f16> {
  // expected-error @+1 {{'hop.flex_attention' op query %q has type !hop.tensor<[1, 2, 8, 4], f16>, expected an f32 or f64 tensor of rank 4}}
  %o = hop.flex_attention(%q, %k, %v) buffers() {scale = 5.000000e-01 : f64} : (!hop.tensor<[1, 2, 8, 4], f16>, !hop.tensor<[1, 2, 8, 4], f16>, !hop.tensor<[1, 2, 8, 4], f16>), () -> !hop.tensor<[1, 2, 8, 4], f16> score {
  ^bb0(%s: !hop.tensor<[], f16>, %b: !hop.tensor<[], i32>, %h: !hop.tensor<[], i32>, %m: !hop.tensor<[], i32>, %n: !hop.tensor<[], i32>):
    hop.yield %s : !hop.tensor<[], f16>
  } mask {
  ^bb0(%b2: !hop.tensor<[], i32>, %h2: !hop.tensor<[], i32>, %m2: !hop.tensor<[], i32>, %n2: !hop.tensor<[], i32>):
    %keep = aten.ge.Tensor(%m2, %n2) : (!hop.tensor<[], i32>, !hop.tensor<[], i32>) -> !hop.tensor<[], i1>
    hop.yield %keep : !hop.tensor<[], i1>
  }
  func.return %o : !hop.tensor<[1, 2, 8, 4], f16>
}

// -----

// The score body changes the score's precision, which eager would cast back before the values.
func.func @score_precision(%q: !hop.tensor<[1, 2, 8, 4], f32>, %k: !hop.tensor<[1, 2, 8, 4], f32>, %v: !hop.tensor<[1, 2, 8, 4], f32>) -> !hop.tensor<[1, 2, 8, 4], f32> {
  // expected-error @+1 {{'hop.flex_attention' op score region yields (!hop.tensor<[], f64>), expected !hop.tensor<[], f32>}}
  %o = hop.flex_attention(%q, %k, %v) buffers() {scale = 5.000000e-01 : f64} : (!hop.tensor<[1, 2, 8, 4], f32>, !hop.tensor<[1, 2, 8, 4], f32>, !hop.tensor<[1, 2, 8, 4], f32>), () -> !hop.tensor<[1, 2, 8, 4], f32> score {
  ^bb0(%s: !hop.tensor<[], f32>, %b: !hop.tensor<[], i32>, %h: !hop.tensor<[], i32>, %m: !hop.tensor<[], i32>, %n: !hop.tensor<[], i32>):
    %d = aten._to_copy(%s) {dtype = f64} : (!hop.tensor<[], f32>) -> !hop.tensor<[], f64>
    hop.yield %d : !hop.tensor<[], f64>
  } mask {
  ^bb0(%b2: !hop.tensor<[], i32>, %h2: !hop.tensor<[], i32>, %m2: !hop.tensor<[], i32>, %n2: !hop.tensor<[], i32>):
    %keep = aten.ge.Tensor(%m2, %n2) : (!hop.tensor<[], i32>, !hop.tensor<[], i32>) -> !hop.tensor<[], i1>
    hop.yield %keep : !hop.tensor<[], i1>
  }
  func.return %o : !hop.tensor<[1, 2, 8, 4], f32>
}
