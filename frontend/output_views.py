"""Which outputs of an ATen graph are inputs, other outputs, or views of them (Note [aliased outputs]).

Note [output view replay]
~~~~~~~~~~~~~~~~~~~~~~~~~
``output_aliases(aten_graph)`` follows each output of the pre-dispatch ATen
graph back through the ops that return an alias of an argument, which their
schemas say (``Tensor(a)``, ``Tensor(a!)``), and whose traced values share
storage with that argument's (``aten.reshape`` and ``aten.contiguous`` may
copy instead), to its root: a placeholder, or the first node that made new
memory. On the way:

- a view op (``aten.t``, ``aten.select``, ``aten.split`` and the
  ``getitem`` picking from it, ``aten.detach``, ``aten.view.dtype``, ...)
  is a step to replay on the live root at each call, with its integer
  arguments symbolic (``ViewStep``), in the grad mode the program ran it in
  (``torch.no_grad()`` spans are ``_set_grad_enabled`` nodes in the graph;
  the graph is read before ``detach_no_grad_spans`` adds hopc's own
  detaches, which eager does not make);
- an in-place or ``out=`` op returns its argument itself: nothing to replay,
  the values the module computes and copies back already hold what it wrote.
  One that changes the layout in place (tagged ``inplace_view``: ``t_``,
  ``squeeze_``, ``as_strided_``) is replayed after a view step, on the view
  the replay made; on the root itself the module has already applied it.

Replaying is exact where rebuilding from the traced layout is not: every
view op's storage offset is relative to its argument's, except
``as_strided``'s, and the live root's need not be the traced one (Dynamo
guards no storage offset). An output with no step to replay is its root:
the input itself, or the same tensor as an earlier output. Outputs rooted in
an intermediate the program does not return, when two outputs share it, are
replayed from it, appended to the graph's outputs for the module to return.

A custom ``torch.autograd.Function`` whose forward returns an operand or a
view of one is a step back to that operand: its forward graph's view ops are
replayed, and the output takes the gradient of the value the module
computed, the user's backward's (``custom_gradient``, Note [aliased
outputs]), where eager's view ops would give their own.

A root that is not a placeholder and still shares storage with another
root or a placeholder aliases it in a way these schemas do not say; that is
refused rather than answered with copies.
"""

from __future__ import annotations

import operator
from collections.abc import Iterator

import sympy
import torch
import torch.fx
import torch.utils._pytree as pytree
from torch.multiprocessing.reductions import StorageWeakRef

from hopc.backend.runtime.output_aliases import (
    CHAINED,
    Layout,
    OutputAlias,
    OutputAliases,
    SymbolSource,
    ViewStep,
)
from hopc.frontend.autograd_functions import hopc_autograd_function
from hopc.fx_import.errors import unsupported


def output_aliases(aten_graph: torch.fx.GraphModule) -> OutputAliases:
    """The ``OutputAliases`` that make the outputs of ``aten_graph``'s module alias as eager's do.

    Appends to ``aten_graph``'s outputs each intermediate that two outputs view
    and the program does not return (Note [output view replay]); the module
    imported from it returns those after the program's outputs.
    """
    graph = aten_graph.graph
    placeholders = {node: index for index, node in enumerate(graph.find_nodes(op="placeholder"))}
    output_node = graph.find_nodes(op="output")[0]
    returned = list(output_node.args[0])
    output_count = len(returned)
    chains = {index: _chain(value) for index, value in enumerate(returned)
              if isinstance(value, torch.fx.Node) and isinstance(value.meta.get("val"), torch.Tensor)}
    _check_roots_known({root for root, _ in chains.values()}, placeholders)
    returned_roots = _returned_roots(chains, placeholders, returned)
    if len(returned) != output_count:
        output_node.args = (tuple(returned),)
        aten_graph.recompile()
    values = [node.meta.get("val") if isinstance(node, torch.fx.Node) else node for node in returned]
    sources = _symbol_sources([p.meta.get("val") for p in placeholders], values)
    bound = {source.symbol for source in sources}
    grad_modes = _grad_modes(graph)
    aliases = []
    for index, (root, steps) in chains.items():
        if root in placeholders:
            alias_root, of_input = placeholders[root], True
        elif root in returned_roots and (steps or returned_roots[root] != index):
            alias_root, of_input = returned_roots[root], False
        else:
            continue
        replayed = [_view_step(step, source, grad_modes.get(step, False)) for step, source in steps]
        kept = [step for step in replayed if step is not None and _step_symbols(step) <= bound]
        if len(kept) == len(replayed):
            custom_gradient = _through_custom_function(returned[index], root)
            aliases.append(OutputAlias(index, alias_root, of_input, tuple(kept), custom_gradient))
    aliased = {alias.output for alias in aliases}
    strides = [(index, stride) for index, value in enumerate(values)
               if index not in aliased and (stride := _eager_strides(value, bound)) is not None]
    used = set().union(*(_step_symbols(step) for alias in aliases for step in alias.steps),
                       *(_free_symbols(stride) for _, stride in strides))
    return OutputAliases(aliases, strides, [s for s in sources if s.symbol in used], output_count, len(returned))


def _returned_roots(chains: dict[int, tuple[torch.fx.Node, list]], placeholders: dict[torch.fx.Node, int],
                    returned: list[object]) -> dict[torch.fx.Node, int]:
    """Each root, not a placeholder, that the module returns, to its (first) output: one that an
    output is (with no step to replay), or else one that two outputs view, appended to ``returned``."""
    returned_roots: dict[torch.fx.Node, int] = {}
    for index, (root, steps) in chains.items():
        if not steps and root not in placeholders:
            returned_roots.setdefault(root, index)
    viewed = [root for root, steps in chains.values()
              if steps and root not in placeholders and root not in returned_roots]
    for root in dict.fromkeys(viewed):
        if viewed.count(root) > 1:
            returned_roots[root] = len(returned)
            returned.append(root)
    return returned_roots


def _chain(node: torch.fx.Node) -> tuple[torch.fx.Node, list[tuple[torch.fx.Node, torch.fx.Node]]]:
    """``node``'s root and the steps to replay from it, in order, each with its chained argument;
    through a custom Function's view output, its forward's steps (Note [output view replay])."""
    steps: list[tuple[torch.fx.Node, torch.fx.Node]] = []
    while True:
        if (source := _aliased_argument(node)) is not None:
            steps.append((node, source))
            node = source
        elif (through := _custom_function_view(node)) is not None:
            node, forward_steps = through
            steps.extend(reversed(forward_steps))
        else:
            break
    steps.reverse()
    replayed: list[tuple[torch.fx.Node, torch.fx.Node]] = []
    for step, source in steps:
        if not _writes(step) or (replayed and torch.Tag.inplace_view in step.target.tags):
            replayed.append((step, source))
    return node, replayed


def _custom_function_view(node: torch.fx.Node) -> tuple[torch.fx.Node, list] | None:
    """Where ``node`` picks an output of a custom Function call that its forward returns as an
    operand or a view of one: that operand and the forward's steps from it, else None."""
    if node.op != "call_function" or node.target is not operator.getitem:
        return None
    call, index = node.args
    if not isinstance(call, torch.fx.Node) or call.target is not hopc_autograd_function:
        return None
    forward = getattr(call.graph.owning_module, call.args[0].target)
    returned = pytree.tree_leaves(forward.graph.output_node().args[0])
    root, steps = _chain(returned[index])
    placeholders = list(forward.graph.find_nodes(op="placeholder"))
    if root not in placeholders:
        return None
    return call.args[3 + placeholders.index(root)], steps


def _through_custom_function(node: torch.fx.Node, root: torch.fx.Node) -> bool:
    """Whether the chain from ``node`` to ``root`` passes through a custom Function's output."""
    while node is not root:
        if (source := _aliased_argument(node)) is None:
            return True
        node = source
    return False


def _aliased_argument(node: torch.fx.Node) -> torch.fx.Node | None:
    """The argument ``node``'s value is an alias of (its schema says so and the traced values
    share storage), or None where ``node`` made new memory."""
    if node.op != "call_function":
        return None
    if node.target is operator.getitem:
        source = node.args[0]
        return source if isinstance(source, torch.fx.Node) and _aliased_argument(source) is not None else None
    if not isinstance(node.target, torch._ops.OpOverload):
        return None
    schema = node.target._schema
    if len(schema.returns) != 1 or schema.returns[0].alias_info is None:
        return None
    aliasing = [argument for argument in schema.arguments if argument.alias_info is not None]
    if len(aliasing) != 1:
        return None
    name = aliasing[0].name
    position = next(i for i, argument in enumerate(schema.arguments) if argument.name == name)
    source = node.args[position] if position < len(node.args) else node.kwargs.get(name)
    if not isinstance(source, torch.fx.Node) or not _shares_storage(node.meta.get("val"), source.meta.get("val")):
        return None
    return source


def _writes(node: torch.fx.Node) -> bool:
    """Whether ``node`` is an in-place or ``out=`` op (not a view, not ``getitem``)."""
    if not isinstance(node.target, torch._ops.OpOverload):
        return False
    alias = node.target._schema.returns[0].alias_info
    return alias is not None and alias.is_write


def _shares_storage(value: object, source: object) -> bool:
    if isinstance(value, (list, tuple)):
        value = value[0] if value else None
    return isinstance(value, torch.Tensor) and isinstance(source, torch.Tensor) and \
        StorageWeakRef(value.untyped_storage()) == StorageWeakRef(source.untyped_storage())


def _check_roots_known(roots: set[torch.fx.Node], placeholders: dict[torch.fx.Node, int]) -> None:
    """Refuses a root made by an op that aliases without saying so (Note [output view replay])."""
    storages: dict[StorageWeakRef, torch.fx.Node] = {}
    for node in placeholders:
        if isinstance(value := node.meta.get("val"), torch.Tensor):
            storages.setdefault(StorageWeakRef(value.untyped_storage()), node)
    for root in roots:
        if root in placeholders:
            continue
        if not isinstance(value := root.meta.get("val"), torch.Tensor):
            continue
        storage = StorageWeakRef(value.untyped_storage())
        other = storages.setdefault(storage, root)
        if other is not root:
            raise unsupported(root, f"an output that shares memory with '{other.name}' through "
                                    f"'{root.target}', whose schema does not say it aliases")


def _grad_modes(graph: torch.fx.Graph) -> dict[torch.fx.Node, bool]:
    """The grad mode each node of ``graph`` runs in, following its ``_set_grad_enabled`` switches."""
    enabled = torch.is_grad_enabled()
    modes = {}
    for node in graph.nodes:
        if node.op == "call_function" and node.target is torch._C._set_grad_enabled:
            enabled = bool(node.args[0])
        modes[node] = enabled
    return modes


def _view_step(node: torch.fx.Node, source: torch.fx.Node, grad_enabled: bool) -> ViewStep | None:
    """``node`` as a step replayed on its chained argument ``source``; None where an argument is a
    value other than an integer (a tensor read besides ``source``)."""
    unreplayable = False

    def template(argument: object) -> object:
        nonlocal unreplayable
        if isinstance(argument, (list, tuple)):
            items = [template(a) for a in argument]
            return items if isinstance(argument, list) else tuple(items)
        if not isinstance(argument, torch.fx.Node):
            return argument
        if argument is source:
            return CHAINED
        value = argument.meta.get("val")
        if isinstance(value, torch.SymInt):
            return _layout(value)
        unreplayable = True
        return None

    arguments = template(tuple(node.args))
    keywords = tuple((name, template(value)) for name, value in node.kwargs.items())
    if unreplayable or not any(argument is CHAINED for argument in arguments):
        return None
    symbolic = bool(_free_symbols((arguments, keywords)))
    return ViewStep(node.target, arguments, keywords, grad_enabled, symbolic)


def _flat(arguments: object) -> Iterator[object]:
    if isinstance(arguments, (list, tuple)):
        for argument in arguments:
            yield from _flat(argument)
    else:
        yield arguments


def _step_symbols(step: ViewStep) -> set[sympy.Symbol]:
    return _free_symbols((step.arguments, step.keywords))


def _free_symbols(arguments: object) -> set[sympy.Symbol]:
    return set().union(*(a.free_symbols for a in _flat(arguments) if isinstance(a, sympy.Expr)))


def _symbol_sources(inputs: list[object], outputs: list[object]) -> list[SymbolSource]:
    """Where each symbol that is a lone ``SymInt`` input, or a lone size, stride or storage offset of
    an input (or a lone size of an output, whose layout is hopc's) can be read at a call."""
    sources: dict[sympy.Symbol, SymbolSource] = {}

    def add(value: object, of_input: bool, index: int, read: str, dim: int = 0) -> None:
        if isinstance(value, torch.SymInt) and isinstance(value.node.expr, sympy.Symbol):
            sources.setdefault(value.node.expr, SymbolSource(value.node.expr, of_input, index, read, dim))

    for of_input, values in ((True, inputs), (False, outputs)):
        for index, value in enumerate(values):
            add(value, of_input, index, "value")
            if not isinstance(value, torch.Tensor):
                continue
            for dim, size in enumerate(value.shape):
                add(size, of_input, index, "size", dim)
            if of_input and value.layout == torch.strided:
                for dim, stride in enumerate(value.stride()):
                    add(stride, of_input, index, "stride", dim)
                add(value.storage_offset(), of_input, index, "offset")
    return list(sources.values())


def _eager_strides(value: object, bound: set[sympy.Symbol]) -> tuple[Layout, ...] | None:
    """The strides eager gives the output ``value``, where they are not row-major (Note [output strides])."""
    if not isinstance(value, torch.Tensor) or value.layout != torch.strided:
        return None
    sizes = [_layout(s) for s in value.shape]
    strides = tuple(_layout(s) for s in value.stride())
    if not _free_symbols(strides) <= bound:
        return None
    row_major: Layout = 1
    for size, stride in zip(reversed(sizes), reversed(strides), strict=True):
        if size != 1 and sympy.expand(stride - row_major) != 0:
            return strides
        row_major = row_major * size
    return None


def _layout(value: int | torch.SymInt) -> Layout:
    if isinstance(value, torch.SymInt):
        expression = value.node.expr
        return int(expression) if expression.is_number else expression
    return int(value)
