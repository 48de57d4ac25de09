"""Custom ``torch.autograd.Function``s through ATen tracing: forward and backward kept as graphs.

Note [kept autograd functions]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
Where a custom Function's call needs gradients, Dynamo records it as
``autograd_function_apply(fwd_body, bwd_body, *operands)`` (Note [custom
autograd functions] in ``hopc.dialects.hops.autograd_function``); where none
does (grad mode off, no operand requiring grad) it inlines the forward, which
is all eager runs then. Retraced to ATen (Note [pre-dispatch capture]) on
detached inputs, PyTorch's HOP would run its forward inline and lose the
backward, so ``keep_autograd_functions`` retargets each call, in every
nested graph, to ``hopc_autograd_function(fwd_body, bwd_body, gradients,
*operands)``: ``gradients`` are the operand positions for which the backward
returns a gradient rather than ``None``, and the backward now returns those
alone. Under the proxy mode that HOP traces the forward and the backward
(on fresh cotangents shaped like the outputs, then the saved values) into
graphs of their own and records one call node whose results are the
forward's outputs then its saved values; everywhere else it runs the
forward. A size the forward reads from data (``x[x > 0]``) is fresh at each
call. The forward runs for the call's outputs without binding that size to
the op being traced, as the backward is traced next on cotangents of that
size, whose inputs would claim it; the importer names it by a symbol of the
call's own (Note [call result symbols] in ``hopc.dialects.hop_call_results``).
The grad-mode switches Dynamo puts around both bodies go: hopc
differentiates neither. The importer makes the call a
``hop.autograd_function`` and the two graphs its ``hop.subgraph``s.

Two marks on ``ctx`` become ops around the call, which give eager's autograd:

- ``ctx.mark_non_differentiable(out)`` (``non_differentiable_idx``): each use
  of that output reads it through ``aten.detach``, so it requires no grad, as
  eager's, and the call's cotangent for it is none, which the backward rule
  makes zeros, as eager materializes it.
- ``ctx.mark_dirty(x)`` with the forward changing ``x`` in place and
  returning it (``dirty_idx``, one per returned dirty input): the forward
  body changes a clone of its argument instead and returns that, and each use
  of the output reads ``x.copy_(output)`` instead, which is ``x`` itself,
  changed for the caller. Eager rebases ``x``'s history on the Function's
  node; ``copy_``'s backward passes the whole cotangent to ``output`` (so to
  the user's backward) and none to ``x``'s old value, the same gradients.

A forward that returns an input or a view of one (not marked dirty) is kept
as it is: eager returns a view of the input whose gradient is the user's
backward's. Functionalize records such a result as that view of the operand
(Note [mutation through HOP regions]), so a later in-place change of either
shows in the other; where it is the program's output,
``hopc.frontend.output_views`` rebuilds it as a view of the tensor passed,
taking the gradient of the computed output (Note [aliased outputs]).
"""

from __future__ import annotations

import contextlib
import operator
from collections.abc import Callable

import torch
import torch.fx
import torch.utils._pytree as pytree
from torch._C import DispatchKey
from torch._higher_order_ops.utils import reenter_make_fx, register_fake
from torch._ops import HigherOrderOperator
from torch.fx.experimental.proxy_tensor import ProxyTorchDispatchMode, track_tensor_tree

from hopc.frontend.nested_graphs import rewrite_nested_graphs
from hopc.fx_import.errors import unsupported

_AUTOGRAD_FUNCTION_APPLY = torch.ops.higher_order.autograd_function_apply


class KeptAutogradFunction(HigherOrderOperator):
    """``hopc_autograd_function(forward, backward, gradients, *operands)``: the forward's
    outputs, then its saved values, flat; traced as one node with both bodies (Note [kept
    autograd functions]). The backward returns one gradient per operand position in
    ``gradients``, a tuple of ints."""

    def __init__(self) -> None:
        super().__init__("hopc_autograd_function")
        self.py_impl(ProxyTorchDispatchMode)(self._trace)
        self.py_impl(DispatchKey.CompositeExplicitAutograd)(self._run)
        self.py_autograd_impl(self._below_autograd)
        register_fake(self, self._run)

    def __call__(self, forward: torch.fx.GraphModule, backward: torch.fx.GraphModule,
                 gradients: tuple[int, ...], *operands: object) -> object:
        return super().__call__(forward, backward, gradients, *operands)

    @staticmethod
    def _run(forward: torch.fx.GraphModule, backward: torch.fx.GraphModule,
             gradients: tuple[int, ...], *operands: object) -> tuple:
        outputs, saved = forward(*operands)
        return (*outputs, *saved)

    def _below_autograd(self, forward: torch.fx.GraphModule, backward: torch.fx.GraphModule,
                        gradients: tuple[int, ...], *operands: object) -> object:
        with torch._C._AutoDispatchBelowAutograd():
            return self(forward, backward, gradients, *operands)

    def _trace(self, mode: ProxyTorchDispatchMode, forward: torch.fx.GraphModule,
               backward: torch.fx.GraphModule, gradients: tuple[int, ...], *operands: object) -> object:
        traced_forward = reenter_make_fx(forward)(*operands)
        with _fresh_sizes_unbound(operands):
            outputs, saved = forward(*operands)
        cotangents = [torch.empty_like(o) if isinstance(o, torch.Tensor) else o for o in outputs]
        traced_backward = reenter_make_fx(backward)(*cotangents, *saved)
        tracer = mode.tracer
        bodies = []
        for body, role in ((traced_forward, "forward"), (traced_backward, "backward")):
            name = tracer.get_fresh_qualname(f"{self._name}_{role}")
            tracer.root.register_module(name, body)
            bodies.append(body)
        proxy_arguments = pytree.tree_map(tracer.unwrap_proxy, (*bodies, gradients, *operands))
        result_proxy = tracer.create_proxy("call_function", self, proxy_arguments, {})
        return track_tensor_tree((*outputs, *saved), result_proxy, constant=None, tracer=tracer)


hopc_autograd_function = KeptAutogradFunction()


def _fresh_sizes_unbound(operands: tuple[object, ...]) -> contextlib.AbstractContextManager:
    """Where the forward runs for the call's outputs: a size it reads from data is bound to
    no op, so that the backward's trace may take cotangents of that size as inputs (Note
    [kept autograd functions])."""
    fake_mode = torch._guards.detect_fake_mode(operands)
    shape_env = fake_mode.shape_env if fake_mode is not None else None
    return shape_env.ignore_fresh_unbacked_symbols() if shape_env is not None else contextlib.nullcontext()


def keep_autograd_functions(graph_module: torch.fx.GraphModule) -> None:
    """Retargets each ``autograd_function_apply``, in every nested graph, to
    ``hopc_autograd_function``; raises ``HopcError`` at a call hopc refuses
    (Note [kept autograd functions]). Only the graphs that had a call are recompiled."""
    rewrite_nested_graphs(graph_module, _keep_calls_of)


def _keep_calls_of(module: torch.fx.GraphModule) -> bool:
    calls = list(module.graph.find_nodes(op="call_function", target=_AUTOGRAD_FUNCTION_APPLY))
    for node in calls:
        forward, backward, *operands = node.args
        forward_body = getattr(module, forward.target)
        if "dirty_idx" not in node.kwargs:
            _refuse_unmarked_input_change(node, forward_body)
        for index in node.kwargs.get("dirty_idx", ()):
            _keep_dirty_output(module, node, forward_body, index)
        for index in node.kwargs.get("non_differentiable_idx", ()):
            _replace_output_uses(module, node, index, lambda output: (torch.ops.aten.detach.default, (output,)))
        for body in (forward_body, getattr(module, backward.target)):
            _drop_grad_mode_switches(body)
        node.target = hopc_autograd_function
        node.args = (forward, backward, _gradient_positions(getattr(module, backward.target)), *operands)
        node.kwargs = {}
    return bool(calls)


def _refuse_unmarked_input_change(node: torch.fx.Node, forward: torch.fx.GraphModule) -> None:
    """Refuses a forward that changes an argument in place with no ``dirty_idx`` to say so: the
    user's ``ctx.mark_dirty`` as torch 2.11's Dynamo records it (it drops the mark, and the
    changed argument's new history with it), or a change that eager's autograd does not see."""
    placeholders = set(forward.graph.find_nodes(op="placeholder"))
    for body_node in forward.graph.nodes:
        target = body_node.target
        name = target if isinstance(target, str) else getattr(target, "__name__", "")
        schema = getattr(target, "_schema", None)
        in_place = schema.is_mutable if schema is not None else (
            body_node.op in ("call_method", "call_function") and name.endswith("_") and not name.startswith("_"))
        if in_place and body_node.args and body_node.args[0] in placeholders:
            raise unsupported(node, "a custom autograd.Function whose forward changes an argument in place "
                                    "that Dynamo does not record as marked dirty (torch 2.11 drops ctx.mark_dirty)")


def _keep_dirty_output(module: torch.fx.GraphModule, node: torch.fx.Node, forward: torch.fx.GraphModule,
                       index: int) -> None:
    """The forward changes a clone of the dirty argument that its output ``index`` is, and the
    call's uses of that output read ``argument.copy_(output)`` (Note [kept autograd functions])."""
    placeholders = list(forward.graph.find_nodes(op="placeholder"))
    outputs, _saved = forward.graph.output_node().args[0]
    dirty = outputs[index]
    if dirty not in placeholders:
        raise unsupported(node, "ctx.mark_dirty in a custom autograd.Function whose forward returns "
                                "something other than the dirty input itself (return the input)")
    with forward.graph.inserting_after(placeholders[-1]):
        clone = forward.graph.call_method("clone", (dirty,))
    if isinstance(value := dirty.meta.get("example_value"), torch.Tensor):
        clone.meta["example_value"] = value.clone()
    dirty.replace_all_uses_with(clone, delete_user_cb=lambda user: user is not clone)
    forward.recompile()
    operand = node.args[2 + placeholders.index(dirty)]
    _replace_output_uses(module, node, index, lambda output: ("copy_", (operand, output)))


def _replace_output_uses(module: torch.fx.GraphModule, node: torch.fx.Node, index: int,
                         make: Callable[[torch.fx.Node], tuple[object, tuple]]) -> None:
    """Each use of the call ``node``'s output ``index`` (a ``getitem``) reads ``make(output)``
    instead: a call_function target, or a method name, and its arguments."""
    for user in list(node.users):
        if user.target is not operator.getitem:
            raise unsupported(node, "a custom autograd.Function call whose results are used whole")
        if user.args[1] != index:
            continue
        target, arguments = make(user)
        with module.graph.inserting_after(user):
            op = "call_method" if isinstance(target, str) else "call_function"
            replacement = module.graph.create_node(op, target, ())
        replacement.meta = dict(user.meta)
        user.replace_all_uses_with(replacement)
        replacement.args = arguments  # after the uses moved: they read ``user``


def _drop_grad_mode_switches(body: torch.fx.GraphModule) -> None:
    """Erases the grad-mode switches Dynamo puts around each body (eager runs both without
    grad): hopc never differentiates either, so they are no no-grad span (Note [no-grad spans])."""
    for switch in list(body.graph.find_nodes(op="call_function", target=torch._C._set_grad_enabled)):
        body.graph.erase_node(switch)
    body.recompile()


def _gradient_positions(backward: torch.fx.GraphModule) -> tuple[int, ...]:
    """The operand positions for which ``backward`` returns a gradient, not ``None``; its
    output becomes those gradients alone."""
    output = backward.graph.output_node()
    returned = output.args[0]
    positions = tuple(index for index, gradient in enumerate(returned) if gradient is not None)
    output.args = (tuple(returned[index] for index in positions),)
    backward.recompile()
    return positions
