"""ATen ops in host code: one direct call of the overload's C++ callable, laid out once.

The layout is Note [ATen calling convention] (``hopc.torch_bridge.aten_call``),
as in ``hopc.backend.runtime.planners.aten``: the callable is the public function
(``hopc.backend.host.public_functions``) or else ``overload._op``, an
attribute is converted once and read from the namespace, and one that
mentions shape symbols (``#hop.expr``) is a Python expression over the
symbols' locals (Note [generated host code]). ``out_variant`` finds the
``out=`` overload that writes a single result into a given tensor.

Note [copying views into buffers]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
The ``out=`` overload of a ``_copy`` view (``view_copy.out``, ``transpose_copy.int_out``)
is a composite in ATen: the functional copy, then ``out.copy_`` of it, two copies of the
elements. Host code writes the buffer with one: ``out.copy_(view(x))``, the view
(``hopc.passes.convert_hop_to_kernel.views.view_of``) costing no copy, and the buffer, of
the copy's type, getting the same elements in the same order. A ``view_copy`` of a tensor
``view`` cannot view (GPT-2's backward merges attention heads so, a ``view_copy`` of a
transpose, into a reused buffer) would copy in ``reshape`` first; so it copies the other
way round, ``out.view(x.shape).copy_(x)``: a view of a contiguous buffer at ``x``'s shape
holds, element by element in order, what the reshape would (``view`` keeps the order), and
a buffer that is not contiguous (one its first writer laid out, Note [first write
allocates]) takes ``out.copy_(reshape(x))``. ``copy_`` refuses a source that partly overlaps
the buffer, loudly.
"""

from __future__ import annotations

import functools

import torch
from xdsl.dialects.builtin import ArrayAttr

from hopc.backend.host.codegen import HOST_LOWERINGS, HostBuilder
from hopc.backend.host.names import FUNCTION, keyword_name
from hopc.backend.host.public_functions import IN_PLACE_FUNCTIONS, PUBLIC_FUNCTIONS, WITHOUT_OUT
from hopc.backend.host.recipes import operator_recipe
from hopc.backend.runtime.planners.aten import mentions_symbols
from hopc.dialects.aten import AtenOp
from hopc.dialects.aten_schema import Argument
from hopc.ir.types import ExprAttr
from hopc.passes.convert_hop_to_kernel.views import view_of
from hopc.torch_bridge.aten_call import flatten_returns, op_call_arguments, overload_of
from hopc.torch_bridge.torch_values import value_of_attribute


def call_source(builder: HostBuilder, op: AtenOp, overload: torch._ops.OpOverload | None = None,
                out: str | None = None) -> str:
    """The call of ``op`` (of ``overload`` where given, with ``out=`` the local ``out``); a copying
    view's ``out=`` is a ``copy_`` of the view (Note [copying views into buffers])."""
    overload = overload if overload is not None else overload_of(op.SCHEMA)
    args, kwargs = op_call_arguments(op, builder.local, functools.partial(_attribute_source, builder))
    positional = [_source(a) for a in args]
    keywords = [f"{keyword_name(name)}={_source(a)}" for name, a in kwargs.items()]
    in_place = IN_PLACE_FUNCTIONS.get(op.name)
    if in_place is not None and out is not None and positional and positional[0] == out:
        return f"{builder.bind(in_place, FUNCTION)}({', '.join(positional + keywords)})"
    view = view_of(op.SCHEMA) if out is not None else None
    if view is not None:
        copy = f"{out}.copy_({_call(builder, view.op_name, overload_of(view), positional + keywords)})"
        if op.name != "aten.view_copy":
            return copy
        source = positional[0]
        return f"{out}.view({source}.shape).copy_({source}) if {out}.is_contiguous() else {copy}"
    if out is not None:
        keywords.append(f"out={out}")
    public = PUBLIC_FUNCTIONS.get(op.name) if out is None or op.name not in WITHOUT_OUT else None
    return _call(builder, op.name if public is not None else None, overload, positional + keywords)


def _call(builder: HostBuilder, op_name: str | None, overload: torch._ops.OpOverload, arguments: list[str]) -> str:
    """A call of ``op_name``'s public function where it has one (None: none wanted), else of
    ``overload``'s C++ callable."""
    public = PUBLIC_FUNCTIONS.get(op_name) if op_name is not None else None
    if public is not None:
        callable_ = builder.bind(public, FUNCTION)
    else:
        callable_ = builder.bind(getattr(overload, "_op", overload), FUNCTION, operator_recipe(overload))
    return f"{callable_}({', '.join(arguments)})"


@HOST_LOWERINGS.register(AtenOp)
def lower_aten(builder: HostBuilder, op: AtenOp) -> None:
    """``v = f(...)``; a multi-result op unpacks torch's return value, a list return into the op's
    results as it is (``split``'s); with lists among several returns (no ATen op has one now),
    the value flattened first."""
    call = call_source(builder, op)
    lists = [r.is_tensor_list for r in op.SCHEMA.returns]
    results = [builder.define(r) for r in op.results]
    if results and lists == [False]:
        builder.emit(f"{results[0]} = {call}")
    elif not results or lists == [True] or not any(lists):
        builder.unpack(results, call)
    else:
        flatten = builder.bind(functools.partial(flatten_returns, op.SCHEMA), FUNCTION)
        builder.unpack(results, f"{flatten}({call})")


@functools.cache
def out_variant(base_name: str, overload: str) -> torch._ops.OpOverload | None:
    """The overload of ``aten.<base_name>`` that is ``overload`` with one ``out`` tensor more,
    returning it; None where there is none (or the op returns several values)."""
    packet = getattr(torch.ops.aten, base_name)
    functional = getattr(packet, overload or "default")._schema
    if len(functional.returns) != 1 or str(functional.returns[0].type) != "Tensor":
        return None
    expected = [(a.name, str(a.type)) for a in functional.arguments]
    for name in packet.overloads():
        schema = getattr(packet, name)._schema
        arguments = [(a.name, str(a.type)) for a in schema.arguments]
        if arguments[:-1] == expected and arguments[-1] == ("out", "Tensor") \
                and schema.arguments[-1].is_out and len(schema.returns) == 1:
            return getattr(packet, name)
    return None


def _source(argument: object) -> str:
    """The source of one laid-out argument: a local or an attribute's source, None (an absent
    ``Tensor?``), or a list of locals and ``None``s (a tensor list)."""
    if isinstance(argument, list):
        return f"[{', '.join(_source(a) for a in argument)}]"
    return "None" if argument is None else str(argument)


def _attribute_source(builder: HostBuilder, argument: Argument, attribute: object) -> str:
    """An expression over the symbols for an attribute that mentions them, else a namespace constant."""
    if isinstance(attribute, ExprAttr) and not isinstance(attribute.value, int):
        return builder.dim(attribute.value)
    if isinstance(attribute, ArrayAttr) and any(mentions_symbols(a) for a in attribute.data):
        element = Argument(argument.name, argument.type.removesuffix("?").partition("[")[0],
                           argument.alias, argument.kwarg_only, None)
        return f"[{', '.join(_attribute_source(builder, element, a) for a in attribute.data)}]"
    return builder.bind(value_of_attribute(argument, attribute, {}))
