"""Running Dynamo on a program: one torch-level graph with HOPs kept, and its inputs.

Capture uses ``torch._dynamo.export``: Dynamo's graph keeps every HOP as a call
with subgraphs (strict ``torch.export`` would inline ``wrap`` and reject
checkpoint), export mode traces on fake tensors without running the program
and without touching Dynamo's cache, ``dynamic_shapes`` has torch.export's
form, and the graph's outputs are the program's outputs, flattened. Sizes are
static unless ``dynamic_shapes`` says otherwise; Python scalars are
specialized. ``nested_compile_region`` calls stay ``invoke_subgraph`` even
when called once, also where the program marks the function as it runs,
and checkpoint may hold any HOP (``traceable_regions``). ``associative_scan``
is traced as its HOP in every ``combine_mode`` (Note [associative scan capture]),
in hopc's programs only (Note [associative scan stand-in is hopc's]).

The graph is then normalised for ``lower_to_aten``: one placeholder per entry
argument, in order, user inputs first (the tensor leaves of ``(args, kwargs)``
in pytree order), then each parameter, buffer and tensor constant the program
reads (Dynamo leaves these as attributes of the graph).
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import importlib
import inspect
import logging
import operator
import types
import warnings
from collections.abc import Callable, Iterator

import torch
import torch.fx
import torch.utils._pytree as pytree
from torch._dynamo.symbolic_convert import InstructionTranslator
from torch._prims_common import canonicalize_dim
from torch._subclasses.fake_tensor import FakeTensor, FakeTensorMode

from hopc.frontend.errors import dynamo_error
from hopc.frontend.module_import import BUFFER, CONSTANT, PARAMETER, EntryArgument
from hopc.frontend.traceable_regions import regions_for_export
from hopc.ir.diagnostics import HopcError

KEEP_SINGLE_USE_SUBGRAPHS = ({"inline_single_use_invoke_subgraph": False}
                             if hasattr(torch._dynamo.config, "inline_single_use_invoke_subgraph") else {})
"""Dynamo's settings that keep a ``nested_compile_region`` called once an ``invoke_subgraph``.
torch 2.11's Dynamo has no such setting: it never inlines one."""


def dynamo_graph(program: Callable, args: tuple, kwargs: dict, dynamic_shapes: object
                 ) -> tuple[torch.fx.GraphModule, list[EntryArgument], FakeTensorMode]:
    """Dynamo's graph of ``program(*args, **kwargs)``, its entry arguments and fake mode."""
    with warnings.catch_warnings(), _quiet_guard_logging(), regions_for_export(), _exporting_for_hopc(), \
            torch._dynamo.config.patch(capture_profiler_record_function=True, **KEEP_SINGLE_USE_SUBGRAPHS):
        warnings.simplefilter("ignore")
        try:
            exported = torch._dynamo.export(program, dynamic_shapes=dynamic_shapes,
                                            assume_static_by_default=True)(*args, **kwargs)
        except HopcError:
            raise
        except Exception as error:
            raise dynamo_error(error, program) from None
    graph_module = exported.graph_module
    graph_module.graph._codegen = torch.fx.graph.CodeGen()  # plain positional signature
    arguments = _user_inputs(graph_module, input_names(program, args, kwargs))
    fake_mode = graph_fake_mode(graph_module)
    arguments += lift_tensor_attributes(graph_module, program, fake_mode)
    graph_module.recompile()
    return graph_module, arguments, fake_mode


@contextlib.contextmanager
def _quiet_guard_logging() -> Iterator[None]:
    """Dynamo logs a failed shape constraint before raising it; we report it once, located."""
    logger = logging.getLogger("torch._guards")
    level = logger.level
    logger.setLevel(logging.CRITICAL)
    try:
        yield
    finally:
        logger.setLevel(level)


def input_names(program: Callable, args: tuple, kwargs: dict) -> list[str]:
    """A name for each leaf of ``(args, kwargs)``: the parameter's name, then its path."""
    function = program.forward if isinstance(program, torch.nn.Module) else program
    positional = [p.name for p in inspect.signature(function).parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    names = []
    for path, _ in pytree.tree_flatten_with_path((args, kwargs))[0]:
        _, top, *rest = path
        if path[0].idx == 0:
            head = positional[top.idx] if top.idx < len(positional) else f"args_{top.idx}"
        else:
            head = str(top.key)
        names.append("_".join([head, *(_key_text(key) for key in rest)]))
    return names


def _key_text(key: object) -> str:
    """``x`` of ``['x']``, ``0`` of ``[0]``, ``a`` of ``.a``."""
    for field in ("key", "idx", "name"):
        if hasattr(key, field):
            return str(getattr(key, field))
    return str(key)


def _user_inputs(graph_module: torch.fx.GraphModule, names: list[str]) -> list[EntryArgument]:
    """The tensor placeholders as user inputs; unused specialized scalars are dropped."""
    arguments = []
    for placeholder, name in zip(graph_module.graph.find_nodes(op="placeholder"), names,
                                 strict=True):
        example = placeholder.meta.get("val")
        if isinstance(example, torch.Tensor):
            arguments.append(EntryArgument(None, name, example))
        else:
            graph_module.graph.erase_node(placeholder)
    return arguments


def graph_fake_mode(graph_module: torch.fx.GraphModule) -> FakeTensorMode:
    """The fake mode Dynamo traced ``graph_module`` in (a fresh one if it saw no tensor)."""
    for node in graph_module.graph.nodes:
        for key in ("val", "example_value"):
            value = node.meta.get(key)
            if isinstance(value, FakeTensor):
                return value.fake_mode
    return FakeTensorMode()


def lift_tensor_attributes(graph_module: torch.fx.GraphModule, program: Callable | None,
                           fake_mode: FakeTensorMode) -> list[EntryArgument]:
    """Turns the tensors the graph reads as attributes into trailing placeholders.

    Each distinct tensor becomes one placeholder: a parameter or buffer of
    ``program`` (named by its qualified name), another ``nn.Parameter``, or
    else a constant. Returns their entry arguments, in placeholder order.
    """
    original_names = graph_module.meta.get("dynamo_flat_name_to_original_fqn", {})
    parameters, buffers = {}, {}
    if isinstance(program, torch.nn.Module):
        parameters = {id(t): n for n, t in program.named_parameters(remove_duplicate=False)}
        buffers = {id(t): n for n, t in program.named_buffers(remove_duplicate=False)}
    graph = graph_module.graph
    lifted: dict[int, torch.fx.Node] = {}
    arguments = []
    for node in list(graph.find_nodes(op="get_attr")):
        tensor = operator.attrgetter(node.target)(graph_module)
        if not isinstance(tensor, torch.Tensor):
            continue
        if id(tensor) not in lifted:
            role, name = _role(tensor, parameters, buffers,
                               original_names.get(node.target, node.target))
            first_operation = next(n for n in graph.nodes if n.op != "placeholder")
            with graph.inserting_before(first_operation):
                placeholder = graph.placeholder(name.replace(".", "_"))
            example = fake_mode.from_tensor(tensor, static_shapes=True)
            placeholder.meta["val"] = example
            lifted[id(tensor)] = placeholder
            arguments.append(EntryArgument(role, name, example, tensor))
        node.replace_all_uses_with(lifted[id(tensor)])
        graph.erase_node(node)
    return arguments


def _role(tensor: torch.Tensor, parameters: dict[int, str], buffers: dict[int, str],
          fallback_name: str) -> tuple[str, str]:
    """The role and name of a tensor attribute; other names lose Dynamo's ``self`` prefix."""
    fallback_name = fallback_name.removeprefix("L__self___")
    if id(tensor) in parameters:
        return PARAMETER, parameters[id(tensor)]
    if id(tensor) in buffers:
        return BUFFER, buffers[id(tensor)]
    if isinstance(tensor, torch.nn.Parameter):
        return PARAMETER, fallback_name
    return CONSTANT, fallback_name


# Note [associative scan capture]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# PyTorch's ``associative_scan(combine_fn, xs, dim, reverse, combine_mode)``
# calls its HOP only for ``combine_mode="pointwise"``, which it allows on CUDA
# tensors only. With ``"generic"``, what a CPU program uses, it runs
# ``generic_associative_scan``: a tree of ``vmap``-ed combines whose depth and
# slicing depend on the length, which Dynamo records op by op, so that a dynamic
# length cannot be captured and no region is left. So when Dynamo inlines
# ``associative_scan``, it traces ``traceable_associative_scan`` instead,
# registered with ``torch.compiler.substitute_in_graph`` (for both routes,
# ``hopc.capture`` and ``hopc.compile``): what PyTorch's pointwise mode does,
# for every mode: ``dim`` moved to 0 and flipped for ``reverse`` around the HOP
# itself, which hopc imports as ``hop.associative_scan`` (Note [associative scan
# semantics] in ``hopc.dialects.hops.associative_scan``). Eager calls run
# PyTorch's own function. The leaves of ``xs`` must share their length, as
# eager's ``vmap`` requires; a ``torch._check`` says so, so that Dynamo names
# dynamic lengths by one symbol, as the op's verifier requires.
#
# Dynamo then checks the combine as for pointwise mode (a combine that is not
# pointwise, or whose outputs differ from its inputs in shape or dtype, is
# refused, located), and refuses a scan of no slices, as eager does. In grad
# mode Dynamo also runs the HOP's own autograd kernel on fake tensors, which
# (PyTorch 2.13) refuses a combine that reads an outer tensor ("lifted
# parameters"): ``hopc.compile`` of such a program in grad mode is that
# refusal, located; ``hopc.capture`` traces without grad, and ``--autograd``
# differentiates the op itself.
#
# The stand-in is hopc's alone (Note [associative scan stand-in is hopc's]).

# Note [associative scan stand-in is hopc's]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# ``substitute_in_graph`` registers a stand-in for the whole process, and
# Dynamo inlines it whatever the backend. Importing hopc must not change what
# another backend compiles (``aot_eager``, Inductor, a user's own), so the
# stand-in first asks ``traced_for_hopc()``: true while hopc's capture exports
# a program (``dynamo_graph``), or where the frame's backend is
# ``hopc_backend`` under Dynamo's wrappers (``hopc.compile``,
# ``torch.compile(backend="hopc")``). Otherwise it traces
# ``pytorch_associative_scan``, PyTorch's own function under another identity
# (so that Dynamo inlines it rather than the stand-in again): the graph is the
# one Dynamo makes without hopc. A backend that wraps ``hopc_backend`` in a
# function of its own is not hopc's by this test: hopc then fails, located, on
# the tree of ``vmap``-ed combines it gets, and never computes a wrong value.
#
# Dynamo calls ``traced_for_hopc`` as it traces (``assume_constant_result``)
# and takes its answer as a constant: no guard reads it, so a call of the
# compiled frame costs nothing more. That is sound because the answer only
# depends on the backend, and Dynamo keeps a frame's compiled code per backend
# (its backend match): a frame compiled by another backend is never served
# hopc's graph, nor hopc another backend's, whatever order they compile in.
# A capture does not touch Dynamo's cache at all.

_ASSOCIATIVE_SCAN = importlib.import_module("torch._higher_order_ops.associative_scan")
"""The module itself (``torch._higher_order_ops`` exports the function under its name)."""

_PYTORCH_ASSOCIATIVE_SCAN = _ASSOCIATIVE_SCAN.associative_scan

pytorch_associative_scan = types.FunctionType(
    _PYTORCH_ASSOCIATIVE_SCAN.__code__, _PYTORCH_ASSOCIATIVE_SCAN.__globals__, _PYTORCH_ASSOCIATIVE_SCAN.__name__,
    _PYTORCH_ASSOCIATIVE_SCAN.__defaults__, _PYTORCH_ASSOCIATIVE_SCAN.__closure__)
"""PyTorch's ``associative_scan``, as a function the stand-in does not replace (Note
[associative scan stand-in is hopc's])."""

_EXPORTING_FOR_HOPC = contextvars.ContextVar("exporting_for_hopc", default=False)
"""Whether ``dynamo_graph`` is exporting a program for ``hopc.capture``."""


@contextlib.contextmanager
def _exporting_for_hopc() -> Iterator[None]:
    """Marks the export ``dynamo_graph`` runs as hopc's (Note [associative scan stand-in is hopc's])."""
    token = _EXPORTING_FOR_HOPC.set(True)
    try:
        yield
    finally:
        _EXPORTING_FOR_HOPC.reset(token)


def _innermost_backend(backend: object) -> object:
    """The function under Dynamo's wrappers of a backend (``_torchdynamo_orig_backend``),
    ``torch.compile``'s (its ``compiler_fn``) and ``functools.partial``."""
    while True:
        if hasattr(backend, "_torchdynamo_orig_backend"):
            backend = backend._torchdynamo_orig_backend
        elif isinstance(backend, torch._TorchCompileWrapper):
            backend = backend.compiler_fn
        elif isinstance(backend, functools.partial):
            backend = backend.func
        else:
            return backend


@torch.compiler.assume_constant_result
def traced_for_hopc() -> bool:
    """Whether the program Dynamo is tracing is hopc's (Note [associative scan stand-in is hopc's])."""
    from hopc.frontend.dynamo_backend import hopc_backend  # here: that module imports this one

    backend = InstructionTranslator.current_tx().output.compiler_fn
    return _EXPORTING_FOR_HOPC.get() or _innermost_backend(backend) is hopc_backend


@torch.compiler.substitute_in_graph(_PYTORCH_ASSOCIATIVE_SCAN)
def traceable_associative_scan(combine_fn: Callable, xs: object, dim: int, reverse: bool = False,
                               combine_mode: str = "pointwise") -> object:
    """``associative_scan`` as Dynamo traces it (Note [associative scan capture]); PyTorch's own
    outside hopc (Note [associative scan stand-in is hopc's])."""
    if not traced_for_hopc():
        return pytorch_associative_scan(combine_fn, xs, dim, reverse, combine_mode)
    if combine_mode not in ("pointwise", "generic"):
        raise ValueError(f"Combine_mode must either 'pointwise' or 'generic', but got {combine_mode}")
    leaves, spec = pytree.tree_flatten(xs)
    dim = canonicalize_dim(leaves[0].ndim, dim)
    leaves = [torch.movedim(leaf, dim, 0) for leaf in leaves]
    for leaf in leaves[1:]:
        torch._check(leaf.size(0) == leaves[0].size(0), lambda: "associative_scan: xs differ in length along dim")
    if reverse:
        leaves = [torch.flip(leaf, [0]) for leaf in leaves]
    combine = functools.partial(_ASSOCIATIVE_SCAN.wrap_combine_fn_flat, combine_fn=combine_fn,
                                spec=spec, num_leaves=len(leaves))
    # Dynamo gives the op's results the structure of ``xs`` (``spec``), as PyTorch's function returns them
    scanned = _ASSOCIATIVE_SCAN.associative_scan_op(combine, leaves, additional_inputs=())
    if reverse:
        scanned = pytree.tree_map(lambda leaf: torch.flip(leaf, [0]), scanned)
    return pytree.tree_map(lambda leaf: torch.movedim(leaf, 0, dim), scanned)
