"""The compile cache's slot of a Dynamo graph: a second process's frame hits without the capture.

``hopc.frontend.dynamo_backend`` asks ``graph_cache_slot`` for the slot of the
graph Dynamo hands it before it captures the graph (retraces it with
``make_fx`` and imports it), and compiles from the entry there where one
exists; after a miss the driver stores the host-level module there too.

Note [graph keys]
~~~~~~~~~~~~~~~~~
The capture is a function of what the key of a graph's slot holds, as
Inductor's FX graph cache keys a graph (``FxGraphCachePickler``,
``compiled_fx_graph_hash`` in ``torch._inductor.codecache``), so an entry
stored under it is the host-level module the capture and the stages made of
an identical input:

- each node of the graph and of every graph it holds as an attribute (HOP
  bodies), in order: its name, kind and target, its arguments, the
  metadata of its value (``val`` or Dynamo's ``example_value``) and its
  ``stack_trace``, the only metadata hopc's capture reads, which becomes
  the module's locations (a program a line lower misses);
- each entry argument of the captured module (the graph's placeholders and
  its lifted tensor attributes): role, name, whether it is differentiated,
  its fake tensor's metadata (sizes and strides with their symbols, dtype,
  device, ``requires_grad``) and which earlier argument shares its storage;
  a constant's values too, which the module holds (a parameter's or
  buffer's are read at each call, or frozen at the first, never captured);
- the state of PyTorch that the retrace reads: grad mode, inference mode,
  autocast, the default dtype and deterministic algorithms;
- as for every entry, the options, versions, device and the frame's facts
  before the capture (Note [compile cache key]).

A value the key cannot say fully makes the graph keyless, and it compiles
through the captured module's slot: a call of a function that is not
PyTorch's, ``operator``'s, ``math``'s or hopc's (a user's function allowed
in the graph, whose body the key cannot see), an operator outside ATen,
prims and PyTorch's HOPs (a custom op's implementation), a module that is
not a graph, a tensor that is not strided or that ``torch.func`` wraps (in
a ``torch.func.grad`` region), an argument of a type not listed in
``_argument_text``. The driver stores the graph's entry only where what
the capture made beside the module is nothing: no output that aliases an
input or another output and no tensor constant made by the retrace (the
frame a hit builds has neither), and only where the capture and the stages
left the frame's facts as they found them (``CacheSlot.store``): a retrace
that guards the frame is redone every time.
"""

from __future__ import annotations

import hashlib
import operator
from collections.abc import Sequence

import torch
import torch.fx
from torch._subclasses.fake_tensor import FakeTensor
from torch.multiprocessing.reductions import StorageWeakRef

from hopc.compile_cache import CacheSlot, cache_directory, cache_slot
from hopc.compile_options import CompileOptions
from hopc.frontend.entry_arguments import CONSTANT, EntryArgument

TRUSTED_MODULES = ("torch", "operator", "_operator", "math", "builtins", "hopc")
"""The modules whose functions a keyed graph may call: their code is in the key's versions."""
TRUSTED_NAMESPACES = frozenset({"aten", "prims", "higher_order"})
"""The operator namespaces whose implementations are PyTorch's own."""
SCALAR_TYPES = (bool, int, float, complex, str, type(None), type(Ellipsis), torch.dtype, torch.device,
                torch.layout, torch.memory_format)


class _Keyless(Exception):
    """The graph holds something its key cannot say fully (Note [graph keys]); never leaves this module."""


def graph_cache_slot(graph_module: torch.fx.GraphModule, arguments: Sequence[EntryArgument],
                     options: CompileOptions, device: str) -> CacheSlot | None:
    """The compile cache's slot of Dynamo's ``graph_module`` whose placeholders are ``arguments``
    (its tensor attributes lifted), one without a path where the cache is off (the graph's text
    not made); None where the graph is keyless (Note [graph keys])."""
    if cache_directory() is None:
        return CacheSlot(None)
    try:
        text = graph_key_text(graph_module, arguments)
    except _Keyless:
        return None
    return cache_slot(text, options, device)


def graph_key_text(graph_module: torch.fx.GraphModule, arguments: Sequence[EntryArgument]) -> str:
    """What the key of ``graph_module``'s slot holds beyond the options, versions, device and facts
    (Note [graph keys]); raises ``_Keyless`` where it cannot say all of it."""
    lines = ["dynamo graph", f"state {_torch_state()}"]
    lines += _arguments_lines(arguments)
    _append_graph_lines(graph_module, "", lines)
    return "\n".join(lines)


def _torch_state() -> str:
    autocast = [(device, torch.is_autocast_enabled(device), torch.get_autocast_dtype(device))
                for device in ("cpu", "cuda")]
    return (f"grad {torch.is_grad_enabled()} inference {torch.is_inference_mode_enabled()} "
            f"autocast {autocast} default {torch.get_default_dtype()} "
            f"deterministic {torch.are_deterministic_algorithms_enabled()}")


def _arguments_lines(arguments: Sequence[EntryArgument]) -> list[str]:
    """One line per entry argument: role, name, grad mark, example, storage shared with an earlier one."""
    storages: list[StorageWeakRef | None] = []
    lines = []
    for argument in arguments:
        example = argument.example
        storage = StorageWeakRef(example.untyped_storage()) if isinstance(example, torch.Tensor) else None
        shared = None if storage is None else \
            next((index for index, earlier in enumerate(storages) if earlier is not None and earlier == storage), None)
        storages.append(storage)
        value = _tensor_text(argument.value, values=argument.role == CONSTANT) if argument.value is not None else ""
        lines.append(f"argument {argument.role} {argument.name!r} grad {argument.requires_grad} "
                     f"{_argument_text(example)} shares {shared} {value}")
    return lines


def _append_graph_lines(graph_module: torch.fx.GraphModule, prefix: str, lines: list[str]) -> None:
    """One line per node of ``graph_module`` and, after it, of each graph it holds and the node reads."""
    for node in graph_module.graph.nodes:
        value = node.meta.get("val", node.meta.get("example_value"))
        lines.append(f"{prefix}{node.name} = {node.op} {_target_text(node)} {_argument_text(node.args)} "
                     f"{_argument_text(node.kwargs)} : {_argument_text(value)} at {node.meta.get('stack_trace')!r}")
        if node.op in ("get_attr", "call_module"):
            attribute = operator.attrgetter(node.target)(graph_module)
            if isinstance(attribute, torch.fx.GraphModule):
                _append_graph_lines(attribute, f"{prefix}{node.target}.", lines)
            elif isinstance(attribute, torch.Tensor):
                lines.append(f"{prefix}{node.target} holds {_tensor_text(attribute, values=True)}")
            else:
                raise _Keyless


def _target_text(node: torch.fx.Node) -> str:
    if node.op == "call_function":
        return _callable_text(node.target)
    return repr(node.target)


def _callable_text(target: object) -> str:
    """An operator or function by its qualified name, where its code is PyTorch's or hopc's."""
    if isinstance(target, torch._ops.OpOverload | torch._ops.OpOverloadPacket):
        if str(target).split(".")[0] not in TRUSTED_NAMESPACES:  # ``aten.add.Tensor``
            raise _Keyless
        return f"{type(target).__name__} {target}"
    if isinstance(target, torch._ops.HigherOrderOperator):
        module, qualified_name = type(target).__module__, f"{type(target).__qualname__} {target.name()}"
    else:
        module = getattr(target, "__module__", None)
        qualified_name = getattr(target, "__qualname__", getattr(target, "__name__", None))
    if module is None or qualified_name is None or module.split(".")[0] not in TRUSTED_MODULES:
        raise _Keyless
    return f"{module}.{qualified_name}"


def _argument_text(value: object) -> str:
    """A node's argument (or value metadata) as text: what it is, never only what type it has."""
    if isinstance(value, torch.fx.Node):
        return f"%{value.name}"
    if isinstance(value, SCALAR_TYPES):
        return f"{type(value).__name__} {value!r}"
    if isinstance(value, torch.SymInt | torch.SymFloat | torch.SymBool):
        return f"{type(value).__name__} {value}"
    if isinstance(value, torch.Tensor):
        return _tensor_text(value, values=not isinstance(value, FakeTensor))
    if isinstance(value, tuple | list):
        return f"{type(value).__name__}({', '.join(_argument_text(item) for item in value)})"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{key!r}: {_argument_text(item)}" for key, item in value.items()) + "}"
    if isinstance(value, slice):
        return f"slice({_argument_text((value.start, value.stop, value.step))})"
    if callable(value):
        return _callable_text(value)
    raise _Keyless


def _tensor_text(tensor: torch.Tensor, *, values: bool) -> str:
    """A strided tensor's metadata, sizes and strides with their symbols, and with ``values`` a
    digest of its elements."""
    if type(tensor) not in (torch.Tensor, torch.nn.Parameter, FakeTensor) or tensor.layout != torch.strided \
            or tensor.is_quantized or tensor.is_nested or torch._C._functorch.is_functorch_wrapped_tensor(tensor):
        raise _Keyless
    text = (f"{type(tensor).__name__} {tensor.dtype} {tensor.device} {tuple(map(str, tensor.shape))} "
            f"{tuple(map(str, tensor.stride()))} {tensor.storage_offset()} requires_grad {tensor.requires_grad} "
            f"leaf {tensor.is_leaf} conj {tensor.is_conj()} neg {tensor.is_neg()} "
            f"inference {tensor.is_inference()}")
    if not values:
        return text
    elements = tensor.detach().cpu().resolve_conj().resolve_neg().contiguous().reshape(-1)
    return f"{text} elements {hashlib.sha256(elements.view(torch.uint8).numpy().tobytes()).hexdigest()}"
