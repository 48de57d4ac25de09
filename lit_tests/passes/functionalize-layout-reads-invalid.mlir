// RUN: hopc-opt %s --functionalize --split-input-file --verify-diagnostics

// An offset that only the read defines, and that the program returns: eager's
// value is known to the view alone, and the copy's would be wrong.
hop.symbol @s0 backed [2, oo]
hop.symbol @u0 unbacked [0, oo]
hop.symbol @u1 unbacked [0, oo]
func.func @offset_returned(%x: !hop.tensor<[s0, 4], f32>, %k: !hop.symint<u0>) -> !hop.symint<u1> {
  %row = aten.narrow(%x) {dim = 0 : i64, start = #hop.expr<u0>, length = 1 : i64} : (!hop.tensor<[s0, 4], f32>) -> !hop.tensor<[1, 4], f32>
  // expected-error @+1 {{'aten.sym_storage_offset' op reads the layout of the view %row, which its copy does not keep, and eager's value is !hop.symint<u1>: u1 is defined by the read alone, and 'func.return' reads it (Note [layout reads of views])}}
  %offset = aten.sym_storage_offset(%row) : (!hop.tensor<[1, 4], f32>) -> !hop.symint<u1>
  func.return %offset : !hop.symint<u1>
}

// -----

// A check on such an offset that some storage offsets fail (u1 >= 3) cannot
// be dropped: eager might fail it.
hop.symbol @s0 backed [2, oo]
hop.symbol @u0 unbacked [0, oo]
hop.symbol @u1 unbacked [0, oo]
func.func @check_some_offsets_fail(%x: !hop.tensor<[s0, 4], f32>, %k: !hop.symint<u0>) -> !hop.tensor<[1, 4], f32> {
  %row = aten.narrow(%x) {dim = 0 : i64, start = #hop.expr<u0>, length = 1 : i64} : (!hop.tensor<[s0, 4], f32>) -> !hop.tensor<[1, 4], f32>
  // expected-error @+1 {{'aten.sym_storage_offset' op reads the layout of the view %row, which its copy does not keep, and eager's value is !hop.symint<u1>: u1 is defined by the read alone, and hopc cannot drop the check Ge(u1, 3) on it (Note [layout reads of views])}}
  %offset = aten.sym_storage_offset(%row) : (!hop.tensor<[1, 4], f32>) -> !hop.symint<u1>
  %three = hop.sym_constant : !hop.symint<3>
  %large = hop.sym_ge %offset, %three : !hop.symint<u1>, !hop.symint<3> -> !hop.symbool<Ge(u1, 3)>
  hop.assert %large, "u1 >= 3" : !hop.symbool<Ge(u1, 3)>
  %sin = aten.sin(%row) : (!hop.tensor<[1, 4], f32>) -> !hop.tensor<[1, 4], f32>
  func.return %sin : !hop.tensor<[1, 4], f32>
}
