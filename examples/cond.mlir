// A captured program: y = cond(x.sum() > 0, sin, cos)(x) * 2, with a dynamic batch size s0.
hop.symbol @s0 backed [2, oo]
func.func @forward(%x: !hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32> {
  %sum = aten.sum(%x) : (!hop.tensor<[s0, 4], f32>) -> !hop.tensor<[], f32>
  %positive = aten.gt.Scalar(%sum) {other = 0 : i64} : (!hop.tensor<[], f32>) -> !hop.tensor<[], i1>
  %y = hop.cond %positive(%x) : !hop.tensor<[], i1>, (!hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32> then {
  ^bb0(%a: !hop.tensor<[s0, 4], f32>):
    %s = aten.sin(%a) : (!hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32>
    hop.yield %s : !hop.tensor<[s0, 4], f32>
  } else {
  ^bb0(%a: !hop.tensor<[s0, 4], f32>):
    %c = aten.cos(%a) : (!hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32>
    %unused = aten.exp(%a) : (!hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32>
    hop.yield %c : !hop.tensor<[s0, 4], f32>
  }
  %r = aten.mul.Scalar(%y) {other = 2 : i64} : (!hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32>
  func.return %r : !hop.tensor<[s0, 4], f32>
}
