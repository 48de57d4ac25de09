// RUN: hopc-opt %s --split-input-file --verify-diagnostics

// The verifier messages of kernel.graph: what one graph cannot capture.

// A host read of a device value inside a graph.
builtin.module attributes {kernel.device = "cuda"} {
  hop.symbol @u0 unbacked [0, oo]
  func.func @item(%t: !hop.tensor<[], i64>) -> !hop.tensor<[], i64> {
    // expected-error @+1 {{cannot capture 'hop.item': only launches, allocations, constants, symbol arithmetic, and conds and whiles on tensor predicates are captured}}
    %r = kernel.graph(%t) : (!hop.tensor<[], i64>) -> !hop.tensor<[], i64> {
    ^bb0(%a: !hop.tensor<[], i64>):
      %u = hop.item %a : !hop.tensor<[], i64> -> !hop.symint<u0>
      kernel.yield %a : !hop.tensor<[], i64>
    }
    func.return %r : !hop.tensor<[], i64>
  }
}

// -----

// A cond in a graph must say it is an IF node.
builtin.module attributes {kernel.device = "cuda"} {
  func.func @unmarked(%p: !hop.tensor<[], i1>, %x: !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32> {
    // expected-error @+1 {{holds 'hop.cond' without kernel.conditional_node = "if"}}
    %r = kernel.graph(%p, %x) : (!hop.tensor<[], i1>, !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32> {
    ^bb0(%q: !hop.tensor<[], i1>, %a: !hop.tensor<[4], f32>):
      %c = hop.cond %q(%a) : !hop.tensor<[], i1>, (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32> then {
      ^bb0(%u: !hop.tensor<[4], f32>):
        hop.yield %u : !hop.tensor<[4], f32>
      } else {
      ^bb0(%u: !hop.tensor<[4], f32>):
        hop.yield %u : !hop.tensor<[4], f32>
      }
      kernel.yield %c : !hop.tensor<[4], f32>
    }
    func.return %r : !hop.tensor<[4], f32>
  }
}

// -----

// Block arguments and operands must agree.
builtin.module attributes {kernel.device = "cuda"} {
  func.func @arguments(%x: !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32> {
    // expected-error @+1 {{block arguments: argument #0 %a has type !hop.tensor<[5], f32>, expected !hop.tensor<[4], f32>}}
    %r = kernel.graph(%x) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32> {
    ^bb0(%a: !hop.tensor<[5], f32>):
      kernel.yield %a : !hop.tensor<[5], f32>
    }
    func.return %r : !hop.tensor<[4], f32>
  }
}
