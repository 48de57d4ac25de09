"""Dynamo's torch-level graph -> an ATen-level graph, with nothing functionalized.

Note [pre-dispatch capture]
~~~~~~~~~~~~~~~~~~~~~~~~~~~
Dynamo's graph calls torch functions and methods (``x.sin()``,
``torch._C._nn.linear``, ``a @ b``). We retrace it with ``make_fx`` in
pre-dispatch mode on the fake inputs Dynamo traced with: every call is recorded
as the ATen overload it dispatches to *before* autograd, functionalization or
decomposition run, which is exactly what the captured level wants:

- in-place ops (``aten.add_.Tensor``), ``out=`` ops, views (``aten.select``)
  and mutation through views stay as they ran, including mutation of inputs
  and buffers (placeholders);
- composite ops stay whole (``aten.linear``, ``aten.scaled_dot_product_attention``,
  ``aten.layer_norm``), since decomposing them is a pass's decision;
- HOPs stay calls with their subgraphs retraced the same way (``cond``,
  ``while_loop``, ``scan``, ``map_impl``, ``invoke_subgraph``, and ``wrap`` and
  checkpoint through Note [kept regions], custom ``autograd.Function``s
  through Note [kept autograd functions]);
- sizes stay symbolic: the trace runs in Dynamo's fake mode, so its
  ``ShapeEnv`` names every size (and the runtime asserts, as
  ``_assert_scalar`` calls).

Note [one patch at a time]
~~~~~~~~~~~~~~~~~~~~~~~~~~
``make_fx`` calls ``dedupe_symints`` by its module's name, with no hook to
pass another, so ``_keeping_reads`` patches that module (Note [reads the
trace learned about] in ``hopc.fx_import.shape_symbols``). Two threads
patching at once would each restore what it found: where the first left
before the second, the second would put the first's patch back for good. A
lock, held from patch to restore, lets one thread patch at a time (reentrant,
for a trace that lowers another graph); other threads' lowerings wait for it.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator, Sequence
from unittest import mock

import torch
import torch.fx
from torch._dispatch.python import enable_python_dispatcher
from torch._inductor.fx_passes import dedupe_symint_uses
from torch._subclasses.fake_tensor import FakeTensorMode, unset_fake_temporarily
from torch.fx.experimental.proxy_tensor import make_fx

from hopc.frontend.autograd_functions import keep_autograd_functions
from hopc.frontend.cond_predicates import boolean_predicates
from hopc.frontend.constant_hoisting import hoist_constants
from hopc.frontend.flex_attention_calls import drop_block_tables, guard_equal_sizes
from hopc.frontend.functorch_grad import retarget_functorch_grad
from hopc.frontend.kept_regions import keep_regions
from hopc.frontend.while_int_carries import tensor_int_carries
from hopc.fx_import.errors import first_paragraph
from hopc.fx_import.locations import node_location
from hopc.fx_import.shape_symbols import learned_about
from hopc.ir.diagnostics import HopcError


class _LocatingInterpreter(torch.fx.Interpreter):
    """Runs a graph; a failure becomes a ``HopcError`` at the user's line of the node."""

    extra_traceback = False

    def run_node(self, node: torch.fx.Node) -> object:
        try:
            return super().run_node(node)
        except HopcError:
            raise
        except Exception as error:
            raise HopcError(f"cannot trace {_describe(node)} to ATen: {first_paragraph(error)}",
                            node_location(node)) from error


def _describe(node: torch.fx.Node) -> str:
    target = node.target
    name = getattr(target, "__name__", None) or str(target)
    return f"'{name}'" if node.op == "call_function" else f"'{node.op} {name}'"


def lower_to_aten(graph_module: torch.fx.GraphModule, fake_inputs: Sequence[object],
                  fake_mode: FakeTensorMode) -> torch.fx.GraphModule:
    """The pre-dispatch ATen graph of ``graph_module`` on ``fake_inputs`` (Note [pre-dispatch capture]).

    The result has one placeholder per fake input, in order, and tensor
    attributes only at its top level (Note [hoisted constants]).
    ``graph_module``'s wrap and checkpoint calls are retargeted in place
    (Note [kept regions]), and so are custom autograd.Function calls (Note
    [kept autograd functions]), and ``torch.func.grad`` regions are cut out
    (Note [functorch grad regions]); a ``cond`` predicate that is a
    one-element tensor becomes a 0-d bool tensor (``cond_predicates``), and
    ``while_loop`` carries ints as 0-d tensors (Note [int carries]).
    """
    keep_regions(graph_module)
    keep_autograd_functions(graph_module)
    retarget_functorch_grad(graph_module)
    boolean_predicates(graph_module)
    tensor_int_carries(graph_module)
    guard_equal_sizes(graph_module)

    def run(*inputs: object) -> object:
        with torch.fx.traceback.preserve_node_meta():
            return _LocatingInterpreter(graph_module).run(*inputs)

    with unset_fake_temporarily(), enable_python_dispatcher(), fake_mode, _keeping_reads():
        # hopc differentiates the graph itself (``--autograd``): trace it on
        # detached inputs, so that no HOP runs its own autograd kernel.
        detached = [x.detach() if isinstance(x, torch.Tensor) else x for x in fake_inputs]
        aten_graph = make_fx(run, tracing_mode="real", pre_dispatch=True,
                             _allow_non_fake_inputs=True, _allow_fake_constant=False)(*detached)
    drop_block_tables(aten_graph)
    hoist_constants(aten_graph)
    return aten_graph


_PATCHING_DEDUPE = threading.RLock()
"""Held while ``_keeping_reads`` patches ``dedupe_symints`` (Note [one patch at a time])."""


@contextlib.contextmanager
def _keeping_reads() -> Iterator[None]:
    """Within, ``make_fx`` keeps the reads from data that the trace learned about apart from
    the sizes they equal (Note [reads the trace learned about] in ``hopc.fx_import.shape_symbols``):
    an ``.item()``, or the ``sym_size`` of a size an op computed from one.

    One thread patches at a time (Note [one patch at a time]).
    """
    with _PATCHING_DEDUPE:
        dedupe = dedupe_symint_uses.dedupe_symints

        def dedupe_all_but_reads(graph: torch.fx.Graph) -> None:
            hidden = {node: node.meta.pop("val") for node in graph.nodes if _reads_a_size(node)}
            dedupe(graph)
            for node, value in hidden.items():
                node.meta["val"] = value

        with mock.patch.object(dedupe_symint_uses, "dedupe_symints", dedupe_all_but_reads):
            yield


def _reads_a_size(node: torch.fx.Node) -> bool:
    """Whether ``node``'s number is, as traced, a symbol read from data that the trace learned
    equals an expression over input sizes (Note [reads the trace learned about])."""
    value = node.meta.get("val")
    return isinstance(value, torch.SymInt | torch.SymFloat) and \
        learned_about(value.node._expr, value.node.shape_env)  # as read: ``.expr`` is as replaced
