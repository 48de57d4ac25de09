// RUN: hopc-opt %s --dce --split-input-file | filecheck %s

// Unused reads go; ops that write (an in-place op, an assert, a random op, a
// batch norm that updates its running statistics) stay.
hop.symbol @s0 backed [2, oo]
func.func @effects(%x: !hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32> {
  %dead = aten.exp(%x) : (!hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32>
  %dead_too = aten.sin(%dead) : (!hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32>
  %n = hop.sym_size %x[0] : !hop.tensor<[s0, 4], f32> -> !hop.symint<s0>
  %two = hop.sym_constant : !hop.symint<2>
  %big = hop.sym_ge %n, %two : !hop.symint<s0>, !hop.symint<2> -> !hop.symbool<Ge(s0, 2)>
  hop.assert %big, "s0 >= 2" : !hop.symbool<Ge(s0, 2)>
  %mutated = aten.mul_.Scalar(%x) {other = 2 : i64} : (!hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32>
  %noise = aten.bernoulli(%x) : (!hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32>
  %mean = aten.zeros() {size = [4]} : () -> !hop.tensor<[4], f32>
  %var = aten.ones() {size = [4]} : () -> !hop.tensor<[4], f32>
  %trained = aten.batch_norm(%x, none, none, %mean, %var) {training = true, momentum = 1.000000e-01 : f64, eps = 1.000000e-05 : f64, cudnn_enabled = true} : (!hop.tensor<[s0, 4], f32>, !hop.tensor<[4], f32>, !hop.tensor<[4], f32>) -> !hop.tensor<[s0, 4], f32>
  %evaluated = aten.batch_norm(%x, none, none, %mean, %var) {training = false, momentum = 1.000000e-01 : f64, eps = 1.000000e-05 : f64, cudnn_enabled = true} : (!hop.tensor<[s0, 4], f32>, !hop.tensor<[4], f32>, !hop.tensor<[4], f32>) -> !hop.tensor<[s0, 4], f32>
  func.return %x : !hop.tensor<[s0, 4], f32>
}
// CHECK-LABEL: func.func @effects
// CHECK-NOT:     aten.exp
// CHECK-NOT:     aten.sin
// CHECK:         hop.assert
// CHECK-NEXT:    aten.mul_.Scalar
// CHECK-NEXT:    aten.bernoulli
// CHECK-NEXT:    aten.zeros
// CHECK-NEXT:    aten.ones
// CHECK-NEXT:    aten.batch_norm{{.*}}training = true
// CHECK-NEXT:    func.return

// -----

// An unused cond result goes with its yields in both branches, and so does
// what computed them; the used result stays (must not fire on it).
hop.symbol @s0 backed [2, oo]
func.func @cond_results(%p: !hop.tensor<[], i1>, %x: !hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32> {
  %r:2 = hop.cond %p(%x) : !hop.tensor<[], i1>, (!hop.tensor<[s0, 4], f32>) -> (!hop.tensor<[s0, 4], f32>, !hop.tensor<[s0, 4], f32>) then {
  ^bb0(%a: !hop.tensor<[s0, 4], f32>):
    %s = aten.sin(%a) : (!hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32>
    %e = aten.exp(%a) : (!hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32>
    hop.yield %s, %e : !hop.tensor<[s0, 4], f32>, !hop.tensor<[s0, 4], f32>
  } else {
  ^bb0(%a: !hop.tensor<[s0, 4], f32>):
    %c = aten.cos(%a) : (!hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32>
    %l = aten.log(%a) : (!hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32>
    hop.yield %c, %l : !hop.tensor<[s0, 4], f32>, !hop.tensor<[s0, 4], f32>
  }
  func.return %r#0 : !hop.tensor<[s0, 4], f32>
}
// CHECK-LABEL: func.func @cond_results
// CHECK:         %[[R:.*]] = hop.cond %{{.*}}(%{{.*}}) : !hop.tensor<[], i1>, (!hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32> then {
// CHECK:           %[[S:.*]] = aten.sin
// CHECK-NEXT:      hop.yield %[[S]] : !hop.tensor<[s0, 4], f32>
// CHECK:           %[[C:.*]] = aten.cos
// CHECK-NEXT:      hop.yield %[[C]] : !hop.tensor<[s0, 4], f32>
// CHECK:         func.return %[[R]]
// CHECK-NOT:     aten.exp
// CHECK-NOT:     aten.log

// -----

// A cond whose results are all unused goes, unless a branch writes (must not
// fire: the then branch mutates its operand).
hop.symbol @s0 backed [2, oo]
func.func @cond_with_write(%p: !hop.tensor<[], i1>, %x: !hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32> {
  %gone = hop.cond %p(%x) : !hop.tensor<[], i1>, (!hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32> then {
  ^bb0(%a: !hop.tensor<[s0, 4], f32>):
    %s = aten.sin(%a) : (!hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32>
    hop.yield %s : !hop.tensor<[s0, 4], f32>
  } else {
  ^bb0(%a: !hop.tensor<[s0, 4], f32>):
    hop.yield %a : !hop.tensor<[s0, 4], f32>
  }
  %kept = hop.cond %p(%x) : !hop.tensor<[], i1>, (!hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32> then {
  ^bb0(%a: !hop.tensor<[s0, 4], f32>):
    %m = aten.add_.Scalar(%a) {other = 1 : i64} : (!hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32>
    hop.yield %m : !hop.tensor<[s0, 4], f32>
  } else {
  ^bb0(%a: !hop.tensor<[s0, 4], f32>):
    hop.yield %a : !hop.tensor<[s0, 4], f32>
  }
  func.return %x : !hop.tensor<[s0, 4], f32>
}
// CHECK-LABEL: func.func @cond_with_write
// CHECK-NOT:     aten.sin
// CHECK:         hop.cond %{{.*}}(%{{.*}}) : !hop.tensor<[], i1>, (!hop.tensor<[s0, 4], f32>) -> () then {
// CHECK:           aten.add_.Scalar
// CHECK-NEXT:      hop.yield
// CHECK-NOT:     aten.sin

// -----

// A cond operand whose block argument no branch reads goes; one read by a
// single branch stays (must not fire on it).
hop.symbol @s0 backed [2, oo]
func.func @cond_arguments(%p: !hop.tensor<[], i1>, %x: !hop.tensor<[s0, 4], f32>, %y: !hop.tensor<[s0, 4], f32>, %z: !hop.tensor<[4], f32>) -> !hop.tensor<[s0, 4], f32> {
  %r = hop.cond %p(%x, %y, %z) : !hop.tensor<[], i1>, (!hop.tensor<[s0, 4], f32>, !hop.tensor<[s0, 4], f32>, !hop.tensor<[4], f32>) -> !hop.tensor<[s0, 4], f32> then {
  ^bb0(%a: !hop.tensor<[s0, 4], f32>, %b: !hop.tensor<[s0, 4], f32>, %c: !hop.tensor<[4], f32>):
    hop.yield %a : !hop.tensor<[s0, 4], f32>
  } else {
  ^bb0(%a: !hop.tensor<[s0, 4], f32>, %b: !hop.tensor<[s0, 4], f32>, %c: !hop.tensor<[4], f32>):
    %s = aten.sin(%b) : (!hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32>
    hop.yield %s : !hop.tensor<[s0, 4], f32>
  }
  func.return %r : !hop.tensor<[s0, 4], f32>
}
// CHECK-LABEL: func.func @cond_arguments
// CHECK-SAME:    (%[[P:.*]]: !hop.tensor<[], i1>, %[[X:.*]]: !hop.tensor<[s0, 4], f32>, %[[Y:.*]]: !hop.tensor<[s0, 4], f32>, %{{.*}}: !hop.tensor<[4], f32>)
// CHECK:         hop.cond %[[P]](%[[X]], %[[Y]]) : !hop.tensor<[], i1>, (!hop.tensor<[s0, 4], f32>, !hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32> then {
// CHECK-NEXT:    ^{{.*}}(%{{.*}}: !hop.tensor<[s0, 4], f32>, %{{.*}}: !hop.tensor<[s0, 4], f32>):
// CHECK:         } else {
// CHECK-NEXT:    ^{{.*}}(%{{.*}}: !hop.tensor<[s0, 4], f32>, %{{.*}}: !hop.tensor<[s0, 4], f32>):

// -----

// Nested regions: the inner wrap's unused result goes, then the outer wrap's
// argument that only fed it, then the outer operand's producer.
hop.symbol @s0 backed [2, oo]
func.func @nested_wraps(%x: !hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32> {
  %e = aten.exp(%x) : (!hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32>
  %r = hop.wrap(%x, %e) : (!hop.tensor<[s0, 4], f32>, !hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32> {
  ^bb0(%a: !hop.tensor<[s0, 4], f32>, %b: !hop.tensor<[s0, 4], f32>):
    %i:2 = hop.checkpoint(%a, %b) : (!hop.tensor<[s0, 4], f32>, !hop.tensor<[s0, 4], f32>) -> (!hop.tensor<[s0, 4], f32>, !hop.tensor<[s0, 4], f32>) {
    ^bb1(%c: !hop.tensor<[s0, 4], f32>, %d: !hop.tensor<[s0, 4], f32>):
      %s = aten.sin(%c) : (!hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32>
      %t = aten.tanh(%d) : (!hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32>
      hop.yield %s, %t : !hop.tensor<[s0, 4], f32>, !hop.tensor<[s0, 4], f32>
    }
    hop.yield %i#0 : !hop.tensor<[s0, 4], f32>
  }
  func.return %r : !hop.tensor<[s0, 4], f32>
}
// CHECK-LABEL: func.func @nested_wraps
// CHECK-SAME:    (%[[X:.*]]: !hop.tensor<[s0, 4], f32>)
// CHECK-NEXT:    %[[R:.*]] = hop.wrap(%[[X]]) : (!hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32> {
// CHECK-NEXT:    ^{{.*}}(%[[A:.*]]: !hop.tensor<[s0, 4], f32>):
// CHECK-NEXT:      %[[I:.*]] = hop.checkpoint(%[[A]]) : (!hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32> {
// CHECK-NEXT:      ^{{.*}}(%[[C:.*]]: !hop.tensor<[s0, 4], f32>):
// CHECK-NEXT:        %[[S:.*]] = aten.sin(%[[C]])
// CHECK-NEXT:        hop.yield %[[S]]
// CHECK-NEXT:      }
// CHECK-NEXT:      hop.yield %[[I]]
// CHECK-NOT:     aten.exp
// CHECK-NOT:     aten.tanh

// -----

// A carried value whose result and block arguments nothing reads goes with
// its operand, arguments, result and yield; the counter stays (must not fire:
// the condition reads it) and so does the accumulator (its result is used).
hop.symbol @s0 backed [2, oo]
func.func @while_carried(%i: !hop.tensor<[], i64>, %acc: !hop.tensor<[4], f32>, %last: !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32> {
  %r:3 = hop.while(%i, %acc, %last) additional() : (!hop.tensor<[], i64>, !hop.tensor<[4], f32>, !hop.tensor<[4], f32>) -> (!hop.tensor<[], i64>, !hop.tensor<[4], f32>, !hop.tensor<[4], f32>),  cond {
  ^bb0(%a: !hop.tensor<[], i64>, %b: !hop.tensor<[4], f32>, %c: !hop.tensor<[4], f32>):
    %go = aten.lt.Scalar(%a) {other = 3 : i64} : (!hop.tensor<[], i64>) -> !hop.tensor<[], i1>
    hop.yield %go : !hop.tensor<[], i1>
  } body {
  ^bb0(%a: !hop.tensor<[], i64>, %b: !hop.tensor<[4], f32>, %c: !hop.tensor<[4], f32>):
    %next = aten.add.Scalar(%a) {other = 1 : i64} : (!hop.tensor<[], i64>) -> !hop.tensor<[], i64>
    %sum = aten.mul.Scalar(%b) {other = 2 : i64} : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
    %last_next = aten.exp(%b) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
    hop.yield %next, %sum, %last_next : !hop.tensor<[], i64>, !hop.tensor<[4], f32>, !hop.tensor<[4], f32>
  }
  func.return %r#1 : !hop.tensor<[4], f32>
}
// CHECK-LABEL: func.func @while_carried
// CHECK-SAME:    (%[[I:.*]]: !hop.tensor<[], i64>, %[[ACC:.*]]: !hop.tensor<[4], f32>, %{{.*}}: !hop.tensor<[4], f32>)
// CHECK:         %{{.*}}, %[[R1:.*]] = hop.while(%[[I]], %[[ACC]]) : (!hop.tensor<[], i64>, !hop.tensor<[4], f32>) -> (!hop.tensor<[], i64>, !hop.tensor<[4], f32>) cond {
// CHECK-NEXT:    ^{{.*}}(%{{.*}}: !hop.tensor<[], i64>, %{{.*}}: !hop.tensor<[4], f32>):
// CHECK:         } body {
// CHECK-NEXT:    ^{{.*}}(%{{.*}}: !hop.tensor<[], i64>, %{{.*}}: !hop.tensor<[4], f32>):
// CHECK-NOT:       aten.exp
// CHECK:           hop.yield %{{.*}}, %{{.*}} : !hop.tensor<[], i64>, !hop.tensor<[4], f32>
// CHECK:         func.return %[[R1]]

// -----

// Must not fire: the carried value's result is unused, but the body reads its
// argument to compute another carried value. (A carried value that feeds only
// its own next value is not detected either: its argument is read.)
hop.symbol @s0 backed [2, oo]
func.func @while_carried_read_by_body(%i: !hop.tensor<[], i64>, %step: !hop.tensor<[], i64>) -> !hop.tensor<[], i64> {
  %r:2 = hop.while(%i, %step) additional() : (!hop.tensor<[], i64>, !hop.tensor<[], i64>) -> (!hop.tensor<[], i64>, !hop.tensor<[], i64>),  cond {
  ^bb0(%a: !hop.tensor<[], i64>, %b: !hop.tensor<[], i64>):
    %go = aten.lt.Scalar(%a) {other = 10 : i64} : (!hop.tensor<[], i64>) -> !hop.tensor<[], i1>
    hop.yield %go : !hop.tensor<[], i1>
  } body {
  ^bb0(%a: !hop.tensor<[], i64>, %b: !hop.tensor<[], i64>):
    %sum = aten.add.Tensor(%a, %b) : (!hop.tensor<[], i64>, !hop.tensor<[], i64>) -> !hop.tensor<[], i64>
    %next = aten.add.Scalar(%sum) {other = 1 : i64} : (!hop.tensor<[], i64>) -> !hop.tensor<[], i64>
    hop.yield %next, %b : !hop.tensor<[], i64>, !hop.tensor<[], i64>
  }
  func.return %r#0 : !hop.tensor<[], i64>
}
// CHECK-LABEL: func.func @while_carried_read_by_body
// CHECK:         %{{.*}}, %{{.*}} = hop.while(%{{.*}}, %{{.*}})

// -----

// An unread additional operand of a while goes; a read one stays.
hop.symbol @s0 backed [2, oo]
func.func @while_additional(%i: !hop.tensor<[], i64>, %limit: !hop.tensor<[], i64>, %unused: !hop.tensor<[s0], f32>) -> !hop.tensor<[], i64> {
  %r = hop.while(%i) additional(%limit, %unused) : (!hop.tensor<[], i64>) -> !hop.tensor<[], i64>, !hop.tensor<[], i64>, !hop.tensor<[s0], f32> cond {
  ^bb0(%a: !hop.tensor<[], i64>, %l: !hop.tensor<[], i64>, %u: !hop.tensor<[s0], f32>):
    %go = aten.lt.Tensor(%a, %l) : (!hop.tensor<[], i64>, !hop.tensor<[], i64>) -> !hop.tensor<[], i1>
    hop.yield %go : !hop.tensor<[], i1>
  } body {
  ^bb0(%a: !hop.tensor<[], i64>, %l: !hop.tensor<[], i64>, %u: !hop.tensor<[s0], f32>):
    %next = aten.add.Scalar(%a) {other = 1 : i64} : (!hop.tensor<[], i64>) -> !hop.tensor<[], i64>
    hop.yield %next : !hop.tensor<[], i64>
  }
  func.return %r : !hop.tensor<[], i64>
}
// CHECK-LABEL: func.func @while_additional
// CHECK-SAME:    (%[[I:.*]]: !hop.tensor<[], i64>, %[[LIMIT:.*]]: !hop.tensor<[], i64>, %{{.*}}: !hop.tensor<[s0], f32>)
// CHECK:         hop.while(%[[I]]) additional(%[[LIMIT]]) : (!hop.tensor<[], i64>) -> !hop.tensor<[], i64>, !hop.tensor<[], i64> cond {

// -----

// An unused per-step output of a scan goes; its unused carry stays (must not
// fire: carries are never pruned).
hop.symbol @s0 backed [2, oo]
func.func @scan_outputs(%init: !hop.tensor<[4], f32>, %xs: !hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32> {
  %r:3 = hop.scan init(%init) xs(%xs) additional() : (!hop.tensor<[4], f32>), (!hop.tensor<[s0, 4], f32>), () -> !hop.tensor<[4], f32>, !hop.tensor<[s0, 4], f32>, !hop.tensor<[s0, 4], f32> {
  ^bb0(%c: !hop.tensor<[4], f32>, %x: !hop.tensor<[4], f32>):
    %n = aten.add.Tensor(%c, %x) : (!hop.tensor<[4], f32>, !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
    %y = aten.sin(%n) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
    %z = aten.exp(%n) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
    hop.yield %n, %y, %z : !hop.tensor<[4], f32>, !hop.tensor<[4], f32>, !hop.tensor<[4], f32>
  }
  func.return %r#1 : !hop.tensor<[s0, 4], f32>
}
// CHECK-LABEL: func.func @scan_outputs
// CHECK:         %{{.*}}, %[[R1:.*]] = hop.scan init(%{{.*}}) xs(%{{.*}}) additional() : (!hop.tensor<[4], f32>), (!hop.tensor<[s0, 4], f32>), () -> !hop.tensor<[4], f32>, !hop.tensor<[s0, 4], f32> {
// CHECK-NOT:       aten.exp
// CHECK:           hop.yield %{{.*}}, %{{.*}} : !hop.tensor<[4], f32>, !hop.tensor<[4], f32>
// CHECK:         func.return %[[R1]]

// -----

// An unused output of a map goes, with an unread additional operand.
hop.symbol @s0 backed [2, oo]
func.func @map_outputs(%xs: !hop.tensor<[s0, 4], f32>, %w: !hop.tensor<[4], f32>) -> !hop.tensor<[s0, 4], f32> {
  %r:2 = hop.map xs(%xs) additional(%w) : (!hop.tensor<[s0, 4], f32>), (!hop.tensor<[4], f32>) -> !hop.tensor<[s0, 4], f32>, !hop.tensor<[s0, 4], f32> {
  ^bb0(%x: !hop.tensor<[4], f32>, %v: !hop.tensor<[4], f32>):
    %y = aten.sin(%x) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
    %z = aten.mul.Tensor(%x, %v) : (!hop.tensor<[4], f32>, !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
    hop.yield %y, %z : !hop.tensor<[4], f32>, !hop.tensor<[4], f32>
  }
  func.return %r#0 : !hop.tensor<[s0, 4], f32>
}
// CHECK-LABEL: func.func @map_outputs
// CHECK:         %[[R:.*]] = hop.map xs(%{{.*}}) additional() : (!hop.tensor<[s0, 4], f32>), () -> !hop.tensor<[s0, 4], f32> {
// CHECK-NEXT:    ^{{.*}}(%[[X:.*]]: !hop.tensor<[4], f32>):
// CHECK-NEXT:      %[[Y:.*]] = aten.sin(%[[X]])
// CHECK-NEXT:      hop.yield %[[Y]]
// CHECK:         func.return %[[R]]

// -----

// Must not fire: invoke_subgraph is a call of a shared body, so its unused
// result and the subgraph's unread argument stay.
hop.symbol @s0 backed [2, oo]
hop.subgraph @body {
^bb0(%a: !hop.tensor<[4], f32>, %b: !hop.tensor<[4], f32>):
  %s = aten.sin(%a) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
  %e = aten.exp(%a) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
  hop.yield %s, %e : !hop.tensor<[4], f32>, !hop.tensor<[4], f32>
}
func.func @subgraph_call(%x: !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32> {
  %r:2 = hop.invoke_subgraph @body(%x, %x) : (!hop.tensor<[4], f32>, !hop.tensor<[4], f32>) -> (!hop.tensor<[4], f32>, !hop.tensor<[4], f32>)
  func.return %r#0 : !hop.tensor<[4], f32>
}
// CHECK:       hop.subgraph @body {
// CHECK-NEXT:  ^{{.*}}(%{{.*}}: !hop.tensor<[4], f32>, %{{.*}}: !hop.tensor<[4], f32>):
// CHECK:         aten.exp
// CHECK-LABEL: func.func @subgraph_call
// CHECK:         %{{.*}}, %{{.*}} = hop.invoke_subgraph @body(%{{.*}}, %{{.*}})

// -----

// Must not fire: hop.item binds u0, which aten.zeros reads by name only
// (Note [unbacked symbols are read by name]); an item whose symbol nothing
// reads goes.
hop.symbol @u0 unbacked [0, oo]
hop.symbol @u1 unbacked [0, oo]
func.func @item_read_by_name(%t: !hop.tensor<[], i64>) -> !hop.tensor<[u0], f32> {
  %u = hop.item %t : !hop.tensor<[], i64> -> !hop.symint<u0>
  %v = hop.item %t : !hop.tensor<[], i64> -> !hop.symint<u1>
  %z = aten.zeros() {size = [#hop.expr<u0>]} : () -> !hop.tensor<[u0], f32>
  func.return %z : !hop.tensor<[u0], f32>
}
// CHECK-LABEL: func.func @item_read_by_name
// CHECK-NEXT:    hop.item %{{.*}} : !hop.tensor<[], i64> -> !hop.symint<u0>
// CHECK-NEXT:    aten.zeros
// CHECK-NOT:     !hop.symint<u1>

// -----

// Must not fire: the block argument %n is the only one that binds s1, which
// the body mentions (after lift-symbols it is what defines s1 there); the
// tensor %b, whose s0 the argument %a also names, goes.
hop.symbol @s0 backed [2, oo]
hop.symbol @s1 backed [2, oo]
func.func @symbol_binding_argument(%x: !hop.tensor<[s0], f32>, %y: !hop.tensor<[s0], f32>, %w: !hop.tensor<[s1], f32>) -> !hop.tensor<[s1], f32> {
  %n = hop.sym_size %w[0] : !hop.tensor<[s1], f32> -> !hop.symint<s1>
  %r = hop.wrap(%x, %y, %n) : (!hop.tensor<[s0], f32>, !hop.tensor<[s0], f32>, !hop.symint<s1>) -> !hop.tensor<[s1], f32> {
  ^bb0(%a: !hop.tensor<[s0], f32>, %b: !hop.tensor<[s0], f32>, %m: !hop.symint<s1>):
    %z = aten.zeros() {size = [#hop.expr<s1>]} : () -> !hop.tensor<[s1], f32>
    %s = aten.sum(%a) : (!hop.tensor<[s0], f32>) -> !hop.tensor<[], f32>
    %o = aten.add.Tensor(%z, %s) : (!hop.tensor<[s1], f32>, !hop.tensor<[], f32>) -> !hop.tensor<[s1], f32>
    hop.yield %o : !hop.tensor<[s1], f32>
  }
  func.return %r : !hop.tensor<[s1], f32>
}
// CHECK-LABEL: func.func @symbol_binding_argument
// CHECK-SAME:    (%[[X:.*]]: !hop.tensor<[s0], f32>, %{{.*}}: !hop.tensor<[s0], f32>, %{{.*}}: !hop.tensor<[s1], f32>)
// CHECK:         %[[N:.*]] = hop.sym_size
// CHECK-NEXT:    hop.wrap(%[[X]], %[[N]]) : (!hop.tensor<[s0], f32>, !hop.symint<s1>) -> !hop.tensor<[s1], f32> {

// -----

// Must not fire: the unused %r#1 is the only result that binds u2, which the
// kept %r#0 has only inside 4*u2 (Note [kept results need their binders]).
hop.symbol @u0 unbacked [0, oo]
hop.symbol @u2 unbacked [0, oo]
func.func @sole_binder_of_a_kept_symbol(%x: !hop.tensor<[4], f32>) -> !hop.tensor<[], f32> {
  %r:2 = hop.wrap(%x) : (!hop.tensor<[4], f32>) -> (!hop.tensor<[4*u2], f32>, !hop.tensor<[u2], f32>) {
  ^bb0(%a: !hop.tensor<[4], f32>):
    %mask = aten.gt.Scalar(%a) {other = 0 : i64} : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], i1>
    %picked = aten.index.Tensor(%a, [%mask]) : (!hop.tensor<[4], f32>, !hop.tensor<[4], i1>) -> !hop.tensor<[u0], f32>
    %four = aten.cat([%picked, %picked, %picked, %picked]) : (!hop.tensor<[u0], f32>, !hop.tensor<[u0], f32>, !hop.tensor<[u0], f32>, !hop.tensor<[u0], f32>) -> !hop.tensor<[4*u0], f32>
    hop.yield %four, %picked : !hop.tensor<[4*u0], f32>, !hop.tensor<[u0], f32>
  }
  %s = aten.sum(%r#0) : (!hop.tensor<[4*u2], f32>) -> !hop.tensor<[], f32>
  func.return %s : !hop.tensor<[], f32>
}
// CHECK-LABEL: func.func @sole_binder_of_a_kept_symbol
// CHECK:         %[[R:.*]], %{{.*}} = hop.wrap(%{{.*}}) : (!hop.tensor<[4], f32>) -> (!hop.tensor<[4*u2], f32>, !hop.tensor<[u2], f32>) {
// CHECK:           hop.yield %{{.*}}, %{{.*}} : !hop.tensor<[4*u0], f32>, !hop.tensor<[u0], f32>
// CHECK:         aten.sum(%[[R]])

// -----

// Of two unused results that bind u2, which the kept %r#0 names only inside
// 4*u2, the first stays and the second goes, with its aten.neg.
hop.symbol @u0 unbacked [0, oo]
hop.symbol @u2 unbacked [0, oo]
func.func @one_of_two_binders(%x: !hop.tensor<[4], f32>) -> !hop.tensor<[], f32> {
  %r:3 = hop.wrap(%x) : (!hop.tensor<[4], f32>) -> (!hop.tensor<[4*u2], f32>, !hop.tensor<[u2], f32>, !hop.tensor<[u2], f32>) {
  ^bb0(%a: !hop.tensor<[4], f32>):
    %mask = aten.gt.Scalar(%a) {other = 0 : i64} : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], i1>
    %picked = aten.index.Tensor(%a, [%mask]) : (!hop.tensor<[4], f32>, !hop.tensor<[4], i1>) -> !hop.tensor<[u0], f32>
    %four = aten.cat([%picked, %picked, %picked, %picked]) : (!hop.tensor<[u0], f32>, !hop.tensor<[u0], f32>, !hop.tensor<[u0], f32>, !hop.tensor<[u0], f32>) -> !hop.tensor<[4*u0], f32>
    %negated = aten.neg(%picked) : (!hop.tensor<[u0], f32>) -> !hop.tensor<[u0], f32>
    hop.yield %four, %picked, %negated : !hop.tensor<[4*u0], f32>, !hop.tensor<[u0], f32>, !hop.tensor<[u0], f32>
  }
  %s = aten.sum(%r#0) : (!hop.tensor<[4*u2], f32>) -> !hop.tensor<[], f32>
  func.return %s : !hop.tensor<[], f32>
}
// CHECK-LABEL: func.func @one_of_two_binders
// CHECK:         %[[R:.*]], %{{.*}} = hop.wrap(%{{.*}}) : (!hop.tensor<[4], f32>) -> (!hop.tensor<[4*u2], f32>, !hop.tensor<[u2], f32>) {
// CHECK-NOT:       aten.neg
// CHECK:           hop.yield %{{.*}}, %{{.*}} : !hop.tensor<[4*u0], f32>, !hop.tensor<[u0], f32>
// CHECK:         aten.sum(%[[R]])

// -----

// A call has its subgraph's effects: a dead call of a subgraph that only
// reads goes, and then the subgraph, which nothing calls any more.
hop.subgraph @reads {
^bb0(%a: !hop.tensor<[4], f32>):
  %s = aten.sin(%a) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
  hop.yield %s : !hop.tensor<[4], f32>
}
func.func @dead_pure_call(%x: !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32> {
  %r = hop.invoke_subgraph @reads(%x) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
  func.return %x : !hop.tensor<[4], f32>
}
// CHECK-NOT:   hop.subgraph @reads
// CHECK-LABEL: func.func @dead_pure_call
// CHECK-NOT:     hop.invoke_subgraph
// CHECK:         func.return

// -----

// Must not remove: the subgraph changes its argument in place, so a call
// with an unused result still writes %x.
hop.subgraph @writes {
^bb0(%a: !hop.tensor<[4], f32>):
  %s = aten.sin_(%a) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
  hop.yield %s : !hop.tensor<[4], f32>
}
func.func @dead_writing_call(%x: !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32> {
  %r = hop.invoke_subgraph @writes(%x) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
  func.return %x : !hop.tensor<[4], f32>
}
// CHECK-LABEL: func.func @dead_writing_call
// CHECK-NEXT:    hop.invoke_subgraph @writes

// -----

// A subgraph called only from subgraphs that nothing calls goes with them;
// one that a function calls stays, and so does what it calls in turn.
hop.subgraph @inner {
^bb0(%a: !hop.tensor<[4], f32>):
  %s = aten.sin(%a) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
  hop.yield %s : !hop.tensor<[4], f32>
}
hop.subgraph @outer {
^bb0(%a: !hop.tensor<[4], f32>):
  %s = hop.invoke_subgraph @inner(%a) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
  hop.yield %s : !hop.tensor<[4], f32>
}
hop.subgraph @orphan_inner {
^bb0(%a: !hop.tensor<[4], f32>):
  %s = aten.cos(%a) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
  hop.yield %s : !hop.tensor<[4], f32>
}
hop.subgraph @orphan {
^bb0(%a: !hop.tensor<[4], f32>):
  %s = hop.invoke_subgraph @orphan_inner(%a) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
  hop.yield %s : !hop.tensor<[4], f32>
}
func.func @calls_outer(%x: !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32> {
  %r = hop.invoke_subgraph @outer(%x) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
  func.return %r : !hop.tensor<[4], f32>
}
// CHECK:       hop.subgraph @inner {
// CHECK:       hop.subgraph @outer {
// CHECK-NOT:   hop.subgraph @orphan
// CHECK-LABEL: func.func @calls_outer
// CHECK-NEXT:    hop.invoke_subgraph @outer
