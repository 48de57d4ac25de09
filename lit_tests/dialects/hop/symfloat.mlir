// RUN: hopc-opt %s --split-input-file | filecheck %s
// RUN: hopc-opt %s --split-input-file --print-op-generic | filecheck %s --check-prefix=GENERIC
// RUN: hopc-opt %s --print-op-generic --split-input-file | hopc-opt --split-input-file | filecheck %s

// Symbolic floats (Note [float expressions] in hopc.ir.symbolic_float): the
// !hop.symfloat type, float #hop.expr attributes, the float-making ops and
// float operands of the shared arithmetic, in custom and generic form; the
// last RUN parses the generic form back.

// x / math.sqrt(x.size(-1)): the divisor is a float attribute of the ATen op.
// CHECK-LABEL: func.func @scaled
// CHECK:         %[[N:.*]] = hop.sym_size %x[1] : !hop.tensor<[3, s0], f32> -> !hop.symint<s0>
// CHECK-NEXT:    %[[F:.*]] = hop.sym_float %[[N]] : !hop.symint<s0> -> !hop.symfloat<float(s0)>
// CHECK-NEXT:    %{{.*}} = hop.sym_sqrt %[[F]] : !hop.symfloat<float(s0)> -> !hop.symfloat<sqrt(s0)>
// CHECK-NEXT:    %{{.*}} = aten.div.Scalar(%x) {other = #hop.expr<sqrt(s0)>}
// GENERIC:       "hop.sym_sqrt"(%{{.*}}) : (!hop.symfloat<float(s0)>) -> !hop.symfloat<sqrt(s0)>
// GENERIC:       "aten.div.Scalar"(%x) <{other = #hop.expr<sqrt(s0)>}>
hop.symbol @s0 backed [2, oo]
func.func @scaled(%x: !hop.tensor<[3, s0], f32>) -> !hop.tensor<[3, s0], f32> {
  %n = hop.sym_size %x[1] : !hop.tensor<[3, s0], f32> -> !hop.symint<s0>
  %f = hop.sym_float %n : !hop.symint<s0> -> !hop.symfloat<float(s0)>
  %r = hop.sym_sqrt %f : !hop.symfloat<float(s0)> -> !hop.symfloat<sqrt(s0)>
  %y = aten.div.Scalar(%x) {other = #hop.expr<sqrt(s0)>} : (!hop.tensor<[3, s0], f32>) -> !hop.tensor<[3, s0], f32>
  func.return %y : !hop.tensor<[3, s0], f32>
}

// -----

// True division, float power, a float constant, mixed arithmetic and a float
// comparison; expressions print in canonical form (the sum reordered, `1/x`
// spaced as `1 / x`).
// CHECK-LABEL: func.func @arithmetic
// CHECK:         hop.sym_truediv %{{.*}}, %{{.*}} : !hop.symint<s0>, !hop.symint<2> -> !hop.symfloat<s0 / 2>
// CHECK:         hop.sym_constant : !hop.symfloat<0.5>
// CHECK:         hop.sym_pow %{{.*}}, %{{.*}} : !hop.symint<s0>, !hop.symfloat<0.5> -> !hop.symfloat<pow(s0, 0.5)>
// CHECK:         hop.sym_add %{{.*}}, %{{.*}} : !hop.symfloat<pow(s0, 0.5)>, !hop.symfloat<s0 / 2> -> !hop.symfloat<pow(s0, 0.5) + s0 / 2>
// CHECK:         hop.sym_mul %{{.*}}, %{{.*}} : !hop.symfloat<s0 / 2>, !hop.symint<2> -> !hop.symfloat<2*(s0 / 2)>
// CHECK:         hop.sym_gt %{{.*}}, %{{.*}} : !hop.symfloat<s0 / 2>, !hop.symfloat<0.5> -> !hop.symbool<Gt(s0 / 2, 0.5)>
// CHECK:         hop.sym_truediv %{{.*}}, %{{.*}} : !hop.symint<1>, !hop.symfloat<pow(s0, 0.5)> -> !hop.symfloat<1 / pow(s0, 0.5)>
// CHECK:         aten.mul.Scalar(%x) {other = #hop.expr<1 / pow(s0, 0.5)>}
hop.symbol @s0 backed [2, oo]
func.func @arithmetic(%x: !hop.tensor<[s0], f32>) -> !hop.tensor<[s0], f32> {
  %n = hop.sym_size %x[0] : !hop.tensor<[s0], f32> -> !hop.symint<s0>
  %two = hop.sym_constant : !hop.symint<2>
  %half_n = hop.sym_truediv %n, %two : !hop.symint<s0>, !hop.symint<2> -> !hop.symfloat<s0 / 2>
  %half = hop.sym_constant : !hop.symfloat<0.5>
  %root = hop.sym_pow %n, %half : !hop.symint<s0>, !hop.symfloat<0.5> -> !hop.symfloat<pow(s0, 0.5)>
  %sum = hop.sym_add %root, %half_n : !hop.symfloat<pow(s0, 0.5)>, !hop.symfloat<s0 / 2> -> !hop.symfloat<s0 / 2 + pow(s0, 0.5)>
  %twice = hop.sym_mul %half_n, %two : !hop.symfloat<s0 / 2>, !hop.symint<2> -> !hop.symfloat<2*(s0 / 2)>
  %big = hop.sym_gt %half_n, %half : !hop.symfloat<s0 / 2>, !hop.symfloat<0.5> -> !hop.symbool<Gt(s0 / 2, 0.5)>
  %one = hop.sym_constant : !hop.symint<1>
  %inverse = hop.sym_truediv %one, %root : !hop.symint<1>, !hop.symfloat<pow(s0, 0.5)> -> !hop.symfloat<1/pow(s0, 0.5)>
  %y = aten.mul.Scalar(%x) {other = #hop.expr<1/pow(s0, 0.5)>} : (!hop.tensor<[s0], f32>) -> !hop.tensor<[s0], f32>
  func.return %y : !hop.tensor<[s0], f32>
}

// -----

// A float .item(): a float symbol, declared without an integer range, used in
// an attribute; float literals keep Python's shortest spelling.
// CHECK:         hop.symbol @zuf0 unbacked float{{$}}
// CHECK-LABEL: func.func @float_item
// CHECK:         hop.item %{{.*}} : !hop.tensor<[], f32> -> !hop.symfloat<zuf0>
// CHECK:         aten.mul.Scalar(%x) {other = #hop.expr<1e-05*zuf0 + 2.5>}
// GENERIC:       "hop.symbol"() <{sym_name = "zuf0", kind = "unbacked", float}> : () -> ()
hop.symbol @zuf0 unbacked float
func.func @float_item(%x: !hop.tensor<[4], f32>, %t: !hop.tensor<[], f32>) -> !hop.tensor<[4], f32> {
  %v = hop.item %t : !hop.tensor<[], f32> -> !hop.symfloat<zuf0>
  %y = aten.mul.Scalar(%x) {other = #hop.expr<2.5 + zuf0 * 0.00001>} : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
  func.return %y : !hop.tensor<[4], f32>
}

// -----

// A boolean .item() reads as an integer symbol in [0, 1]; PyTorch's bool is
// Eq(u0, 1), and torch.sym_ite is hop.sym_ite with an ITE expression.
// CHECK-LABEL: func.func @bool_item
// CHECK:         %[[U:.*]] = hop.item %{{.*}} : !hop.tensor<[], i1> -> !hop.symint<u0>
// CHECK:         %[[B:.*]] = hop.sym_eq %[[U]], %{{.*}} : !hop.symint<u0>, !hop.symint<1> -> !hop.symbool<Eq(u0, 1)>
// CHECK:         hop.sym_ite %[[B]], %{{.*}}, %{{.*}} : !hop.symbool<Eq(u0, 1)>, !hop.symint<1>, !hop.symint<0> -> !hop.symint<ITE(Eq(u0, 1), 1, 0)>
hop.symbol @u0 unbacked [0, 1]
func.func @bool_item(%t: !hop.tensor<[], i1>) -> !hop.symint<ITE(Eq(u0, 1), 1, 0)> {
  %u = hop.item %t : !hop.tensor<[], i1> -> !hop.symint<u0>
  %one = hop.sym_constant : !hop.symint<1>
  %zero = hop.sym_constant : !hop.symint<0>
  %b = hop.sym_eq %u, %one : !hop.symint<u0>, !hop.symint<1> -> !hop.symbool<Eq(u0, 1)>
  %r = hop.sym_ite %b, %one, %zero : !hop.symbool<Eq(u0, 1)>, !hop.symint<1>, !hop.symint<0> -> !hop.symint<ITE(Eq(u0, 1), 1, 0)>
  func.return %r : !hop.symint<ITE(Eq(u0, 1), 1, 0)>
}
