// RUN: hopc-opt %s --functionalize --lift-symbols | filecheck %s
// RUN: hopc-opt %s --functionalize --lift-symbols --canonicalize --cse --dce --verify-functional --verify-symbol-closed | filecheck %s --check-prefix=CLEAN

// The README's example, as hopc.capture printed it: an input mutated through a
// view, then a cond whose branch reads a size captured from another input.

// CHECK-LABEL: func.func @forward
// CHECK-SAME:  -> (!hop.tensor<[s77, 3], f32>, !hop.tensor<[s77, 3], f32> {hop.copy_back_to = 0 : i64})
// CHECK-DAG:   %[[S77:.*]] = hop.sym_size %x[0] : !hop.tensor<[s77, 3], f32> -> !hop.symint<s77>
// CHECK-DAG:   %[[S98:.*]] = hop.sym_size %scale[0] : !hop.tensor<[s98], f32> -> !hop.symint<s98>
// CHECK:       %[[ROW:.*]] = aten.select_copy.int(%x)
// CHECK:       %[[NEW_ROW:.*]] = aten.add.Scalar(%[[ROW]])
// CHECK:       %[[X:.*]] = aten.select_scatter(%x, %[[NEW_ROW]])
// CHECK:       %[[SUM:.*]] = aten.sum(%[[X]])
// CHECK:       hop.cond %{{.*}}(%[[X]], %scale, %[[S77]], %[[S98]])
// CHECK:       ^bb0(%{{.*}}: !hop.tensor<[s77, 3], f32>, %{{.*}}: !hop.tensor<[s98], f32>, %{{.*}}: !hop.symint<s77>, %{{.*}}: !hop.symint<s98>):
// CHECK-NOT:   aten.add_
// CHECK:       func.return %{{.*}}, %[[X]]

// After cleanup the branch's unused tensor operand is gone; the lifted symbols stay.
// CLEAN-LABEL: func.func @forward
// CLEAN:       hop.cond %{{.*}}(%{{.*}}, %{{.*}}, %{{.*}}) : !hop.tensor<[], i1>, (!hop.tensor<[s77, 3], f32>, !hop.symint<s77>, !hop.symint<s98>)
// CLEAN:       aten.mul.Scalar(%{{.*}}) {other = #hop.expr<s98>}

builtin.module {
  hop.symbol @s77 backed [2, oo]
  hop.symbol @s98 backed [2, oo]
  func.func @forward(%x: !hop.tensor<[s77, 3], f32>, %scale: !hop.tensor<[s98], f32>) -> !hop.tensor<[s77, 3], f32> {
    %select = aten.select.int(%x) {dim = 0 : i64, index = 0 : i64} : (!hop.tensor<[s77, 3], f32>) -> !hop.tensor<[3], f32>
    %add_ = aten.add_.Scalar(%select) {other = 1 : i64} : (!hop.tensor<[3], f32>) -> !hop.tensor<[3], f32>
    %sum = aten.sum(%x) : (!hop.tensor<[s77, 3], f32>) -> !hop.tensor<[], f32>
    %gt = aten.gt.Scalar(%sum) {other = 0 : i64} : (!hop.tensor<[], f32>) -> !hop.tensor<[], i1>
    %getitem = hop.cond %gt(%x, %scale) : !hop.tensor<[], i1>, (!hop.tensor<[s77, 3], f32>, !hop.tensor<[s98], f32>) -> !hop.tensor<[s77, 3], f32> then {
    ^bb0(%0: !hop.tensor<[s77, 3], f32>, %1: !hop.tensor<[s98], f32>):
      %sym_size_int = hop.sym_size %1[0] : !hop.tensor<[s98], f32> -> !hop.symint<s98>
      %mul = aten.mul.Scalar(%0) {other = #hop.expr<s98>} : (!hop.tensor<[s77, 3], f32>) -> !hop.tensor<[s77, 3], f32>
      hop.yield %mul : !hop.tensor<[s77, 3], f32>
    } else {
    ^bb0(%2: !hop.tensor<[s77, 3], f32>, %3: !hop.tensor<[s98], f32>):
      %div = aten.div.Scalar(%2) {other = 2 : i64} : (!hop.tensor<[s77, 3], f32>) -> !hop.tensor<[s77, 3], f32>
      hop.yield %div : !hop.tensor<[s77, 3], f32>
    }
    func.return %getitem : !hop.tensor<[s77, 3], f32>
  }
}
