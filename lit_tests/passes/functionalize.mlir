// RUN: hopc-opt %s --functionalize --split-input-file | filecheck %s
// RUN: hopc-opt %s --functionalize --verify-functional --split-input-file -o %t

// An in-place op on an input becomes its functional form; the input's final
// value is returned and copied back.
// CHECK-LABEL: func.func @in_place_input
// CHECK-SAME: -> (!hop.tensor<[4], f32>, !hop.tensor<[4], f32> {hop.copy_back_to = 0 : i64})
// CHECK: %[[SUM:.*]] = aten.add.Tensor(%x, %y) {alpha = 2 : i64}
// CHECK-NOT: aten.add_
// CHECK: %[[MUL:.*]] = aten.mul.Tensor(%[[SUM]], %y)
// CHECK: func.return %[[MUL]], %[[SUM]]
func.func @in_place_input(%x: !hop.tensor<[4], f32>, %y: !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32> {
  %0 = aten.add_.Tensor(%x, %y) {alpha = 2 : i64} : (!hop.tensor<[4], f32>, !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
  %1 = aten.mul.Tensor(%x, %y) : (!hop.tensor<[4], f32>, !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
  func.return %1 : !hop.tensor<[4], f32>
}

// -----

// out= ops become the overload without out; the written tensor's later reads
// see the result, and an out= into an input is copied back.
// CHECK-LABEL: func.func @out_variant
// CHECK-SAME: -> (!hop.tensor<[4], f32>, !hop.tensor<[4], f32> {hop.copy_back_to = 2 : i64})
// CHECK: %[[SUM:.*]] = aten.add.Tensor(%a, %b)
// CHECK-NOT: aten.add.out
// CHECK: %[[NEG:.*]] = aten.neg(%[[SUM]])
// CHECK: func.return %[[NEG]], %[[SUM]]
func.func @out_variant(%a: !hop.tensor<[4], f32>, %b: !hop.tensor<[4], f32>, %out: !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32> {
  %0 = aten.add.out(%a, %b, %out) : (!hop.tensor<[4], f32>, !hop.tensor<[4], f32>, !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
  %1 = aten.neg(%out) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
  func.return %1 : !hop.tensor<[4], f32>
}

// -----

// x[0].add_(1): the new row is scattered back into x, and a view of x made
// before the write (a column) is read again from x's new value.
// CHECK-LABEL: func.func @select_add
// CHECK: %[[ROW:.*]] = aten.select_copy.int(%x) {dim = 0 : i64, index = 0 : i64}
// CHECK: %[[NEW:.*]] = aten.add.Scalar(%[[ROW]]) {other = 1 : i64}
// CHECK: %[[X:.*]] = aten.select_scatter(%x, %[[NEW]]) {dim = 0 : i64, index = 0 : i64}
// CHECK: %[[COL:.*]] = aten.select_copy.int(%[[X]]) {dim = 1 : i64, index = 0 : i64}
// CHECK: func.return %[[COL]], %[[X]]
func.func @select_add(%x: !hop.tensor<[3, 4], f32>) -> !hop.tensor<[3], f32> {
  %col = aten.select.int(%x) {dim = 1 : i64, index = 0 : i64} : (!hop.tensor<[3, 4], f32>) -> !hop.tensor<[3], f32>
  %row = aten.select.int(%x) {dim = 0 : i64, index = 0 : i64} : (!hop.tensor<[3, 4], f32>) -> !hop.tensor<[4], f32>
  %0 = aten.add_.Scalar(%row) {other = 1 : i64} : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
  func.return %col : !hop.tensor<[3], f32>
}

// -----

// x.view(-1).mul_(2) with a symbolic size: the inverse reshapes back to x's shape.
// CHECK-LABEL: func.func @view_mul
// CHECK: %[[FLAT:.*]] = aten.view_copy(%x) {size = [-1 : i64]}
// CHECK: %[[NEW:.*]] = aten.mul.Scalar(%[[FLAT]]) {other = 2 : i64}
// CHECK: %[[X:.*]] = aten.view_copy(%[[NEW]]) {size = [#hop.expr<s0>, 4 : i64]} : (!hop.tensor<[4*s0], f32>) -> !hop.tensor<[s0, 4], f32>
// CHECK: func.return %[[X]], %[[X]]
hop.symbol @s0 backed [2, oo]
func.func @view_mul(%x: !hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32> {
  %flat = aten.view(%x) {size = [-1]} : (!hop.tensor<[s0, 4], f32>) -> !hop.tensor<[4*s0], f32>
  %0 = aten.mul_.Scalar(%flat) {other = 2 : i64} : (!hop.tensor<[4*s0], f32>) -> !hop.tensor<[4*s0], f32>
  func.return %x : !hop.tensor<[s0, 4], f32>
}

// -----

// A transposed view: the inverse transposes back.
// CHECK-LABEL: func.func @transposed
// CHECK: %[[T:.*]] = aten.transpose_copy.int(%x) {dim0 = 0 : i64, dim1 = 1 : i64}
// CHECK: %[[NEW:.*]] = aten.add.Tensor(%[[T]], %y)
// CHECK: %[[X:.*]] = aten.transpose_copy.int(%[[NEW]]) {dim0 = 0 : i64, dim1 = 1 : i64} : (!hop.tensor<[4, 3], f32>) -> !hop.tensor<[3, 4], f32>
// CHECK: func.return %[[X]]
func.func @transposed(%x: !hop.tensor<[3, 4], f32>, %y: !hop.tensor<[4, 3], f32>) -> !hop.tensor<[3, 4], f32> {
  %t = aten.transpose.int(%x) {dim0 = 0 : i64, dim1 = 1 : i64} : (!hop.tensor<[3, 4], f32>) -> !hop.tensor<[4, 3], f32>
  %0 = aten.add_.Tensor(%t, %y) : (!hop.tensor<[4, 3], f32>, !hop.tensor<[4, 3], f32>) -> !hop.tensor<[4, 3], f32>
  func.return %x : !hop.tensor<[3, 4], f32>
}

// -----

// x[:, ::2].zero_(): a strided slice scatters back with its step.
// CHECK-LABEL: func.func @strided_slice
// CHECK: %[[S:.*]] = aten.slice_copy.Tensor(%x) {dim = 1 : i64, start = 0 : i64, end = 9223372036854775807 : i64, step = 2 : i64}
// CHECK: %[[Z:.*]] = aten.zero(%[[S]])
// CHECK: %[[X:.*]] = aten.slice_scatter(%x, %[[Z]]) {dim = 1 : i64, start = 0 : i64, end = 9223372036854775807 : i64, step = 2 : i64}
// CHECK: func.return %{{.*}}, %[[X]]
func.func @strided_slice(%x: !hop.tensor<[3, 4], f32>) -> !hop.tensor<[3, 4], f32> {
  %s = aten.slice.Tensor(%x) {dim = 1 : i64, start = 0 : i64, end = 9223372036854775807 : i64, step = 2 : i64} : (!hop.tensor<[3, 4], f32>) -> !hop.tensor<[3, 2], f32>
  %0 = aten.zero_(%s) : (!hop.tensor<[3, 2], f32>) -> !hop.tensor<[3, 2], f32>
  %1 = aten.mul.Scalar(%x) {other = 3 : i64} : (!hop.tensor<[3, 4], f32>) -> !hop.tensor<[3, 4], f32>
  func.return %1 : !hop.tensor<[3, 4], f32>
}

// -----

// x.diagonal().fill_(0) through diagonal_scatter; as_strided through as_strided_scatter.
// CHECK-LABEL: func.func @diagonal_and_strided
// CHECK: %[[D:.*]] = aten.diagonal_copy(%x)
// CHECK: %[[F:.*]] = aten.fill.Scalar(%[[D]]) {value = 0 : i64}
// CHECK: %[[X1:.*]] = aten.diagonal_scatter(%x, %[[F]])
// CHECK: %[[A:.*]] = aten.as_strided_copy(%[[X1]]) {size = [2 : i64], stride = [5 : i64], storage_offset = 1 : i64}
// CHECK: %[[N:.*]] = aten.neg(%[[A]])
// CHECK: %[[X2:.*]] = aten.as_strided_scatter(%[[X1]], %[[N]]) {size = [2 : i64], stride = [5 : i64], storage_offset = 1 : i64}
// CHECK: func.return %[[X2]]
func.func @diagonal_and_strided(%x: !hop.tensor<[4, 4], f32>) -> !hop.tensor<[4, 4], f32> {
  %d = aten.diagonal(%x) : (!hop.tensor<[4, 4], f32>) -> !hop.tensor<[4], f32>
  %0 = aten.fill_.Scalar(%d) {value = 0 : i64} : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
  %a = aten.as_strided(%x) {size = [2], stride = [5], storage_offset = 1 : i64} : (!hop.tensor<[4, 4], f32>) -> !hop.tensor<[2], f32>
  %1 = aten.neg_(%a) : (!hop.tensor<[2], f32>) -> !hop.tensor<[2], f32>
  func.return %x : !hop.tensor<[4, 4], f32>
}

// -----

// A chain of views x[1:3].t()[0]: scattered back innermost first, and the
// in-place op's own result (which aliases its self) reads the new value.
// CHECK-LABEL: func.func @chain
// CHECK: %[[S:.*]] = aten.slice_copy.Tensor(%x)
// CHECK: %[[T:.*]] = aten.t_copy(%[[S]])
// CHECK: %[[R:.*]] = aten.select_copy.int(%[[T]])
// CHECK: %[[NEW:.*]] = aten.add.Scalar(%[[R]])
// CHECK: %[[T2:.*]] = aten.select_scatter(%[[T]], %[[NEW]])
// CHECK: %[[S2:.*]] = aten.t_copy(%[[T2]])
// CHECK: %[[X:.*]] = aten.slice_scatter(%x, %[[S2]])
// CHECK: %[[M:.*]] = aten.mul.Tensor(%[[NEW]], %[[NEW]])
// CHECK: func.return %[[M]], %[[X]]
func.func @chain(%x: !hop.tensor<[4, 3], f32>) -> !hop.tensor<[2], f32> {
  %s = aten.slice.Tensor(%x) {start = 1 : i64, end = 3 : i64} : (!hop.tensor<[4, 3], f32>) -> !hop.tensor<[2, 3], f32>
  %t = aten.t(%s) : (!hop.tensor<[2, 3], f32>) -> !hop.tensor<[3, 2], f32>
  %r = aten.select.int(%t) {dim = 0 : i64, index = 0 : i64} : (!hop.tensor<[3, 2], f32>) -> !hop.tensor<[2], f32>
  %0 = aten.add_.Scalar(%r) {other = 1 : i64} : (!hop.tensor<[2], f32>) -> !hop.tensor<[2], f32>
  %1 = aten.mul.Tensor(%0, %0) : (!hop.tensor<[2], f32>, !hop.tensor<[2], f32>) -> !hop.tensor<[2], f32>
  func.return %1 : !hop.tensor<[2], f32>
}

// -----

// A later read of another view of the same base, made before the write,
// sees the update; a view nobody reads again is not replayed.
// CHECK-LABEL: func.func @other_view_sees_update
// CHECK: %[[R:.*]] = aten.slice_copy.Tensor(%x) {dim = 0 : i64, start = 0 : i64, end = 2 : i64}
// CHECK: %[[N:.*]] = aten.mul.Scalar(%[[R]])
// CHECK: %[[X:.*]] = aten.slice_scatter(%x, %[[N]])
// CHECK-NOT: aten.select_copy
// CHECK: %[[D:.*]] = aten.diagonal_copy(%[[X]])
// CHECK: func.return %[[D]], %[[X]]
func.func @other_view_sees_update(%x: !hop.tensor<[3, 3], f32>) -> !hop.tensor<[3], f32> {
  %d = aten.diagonal(%x) : (!hop.tensor<[3, 3], f32>) -> !hop.tensor<[3], f32>
  %unused = aten.select.int(%x) {dim = 0 : i64, index = 2 : i64} : (!hop.tensor<[3, 3], f32>) -> !hop.tensor<[3], f32>
  %r = aten.slice.Tensor(%x) {dim = 0 : i64, start = 0 : i64, end = 2 : i64} : (!hop.tensor<[3, 3], f32>) -> !hop.tensor<[2, 3], f32>
  %0 = aten.mul_.Scalar(%r) {other = 2 : i64} : (!hop.tensor<[2, 3], f32>) -> !hop.tensor<[2, 3], f32>
  func.return %d : !hop.tensor<[3], f32>
}

// -----

// Views that are only read become copies; nothing is written back.
// CHECK-LABEL: func.func @views_only_read
// CHECK-SAME: -> !hop.tensor<[4, 3], f32>
// CHECK: %[[T:.*]] = aten.permute_copy(%x) {dims = [1 : i64, 0 : i64]}
// CHECK-NOT: hop.copy_back_to
// CHECK-NOT: scatter
// CHECK: func.return %[[T]]
func.func @views_only_read(%x: !hop.tensor<[3, 4], f32>) -> !hop.tensor<[4, 3], f32> {
  %t = aten.permute(%x) {dims = [1 : i64, 0 : i64]} : (!hop.tensor<[3, 4], f32>) -> !hop.tensor<[4, 3], f32>
  %a = aten.alias(%t) : (!hop.tensor<[4, 3], f32>) -> !hop.tensor<[4, 3], f32>
  func.return %a : !hop.tensor<[4, 3], f32>
}

// -----

// reshape of a transposed tensor copies (Note [reshape aliasing]): changing
// the copy leaves x alone. reshape of x itself is a view: changing it changes x.
// CHECK-LABEL: func.func @reshape_views_or_copies
// CHECK-SAME: -> (!hop.tensor<[12], f32>, !hop.tensor<[3, 4], f32> {hop.copy_back_to = 0 : i64})
// CHECK: %[[T:.*]] = aten.t_copy(%x)
// CHECK: %[[C:.*]] = aten.view_copy(%[[T]]) {size = [12 : i64]}
// CHECK: %[[C1:.*]] = aten.add.Scalar(%[[C]])
// CHECK: %[[V:.*]] = aten.view_copy(%x) {size = [12 : i64]}
// CHECK: %[[V1:.*]] = aten.mul.Scalar(%[[V]])
// CHECK: %[[X:.*]] = aten.view_copy(%[[V1]]) {size = [3 : i64, 4 : i64]}
// CHECK: func.return %[[C1]], %[[X]]
func.func @reshape_views_or_copies(%x: !hop.tensor<[3, 4], f32>) -> !hop.tensor<[12], f32> {
  %t = aten.t(%x) : (!hop.tensor<[3, 4], f32>) -> !hop.tensor<[4, 3], f32>
  %c = aten.reshape(%t) {shape = [12]} : (!hop.tensor<[4, 3], f32>) -> !hop.tensor<[12], f32>
  %0 = aten.add_.Scalar(%c) {other = 1 : i64} : (!hop.tensor<[12], f32>) -> !hop.tensor<[12], f32>
  %v = aten.reshape(%x) {shape = [12]} : (!hop.tensor<[3, 4], f32>) -> !hop.tensor<[12], f32>
  %1 = aten.mul_.Scalar(%v) {other = 2 : i64} : (!hop.tensor<[12], f32>) -> !hop.tensor<[12], f32>
  func.return %c : !hop.tensor<[12], f32>
}

// -----

// Whether this reshape views or copies depends on s0 == 1 (Note [doubtful
// aliases]); as nothing changes either side afterwards, it is simply a copy.
// CHECK-LABEL: func.func @doubtful_but_unobserved
// CHECK: %[[T:.*]] = aten.t_copy(%x)
// CHECK: %[[F:.*]] = aten.view_copy(%[[T]])
// CHECK: func.return %[[F]]
hop.symbol @s0 backed [1, oo]
func.func @doubtful_but_unobserved(%x: !hop.tensor<[s0, 4], f32>) -> !hop.tensor<[4*s0], f32> {
  %t = aten.t(%x) : (!hop.tensor<[s0, 4], f32>) -> !hop.tensor<[4, s0], f32>
  %f = aten.reshape(%t) {shape = [-1]} : (!hop.tensor<[4, s0], f32>) -> !hop.tensor<[4*s0], f32>
  func.return %f : !hop.tensor<[4*s0], f32>
}

// -----

// split and unbind results are slices and selects of their input.
// CHECK-LABEL: func.func @split_pieces
// CHECK: %[[P:.*]] = aten.slice_copy.Tensor(%x) {dim = 0 : i64, start = 2 : i64, end = 4 : i64}
// CHECK: %[[Z:.*]] = aten.zero(%[[P]])
// CHECK: %[[X1:.*]] = aten.slice_scatter(%x, %[[Z]]) {dim = 0 : i64, start = 2 : i64, end = 4 : i64}
// CHECK: %[[R:.*]] = aten.select_copy.int(%[[X1]]) {dim = 1 : i64, index = 1 : i64}
// CHECK: %[[N:.*]] = aten.neg(%[[R]])
// CHECK: %[[X2:.*]] = aten.select_scatter(%[[X1]], %[[N]]) {dim = 1 : i64, index = 1 : i64}
// CHECK: func.return %[[X2]], %[[X2]]
func.func @split_pieces(%x: !hop.tensor<[5, 2], f32>) -> !hop.tensor<[5, 2], f32> {
  %a, %b, %c = aten.split.Tensor(%x) {split_size = 2 : i64} : (!hop.tensor<[5, 2], f32>) -> (!hop.tensor<[2, 2], f32>, !hop.tensor<[2, 2], f32>, !hop.tensor<[1, 2], f32>)
  %0 = aten.zero_(%b) : (!hop.tensor<[2, 2], f32>) -> !hop.tensor<[2, 2], f32>
  %u, %v = aten.unbind.int(%x) {dim = 1 : i64} : (!hop.tensor<[5, 2], f32>) -> (!hop.tensor<[5], f32>, !hop.tensor<[5], f32>)
  %1 = aten.neg_(%v) : (!hop.tensor<[5], f32>) -> !hop.tensor<[5], f32>
  func.return %x : !hop.tensor<[5, 2], f32>
}

// -----

// Mixed dtypes: f32.add_(f64) computes in f64 and casts back, as in eager mode.
// CHECK-LABEL: func.func @promoting_in_place
// CHECK: %[[S:.*]] = aten.add.Tensor(%x, %y) : (!hop.tensor<[4], f32>, !hop.tensor<[4], f64>) -> !hop.tensor<[4], f64>
// CHECK: %[[C:.*]] = aten._to_copy(%[[S]]) {dtype = f32}
// CHECK: func.return %[[C]], %[[C]]
func.func @promoting_in_place(%x: !hop.tensor<[4], f32>, %y: !hop.tensor<[4], f64>) -> !hop.tensor<[4], f32> {
  %0 = aten.add_.Tensor(%x, %y) : (!hop.tensor<[4], f32>, !hop.tensor<[4], f64>) -> !hop.tensor<[4], f32>
  func.return %0 : !hop.tensor<[4], f32>
}

// -----

// Input and buffer mutation: both final values are returned and copied back;
// the mutated input %y is also a user output.
// CHECK-LABEL: func.func @inputs_and_buffers
// CHECK-SAME: -> (!hop.tensor<[4], f32>, !hop.tensor<[4], f32>, !hop.tensor<[], f32> {hop.copy_back_to = 0 : i64}, !hop.tensor<[4], f32> {hop.copy_back_to = 2 : i64})
// CHECK: %[[COUNT:.*]] = aten.add.Scalar(%count)
// CHECK: %[[Y:.*]] = aten.mul.Tensor(%y, %x)
// CHECK: %[[SIN:.*]] = aten.sin(%x)
// CHECK: func.return %[[SIN]], %[[Y]], %[[COUNT]], %[[Y]]
hop.buffer @count : !hop.tensor<[], f32>
func.func @inputs_and_buffers(%count: !hop.tensor<[], f32> {hop.buffer = @count}, %x: !hop.tensor<[4], f32>, %y: !hop.tensor<[4], f32>) -> (!hop.tensor<[4], f32>, !hop.tensor<[4], f32>) {
  %0 = aten.add_.Scalar(%count) {other = 1 : i64} : (!hop.tensor<[], f32>) -> !hop.tensor<[], f32>
  %1 = aten.mul_.Tensor(%y, %x) : (!hop.tensor<[4], f32>, !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
  %2 = aten.sin(%x) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
  func.return %2, %1 : !hop.tensor<[4], f32>, !hop.tensor<[4], f32>
}

// -----

// A cond where only one branch mutates its operand (through a view): both
// branches yield its final value, the other one unchanged.
// CHECK-LABEL: func.func @cond_one_branch
// CHECK: %[[R:.*]], %[[X:.*]] = hop.cond %p(%x) : !hop.tensor<[], i1>, (!hop.tensor<[3, 4], f32>) -> (!hop.tensor<[4], f32>, !hop.tensor<[3, 4], f32>) then {
// CHECK: ^bb0(%[[A:.*]]: !hop.tensor<[3, 4], f32>):
// CHECK: %[[ROW:.*]] = aten.select_copy.int(%[[A]])
// CHECK: %[[NEW:.*]] = aten.mul.Scalar(%[[ROW]])
// CHECK: %[[A1:.*]] = aten.select_scatter(%[[A]], %[[NEW]])
// CHECK: %[[S:.*]] = aten.sum.dim_IntList(%[[A1]])
// CHECK: hop.yield %[[S]], %[[A1]]
// CHECK: } else {
// CHECK: ^bb0(%[[B:.*]]: !hop.tensor<[3, 4], f32>):
// CHECK: hop.yield %{{.*}}, %[[B]]
// CHECK: %[[T:.*]] = aten.select_copy.int(%[[X]])
// CHECK: func.return %{{.*}}, %[[X]]
func.func @cond_one_branch(%p: !hop.tensor<[], i1>, %x: !hop.tensor<[3, 4], f32>) -> !hop.tensor<[4], f32> {
  %r = hop.cond %p (%x) : !hop.tensor<[], i1>, (!hop.tensor<[3, 4], f32>) -> !hop.tensor<[4], f32> then {
  ^bb0(%a: !hop.tensor<[3, 4], f32>):
    %row = aten.select.int(%a) {dim = 0 : i64, index = 1 : i64} : (!hop.tensor<[3, 4], f32>) -> !hop.tensor<[4], f32>
    %0 = aten.mul_.Scalar(%row) {other = 2 : i64} : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
    %s = aten.sum.dim_IntList(%a) {dim = [0 : i64]} : (!hop.tensor<[3, 4], f32>) -> !hop.tensor<[4], f32>
    hop.yield %s : !hop.tensor<[4], f32>
  } else {
  ^bb0(%a: !hop.tensor<[3, 4], f32>):
    %s = aten.amax(%a) {dim = [0 : i64]} : (!hop.tensor<[3, 4], f32>) -> !hop.tensor<[4], f32>
    hop.yield %s : !hop.tensor<[4], f32>
  }
  %t = aten.select.int(%x) {dim = 0 : i64, index = 1 : i64} : (!hop.tensor<[3, 4], f32>) -> !hop.tensor<[4], f32>
  %u = aten.add.Tensor(%r, %t) : (!hop.tensor<[4], f32>, !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
  func.return %u : !hop.tensor<[4], f32>
}

// -----

// A cond on a view whose branches both change and return their operand: the
// result is the view's new value (no extra result), written back into x, and
// changing the result later changes x too.
// CHECK-LABEL: func.func @cond_returns_operand
// CHECK: %[[V:.*]] = aten.select_copy.int(%x) {dim = 1 : i64, index = 2 : i64}
// CHECK: %[[R:.*]] = hop.cond %p(%[[V]]) : !hop.tensor<[], i1>, (!hop.tensor<[3], f32>) -> !hop.tensor<[3], f32> then {
// CHECK: aten.exp
// CHECK: aten.neg
// CHECK: %[[X1:.*]] = aten.select_scatter(%x, %[[R]]) {dim = 1 : i64, index = 2 : i64}
// CHECK: %[[R1:.*]] = aten.add.Scalar(%[[R]])
// CHECK: %[[X2:.*]] = aten.select_scatter(%[[X1]], %[[R1]]) {dim = 1 : i64, index = 2 : i64}
// CHECK: func.return %[[X2]], %[[X2]]
func.func @cond_returns_operand(%p: !hop.tensor<[], i1>, %x: !hop.tensor<[3, 4], f32>) -> !hop.tensor<[3, 4], f32> {
  %v = aten.select.int(%x) {dim = 1 : i64, index = 2 : i64} : (!hop.tensor<[3, 4], f32>) -> !hop.tensor<[3], f32>
  %r = hop.cond %p (%v) : !hop.tensor<[], i1>, (!hop.tensor<[3], f32>) -> !hop.tensor<[3], f32> then {
  ^bb0(%a: !hop.tensor<[3], f32>):
    %0 = aten.exp_(%a) : (!hop.tensor<[3], f32>) -> !hop.tensor<[3], f32>
    hop.yield %a : !hop.tensor<[3], f32>
  } else {
  ^bb0(%a: !hop.tensor<[3], f32>):
    %0 = aten.neg_(%a) : (!hop.tensor<[3], f32>) -> !hop.tensor<[3], f32>
    hop.yield %a : !hop.tensor<[3], f32>
  }
  %1 = aten.add_.Scalar(%r) {other = 1 : i64} : (!hop.tensor<[3], f32>) -> !hop.tensor<[3], f32>
  func.return %x : !hop.tensor<[3, 4], f32>
}

// -----

// A while body changing a carried value (yielded in place) and an additional
// one, which becomes carried.
// CHECK-LABEL: func.func @while_carried_and_additional
// CHECK: %[[I:.*]], %[[X:.*]], %[[ACC:.*]] = hop.while(%i, %x, %acc) : (!hop.tensor<[], i64>, !hop.tensor<[4], f32>, !hop.tensor<[4], f32>) -> (!hop.tensor<[], i64>, !hop.tensor<[4], f32>, !hop.tensor<[4], f32>) cond {
// CHECK: } body {
// CHECK: ^bb0(%[[J:.*]]: !hop.tensor<[], i64>, %[[A:.*]]: !hop.tensor<[4], f32>, %[[B:.*]]: !hop.tensor<[4], f32>):
// CHECK: %[[B1:.*]] = aten.add.Tensor(%[[B]], %[[A]])
// CHECK: %[[A1:.*]] = aten.mul.Scalar(%[[A]])
// CHECK: hop.yield %{{.*}}, %[[A1]], %[[B1]]
// CHECK: func.return %[[I]], %[[X]], %[[ACC]]
func.func @while_carried_and_additional(%i: !hop.tensor<[], i64>, %x: !hop.tensor<[4], f32>, %acc: !hop.tensor<[4], f32>) -> !hop.tensor<[], i64> {
  %r:2 = hop.while (%i, %x) additional (%acc) : (!hop.tensor<[], i64>, !hop.tensor<[4], f32>) -> (!hop.tensor<[], i64>, !hop.tensor<[4], f32>), !hop.tensor<[4], f32> cond {
  ^bb0(%j: !hop.tensor<[], i64>, %a: !hop.tensor<[4], f32>, %b: !hop.tensor<[4], f32>):
    %p = aten.lt.Scalar(%j) {other = 3 : i64} : (!hop.tensor<[], i64>) -> !hop.tensor<[], i1>
    hop.yield %p : !hop.tensor<[], i1>
  } body {
  ^bb0(%j: !hop.tensor<[], i64>, %a: !hop.tensor<[4], f32>, %b: !hop.tensor<[4], f32>):
    %0 = aten.add_.Tensor(%b, %a) : (!hop.tensor<[4], f32>, !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
    %1 = aten.mul_.Scalar(%a) {other = 2 : i64} : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
    %k = aten.add.Scalar(%j) {other = 1 : i64} : (!hop.tensor<[], i64>) -> !hop.tensor<[], i64>
    hop.yield %k, %a : !hop.tensor<[], i64>, !hop.tensor<[4], f32>
  }
  func.return %r#0 : !hop.tensor<[], i64>
}

// -----

// wrap and checkpoint bodies return the final values of the operands they
// change; the wrap's result is a view of its operand, so the checkpoint's
// change of it lands in x.
// CHECK-LABEL: func.func @wrap_and_checkpoint
// CHECK: %[[R:.*]], %[[X1:.*]] = hop.wrap(%x) : (!hop.tensor<[2, 3], f32>) -> (!hop.tensor<[3], f32>, !hop.tensor<[2, 3], f32>) {
// CHECK: %[[SIG:.*]] = aten.sigmoid(%{{.*}})
// CHECK: %[[S:.*]] = aten.select_copy.int(%[[SIG]])
// CHECK: hop.yield %[[S]], %[[SIG]]
// CHECK: %[[C:.*]], %[[R1:.*]] = hop.checkpoint(%[[R]]) : (!hop.tensor<[3], f32>) -> (!hop.tensor<[3], f32>, !hop.tensor<[3], f32>) {
// CHECK: %[[RELU:.*]] = aten.relu(%{{.*}})
// CHECK: hop.yield %{{.*}}, %[[RELU]]
// CHECK: %[[X2:.*]] = aten.select_scatter(%[[X1]], %[[R1]]) {dim = 0 : i64, index = 0 : i64}
// CHECK: func.return %[[C]], %[[X2]]
func.func @wrap_and_checkpoint(%x: !hop.tensor<[2, 3], f32>) -> !hop.tensor<[3], f32> {
  %r = hop.wrap(%x) : (!hop.tensor<[2, 3], f32>) -> !hop.tensor<[3], f32> {
  ^bb0(%a: !hop.tensor<[2, 3], f32>):
    %0 = aten.sigmoid_(%a) : (!hop.tensor<[2, 3], f32>) -> !hop.tensor<[2, 3], f32>
    %s = aten.select.int(%a) {dim = 0 : i64, index = 0 : i64} : (!hop.tensor<[2, 3], f32>) -> !hop.tensor<[3], f32>
    hop.yield %s : !hop.tensor<[3], f32>
  }
  %c = hop.checkpoint(%r) : (!hop.tensor<[3], f32>) -> !hop.tensor<[3], f32> {
  ^bb0(%a: !hop.tensor<[3], f32>):
    %0 = aten.relu_(%a) : (!hop.tensor<[3], f32>) -> !hop.tensor<[3], f32>
    %1 = aten.cos(%a) : (!hop.tensor<[3], f32>) -> !hop.tensor<[3], f32>
    hop.yield %1 : !hop.tensor<[3], f32>
  }
  func.return %c : !hop.tensor<[3], f32>
}

// -----

// A body that returns its operand unchanged: the result is cloned inside
// (no two results share storage) and stays an alias of x outside, so the
// later change of the result is a change of x.
// CHECK-LABEL: func.func @wrap_returns_operand
// CHECK: %[[R:.*]] = hop.wrap(%x)
// CHECK: %[[CLONE:.*]] = aten.clone(%[[A:.*]])
// CHECK: hop.yield %[[CLONE]]
// CHECK: %[[X1:.*]] = aten.add.Scalar(%x)
// CHECK: func.return %[[X1]], %[[X1]]
func.func @wrap_returns_operand(%x: !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32> {
  %r = hop.wrap(%x) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32> {
  ^bb0(%a: !hop.tensor<[4], f32>):
    hop.yield %a : !hop.tensor<[4], f32>
  }
  %0 = aten.add_.Scalar(%r) {other = 1 : i64} : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
  func.return %x : !hop.tensor<[4], f32>
}

// -----

// A subgraph shared by two calls changes its first argument: it is changed
// once, and each call site writes back its own operand.
// CHECK-LABEL: hop.subgraph @inc
// CHECK: %[[SUM:.*]] = aten.add.Tensor(%a, %b)
// CHECK: %[[MUL:.*]] = aten.mul.Tensor(%[[SUM]], %b)
// CHECK: hop.yield %[[MUL]], %[[SUM]]
// CHECK-LABEL: func.func @shared_subgraph
// CHECK-SAME: {hop.copy_back_to = 0 : i64}, !hop.tensor<[4], f32> {hop.copy_back_to = 1 : i64})
// CHECK: %[[R0:.*]], %[[X:.*]] = hop.invoke_subgraph @inc(%x, %y) : (!hop.tensor<[4], f32>, !hop.tensor<[4], f32>) -> (!hop.tensor<[4], f32>, !hop.tensor<[4], f32>)
// CHECK: %[[R1:.*]], %[[Y:.*]] = hop.invoke_subgraph @inc(%y, %[[R0]])
// CHECK: func.return %[[R1]], %[[X]], %[[Y]]
hop.subgraph @inc {
^bb0(%a: !hop.tensor<[4], f32>, %b: !hop.tensor<[4], f32>):
  %0 = aten.add_.Tensor(%a, %b) : (!hop.tensor<[4], f32>, !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
  %1 = aten.mul.Tensor(%a, %b) : (!hop.tensor<[4], f32>, !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
  hop.yield %1 : !hop.tensor<[4], f32>
}
func.func @shared_subgraph(%x: !hop.tensor<[4], f32>, %y: !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32> {
  %0 = hop.invoke_subgraph @inc(%x, %y) : (!hop.tensor<[4], f32>, !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
  %1 = hop.invoke_subgraph @inc(%y, %0) : (!hop.tensor<[4], f32>, !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
  func.return %1 : !hop.tensor<[4], f32>
}

// -----

// A cond nested in a wrap changes %x, which the program closed over and the
// frontend passes down as an operand of each HOP: each returns its final value.
// CHECK-LABEL: func.func @closed_over_two_levels_up
// CHECK: %[[R:.*]], %[[X:.*]] = hop.wrap(%y, %x, %p)
// CHECK: ^bb0(%[[A:.*]]: !hop.tensor<[4], f32>, %[[XA:.*]]: !hop.tensor<[4], f32>, %[[PA:.*]]: !hop.tensor<[], i1>):
// CHECK: %[[C:.*]], %[[XC:.*]] = hop.cond %[[PA]](%[[A]], %[[XA]])
// CHECK: %[[NEW:.*]] = aten.add.Tensor(%{{.*}}, %{{.*}})
// CHECK: hop.yield %{{.*}}, %[[NEW]]
// CHECK: } else {
// CHECK: ^bb0(%{{.*}}: !hop.tensor<[4], f32>, %[[XB:.*]]: !hop.tensor<[4], f32>):
// CHECK: hop.yield %{{.*}}, %[[XB]]
// CHECK: hop.yield %[[C]], %[[XC]]
// CHECK: func.return %[[R]], %[[X]]
func.func @closed_over_two_levels_up(%p: !hop.tensor<[], i1>, %x: !hop.tensor<[4], f32>, %y: !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32> {
  %r = hop.wrap(%y, %x, %p) : (!hop.tensor<[4], f32>, !hop.tensor<[4], f32>, !hop.tensor<[], i1>) -> !hop.tensor<[4], f32> {
  ^bb0(%a: !hop.tensor<[4], f32>, %xa: !hop.tensor<[4], f32>, %pa: !hop.tensor<[], i1>):
    %c = hop.cond %pa (%a, %xa) : !hop.tensor<[], i1>, (!hop.tensor<[4], f32>, !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32> then {
    ^bb0(%b: !hop.tensor<[4], f32>, %xb: !hop.tensor<[4], f32>):
      %0 = aten.add_.Tensor(%xb, %b) : (!hop.tensor<[4], f32>, !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
      %1 = aten.neg(%b) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
      hop.yield %1 : !hop.tensor<[4], f32>
    } else {
    ^bb0(%b: !hop.tensor<[4], f32>, %xb: !hop.tensor<[4], f32>):
      %1 = aten.abs(%b) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
      hop.yield %1 : !hop.tensor<[4], f32>
    }
    hop.yield %c : !hop.tensor<[4], f32>
  }
  func.return %r : !hop.tensor<[4], f32>
}


// -----

// Already functional: nothing changes.
// CHECK-LABEL: func.func @functional
// CHECK-SAME: (%x: !hop.tensor<[4], f32>, %p: !hop.tensor<[], i1>) -> !hop.tensor<[4], f32>
// CHECK-NEXT: %[[S:.*]] = aten.sin(%x)
// CHECK-NEXT: %[[R:.*]] = hop.cond %p(%[[S]]) : !hop.tensor<[], i1>, (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32> then {
// CHECK-NEXT: ^bb0(%a: !hop.tensor<[4], f32>):
// CHECK-NEXT: aten.cos(%a)
// CHECK-NEXT: hop.yield
// CHECK-NEXT: } else {
// CHECK-NEXT: ^bb0(%a_1: !hop.tensor<[4], f32>):
// CHECK-NEXT: aten.neg(%a_1)
// CHECK-NEXT: hop.yield
// CHECK-NEXT: }
// CHECK-NEXT: func.return %[[R]] : !hop.tensor<[4], f32>
func.func @functional(%x: !hop.tensor<[4], f32>, %p: !hop.tensor<[], i1>) -> !hop.tensor<[4], f32> {
  %0 = aten.sin(%x) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
  %r = hop.cond %p (%0) : !hop.tensor<[], i1>, (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32> then {
  ^bb0(%a: !hop.tensor<[4], f32>):
    %1 = aten.cos(%a) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
    hop.yield %1 : !hop.tensor<[4], f32>
  } else {
  ^bb0(%a: !hop.tensor<[4], f32>):
    %1 = aten.neg(%a) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
    hop.yield %1 : !hop.tensor<[4], f32>
  }
  func.return %r : !hop.tensor<[4], f32>
}

// -----

// Batch norm in training mode updates its running statistics though its schema
// does not say so: it becomes the functional form PyTorch uses, and the new
// statistics are copied back. A second call reads the first call's statistics.
// CHECK-LABEL: func.func @batch_norm_training
// CHECK-SAME: {hop.copy_back_to = 1 : i64}, !hop.tensor<[3], f32> {hop.copy_back_to = 2 : i64})
// CHECK: %[[Y:.*]], %{{.*}}, %{{.*}}, %[[M1:.*]], %[[V1:.*]] = aten._native_batch_norm_legit_functional(%x, %w, %b, %mean, %var) {training = true, momentum = 1.000000e-01 : f64, eps = 1.000000e-05 : f64}
// CHECK-SAME: -> (!hop.tensor<[2, 3, 5], f32>, !hop.tensor<[3], f32>, !hop.tensor<[3], f32>, !hop.tensor<[3], f32>, !hop.tensor<[3], f32>)
// CHECK: %[[Z:.*]], %{{.*}}, %{{.*}}, %[[M2:.*]], %[[V2:.*]] = aten._native_batch_norm_legit_functional(%[[Y]], %w, %b, %[[M1]], %[[V1]])
// CHECK-NOT: aten.batch_norm
// CHECK: func.return %[[Z]], %[[M2]], %[[V2]]
func.func @batch_norm_training(%x: !hop.tensor<[2, 3, 5], f32>, %mean: !hop.tensor<[3], f32>, %var: !hop.tensor<[3], f32>, %w: !hop.tensor<[3], f32>, %b: !hop.tensor<[3], f32>) -> !hop.tensor<[2, 3, 5], f32> {
  %y = aten.batch_norm(%x, %w, %b, %mean, %var) {training = true, momentum = 1.000000e-01 : f64, eps = 1.000000e-05 : f64, cudnn_enabled = true} : (!hop.tensor<[2, 3, 5], f32>, !hop.tensor<[3], f32>, !hop.tensor<[3], f32>, !hop.tensor<[3], f32>, !hop.tensor<[3], f32>) -> !hop.tensor<[2, 3, 5], f32>
  %z = aten.batch_norm(%y, %w, %b, %mean, %var) {training = true, momentum = 1.000000e-01 : f64, eps = 1.000000e-05 : f64, cudnn_enabled = true} : (!hop.tensor<[2, 3, 5], f32>, !hop.tensor<[3], f32>, !hop.tensor<[3], f32>, !hop.tensor<[3], f32>, !hop.tensor<[3], f32>) -> !hop.tensor<[2, 3, 5], f32>
  func.return %z : !hop.tensor<[2, 3, 5], f32>
}

// -----

// native_batch_norm's three results are the functional form's first three.
// CHECK-LABEL: func.func @native_batch_norm_training
// CHECK: %[[Y:.*]], %[[SM:.*]], %[[SI:.*]], %[[M:.*]], %[[V:.*]] = aten._native_batch_norm_legit_functional(%x, none, none, %mean, %var) {training = true
// CHECK: func.return %[[Y]], %[[SI]], %[[M]], %[[V]]
func.func @native_batch_norm_training(%x: !hop.tensor<[4, 2], f32>, %mean: !hop.tensor<[2], f32>, %var: !hop.tensor<[2], f32>) -> (!hop.tensor<[4, 2], f32>, !hop.tensor<[2], f32>) {
  %y, %save_mean, %save_invstd = aten.native_batch_norm(%x, none, none, %mean, %var) {training = true, momentum = 1.000000e-01 : f64, eps = 1.000000e-05 : f64} : (!hop.tensor<[4, 2], f32>, !hop.tensor<[2], f32>, !hop.tensor<[2], f32>) -> (!hop.tensor<[4, 2], f32>, !hop.tensor<[2], f32>, !hop.tensor<[2], f32>)
  func.return %y, %save_invstd : !hop.tensor<[4, 2], f32>, !hop.tensor<[2], f32>
}

// -----

// Must not change: batch norm in eval mode, or in training mode without
// running statistics, writes nothing.
// CHECK-LABEL: func.func @batch_norm_without_update
// CHECK-SAME: -> !hop.tensor<[2, 3], f32> {
// CHECK: aten.batch_norm(%x, none, none, %mean, %var) {training = false
// CHECK: aten.batch_norm(%e, none, none, none, none) {training = true
// CHECK-NOT: _native_batch_norm_legit_functional
func.func @batch_norm_without_update(%x: !hop.tensor<[2, 3], f32>, %mean: !hop.tensor<[3], f32>, %var: !hop.tensor<[3], f32>) -> !hop.tensor<[2, 3], f32> {
  %e = aten.batch_norm(%x, none, none, %mean, %var) {training = false, momentum = 1.000000e-01 : f64, eps = 1.000000e-05 : f64, cudnn_enabled = true} : (!hop.tensor<[2, 3], f32>, !hop.tensor<[3], f32>, !hop.tensor<[3], f32>) -> !hop.tensor<[2, 3], f32>
  %t = aten.batch_norm(%e, none, none, none, none) {training = true, momentum = 1.000000e-01 : f64, eps = 1.000000e-05 : f64, cudnn_enabled = true} : (!hop.tensor<[2, 3], f32>) -> !hop.tensor<[2, 3], f32>
  func.return %t : !hop.tensor<[2, 3], f32>
}

// -----

// An input laid out as a transposed [4, s0] tensor: flatten cannot view it, so
// it copies, and the in-place add on the copy leaves %x unchanged (no copy-back).
// CHECK-LABEL: func.func @flatten_of_strided_input
// CHECK-SAME: -> !hop.tensor<[s0, 4], f32> {
// CHECK: %[[FLAT:.*]] = aten.view_copy(%x)
// CHECK: %[[ADD:.*]] = aten.add.Scalar(%[[FLAT]])
// CHECK: %[[MUL:.*]] = aten.mul.Scalar(%x)
// CHECK: func.return %[[MUL]]
hop.symbol @s0 backed [2, oo]
func.func @flatten_of_strided_input(%x: !hop.tensor<[s0, 4], f32> {hop.strides = [1 : i64, #hop.expr<s0>]}) -> !hop.tensor<[s0, 4], f32> {
  %flat = aten.flatten.using_ints(%x) : (!hop.tensor<[s0, 4], f32>) -> !hop.tensor<[4*s0], f32>
  %0 = aten.add_.Scalar(%flat) {other = 1 : i64} : (!hop.tensor<[4*s0], f32>) -> !hop.tensor<[4*s0], f32>
  %1 = aten.mul.Scalar(%x) {other = 2 : i64} : (!hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32>
  func.return %1 : !hop.tensor<[s0, 4], f32>
}

// -----

// Must not copy: strides that are row-major after all make flatten a view, and
// the write through it reaches %x.
// CHECK-LABEL: func.func @flatten_of_row_major_strides
// CHECK-SAME: {hop.copy_back_to = 0 : i64}
// CHECK: aten.view_copy
func.func @flatten_of_row_major_strides(%x: !hop.tensor<[3, 4], f32> {hop.strides = [4 : i64, 1 : i64]}) -> !hop.tensor<[3, 4], f32> {
  %flat = aten.flatten.using_ints(%x) : (!hop.tensor<[3, 4], f32>) -> !hop.tensor<[12], f32>
  %0 = aten.add_.Scalar(%flat) {other = 1 : i64} : (!hop.tensor<[12], f32>) -> !hop.tensor<[12], f32>
  %1 = aten.mul.Scalar(%x) {other = 2 : i64} : (!hop.tensor<[3, 4], f32>) -> !hop.tensor<[3, 4], f32>
  func.return %1 : !hop.tensor<[3, 4], f32>
}

// -----

// Python's in-place operators (x <<= 1, x |= y) have the plain operator as
// their functional form.
// CHECK-LABEL: func.func @python_in_place_operators
// CHECK-SAME: {hop.copy_back_to = 0 : i64}
// CHECK: %[[SHIFTED:.*]] = aten.__lshift__.Scalar(%x) {other = 1 : i64}
// CHECK: %[[OR:.*]] = aten.__or__.Tensor(%[[SHIFTED]], %y)
// CHECK: func.return %[[OR]], %[[OR]]
func.func @python_in_place_operators(%x: !hop.tensor<[4], i64>, %y: !hop.tensor<[4], i64>) -> !hop.tensor<[4], i64> {
  %0 = aten.__ilshift__.Scalar(%x) {other = 1 : i64} : (!hop.tensor<[4], i64>) -> !hop.tensor<[4], i64>
  %1 = aten.__ior__.Tensor(%x, %y) : (!hop.tensor<[4], i64>, !hop.tensor<[4], i64>) -> !hop.tensor<[4], i64>
  func.return %x : !hop.tensor<[4], i64>
}

// -----

// A hop.while result is a new tensor, also when the loop runs no iteration (a
// copy, as PyTorch's while_loop returns): changing it in place is its
// functional form, and %x is not copied back.
// CHECK-LABEL: func.func @while_result_changed_in_place
// CHECK-NOT: hop.copy_back_to
// CHECK: %[[R:.*]] = hop.while(%x)
// CHECK: %[[SIN:.*]] = aten.sin(%[[R]])
// CHECK: func.return %[[SIN]] : !hop.tensor<[4], f32>
func.func @while_result_changed_in_place(%x: !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32> {
  %r = hop.while(%x) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32> cond {
  ^bb0(%a: !hop.tensor<[4], f32>):
    %total = aten.sum(%a) : (!hop.tensor<[4], f32>) -> !hop.tensor<[], f32>
    %go = aten.lt.Scalar(%total) {other = 1.0e+02 : f64} : (!hop.tensor<[], f32>) -> !hop.tensor<[], i1>
    hop.yield %go : !hop.tensor<[], i1>
  } body {
  ^bb0(%a: !hop.tensor<[4], f32>):
    %b = aten.mul.Scalar(%a) {other = 2 : i64} : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
    hop.yield %b : !hop.tensor<[4], f32>
  }
  %0 = aten.sin_(%r) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
  func.return %r : !hop.tensor<[4], f32>
}
