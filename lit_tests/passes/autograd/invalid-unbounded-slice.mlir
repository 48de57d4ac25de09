// REQUIRES: torch-bounds-unbacked-slices
// RUN: hopc-opt %s --autograd --verify-diagnostics

// x[:k] declared [k, 4] with no assert that k <= s0: the derivative, traced with
// k unbacked, gives Min(s0, u0) rows, which nothing shows equal to u0 (Note
// [data-dependent derivatives] in hopc.passes.autograd.derivative_facts).
// torch 2.11 gives the rows a fresh size instead, which the derivative names u0
// after the declared type (lit.cfg.py); tests/autograd/test_item_slices.py
// checks what then runs on each executor.
builtin.module {
  hop.symbol @s0 backed [2, oo] hint 6
  hop.symbol @u0 unbacked [0, oo]
  func.func @forward(%x: !hop.tensor<[s0, 4], f32> {hop.requires_grad}, %k: !hop.symint<u0>) -> !hop.tensor<[], f32> {
    // expected-error @+1 {{aten.slice_copy.Tensor: result #0 has type !hop.tensor<[u0, 4], f32>, but the trace gives !hop.tensor<[Min(s0, u0), 4], f32> (traced with u0 unbacked, knowing the asserts of its block on them: none; Note [data-dependent derivatives])}}
    %rows = aten.slice_copy.Tensor(%x) {start = 0 : i64, end = #hop.expr<u0>} : (!hop.tensor<[s0, 4], f32>) -> !hop.tensor<[u0, 4], f32>
    %sum = aten.sum(%rows) : (!hop.tensor<[u0, 4], f32>) -> !hop.tensor<[], f32>
    func.return %sum : !hop.tensor<[], f32>
  }
}
