"""The ``custom`` dialect: custom operators (``torch.library``), as their schemas declare them.

Note [custom operators]
~~~~~~~~~~~~~~~~~~~~~~~
A custom operator ``ns::name.overload`` (``torch.library.custom_op``, or
``torch.library.define`` with its kernels) has a schema like any ATen
overload, so its op is an ``AtenOp`` built from that schema
(``hopc.dialects.aten_op_classes.make_op_class``), named
``custom.<ns>.<name>[.<overload>]``, with the same operand groups,
properties, custom form and queries (``prims::sin``, which every process that
imports torch registers; a user's ``mylib::scaled_tanh(Tensor x, float scale)``
is ``custom.mylib.scaled_tanh(%x) {scale = 2.0 : f64}``)::

    %y = custom.prims.sin(%x) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>

Everything that runs an ATen op runs it the same way, through the
dispatcher (``torch.ops.<ns>.<name>.<overload>``): the interpreter, the
planned executor, the generated host code. Its result types come from its
fake kernel (``register_fake``), which the trace ran on fake tensors of the
IR's symbolic shapes; its derivative is the one its ``register_autograd``
formula records when ``hopc.passes.autograd.derivatives`` traces the op's
joint, like any ATen op's. What differs from ATen:

- the schema is read from the process's operator registry, not from
  ``aten_ops.json``: a module holding a custom op parses and verifies only
  where the library defining it was imported (otherwise a diagnostic names
  the operator);
- only functional schemas are imported: a custom op that mutates an argument
  or returns an alias of one is refused at capture (functionalize could not
  give it a functional variant);
- its kernel is the user's code, which nothing checks for returning an
  input: plan-memory and host code treat every result as possibly sharing
  every tensor operand's storage (Note [result storage] in
  ``hopc.dialects.aten_storage``);
- of PyTorch's op tags only those that restrict what a pass may do are read
  (``CUSTOM_TAGS``); a user's ``pointwise`` tag does not make hopc fuse user
  code.

A functional custom op only reads its operands, so CSE may merge two equal
calls and DCE drop an unused one, as PyTorch's own graph passes do (FX takes
an op that mutates nothing for pure); one that draws random numbers says so
with the ``nondeterministic_seeded`` tag, and then writes the RNG state.
"""

from __future__ import annotations

import re
import string
from functools import cache

from xdsl.ir import Dialect

from hopc.dialects.aten_schema import CUSTOM_DIALECT, Argument, Return, Schema

CUSTOM_TAGS = frozenset({"nondeterministic_seeded", "dynamic_output_shape", "data_dependent_output",
                         "cudagraph_unsafe", "needs_fixed_stride_order"})
"""The ``torch.Tag``s of a custom operator that hopc records (Note [custom operators])."""


def custom_op_name(namespace: str, name: str, overload: str) -> str:
    """``custom.mylib.scaled_tanh`` for ``mylib::scaled_tanh.default``."""
    suffix = "" if overload in ("", "default") else f".{overload}"
    return f"{CUSTOM_DIALECT}.{namespace}.{name}{suffix}"


def registered_overload(op_name: str) -> object | None:
    """The ``torch.ops`` overload of ``custom.<ns>.<name>[.<overload>]``, or None if this
    process has none."""
    import torch

    parts = op_name.split(".")
    if len(parts) not in (3, 4) or parts[0] != CUSTOM_DIALECT:
        return None
    namespace, name = parts[1], parts[2]
    overload = parts[3] if len(parts) == 4 else "default"
    try:
        return getattr(getattr(getattr(torch.ops, namespace), name), overload)
    except (AttributeError, RuntimeError):
        return None


def unregistered_message(op_name: str) -> str:
    """Why ``op_name`` names no op here: the diagnostic of a parser that meets it."""
    namespace, _, rest = op_name.removeprefix(f"{CUSTOM_DIALECT}.").partition(".")
    return (f"{op_name} names the custom operator {namespace}::{rest}, which this process has not "
            "registered, or whose schema hopc cannot model: import the library that defines it "
            "(torch.library) before parsing (Note [custom operators])")


def custom_schema(op_name: str) -> Schema | None:
    """The schema of ``custom.<ns>.<name>[.<overload>]`` as the registry declares it, or None
    if this process has no such operator or hopc cannot model its schema."""
    overload = registered_overload(op_name)
    if overload is None:
        return None
    return schema_of_overload(overload)


def schema_of_overload(overload: object) -> Schema | None:
    """A custom overload's ``Schema``, parsed as the ATen table's are (torchgen's model)."""
    tags = frozenset(tag.name for tag in overload.tags) & CUSTOM_TAGS  # type: ignore[attr-defined]
    return _parsed_schema(str(overload._schema), tags)  # type: ignore[attr-defined]


@cache
def _parsed_schema(text: str, tags: frozenset[str]) -> Schema | None:
    """The ``Schema`` of ``ns::name.overload(...) -> ...``, or None where torchgen cannot model it."""
    from torchgen.model import FunctionSchema

    namespace, _, unqualified = text.partition("::")
    try:
        parsed = FunctionSchema.parse(_letter_alias_sets(unqualified))
    except (AssertionError, RuntimeError, KeyError, ValueError):
        return None
    arguments = parsed.arguments
    records = [(a, False) for a in arguments.flat_positional]
    records += [(a, True) for a in [*arguments.flat_kwarg_only, *arguments.out]]
    return Schema(
        base_name=str(parsed.name.name),
        overload=parsed.name.overload_name,
        arguments=tuple(Argument(a.name, str(a.type), str(a.annotation) if a.annotation else None,
                                 kwarg_only, a.default) for a, kwarg_only in records),
        returns=tuple(Return(r.name or "", str(r.type), str(r.annotation) if r.annotation else None)
                      for r in parsed.returns),
        tags=tags,
        namespace=namespace,
    )


_ALIAS_ANNOTATION = re.compile(r"Tensor\(([a-z]\w*)(!?)\)")


def _letter_alias_sets(text: str) -> str:
    """The schema with each alias set named by one letter, as torchgen reads them:
    ``Tensor(a1!) out`` (what ``torch.library.custom_op`` writes) -> ``Tensor(a!) out``."""
    letters: dict[str, str] = {}

    def renamed(match: re.Match[str]) -> str:
        letter = letters.setdefault(match[1], string.ascii_lowercase[len(letters) % 26])
        return f"Tensor({letter}{match[2]})"

    return _ALIAS_ANNOTATION.sub(renamed, text)


Custom = Dialect(CUSTOM_DIALECT, [], [])
"""The dialect object; its ops are created on demand by ``hopc.dialects.aten_op_classes.op_class``."""
