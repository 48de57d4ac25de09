// RUN: hopc-opt %s --split-input-file | filecheck %s
// RUN: hopc-opt %s --split-input-file --print-op-generic | filecheck %s --check-prefix=GENERIC
// RUN: hopc-opt %s --split-input-file --print-op-generic | hopc-opt --split-input-file | filecheck %s
// RUN: hopc-opt %s --split-input-file --cse --dce | filecheck %s --check-prefix=KEPT

// The random-number-state ops (Note [replaying random ops] in
// hopc.dialects.hop_rng) in custom and generic form; the third RUN parses the
// generic form back. The last RUN checks what --cse and --dce keep: a state
// read is an effect on the generator, so it is merged or dropped only where
// nothing draws or sets the state in between.

// Draw, set the state back, draw again: both draws and the set stay, in order.
// CHECK-LABEL: func.func @replay
// CHECK:         %[[STATE:.*]] = hop.get_rng_state : !hop.rng_state
// CHECK-NEXT:    %{{.*}} = aten.bernoulli.p(%x) {p = 5.000000e-01 : f64}
// CHECK-NEXT:    hop.set_rng_state %[[STATE]]
// CHECK-NEXT:    %{{.*}} = aten.bernoulli.p(%x) {p = 5.000000e-01 : f64}
// GENERIC-LABEL: "func.func"() <{sym_name = "replay"
// GENERIC:         %{{.*}} = "hop.get_rng_state"() : () -> !hop.rng_state
// GENERIC:         "hop.set_rng_state"(%{{.*}}) : (!hop.rng_state) -> ()
// KEPT-LABEL:  func.func @replay
// KEPT:          %[[STATE:.*]] = hop.get_rng_state
// KEPT-NEXT:     %[[FIRST:.*]] = aten.bernoulli.p(%x)
// KEPT-NEXT:     hop.set_rng_state %[[STATE]]
// KEPT-NEXT:     %[[AGAIN:.*]] = aten.bernoulli.p(%x)
// KEPT-NEXT:     func.return %[[FIRST]], %[[AGAIN]]
func.func @replay(%x: !hop.tensor<[4], f32>) -> (!hop.tensor<[4], f32>, !hop.tensor<[4], f32>) {
  %state = hop.get_rng_state : !hop.rng_state
  %mask = aten.bernoulli.p(%x) {p = 0.5 : f64} : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
  hop.set_rng_state %state
  %again = aten.bernoulli.p(%x) {p = 0.5 : f64} : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
  func.return %mask, %again : !hop.tensor<[4], f32>, !hop.tensor<[4], f32>
}

// -----

// A state is a value like any other: an argument and a result of a function,
// an operand of a region that sets it before its body draws (a recompute).
// CHECK-LABEL: func.func @recompute(%state: !hop.rng_state) -> (!hop.tensor<[4], f32>, !hop.rng_state)
// CHECK:         hop.checkpoint(%state) : (!hop.rng_state) -> !hop.tensor<[4], f32> {
// CHECK-NEXT:    ^bb0(%s: !hop.rng_state):
// CHECK-NEXT:      hop.set_rng_state %s
// CHECK-NEXT:      %{{.*}} = aten.rand() {size = [4 : i64]} : () -> !hop.tensor<[4], f32>
// CHECK:         func.return %{{.*}}, %state : !hop.tensor<[4], f32>, !hop.rng_state
// KEPT-LABEL:  func.func @recompute
// KEPT:          hop.set_rng_state %s
// KEPT-NEXT:     aten.rand()
func.func @recompute(%state: !hop.rng_state) -> (!hop.tensor<[4], f32>, !hop.rng_state) {
  %r = hop.checkpoint(%state) : (!hop.rng_state) -> !hop.tensor<[4], f32> {
  ^bb0(%s: !hop.rng_state):
    hop.set_rng_state %s
    %u = aten.rand() {size = [4]} : () -> !hop.tensor<[4], f32>
    hop.yield %u : !hop.tensor<[4], f32>
  }
  func.return %r, %state : !hop.tensor<[4], f32>, !hop.rng_state
}

// -----

// Two reads with a draw between them hold different states: not merged.
// KEPT-LABEL:  func.func @reads_around_a_draw
// KEPT:          %[[BEFORE:.*]] = hop.get_rng_state
// KEPT-NEXT:     aten.rand()
// KEPT-NEXT:     %[[AFTER:.*]] = hop.get_rng_state
// KEPT-NEXT:     func.return %[[BEFORE]], %[[AFTER]]
func.func @reads_around_a_draw() -> (!hop.rng_state, !hop.rng_state, !hop.tensor<[4], f32>) {
  %before = hop.get_rng_state : !hop.rng_state
  %u = aten.rand() {size = [4]} : () -> !hop.tensor<[4], f32>
  %after = hop.get_rng_state : !hop.rng_state
  func.return %before, %after, %u : !hop.rng_state, !hop.rng_state, !hop.tensor<[4], f32>
}

// -----

// Two reads with nothing that draws or sets the state hold the same state:
// merged; a read whose state no op uses goes.
// KEPT-LABEL:  func.func @reads_without_a_draw
// KEPT-NEXT:     %[[STATE:.*]] = hop.get_rng_state
// KEPT-NEXT:     func.return %[[STATE]], %[[STATE]]
func.func @reads_without_a_draw() -> (!hop.rng_state, !hop.rng_state) {
  %first = hop.get_rng_state : !hop.rng_state
  %unused = hop.get_rng_state : !hop.rng_state
  %second = hop.get_rng_state : !hop.rng_state
  func.return %first, %second : !hop.rng_state, !hop.rng_state
}
