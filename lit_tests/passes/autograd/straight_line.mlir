// RUN: hopc-opt --autograd --split-input-file %s | filecheck %s
// RUN: hopc-opt --autograd --split-input-file %s | hopc-opt --split-input-file | filecheck %s

// Each op's backward is PyTorch's derivative (tanh_backward; mul's takes the
// other operand). The min-cut partitioner saves w and tanh's output: tanh is
// not cheap to recompute (Note [min-cut partition]), and the backward needs
// nothing else of x. Backward ops name the forward op they came from by its
// sequence number.

// CHECK-LABEL: builtin.module
// CHECK:      hop.entry forward @forward
// CHECK-NEXT: hop.entry backward @backward
// CHECK:      func.func @forward(%x: !hop.tensor<[s0, 4], f32> {hop.requires_grad}, %w: !hop.tensor<[4], f32> {hop.requires_grad})
// CHECK-SAME:   -> (!hop.tensor<[s0, 4], f32>, !hop.tensor<[4], f32> {hop.saved = 0 : i64}, !hop.tensor<[s0, 4], f32> {hop.saved = 1 : i64})
// CHECK-SAME:   attributes {hop.saved_bytes = #hop.expr<16*s0 + 16>}
// CHECK:        func.return %mul, %w, %tanh
// CHECK:      func.func @backward(%w: {{.*}} {hop.saved = 0 : i64}, %tanh: {{.*}} {hop.saved = 1 : i64}, %tangent: !hop.tensor<[s0, 4], f32> {hop.cotangent_of = 0 : i64})
// CHECK-SAME:   -> (!hop.tensor<[s0, 4], f32> {hop.gradient_of = 0 : i64}, !hop.tensor<[4], f32> {hop.gradient_of = 1 : i64})
// CHECK-NOT:    aten.tanh(
// CHECK:        aten.mul.Tensor(%tangent, %w) {hop.seq_nr = 1 : i64}
// CHECK:        aten.tanh_backward({{.*}}, %tanh) {hop.seq_nr = 0 : i64}

builtin.module {
  hop.symbol @s0 backed [2, oo] hint 3
  func.func @forward(%x: !hop.tensor<[s0, 4], f32> {hop.requires_grad}, %w: !hop.tensor<[4], f32> {hop.requires_grad}) -> !hop.tensor<[s0, 4], f32> {
    %t = aten.tanh(%x) : (!hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32>
    %y = aten.mul.Tensor(%t, %w) : (!hop.tensor<[s0, 4], f32>, !hop.tensor<[4], f32>) -> !hop.tensor<[s0, 4], f32>
    func.return %y : !hop.tensor<[s0, 4], f32>
  }
}

// -----

// A cheap pointwise op is recomputed rather than saved: mul's backward needs
// neg(x) and w; neg(x) is as large as x, and on a tie the argument is saved, so
// the backward recomputes neg from x.
// CHECK-LABEL: builtin.module
// CHECK:      func.func @forward
// CHECK:        func.return %mul, %x, %w
// CHECK:      func.func @backward(%x: {{.*}} {hop.saved = 0 : i64}, %w: {{.*}} {hop.saved = 1 : i64}, %tangent
// CHECK-NEXT:   %neg = aten.neg(%x)
// CHECK:        aten.mul.Tensor(%tangent, %neg) {hop.seq_nr = 1 : i64}
builtin.module {
  func.func @forward(%x: !hop.tensor<[4], f32> {hop.requires_grad}, %w: !hop.tensor<[4], f32> {hop.requires_grad}) -> !hop.tensor<[4], f32> {
    %n = aten.neg(%x) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
    %y = aten.mul.Tensor(%n, %w) : (!hop.tensor<[4], f32>, !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
    func.return %y : !hop.tensor<[4], f32>
  }
}

// -----

// sin's derivative cos(x) reads only forward values, so the joint lists it
// among the forward ops, but only the backward needs it: it moves to the
// backward, however costly (computed once either way), and x is saved.
// CHECK-LABEL: builtin.module
// CHECK:      func.func @forward
// CHECK-NOT:    aten.cos
// CHECK:        func.return %sin, %x
// CHECK:      func.func @backward(%x: {{.*}} {hop.saved = 0 : i64}, %tangent
// CHECK-NEXT:   %cos = aten.cos(%x)
// CHECK-NEXT:   aten.mul.Tensor(%tangent, %cos)
builtin.module {
  func.func @forward(%x: !hop.tensor<[4], f32> {hop.requires_grad}) -> !hop.tensor<[4], f32> {
    %s = aten.sin(%x) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
    func.return %s : !hop.tensor<[4], f32>
  }
}

// -----

// Nothing requires grad: the pass leaves the module alone (no entries, no backward).
// CHECK-LABEL: builtin.module
// CHECK-NOT:   hop.entry
// CHECK:       func.func @forward(%x: !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
// CHECK-NEXT:    aten.tanh
// CHECK-NEXT:    func.return
builtin.module {
  func.func @forward(%x: !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32> {
    %t = aten.tanh(%x) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
    func.return %t : !hop.tensor<[4], f32>
  }
}

// -----

// Only an integer output depends on the differentiated input: nothing to differentiate.
// CHECK-LABEL: builtin.module
// CHECK-NOT:   hop.entry
// CHECK:       aten.argmax
builtin.module {
  func.func @forward(%x: !hop.tensor<[4], f32> {hop.requires_grad}) -> !hop.tensor<[], i64> {
    %i = aten.argmax(%x) : (!hop.tensor<[4], f32>) -> !hop.tensor<[], i64>
    func.return %i : !hop.tensor<[], i64>
  }
}

// -----

// A size the backward needs but no saved tensor binds is saved as a !hop.symint:
// the gradient of sum(x) expands the cotangent back to [s0, 4].
// CHECK-LABEL: builtin.module
// CHECK:       func.func @forward({{.*}} attributes {hop.saved_bytes = 8 : i64}
// CHECK:         hop.sym_size %x[0]
// CHECK:       func.func @backward(%{{.*}}: !hop.symint<s0> {hop.saved = 0 : i64}, %tangent: !hop.tensor<[], f32> {hop.cotangent_of = 0 : i64})
// CHECK:         aten.expand_copy{{.*}}size = [#hop.expr<s0>, 4 : i64]
builtin.module {
  hop.symbol @s0 backed [2, oo] hint 3
  func.func @forward(%x: !hop.tensor<[s0, 4], f32> {hop.requires_grad}) -> !hop.tensor<[], f32> {
    %s = aten.sum(%x) : (!hop.tensor<[s0, 4], f32>) -> !hop.tensor<[], f32>
    func.return %s : !hop.tensor<[], f32>
  }
}

// -----

// Only x is differentiated: mm's derivative also computes w's gradient, which
// is dropped, so what only that gradient reads (x) is not saved; w is.
// CHECK-LABEL: builtin.module
// CHECK:       func.func @forward(%x: {{.*}}, %w: {{.*}}) -> (!hop.tensor<[8, 4], f32>, !hop.tensor<[4, 4], f32> {hop.saved = 0 : i64})
// CHECK:       func.func @backward(%w: !hop.tensor<[4, 4], f32> {hop.saved = 0 : i64}, %tangent: {{.*}})
// CHECK-NOT:     aten.mm
// CHECK:         %[[T:.*]] = aten.t_copy(%w)
// CHECK-NEXT:    %[[DX:.*]] = aten.mm(%tangent, %[[T]])
// CHECK-NEXT:    func.return %[[DX]]
builtin.module {
  func.func @forward(%x: !hop.tensor<[8, 4], f32> {hop.requires_grad}, %w: !hop.tensor<[4, 4], f32>) -> !hop.tensor<[8, 4], f32> {
    %m = aten.mm(%x, %w) : (!hop.tensor<[8, 4], f32>, !hop.tensor<[4, 4], f32>) -> !hop.tensor<[8, 4], f32>
    func.return %m : !hop.tensor<[8, 4], f32>
  }
}
