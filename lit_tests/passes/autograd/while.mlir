// RUN: hopc-opt --autograd --split-input-file %s | filecheck %s
// RUN: hopc-opt --autograd --split-input-file %s | hopc-opt --split-input-file | filecheck %s

// The backward of hop.while (Note [while backward]). The forward loop gains a
// trip counter (its last carried value) and saves only the initial carried
// value h, the loop-invariant n and w, and the count. The backward reads the
// count and k = ceil(sqrt(T)) with two hop.items (its host syncs), snapshots
// every k-th carried value in sweep 1 into [ceil(T/k), ...] buffers, then walks
// the segments backwards in sweep 2: a loop reruns the body's forward over the
// segment, keeping h in a [k + 1, ...] buffer (the step's residuals are h
// entering it and tanh's output, the h leaving it: rows i and i + 1), and a
// second loop runs the body's backward on them, last step first. The body,
// its forward and its backward are subgraphs called from the sweeps.

// CHECK-LABEL: builtin.module
// CHECK:      hop.symbol @s0 backed [2, oo] hint 3
// CHECK-NEXT: hop.symbol @[[T:u[0-9]+]] unbacked [0, oo]
// CHECK-NEXT: hop.symbol @[[K:u[0-9]+]] unbacked [0, oo]
// CHECK:      hop.subgraph @[[BODY:while_i_body]] {
// CHECK:        aten.tanh
// CHECK:        hop.yield %next, %t
// CHECK:      hop.subgraph @[[FORWARD:while_i_body_forward]] {
// CHECK:        hop.yield %next, %tanh : !hop.tensor<[], i64>, !hop.tensor<[s0, 4], f32>
// CHECK:      hop.subgraph @[[BACKWARD:while_i_body_backward]] {
// CHECK-NEXT: ^bb0(%bh: !hop.tensor<[s0, 4], f32>, %bw: !hop.tensor<[4, 4], f32>, %tanh: !hop.tensor<[s0, 4], f32>, %tangent: !hop.tensor<[s0, 4], f32>):
// CHECK-NOT:    aten.tanh(
// CHECK:        aten.tanh_backward
// CHECK:      func.func @forward(
// CHECK-SAME:   -> (!hop.tensor<[s0, 4], f32>, !hop.tensor<[s0, 4], f32> {hop.saved = 0 : i64}, !hop.tensor<[], i64> {hop.saved = 1 : i64}, !hop.tensor<[4, 4], f32> {hop.saved = 2 : i64}, !hop.tensor<[], i64> {hop.saved = 3 : i64})
// CHECK:        %counter = aten.zeros() {size = [], dtype = i64, device = "cpu", hop.seq_nr = 0 : i64}
// CHECK:        %i, %r, %trip_count = hop.while(%zero, %h, %counter) additional(%n, %w
// CHECK:        } body {
// CHECK:          %[[NEXT:.*]] = aten.add.Scalar(%counter{{.*}}) {other = 1 : i64}
// CHECK:          hop.yield %next, %t, %[[NEXT]]
// CHECK:        func.return %r, %h, %n, %w, %trip_count
// CHECK:      func.func @backward(%h: {{.*}} {hop.saved = 0 : i64}, %n: {{.*}} {hop.saved = 1 : i64}, %w: {{.*}} {hop.saved = 2 : i64}, %trip_count: !hop.tensor<[], i64> {hop.saved = 3 : i64}, %tangent: {{.*}} {hop.cotangent_of = 0 : i64})
// CHECK:        %trips = hop.item %trip_count {{.*}} -> !hop.symint<[[T]]>
// CHECK:        aten.sqrt
// CHECK:        %every = hop.item %checkpoint_every {{.*}} -> !hop.symint<[[K]]>
// CHECK:        %[[SNAPSHOTS:.*]] = aten.repeat({{.*}}) {repeats = [#hop.expr<([[T]] + [[K]] - 1) // [[K]]>, 1 : i64, 1 : i64]{{.*}} -> !hop.tensor<[([[T]] + [[K]] - 1) // [[K]], s0, 4], f32>
// CHECK:        hop.while(%step, %zero, %h, %snapshots, %[[SNAPSHOTS]]) additional(%n, %w, %last_snapshot, %checkpoint_every
// CHECK:          hop.invoke_subgraph @[[BODY]](
// CHECK:          hop.cond %due(
// CHECK:            aten.index_put
// CHECK:        hop.while(%segment, %tangent, %gradient)
// CHECK:          %length = aten.minimum
// CHECK:          aten.repeat({{.*}}) {repeats = [#hop.expr<[[K]] + 1>, 1 : i64, 1 : i64]} : {{.*}} -> !hop.tensor<[[[K]] + 1, s0, 4], f32>
// CHECK-NOT:      aten.new_zeros
// CHECK:          hop.while(
// CHECK:            hop.invoke_subgraph @[[FORWARD]](
// CHECK:            aten.index_put
// CHECK-NOT:        aten.index_put
// CHECK:          hop.while(
// CHECK-NOT:        hop.invoke_subgraph @[[BODY]](
// CHECK:            %[[ENTERING:.*]] = aten.index.Tensor(%{{.*}}, [%[[STEP:.*]]])
// CHECK:            %[[LEAVING:.*]] = aten.index.Tensor(%{{.*}}, [%{{.*}}])
// CHECK:            hop.invoke_subgraph @[[BACKWARD]](%[[ENTERING]], %{{.*}}, %[[LEAVING]], %{{.*}})
// CHECK:            aten.add.Tensor
// CHECK:        func.return %tangent_{{[0-9]+}}, %gradient_{{[0-9]+}}

builtin.module {
  hop.symbol @s0 backed [2, oo] hint 3
  func.func @forward(%h: !hop.tensor<[s0, 4], f32> {hop.requires_grad}, %n: !hop.tensor<[], i64>, %w: !hop.tensor<[4, 4], f32> {hop.requires_grad}) -> !hop.tensor<[s0, 4], f32> {
    %zero = aten.zeros() {size = [], dtype = i64, device = "cpu"} : () -> !hop.tensor<[], i64>
    %i, %r = hop.while(%zero, %h) additional(%n, %w) : (!hop.tensor<[], i64>, !hop.tensor<[s0, 4], f32>) -> (!hop.tensor<[], i64>, !hop.tensor<[s0, 4], f32>), !hop.tensor<[], i64>, !hop.tensor<[4, 4], f32> cond {
    ^bb0(%ci: !hop.tensor<[], i64>, %ch: !hop.tensor<[s0, 4], f32>, %cn: !hop.tensor<[], i64>, %cw: !hop.tensor<[4, 4], f32>):
      %go = aten.lt.Tensor(%ci, %cn) : (!hop.tensor<[], i64>, !hop.tensor<[], i64>) -> !hop.tensor<[], i1>
      hop.yield %go : !hop.tensor<[], i1>
    } body {
    ^bb0(%bi: !hop.tensor<[], i64>, %bh: !hop.tensor<[s0, 4], f32>, %bn: !hop.tensor<[], i64>, %bw: !hop.tensor<[4, 4], f32>):
      %next = aten.add.Scalar(%bi) {other = 1 : i64} : (!hop.tensor<[], i64>) -> !hop.tensor<[], i64>
      %mm = aten.mm(%bh, %bw) : (!hop.tensor<[s0, 4], f32>, !hop.tensor<[4, 4], f32>) -> !hop.tensor<[s0, 4], f32>
      %t = aten.tanh(%mm) : (!hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32>
      hop.yield %next, %t : !hop.tensor<[], i64>, !hop.tensor<[s0, 4], f32>
    }
    func.return %r : !hop.tensor<[s0, 4], f32>
  }
}

// -----

// hop.checkpoint_every fixes k = 4: one host sync (the count), constant [5, 3]
// segment buffers (of the residual, here the carried value leaving the step,
// which exp's backward reads), [(T + 3) // 4, 3] snapshots. The attribute is not carried
// over to the forward loop.

// CHECK-LABEL: builtin.module
// CHECK:       hop.symbol @[[T:u[0-9]+]] unbacked [0, oo]
// CHECK-NOT:   hop.symbol
// CHECK:       func.func @forward(
// CHECK:         %r, %trip_count = hop.while(%h, %counter) {hop.seq_nr = 0 : i64} :
// CHECK-NOT:     hop.checkpoint_every
// CHECK:       func.func @backward(
// CHECK:         %trips = hop.item %trip_count
// CHECK-NOT:     hop.item
// CHECK-NOT:     aten.sqrt
// CHECK:         %checkpoint_every = aten.full() {size = [], fill_value = 4 : i64, dtype = i64
// CHECK:         aten.repeat({{.*}}) {repeats = [#hop.expr<([[T]] + 3) // 4>, 1 : i64]
// CHECK:         aten.repeat({{.*}}) {repeats = [5 : i64, 1 : i64]} : (!hop.tensor<[1, 3], f32>) -> !hop.tensor<[5, 3], f32>

builtin.module {
  func.func @forward(%h: !hop.tensor<[3], f32> {hop.requires_grad}, %n: !hop.tensor<[], i64>) -> !hop.tensor<[3], f32> {
    %r = hop.while(%h) additional(%n) {hop.checkpoint_every = 4 : i64} : (!hop.tensor<[3], f32>) -> !hop.tensor<[3], f32>, !hop.tensor<[], i64> cond {
    ^bb0(%ch: !hop.tensor<[3], f32>, %cn: !hop.tensor<[], i64>):
      %s = aten.sum(%ch) : (!hop.tensor<[3], f32>) -> !hop.tensor<[], f32>
      %go = aten.lt.Scalar(%s) {other = 1.0e+02 : f64} : (!hop.tensor<[], f32>) -> !hop.tensor<[], i1>
      hop.yield %go : !hop.tensor<[], i1>
    } body {
    ^bb0(%bh: !hop.tensor<[3], f32>, %bn: !hop.tensor<[], i64>):
      %e = aten.exp(%bh) : (!hop.tensor<[3], f32>) -> !hop.tensor<[3], f32>
      hop.yield %e : !hop.tensor<[3], f32>
    }
    func.return %r : !hop.tensor<[3], f32>
  }
}

// -----

// Nothing requires grad: the module is left alone (no counter, no subgraphs).

// CHECK-LABEL: builtin.module
// CHECK-NOT:   hop.entry
// CHECK-NOT:   hop.subgraph
// CHECK:       %i, %r = hop.while(%zero, %h) additional(%n) :
// CHECK-NOT:   hop.item

builtin.module {
  func.func @forward(%h: !hop.tensor<[3], f32>, %n: !hop.tensor<[], i64>) -> !hop.tensor<[3], f32> {
    %zero = aten.zeros() {size = [], dtype = i64, device = "cpu"} : () -> !hop.tensor<[], i64>
    %i, %r = hop.while(%zero, %h) additional(%n) : (!hop.tensor<[], i64>, !hop.tensor<[3], f32>) -> (!hop.tensor<[], i64>, !hop.tensor<[3], f32>), !hop.tensor<[], i64> cond {
    ^bb0(%ci: !hop.tensor<[], i64>, %ch: !hop.tensor<[3], f32>, %cn: !hop.tensor<[], i64>):
      %go = aten.lt.Tensor(%ci, %cn) : (!hop.tensor<[], i64>, !hop.tensor<[], i64>) -> !hop.tensor<[], i1>
      hop.yield %go : !hop.tensor<[], i1>
    } body {
    ^bb0(%bi: !hop.tensor<[], i64>, %bh: !hop.tensor<[3], f32>, %bn: !hop.tensor<[], i64>):
      %next = aten.add.Scalar(%bi) {other = 1 : i64} : (!hop.tensor<[], i64>) -> !hop.tensor<[], i64>
      %e = aten.sin(%bh) : (!hop.tensor<[3], f32>) -> !hop.tensor<[3], f32>
      hop.yield %next, %e : !hop.tensor<[], i64>, !hop.tensor<[3], f32>
    }
    func.return %r : !hop.tensor<[3], f32>
  }
}

// -----

// x requires grad, but no operand of the loop does: the loop is not
// differentiated (no counter, no subgraphs, no sweeps); its result is saved
// for mul's backward.

// CHECK-LABEL: builtin.module
// CHECK-NOT:   hop.subgraph
// CHECK:       func.func @forward(
// CHECK:         %i, %r = hop.while(%zero, %h) additional(%n) :
// CHECK:         func.return %mul, {{.*}}%r :
// CHECK:       func.func @backward({{.*}}%r: !hop.tensor<[3], f32> {hop.saved = {{[0-9]+}} : i64}, %tangent
// CHECK-NOT:     hop.while
// CHECK:         func.return

builtin.module {
  func.func @forward(%h: !hop.tensor<[3], f32>, %x: !hop.tensor<[3], f32> {hop.requires_grad}, %n: !hop.tensor<[], i64>) -> !hop.tensor<[3], f32> {
    %zero = aten.zeros() {size = [], dtype = i64, device = "cpu"} : () -> !hop.tensor<[], i64>
    %i, %r = hop.while(%zero, %h) additional(%n) : (!hop.tensor<[], i64>, !hop.tensor<[3], f32>) -> (!hop.tensor<[], i64>, !hop.tensor<[3], f32>), !hop.tensor<[], i64> cond {
    ^bb0(%ci: !hop.tensor<[], i64>, %ch: !hop.tensor<[3], f32>, %cn: !hop.tensor<[], i64>):
      %go = aten.lt.Tensor(%ci, %cn) : (!hop.tensor<[], i64>, !hop.tensor<[], i64>) -> !hop.tensor<[], i1>
      hop.yield %go : !hop.tensor<[], i1>
    } body {
    ^bb0(%bi: !hop.tensor<[], i64>, %bh: !hop.tensor<[3], f32>, %bn: !hop.tensor<[], i64>):
      %next = aten.add.Scalar(%bi) {other = 1 : i64} : (!hop.tensor<[], i64>) -> !hop.tensor<[], i64>
      %e = aten.sin(%bh) : (!hop.tensor<[3], f32>) -> !hop.tensor<[3], f32>
      hop.yield %next, %e : !hop.tensor<[], i64>, !hop.tensor<[3], f32>
    }
    %y = aten.mul.Tensor(%r, %x) : (!hop.tensor<[3], f32>, !hop.tensor<[3], f32>) -> !hop.tensor<[3], f32>
    func.return %y : !hop.tensor<[3], f32>
  }
}
