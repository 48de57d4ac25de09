// RUN: hopc-opt %s --functionalize --split-input-file --verify-diagnostics

// hop.scan must not change its operands (supports_input_mutation is false).
func.func @scan_mutates_init(%init: !hop.tensor<[4], f32>, %xs: !hop.tensor<[3, 4], f32>) -> !hop.tensor<[4], f32> {
  %c, %ys = hop.scan init(%init) xs(%xs) additional() : (!hop.tensor<[4], f32>), (!hop.tensor<[3, 4], f32>), () -> !hop.tensor<[4], f32>, !hop.tensor<[3, 4], f32> {
  ^bb0(%carry: !hop.tensor<[4], f32>, %x: !hop.tensor<[4], f32>):
    // expected-error @+1 {{'aten.add_.Tensor' op changes %carry in place, an operand (init) of the enclosing 'hop.scan' body, which 'hop.scan' does not allow}}
    %0 = aten.add_.Tensor(%carry, %x) : (!hop.tensor<[4], f32>, !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
    %1 = aten.mul.Tensor(%carry, %x) : (!hop.tensor<[4], f32>, !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
    hop.yield %1, %1 : !hop.tensor<[4], f32>, !hop.tensor<[4], f32>
  }
  func.return %c : !hop.tensor<[4], f32>
}

// -----

// hop.map must not change its operands, additional ones included (a tensor
// the program closed over comes in as one).
func.func @map_mutates_additional(%xs: !hop.tensor<[3, 4], f32>, %w: !hop.tensor<[4], f32>) -> !hop.tensor<[3, 4], f32> {
  %ys = hop.map xs(%xs) additional(%w) : (!hop.tensor<[3, 4], f32>), (!hop.tensor<[4], f32>) -> !hop.tensor<[3, 4], f32> {
  ^bb0(%x: !hop.tensor<[4], f32>, %weight: !hop.tensor<[4], f32>):
    // expected-error @+1 {{'aten.mul_.Tensor' op changes %weight in place, an operand (additional) of the enclosing 'hop.map' body}}
    %0 = aten.mul_.Tensor(%weight, %x) : (!hop.tensor<[4], f32>, !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
    %1 = aten.sin(%x) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
    hop.yield %1 : !hop.tensor<[4], f32>
  }
  func.return %ys : !hop.tensor<[3, 4], f32>
}

// -----

// The cond region of a while runs once more than its body: it must not mutate.
func.func @while_cond_mutates(%x: !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32> {
  %r = hop.while (%x) additional () : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>, cond {
  ^bb0(%a: !hop.tensor<[4], f32>):
    // expected-error @+1 {{'aten.neg_' op changes %a in place in the cond region of 'hop.while'}}
    %0 = aten.neg_(%a) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
    %p = aten.is_nonzero(%a) : (!hop.tensor<[4], f32>) -> !hop.tensor<[], i1>
    hop.yield %p : !hop.tensor<[], i1>
  } body {
  ^bb0(%a: !hop.tensor<[4], f32>):
    %1 = aten.sin(%a) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
    hop.yield %1 : !hop.tensor<[4], f32>
  }
  func.return %r : !hop.tensor<[4], f32>
}

// -----

// A carried value changed in place must be yielded in its own place.
func.func @while_carried_not_yielded(%x: !hop.tensor<[4], f32>, %y: !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32> {
  %r:2 = hop.while (%x, %y) additional () : (!hop.tensor<[4], f32>, !hop.tensor<[4], f32>) -> (!hop.tensor<[4], f32>, !hop.tensor<[4], f32>), cond {
  ^bb0(%a: !hop.tensor<[4], f32>, %b: !hop.tensor<[4], f32>):
    %p = aten.is_nonzero(%a) : (!hop.tensor<[4], f32>) -> !hop.tensor<[], i1>
    hop.yield %p : !hop.tensor<[], i1>
  } body {
  ^bb0(%a: !hop.tensor<[4], f32>, %b: !hop.tensor<[4], f32>):
    // expected-error @+1 {{'aten.add_.Scalar' op changes the carried value %a in place but the body yields another value in its place}}
    %0 = aten.add_.Scalar(%a) {other = 1 : i64} : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
    %1 = aten.clone(%a) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
    hop.yield %b, %1 : !hop.tensor<[4], f32>, !hop.tensor<[4], f32>
  }
  func.return %r#0 : !hop.tensor<[4], f32>
}

// -----

// expand has no inverse: an element of the view may stand for several of the base.
func.func @write_through_expand(%x: !hop.tensor<[1, 4], f32>) -> !hop.tensor<[1, 4], f32> {
  %e = aten.expand(%x) {size = [3, 4]} : (!hop.tensor<[1, 4], f32>) -> !hop.tensor<[3, 4], f32>
  // expected-error @+1 {{'aten.add_.Scalar' op changes %e in place through a view made by 'aten.expand', which has no inverse}}
  %0 = aten.add_.Scalar(%e) {other = 1 : i64} : (!hop.tensor<[3, 4], f32>) -> !hop.tensor<[3, 4], f32>
  func.return %x : !hop.tensor<[1, 4], f32>
}

// -----

// An in-place op that ATen has no functional form of.
func.func @no_functional_form(%x: !hop.tensor<[3, 4], f32>) -> !hop.tensor<[3, 4], f32> {
  // expected-error @+1 {{'aten.t_' op changes its arguments in place and has no functional form in ATen}}
  %0 = aten.t_(%x) : (!hop.tensor<[3, 4], f32>) -> !hop.tensor<[4, 3], f32>
  func.return %x : !hop.tensor<[3, 4], f32>
}

// -----

// Whether reshape of a transposed [s0, 4] views or copies depends on s0 == 1:
// changing the result in place would tell.
hop.symbol @s0 backed [1, oo]
func.func @doubtful_reshape(%x: !hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32> {
  %t = aten.t(%x) : (!hop.tensor<[s0, 4], f32>) -> !hop.tensor<[4, s0], f32>
  %f = aten.reshape(%t) {shape = [-1]} : (!hop.tensor<[4, s0], f32>) -> !hop.tensor<[4*s0], f32>
  // expected-error @+1 {{'aten.add_.Scalar' op changes %f in place, which may or may not share memory with %x ('aten.reshape' views or copies depending on strides that hopc cannot tell here)}}
  %0 = aten.add_.Scalar(%f) {other = 1 : i64} : (!hop.tensor<[4*s0], f32>) -> !hop.tensor<[4*s0], f32>
  func.return %x : !hop.tensor<[s0, 4], f32>
}

// -----

// A cond result that aliases the operand in one branch only, read after the
// operand changed: eager mode would show the change in one branch only.
func.func @cond_doubtful_result(%p: !hop.tensor<[], i1>, %x: !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32> {
  %r = hop.cond %p (%x) : !hop.tensor<[], i1>, (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32> then {
  ^bb0(%a: !hop.tensor<[4], f32>):
    hop.yield %a : !hop.tensor<[4], f32>
  } else {
  ^bb0(%a: !hop.tensor<[4], f32>):
    %0 = aten.cos(%a) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
    hop.yield %0 : !hop.tensor<[4], f32>
  }
  %1 = aten.add_.Scalar(%x) {other = 1 : i64} : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
  // expected-error @+1 {{'aten.mul.Tensor' op reads %r, which may or may not share memory with %x ('hop.cond' returns it as a view of its operand only in some runs), after 'aten.add_.Scalar' changed that in place}}
  %2 = aten.mul.Tensor(%r, %r) : (!hop.tensor<[4], f32>, !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
  func.return %2 : !hop.tensor<[4], f32>
}

// -----

// A subgraph changing one argument, called with the same tensor twice: its
// other argument would have to see the change.
hop.subgraph @update {
^bb0(%a: !hop.tensor<[4], f32>, %b: !hop.tensor<[4], f32>):
  %0 = aten.add_.Tensor(%a, %b) : (!hop.tensor<[4], f32>, !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
  %1 = aten.mul.Tensor(%a, %b) : (!hop.tensor<[4], f32>, !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
  hop.yield %1 : !hop.tensor<[4], f32>
}
func.func @shared_operands(%x: !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32> {
  // expected-error @+1 {{'hop.invoke_subgraph' op changes %x in place, which shares memory with another operand, %x; pass it once}}
  %0 = hop.invoke_subgraph @update(%x, %x) : (!hop.tensor<[4], f32>, !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
  func.return %0 : !hop.tensor<[4], f32>
}

// -----

// A region reading a view passed as one operand after changing its storage
// through another.
func.func @stale_view_operand(%x: !hop.tensor<[3, 4], f32>) -> !hop.tensor<[4], f32> {
  %row = aten.select.int(%x) {dim = 0 : i64, index = 0 : i64} : (!hop.tensor<[3, 4], f32>) -> !hop.tensor<[4], f32>
  %r = hop.wrap(%x, %row) : (!hop.tensor<[3, 4], f32>, !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32> {
  ^bb0(%a: !hop.tensor<[3, 4], f32>, %b: !hop.tensor<[4], f32>):
    %0 = aten.zero_(%a) : (!hop.tensor<[3, 4], f32>) -> !hop.tensor<[3, 4], f32>
    // expected-error @+1 {{'aten.sin' op reads %b, which shares memory with %a, after 'aten.zero_' changed %a in place in this region; pass the value once, as one operand}}
    %1 = aten.sin(%b) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
    hop.yield %1 : !hop.tensor<[4], f32>
  }
  func.return %r : !hop.tensor<[4], f32>
}

// -----

// as_strided addresses the storage directly: that of a region argument
// standing for a view is not the argument's own.
func.func @as_strided_of_view(%x: !hop.tensor<[4, 4], f32>) -> !hop.tensor<[4, 4], f32> {
  %col = aten.select.int(%x) {dim = 1 : i64, index = 1 : i64} : (!hop.tensor<[4, 4], f32>) -> !hop.tensor<[4], f32>
  %r = hop.wrap(%col) : (!hop.tensor<[4], f32>) -> !hop.tensor<[2], f32> {
  ^bb0(%a: !hop.tensor<[4], f32>):
    // expected-error @+1 {{'aten.as_strided' op views %a with explicit strides, but its storage may not be dense and row-major}}
    %s = aten.as_strided(%a) {size = [2], stride = [2]} : (!hop.tensor<[4], f32>) -> !hop.tensor<[2], f32>
    %0 = aten.neg_(%s) : (!hop.tensor<[2], f32>) -> !hop.tensor<[2], f32>
    hop.yield %s : !hop.tensor<[2], f32>
  }
  func.return %x : !hop.tensor<[4, 4], f32>
}

// -----

// instance_norm with input statistics updates its running statistics, which
// its schema does not declare and which hopc has no functional form for.
func.func @instance_norm_running_stats(%x: !hop.tensor<[2, 3, 4], f32>, %mean: !hop.tensor<[3], f32>, %var: !hop.tensor<[3], f32>) -> !hop.tensor<[2, 3, 4], f32> {
  // expected-error @+1 {{'aten.instance_norm' op updates its running statistics in place without declaring it in its schema, and hopc has no functional form for it}}
  %y = aten.instance_norm(%x, none, none, %mean, %var) {use_input_stats = true, momentum = 1.000000e-01 : f64, eps = 1.000000e-05 : f64, cudnn_enabled = false} : (!hop.tensor<[2, 3, 4], f32>, !hop.tensor<[3], f32>, !hop.tensor<[3], f32>) -> !hop.tensor<[2, 3, 4], f32>
  func.return %y : !hop.tensor<[2, 3, 4], f32>
}

// -----

// sin and add keep the strides of their transposed input, so whether flatten
// views their result is unknown here: changing it in place would tell.
func.func @layout_through_elementwise_ops(%b: !hop.tensor<[4, 3], f32> {hop.strides = [1 : i64, 4 : i64]}) -> !hop.tensor<[4, 3], f32> {
  %s = aten.sin(%b) : (!hop.tensor<[4, 3], f32>) -> !hop.tensor<[4, 3], f32>
  %t = aten.add.Scalar(%s) {other = 1 : i64} : (!hop.tensor<[4, 3], f32>) -> !hop.tensor<[4, 3], f32>
  %f = aten.flatten.using_ints(%t) : (!hop.tensor<[4, 3], f32>) -> !hop.tensor<[12], f32>
  // expected-error @+1 {{'aten.zero_' op changes %f in place, which may or may not share memory with %t ('aten.flatten.using_ints' views or copies depending on strides that hopc cannot tell here)}}
  %0 = aten.zero_(%f) : (!hop.tensor<[12], f32>) -> !hop.tensor<[12], f32>
  func.return %t : !hop.tensor<[4, 3], f32>
}

// -----

// Unlike hop.while, a hop.scan that runs no step returns its init itself: a
// carry result changed in place may or may not share memory with %init.
hop.symbol @s0 backed [2, oo]
func.func @scan_carry_changed_in_place(%init: !hop.tensor<[4], f32>, %xs: !hop.tensor<[s0, 4], f32>) -> !hop.tensor<[4], f32> {
  %r:2 = hop.scan init(%init) xs(%xs) additional() : (!hop.tensor<[4], f32>), (!hop.tensor<[s0, 4], f32>), () -> !hop.tensor<[4], f32>, !hop.tensor<[s0, 4], f32> {
  ^bb0(%c: !hop.tensor<[4], f32>, %x: !hop.tensor<[4], f32>):
    %n = aten.add.Tensor(%c, %x) : (!hop.tensor<[4], f32>, !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
    %y = aten.mul.Scalar(%n) {other = 2 : i64} : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
    hop.yield %n, %y : !hop.tensor<[4], f32>, !hop.tensor<[4], f32>
  }
  // expected-error @+1 {{'aten.sin_' op changes %r in place, which may or may not share memory with %init ('hop.scan' returns it as a view of its operand only in some runs)}}
  %0 = aten.sin_(%r#0) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
  func.return %r#0 : !hop.tensor<[4], f32>
}

// -----

// hop.associative_scan must not change its operands: here the right slice of %x.
func.func @associative_scan_mutates_a_slice(%x: !hop.tensor<[3, 4], f32>) -> !hop.tensor<[3, 4], f32> {
  %r = hop.associative_scan xs(%x) additional() : (!hop.tensor<[3, 4], f32>), () -> !hop.tensor<[3, 4], f32> {
  ^bb0(%a: !hop.tensor<[4], f32>, %b: !hop.tensor<[4], f32>):
    // expected-error @+1 {{'aten.add_.Tensor' op changes %b in place, an operand (xs) of the enclosing 'hop.associative_scan' body}}
    %s = aten.add_.Tensor(%b, %a) : (!hop.tensor<[4], f32>, !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
    hop.yield %s : !hop.tensor<[4], f32>
  }
  func.return %r : !hop.tensor<[3, 4], f32>
}

// -----

// hop.flex_attention's bodies must not change its operands: here the score body's buffer.
func.func @flex_attention_score_mutates_a_buffer(%q: !hop.tensor<[1, 2, 8, 4], f32>, %k: !hop.tensor<[1, 2, 8, 4], f32>, %v: !hop.tensor<[1, 2, 8, 4], f32>, %bias: !hop.tensor<[2], f32>) -> !hop.tensor<[1, 2, 8, 4], f32> {
  %o = hop.flex_attention(%q, %k, %v) buffers(%bias) {scale = 5.000000e-01 : f64} : (!hop.tensor<[1, 2, 8, 4], f32>, !hop.tensor<[1, 2, 8, 4], f32>, !hop.tensor<[1, 2, 8, 4], f32>), (!hop.tensor<[2], f32>) -> !hop.tensor<[1, 2, 8, 4], f32> score {
  ^bb0(%s: !hop.tensor<[], f32>, %b: !hop.tensor<[], i32>, %h: !hop.tensor<[], i32>, %m: !hop.tensor<[], i32>, %n: !hop.tensor<[], i32>, %table: !hop.tensor<[2], f32>):
    // expected-error @+1 {{'aten.mul_.Scalar' op changes %table in place, an operand (buffers) of the enclosing 'hop.flex_attention' body}}
    %t = aten.mul_.Scalar(%table) {other = 2 : i64} : (!hop.tensor<[2], f32>) -> !hop.tensor<[2], f32>
    %w = aten.index.Tensor(%t, [%h]) : (!hop.tensor<[2], f32>, !hop.tensor<[], i32>) -> !hop.tensor<[], f32>
    %r = aten.add.Tensor(%s, %w) : (!hop.tensor<[], f32>, !hop.tensor<[], f32>) -> !hop.tensor<[], f32>
    hop.yield %r : !hop.tensor<[], f32>
  } mask {
  ^bb0(%b2: !hop.tensor<[], i32>, %h2: !hop.tensor<[], i32>, %m2: !hop.tensor<[], i32>, %n2: !hop.tensor<[], i32>, %table2: !hop.tensor<[2], f32>):
    %keep = aten.ge.Tensor(%m2, %n2) : (!hop.tensor<[], i32>, !hop.tensor<[], i32>) -> !hop.tensor<[], i1>
    hop.yield %keep : !hop.tensor<[], i1>
  }
  func.return %o : !hop.tensor<[1, 2, 8, 4], f32>
}
