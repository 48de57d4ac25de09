// RUN: hopc-opt %s --convert-hop-to-kernel --split-input-file | filecheck %s

// A `_copy` view read only by matrix products of its block is a real view
// again: no copy, and the product reads its strides.
// CHECK-LABEL: builtin.module
// CHECK:       kernel.kernel @extern_t "extern" {
// CHECK-NEXT:  ^bb0(%{{.*}}: !hop.tensor<[4, 8], f32>):
// CHECK-NEXT:    aten.t(
// CHECK:       func.func @f
// CHECK-NEXT:    %[[T:.*]] = kernel.launch @extern_t(%w)
// CHECK-NEXT:    kernel.launch @extern_mm(%x, %[[T]])
builtin.module {
  func.func @f(%x: !hop.tensor<[2, 8], f32>, %w: !hop.tensor<[4, 8], f32>) -> !hop.tensor<[2, 4], f32> {
    %t = aten.t_copy(%w) : (!hop.tensor<[4, 8], f32>) -> !hop.tensor<[8, 4], f32>
    %m = aten.mm(%x, %t) : (!hop.tensor<[2, 8], f32>, !hop.tensor<[8, 4], f32>) -> !hop.tensor<[2, 4], f32>
    func.return %m : !hop.tensor<[2, 4], f32>
  }
}

// -----

// Must not fire: a pointwise op lays its result out as its operand is, and
// the functional level promised the copy's contiguous layout (an output's
// strides would change).
// CHECK-LABEL: builtin.module
// CHECK:       kernel.kernel @extern_t_copy "extern"
// CHECK-NOT:   aten.t(
builtin.module {
  func.func @f(%x: !hop.tensor<[4, 8], f32>) -> !hop.tensor<[8, 4], f32> {
    %t = aten.t_copy(%x) : (!hop.tensor<[4, 8], f32>) -> !hop.tensor<[8, 4], f32>
    %s = aten.mul.Scalar(%t) {other = 3 : i64} : (!hop.tensor<[8, 4], f32>) -> !hop.tensor<[8, 4], f32>
    func.return %s : !hop.tensor<[8, 4], f32>
  }
}

// -----

// Must not fire: the view is returned (the caller would get an alias of its
// argument) or read by a host region op (a loop or branch would see it).
// CHECK-LABEL: builtin.module
// CHECK:       kernel.kernel @extern_t_copy "extern"
// CHECK:       kernel.kernel @extern_view_copy "extern"
// CHECK-NOT:   aten.t(
// CHECK-NOT:   aten.view(
builtin.module {
  func.func @f(%p: !hop.tensor<[], i1>, %x: !hop.tensor<[4, 8], f32>) -> (!hop.tensor<[8, 4], f32>, !hop.tensor<[32], f32>) {
    %t = aten.t_copy(%x) : (!hop.tensor<[4, 8], f32>) -> !hop.tensor<[8, 4], f32>
    %v = aten.view_copy(%x) {size = [32 : i64]} : (!hop.tensor<[4, 8], f32>) -> !hop.tensor<[32], f32>
    %c = hop.cond %p(%v) : !hop.tensor<[], i1>, (!hop.tensor<[32], f32>) -> !hop.tensor<[32], f32> then {
    ^bb0(%0: !hop.tensor<[32], f32>):
      hop.yield %0 : !hop.tensor<[32], f32>
    } else {
    ^bb0(%1: !hop.tensor<[32], f32>):
      %n = aten.neg(%1) : (!hop.tensor<[32], f32>) -> !hop.tensor<[32], f32>
      hop.yield %n : !hop.tensor<[32], f32>
    }
    func.return %t, %c : !hop.tensor<[8, 4], f32>, !hop.tensor<[32], f32>
  }
}

// -----

// A transpose of a transposed copy is its operand (a linear's backward
// transposes the weight's gradient twice); the inner copy is gone with its
// last reader. It must not go where another op still reads it.
// CHECK-LABEL: builtin.module
// CHECK:       func.func @f
// CHECK-NEXT:    %[[M:.*]] = kernel.launch @extern_mm(%x, %w)
// CHECK-NEXT:    %[[T:.*]] = kernel.launch @extern_t_copy(%[[M]])
// CHECK-NEXT:    %[[N:.*]] = kernel.launch @pointwise_neg(%[[T]])
// CHECK-NEXT:    func.return %[[M]], %[[N]]
builtin.module {
  func.func @f(%x: !hop.tensor<[2, 8], f32>, %w: !hop.tensor<[8, 4], f32>) -> (!hop.tensor<[2, 4], f32>, !hop.tensor<[4, 2], f32>) {
    %m = aten.mm(%x, %w) : (!hop.tensor<[2, 8], f32>, !hop.tensor<[8, 4], f32>) -> !hop.tensor<[2, 4], f32>
    %t = aten.t_copy(%m) : (!hop.tensor<[2, 4], f32>) -> !hop.tensor<[4, 2], f32>
    %tt = aten.t_copy(%t) : (!hop.tensor<[4, 2], f32>) -> !hop.tensor<[2, 4], f32>
    %n = aten.neg(%t) : (!hop.tensor<[4, 2], f32>) -> !hop.tensor<[4, 2], f32>
    func.return %tt, %n : !hop.tensor<[2, 4], f32>, !hop.tensor<[4, 2], f32>
  }
}

// -----

// Must not fire: the transposed value is an argument (the result would be
// the caller's tensor itself). The inner copy, read by a copy, is a view.
// CHECK-LABEL: builtin.module
// CHECK:       func.func @f
// CHECK-NEXT:    %[[T:.*]] = kernel.launch @extern_t(%x)
// CHECK-NEXT:    %[[C:.*]] = kernel.launch @extern_t_copy(%[[T]])
// CHECK-NEXT:    func.return %[[C]]
builtin.module {
  func.func @f(%x: !hop.tensor<[2, 4], f32>) -> !hop.tensor<[2, 4], f32> {
    %t = aten.t_copy(%x) : (!hop.tensor<[2, 4], f32>) -> !hop.tensor<[4, 2], f32>
    %tt = aten.t_copy(%t) : (!hop.tensor<[4, 2], f32>) -> !hop.tensor<[2, 4], f32>
    func.return %tt : !hop.tensor<[2, 4], f32>
  }
}

// -----

// A view_copy of a fresh (contiguous) result is a contiguous reshape, which
// any op of its block may read; of an argument (strides unknown) it stays.
// CHECK-LABEL: builtin.module
// CHECK:       kernel.kernel @extern_reshape "extern"
// CHECK:       kernel.kernel @extern_view_copy "extern"
// CHECK:       func.func @f
// CHECK-NEXT:    %[[N:.*]] = kernel.launch @pointwise_neg(%x)
// CHECK-NEXT:    %[[R:.*]] = kernel.launch @extern_reshape(%[[N]])
// CHECK-NEXT:    kernel.launch @pointwise_exp(%[[R]])
// CHECK-NEXT:    %[[V:.*]] = kernel.launch @extern_view_copy(%x)
builtin.module {
  func.func @f(%x: !hop.tensor<[2, 4], f32>) -> (!hop.tensor<[8], f32>, !hop.tensor<[8], f32>) {
    %n = aten.neg(%x) : (!hop.tensor<[2, 4], f32>) -> !hop.tensor<[2, 4], f32>
    %v = aten.view_copy(%n) {size = [8 : i64]} : (!hop.tensor<[2, 4], f32>) -> !hop.tensor<[8], f32>
    %e = aten.exp(%v) : (!hop.tensor<[8], f32>) -> !hop.tensor<[8], f32>
    %w = aten.view_copy(%x) {size = [8 : i64]} : (!hop.tensor<[2, 4], f32>) -> !hop.tensor<[8], f32>
    %s = aten.sin(%w) : (!hop.tensor<[8], f32>) -> !hop.tensor<[8], f32>
    func.return %e, %s : !hop.tensor<[8], f32>, !hop.tensor<[8], f32>
  }
}

// -----

// A view_copy of a contiguous reshape of a fresh result (a linear's output
// reshaped twice) is a contiguous reshape too. Must not fire on a reshape of
// a transpose: its strides are not the copy's contiguous ones, which the
// sine's result would get.
// CHECK-LABEL: builtin.module
// CHECK:       func.func @f
// CHECK-NEXT:    %[[N:.*]] = kernel.launch @pointwise_neg(%x)
// CHECK-NEXT:    %[[V:.*]] = kernel.launch @extern_reshape(%[[N]])
// CHECK-NEXT:    %[[W:.*]] = kernel.launch @extern_reshape_1(%[[V]])
// CHECK-NEXT:    kernel.launch @pointwise_exp(%[[W]])
// CHECK-NEXT:    %[[T:.*]] = kernel.launch @extern_t(%[[N]])
// CHECK-NEXT:    %[[U:.*]] = kernel.launch @extern_reshape_2(%[[T]])
// CHECK-NEXT:    %[[Z:.*]] = kernel.launch @extern_view_copy(%[[U]])
// CHECK-NEXT:    kernel.launch @pointwise_sin(%[[Z]])
builtin.module {
  func.func @f(%x: !hop.tensor<[2, 4], f32>) -> (!hop.tensor<[8], f32>, !hop.tensor<[8], f32>) {
    %n = aten.neg(%x) : (!hop.tensor<[2, 4], f32>) -> !hop.tensor<[2, 4], f32>
    %v = aten.view_copy(%n) {size = [4 : i64, 2 : i64]} : (!hop.tensor<[2, 4], f32>) -> !hop.tensor<[4, 2], f32>
    %w = aten.view_copy(%v) {size = [8 : i64]} : (!hop.tensor<[4, 2], f32>) -> !hop.tensor<[8], f32>
    %e = aten.exp(%w) : (!hop.tensor<[8], f32>) -> !hop.tensor<[8], f32>
    %t = aten.t_copy(%n) : (!hop.tensor<[2, 4], f32>) -> !hop.tensor<[4, 2], f32>
    %u = aten.view_copy(%t) {size = [2 : i64, 4 : i64]} : (!hop.tensor<[4, 2], f32>) -> !hop.tensor<[2, 4], f32>
    %z = aten.view_copy(%u) {size = [8 : i64]} : (!hop.tensor<[2, 4], f32>) -> !hop.tensor<[8], f32>
    %s = aten.sin(%z) : (!hop.tensor<[8], f32>) -> !hop.tensor<[8], f32>
    func.return %e, %s : !hop.tensor<[8], f32>, !hop.tensor<[8], f32>
  }
}

// -----

// An argument transposed twice where only a matrix product reads the result
// is the argument itself (a linear's backward reads the next layer's saved
// weight as t(t(w))): the product's result is fresh, so nothing comes to
// share the caller's tensor.
// CHECK-LABEL: builtin.module
// CHECK:       func.func @f
// CHECK-NEXT:    %[[M:.*]] = kernel.launch @extern_mm(%g, %w)
// CHECK-NEXT:    func.return %[[M]]
builtin.module {
  func.func @f(%g: !hop.tensor<[2, 8], f32>, %w: !hop.tensor<[8, 4], f32>) -> !hop.tensor<[2, 4], f32> {
    %t = aten.t_copy(%w) : (!hop.tensor<[8, 4], f32>) -> !hop.tensor<[4, 8], f32>
    %tt = aten.t_copy(%t) : (!hop.tensor<[4, 8], f32>) -> !hop.tensor<[8, 4], f32>
    %m = aten.mm(%g, %tt) : (!hop.tensor<[2, 8], f32>, !hop.tensor<[8, 4], f32>) -> !hop.tensor<[2, 4], f32>
    func.return %m : !hop.tensor<[2, 4], f32>
  }
}

// -----

// A reshape or expansion to its operand's own shape is the operand
// (matmul's decomposition expands and reshapes operands that already have
// bmm's shape): no expand_copy, no view_copy left.
// CHECK-LABEL: builtin.module
// CHECK-NOT:   aten.expand_copy
// CHECK-NOT:   aten.view_copy
// CHECK:       func.func @f
// CHECK-NEXT:    %[[N:.*]] = kernel.launch @pointwise_neg(%x)
// CHECK-NEXT:    %[[M:.*]] = kernel.launch @extern_bmm(%[[N]], %y)
// CHECK-NEXT:    func.return %[[M]]
builtin.module {
  func.func @f(%x: !hop.tensor<[2, 4, 8], f32>, %y: !hop.tensor<[2, 8, 3], f32>) -> !hop.tensor<[2, 4, 3], f32> {
    %n = aten.neg(%x) : (!hop.tensor<[2, 4, 8], f32>) -> !hop.tensor<[2, 4, 8], f32>
    %e = aten.expand_copy(%n) {size = [2 : i64, 4 : i64, 8 : i64]} : (!hop.tensor<[2, 4, 8], f32>) -> !hop.tensor<[2, 4, 8], f32>
    %v = aten.view_copy(%e) {size = [2 : i64, 4 : i64, 8 : i64]} : (!hop.tensor<[2, 4, 8], f32>) -> !hop.tensor<[2, 4, 8], f32>
    %m = aten.bmm(%v, %y) : (!hop.tensor<[2, 4, 8], f32>, !hop.tensor<[2, 8, 3], f32>) -> !hop.tensor<[2, 4, 3], f32>
    func.return %m : !hop.tensor<[2, 4, 3], f32>
  }
}

// -----

// Must not fire: the expansion is returned (only ATen readers of the block
// may share the operand), and an expansion of an argument read by a
// pointwise op (the argument's strides, not the copy's contiguous ones,
// would reach the sine's result).
// CHECK-LABEL: builtin.module
// CHECK:       func.func @f
// CHECK:         %e = kernel.launch @extern_expand_copy(%n)
// CHECK-NEXT:    %f = kernel.launch @extern_expand_copy(%x)
// CHECK-NEXT:    kernel.launch @pointwise_sin(%f)
builtin.module {
  func.func @f(%x: !hop.tensor<[2, 4, 8], f32>) -> (!hop.tensor<[2, 4, 8], f32>, !hop.tensor<[2, 4, 8], f32>) {
    %n = aten.neg(%x) : (!hop.tensor<[2, 4, 8], f32>) -> !hop.tensor<[2, 4, 8], f32>
    %e = aten.expand_copy(%n) {size = [2 : i64, 4 : i64, 8 : i64]} : (!hop.tensor<[2, 4, 8], f32>) -> !hop.tensor<[2, 4, 8], f32>
    %f = aten.expand_copy(%x) {size = [2 : i64, 4 : i64, 8 : i64]} : (!hop.tensor<[2, 4, 8], f32>) -> !hop.tensor<[2, 4, 8], f32>
    %s = aten.sin(%f) : (!hop.tensor<[2, 4, 8], f32>) -> !hop.tensor<[2, 4, 8], f32>
    func.return %e, %s : !hop.tensor<[2, 4, 8], f32>, !hop.tensor<[2, 4, 8], f32>
  }
}

// -----

// A view read by a `_copy` view is a real view: the copy reads its strides
// and lays its result out contiguously all the same (one copy, not two).
// CHECK-LABEL: builtin.module
// CHECK:       func.func @f
// CHECK-NEXT:    %[[N:.*]] = kernel.launch @pointwise_neg(%x)
// CHECK-NEXT:    %[[S:.*]] = kernel.launch @extern_slice_Tensor(%[[N]])
// CHECK-NEXT:    %[[T:.*]] = kernel.launch @extern_t_copy(%[[S]])
// CHECK-NEXT:    func.return %[[T]]
builtin.module {
  func.func @f(%x: !hop.tensor<[2, 8], f32>) -> !hop.tensor<[4, 2], f32> {
    %n = aten.neg(%x) : (!hop.tensor<[2, 8], f32>) -> !hop.tensor<[2, 8], f32>
    %s = aten.slice_copy.Tensor(%n) {dim = 1 : i64, start = 0 : i64, end = 4 : i64} : (!hop.tensor<[2, 8], f32>) -> !hop.tensor<[2, 4], f32>
    %t = aten.t_copy(%s) : (!hop.tensor<[2, 4], f32>) -> !hop.tensor<[4, 2], f32>
    func.return %t : !hop.tensor<[4, 2], f32>
  }
}

// -----

// Views of an argument read by an embedding (an index lookup into a new
// tensor) and by a transpose and a reshape that a product reads: no copies.
// CHECK-LABEL: builtin.module
// CHECK:       func.func @f
// CHECK-NEXT:    %[[I:.*]] = kernel.launch @extern_reshape(%i)
// CHECK-NEXT:    %[[E:.*]] = kernel.launch @extern_embedding(%w, %[[I]])
// CHECK-NEXT:    %[[T:.*]] = kernel.launch @extern_transpose_int(%a)
// CHECK-NEXT:    %[[R:.*]] = kernel.launch @extern_reshape_1(%[[T]])
// CHECK-NEXT:    %[[M:.*]] = kernel.launch @extern_mm(%[[R]], %p)
builtin.module {
  func.func @f(%i: !hop.tensor<[2, 3], i64>, %w: !hop.tensor<[8, 4], f32>, %a: !hop.tensor<[2, 4, 2], f32>, %p: !hop.tensor<[4, 4], f32>) -> (!hop.tensor<[6, 4], f32>, !hop.tensor<[4, 4], f32>) {
    %v = aten.view_copy(%i) {size = [6 : i64]} : (!hop.tensor<[2, 3], i64>) -> !hop.tensor<[6], i64>
    %e = aten.embedding(%w, %v) : (!hop.tensor<[8, 4], f32>, !hop.tensor<[6], i64>) -> !hop.tensor<[6, 4], f32>
    %t = aten.transpose_copy.int(%a) {dim0 = 1 : i64, dim1 = 2 : i64} : (!hop.tensor<[2, 4, 2], f32>) -> !hop.tensor<[2, 2, 4], f32>
    %r = aten.view_copy(%t) {size = [4 : i64, 4 : i64]} : (!hop.tensor<[2, 2, 4], f32>) -> !hop.tensor<[4, 4], f32>
    %m = aten.mm(%r, %p) : (!hop.tensor<[4, 4], f32>, !hop.tensor<[4, 4], f32>) -> !hop.tensor<[4, 4], f32>
    func.return %e, %m : !hop.tensor<[6, 4], f32>, !hop.tensor<[4, 4], f32>
  }
}

// -----

// A clone of a dense value that nothing else reads is the value (a dropout
// with p = 0), through a reshape too.
// CHECK-LABEL: builtin.module
// CHECK-NOT:   aten.clone
// CHECK:       func.func @f
// CHECK-NEXT:    %[[N:.*]] = kernel.launch @pointwise_neg(%x)
// CHECK-NEXT:    %[[R:.*]] = kernel.launch @extern_reshape(%[[N]])
// CHECK-NEXT:    %[[E:.*]] = kernel.launch @pointwise_exp(%[[R]])
// CHECK-NEXT:    func.return %[[E]]
builtin.module {
  func.func @f(%x: !hop.tensor<[2, 8], f32>) -> !hop.tensor<[16], f32> {
    %n = aten.neg(%x) : (!hop.tensor<[2, 8], f32>) -> !hop.tensor<[2, 8], f32>
    %r = aten.view_copy(%n) {size = [16 : i64]} : (!hop.tensor<[2, 8], f32>) -> !hop.tensor<[16], f32>
    %c = aten.clone(%r) : (!hop.tensor<[16], f32>) -> !hop.tensor<[16], f32>
    %e = aten.exp(%c) : (!hop.tensor<[16], f32>) -> !hop.tensor<[16], f32>
    func.return %e : !hop.tensor<[16], f32>
  }
}

// -----

// Must not fire: a clone of an argument (the caller's storage), a clone
// whose operand another op reads (both would share a buffer; here both are
// returned), a clone into a memory format of its own.
// CHECK-LABEL: builtin.module
// CHECK:       func.func @f
// CHECK-NEXT:    kernel.launch @extern_clone(%x)
// CHECK-NEXT:    %[[N:.*]] = kernel.launch @pointwise_neg(%x)
// CHECK-NEXT:    kernel.launch @extern_clone(%[[N]])
// CHECK-NEXT:    %[[M:.*]] = kernel.launch @pointwise_exp(%x)
// CHECK-NEXT:    kernel.launch @extern_clone_1(%[[M]])
builtin.module {
  func.func @f(%x: !hop.tensor<[2, 8], f32>) -> (!hop.tensor<[2, 8], f32>, !hop.tensor<[2, 8], f32>, !hop.tensor<[2, 8], f32>, !hop.tensor<[2, 8], f32>) {
    %a = aten.clone(%x) : (!hop.tensor<[2, 8], f32>) -> !hop.tensor<[2, 8], f32>
    %n = aten.neg(%x) : (!hop.tensor<[2, 8], f32>) -> !hop.tensor<[2, 8], f32>
    %b = aten.clone(%n) : (!hop.tensor<[2, 8], f32>) -> !hop.tensor<[2, 8], f32>
    %m = aten.exp(%x) : (!hop.tensor<[2, 8], f32>) -> !hop.tensor<[2, 8], f32>
    %c = aten.clone(%m) {memory_format = "contiguous_format"} : (!hop.tensor<[2, 8], f32>) -> !hop.tensor<[2, 8], f32>
    func.return %a, %n, %b, %c : !hop.tensor<[2, 8], f32>, !hop.tensor<[2, 8], f32>, !hop.tensor<[2, 8], f32>, !hop.tensor<[2, 8], f32>
  }
}

// -----

// Must not fire: `slice_scatter`, though PyTorch tags it a `_copy` view,
// lays its result out as its operand (a clone that keeps strides).
// CHECK-LABEL: builtin.module
// CHECK:       func.func @f
// CHECK-NEXT:    %[[N:.*]] = kernel.launch @pointwise_neg(%x)
// CHECK-NEXT:    %[[T:.*]] = kernel.launch @extern_t_copy(%[[N]])
// CHECK-NEXT:    kernel.launch @extern_slice_scatter(%[[T]], %y)
builtin.module {
  func.func @f(%x: !hop.tensor<[2, 8], f32>, %y: !hop.tensor<[2, 2], f32>) -> !hop.tensor<[8, 2], f32> {
    %n = aten.neg(%x) : (!hop.tensor<[2, 8], f32>) -> !hop.tensor<[2, 8], f32>
    %t = aten.t_copy(%n) : (!hop.tensor<[2, 8], f32>) -> !hop.tensor<[8, 2], f32>
    %s = aten.slice_scatter(%t, %y) {dim = 0 : i64, start = 0 : i64, end = 2 : i64} : (!hop.tensor<[8, 2], f32>, !hop.tensor<[2, 2], f32>) -> !hop.tensor<[8, 2], f32>
    func.return %s : !hop.tensor<[8, 2], f32>
  }
}
