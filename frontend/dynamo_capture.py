"""Running Dynamo on a program: one torch-level graph with HOPs kept, and its inputs.

Capture uses ``torch._dynamo.export``: Dynamo's graph keeps every HOP as a call
with subgraphs (strict ``torch.export`` would inline ``wrap`` and reject
checkpoint), export mode traces on fake tensors without running the program
and without touching Dynamo's cache, ``dynamic_shapes`` has torch.export's
form, and the graph's outputs are the program's outputs, flattened. Sizes are
static unless ``dynamic_shapes`` says otherwise; Python scalars are
specialized. ``nested_compile_region`` calls stay ``invoke_subgraph`` even
when called once, also where the program marks the function as it runs,
and checkpoint may hold any HOP (``traceable_regions``). Where a HOP kind
registers a stand-in for a PyTorch function (``DYNAMO_STAND_INS`` in
``hopc.fx_import.capture_rules``: ``associative_scan``'s, Note [associative scan
capture]), Dynamo traces the stand-in, in hopc's programs only (Note [Dynamo
stand-ins are hopc's]).

The graph is then normalised for ``lower_to_aten``: one placeholder per entry
argument, in order, user inputs first (the tensor leaves of ``(args, kwargs)``
in pytree order), then each parameter, buffer and tensor constant the program
reads (Dynamo leaves these as attributes of the graph).
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
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
from torch._subclasses.fake_tensor import FakeTensor, FakeTensorMode

from hopc.frontend.entry_arguments import BUFFER, CONSTANT, PARAMETER, EntryArgument
from hopc.frontend.errors import dynamo_error
from hopc.frontend.traceable_regions import regions_for_export
from hopc.fx_import.capture_rules import DYNAMO_STAND_INS
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


# Note [Dynamo stand-ins are hopc's]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# A HOP kind may need Dynamo to trace a function of its own in a PyTorch
# function's stead, so that the program's call becomes the HOP
# (``DYNAMO_STAND_INS``: ``associative_scan``'s, Note [associative scan
# capture]). ``_install_stand_in`` registers it with
# ``torch.compiler.substitute_in_graph``, which holds for the whole process,
# and Dynamo inlines it whatever the backend. Importing hopc must not change what
# another backend compiles (``aot_eager``, Inductor, a user's own), so the
# stand-in first asks ``traced_for_hopc()``: true while hopc's capture exports
# a program (``dynamo_graph``), or where the frame's backend is
# ``hopc_backend`` under Dynamo's wrappers (``hopc.compile``,
# ``torch.compile(backend="hopc")``). Otherwise it traces PyTorch's own
# function under another identity (so that Dynamo inlines it rather than the
# stand-in again): the graph is the one Dynamo makes without hopc. A backend
# that wraps ``hopc_backend`` in a function of its own is not hopc's by this
# test: hopc then fails, located, on the graph it gets (for
# ``associative_scan``, a tree of ``vmap``-ed combines), and never computes a
# wrong value. Eager calls run PyTorch's own function.
#
# Dynamo calls ``traced_for_hopc`` as it traces (``assume_constant_result``)
# and takes its answer as a constant: no guard reads it, so a call of the
# compiled frame costs nothing more. That is sound because the answer only
# depends on the backend, and Dynamo keeps a frame's compiled code per backend
# (its backend match): a frame compiled by another backend is never served
# hopc's graph, nor hopc another backend's, whatever order they compile in.
# A capture does not touch Dynamo's cache at all.

_EXPORTING_FOR_HOPC = contextvars.ContextVar("exporting_for_hopc", default=False)
"""Whether ``dynamo_graph`` is exporting a program for ``hopc.capture``."""


@contextlib.contextmanager
def _exporting_for_hopc() -> Iterator[None]:
    """Marks the export ``dynamo_graph`` runs as hopc's (Note [Dynamo stand-ins are hopc's])."""
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
    """Whether the program Dynamo is tracing is hopc's (Note [Dynamo stand-ins are hopc's])."""
    from hopc.frontend.dynamo_backend import hopc_backend  # here: that module imports this one

    backend = InstructionTranslator.current_tx().output.compiler_fn
    return _EXPORTING_FOR_HOPC.get() or _innermost_backend(backend) is hopc_backend


def _install_stand_ins() -> None:
    """Has Dynamo trace each stand-in of ``DYNAMO_STAND_INS``; once, as this module is imported."""
    for original in DYNAMO_STAND_INS:
        _install_stand_in(original, DYNAMO_STAND_INS.get(original))


def _install_stand_in(original: types.FunctionType, stand_in: Callable) -> None:
    """Has Dynamo trace ``stand_in`` in ``original``'s stead in hopc's programs, and ``original``
    itself in others (Note [Dynamo stand-ins are hopc's]). ``functools.wraps`` gives the traced
    function ``stand_in``'s signature, which ``substitute_in_graph`` checks is ``original``'s."""
    pytorch_original = types.FunctionType(original.__code__, original.__globals__, original.__name__,
                                          original.__defaults__, original.__closure__)

    @torch.compiler.substitute_in_graph(original)
    @functools.wraps(stand_in)
    def traced_instead(*args: object, **kwargs: object) -> object:
        if not traced_for_hopc():
            return pytorch_original(*args, **kwargs)
        return stand_in(*args, **kwargs)


_install_stand_ins()
