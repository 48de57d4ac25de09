"""PyTorch's ATen operator schemas, read from the generated table, without torch.

``aten_ops.json`` is generated from PyTorch's operator registry by
``scripts/generate_aten_table.py``; it holds every ``aten::`` overload with its
arguments and returns exactly as the schema declares them. This module turns
that table into ``Schema`` objects and answers the questions passes ask:
which arguments an op mutates (``Tensor(a!)``), which results alias which
argument (``Tensor(a)``), what the functional form of a mutating op is, and
which of PyTorch's op tags it carries (Note [op tags]).

Op names follow the dialect: ``aten.<name>`` for the default overload and
``aten.<name>.<overload>`` otherwise (``aten.relu``, ``aten.add_.Tensor``). A
custom operator's schema (``Schema.namespace`` other than ``aten``) is read from
the process's registry instead, by ``hopc.dialects.custom``; its ops are named
``custom.<namespace>.<name>[.<overload>]`` (Note [custom operators] there).

Note [op tags]
~~~~~~~~~~~~~~
The table records, per overload, the tags of ``RECORDED_TAGS`` that it
carries: PyTorch's ``torch.Tag``s of the ``OpOverload`` (``op.tags``) that a
partitioner and fusion ask about, and ``view``, which hopc derives from the
schema. What each says:

- ``pointwise``: each output element depends only on the input elements at
  the same (broadcast) index (``aten.add.Tensor``, ``aten.sin``);
- ``reduction``: reduces dimensions (``aten.sum.dim_IntList``, ``aten.amax``);
- ``view``: a return aliases an argument it does not write (``Tensor(a)``):
  ``aten.view``, ``aten.select.int``, also ``aten.reshape`` and
  ``aten.contiguous``, which alias only when they can;
- ``returns_input_storage`` and ``composite_implicit``: a return may share an
  argument's storage though the schema declares no alias (Note [result
  storage]);
- ``view_copy``: the functional ``_copy`` variant of a view op
  (``aten.view_copy``, ``view_copy_variant``);
- ``nondeterministic_seeded``: draws from the RNG state (``aten.rand``,
  ``aten.bernoulli.p``); ``Schema.is_random``;
- ``dynamic_output_shape``: an output size depends on input data
  (``aten.nonzero``, ``aten.masked_select``); ``data_dependent_output``: a non-tensor
  output does (``aten.item``, ``aten.equal``);
- ``cudagraph_unsafe``: must not be captured in a CUDA graph;
  ``needs_fixed_stride_order``: its inputs' strides must stay as eager has them;
- ``core``: in PyTorch's Core ATen opset (what a decomposition lowers to).

PyTorch's other tags (``pt2_compliant_tag``, ``generated``, ``inplace``,
``out``...) say what the schema says already or nothing a pass uses.
"""

from __future__ import annotations

import json
import pathlib
from dataclasses import dataclass
from functools import cache, cached_property

TABLE_PATH = pathlib.Path(__file__).with_name("aten_ops.json")
_DECODER = json.JSONDecoder()

VIEW_TAG = "view"
"""hopc's own tag: a return aliases an argument (Note [op tags])."""

RETURNS_INPUT_STORAGE_TAG = "returns_input_storage"
"""hopc's own tag: PyTorch's kernel may return an argument's storage, undeclared (Note [result storage])."""

COMPOSITE_IMPLICIT_TAG = "composite_implicit"
"""hopc's own tag: the op runs a decomposition (a ``CompositeImplicitAutograd`` kernel)."""

RECORDED_TAGS: tuple[str, ...] = (
    "core",
    "cudagraph_unsafe",
    "data_dependent_output",
    "dynamic_output_shape",
    "needs_fixed_stride_order",
    "nondeterministic_seeded",
    "pointwise",
    "reduction",
    VIEW_TAG,
    "view_copy",
    RETURNS_INPUT_STORAGE_TAG,
    COMPOSITE_IMPLICIT_TAG,
)
"""The tags the table records (Note [op tags]); all but ``DERIVED_TAGS`` are ``torch.Tag`` names."""

CUSTOM_DIALECT = "custom"
"""The dialect of custom operators' ops (Note [custom operators] in ``hopc.dialects.custom``)."""

DERIVED_TAGS = frozenset({VIEW_TAG, RETURNS_INPUT_STORAGE_TAG, COMPOSITE_IMPLICIT_TAG})
"""The tags hopc derives (from the schema, torchgen and the dispatcher), not PyTorch's."""


class _TypedEntry:
    """What arguments and returns share: a schema type and an alias annotation."""

    type: str
    """The schema type as PyTorch writes it: ``Tensor``, ``Tensor?``, ``SymInt[]``..."""
    alias: str | None
    """The alias annotation: ``a!`` (mutated), ``a`` (aliased), ``a -> *``, or None."""

    @property
    def is_tensor(self) -> bool:
        """A single (possibly optional) tensor: one operand or none."""
        return self.type in ("Tensor", "Tensor?")

    @property
    def is_tensor_list(self) -> bool:
        """A list of tensors: any number of operands."""
        return self.type.startswith("Tensor") and "[]" in self.type

    @property
    def alias_set(self) -> str | None:
        if self.alias is None:
            return None
        return self.alias.replace("!", "").split("->")[0].strip()


@dataclass(frozen=True)
class Argument(_TypedEntry):
    """One schema argument: ``Tensor(a!) self`` or ``*, Scalar alpha=1``."""

    name: str
    type: str
    alias: str | None
    kwarg_only: bool
    default: str | None
    """The default value as PyTorch writes it, or None if the argument is required."""

    @property
    def is_optional_tensor(self) -> bool:
        return self.type == "Tensor?"

    @property
    def takes_operands(self) -> bool:
        return self.is_tensor or self.is_tensor_list

    @property
    def is_mutated(self) -> bool:
        return self.alias is not None and "!" in self.alias

    @property
    def required(self) -> bool:
        return self.default is None and not self.type.endswith("?")


@dataclass(frozen=True)
class Return(_TypedEntry):
    """One schema return: ``Tensor(a!)``, ``Tensor values``."""

    name: str
    type: str
    alias: str | None


@dataclass(frozen=True)
class Schema:
    """An ATen overload's schema."""

    base_name: str
    overload: str
    arguments: tuple[Argument, ...]
    returns: tuple[Return, ...]
    tags: frozenset[str] = frozenset()
    """Its tags among ``RECORDED_TAGS`` (Note [op tags])."""
    namespace: str = "aten"
    """The operator namespace: ``aten``, or a custom operator's (Note [custom operators])."""

    @property
    def is_custom(self) -> bool:
        """A custom operator's schema, not ATen's (Note [custom operators] in ``hopc.dialects.custom``)."""
        return self.namespace != "aten"

    @property
    def is_random(self) -> bool:
        """Its results depend on the RNG state (PyTorch's ``nondeterministic_seeded`` tag)."""
        return "nondeterministic_seeded" in self.tags

    @property
    def is_pointwise(self) -> bool:
        return "pointwise" in self.tags

    @property
    def is_reduction(self) -> bool:
        return "reduction" in self.tags

    @property
    def is_view(self) -> bool:
        """A return may alias an argument that the op does not write (``Tensor(a)``)."""
        return VIEW_TAG in self.tags

    @property
    def is_view_copy(self) -> bool:
        """The ``_copy`` variant of a view op (``aten.view_copy``)."""
        return "view_copy" in self.tags

    @property
    def has_dynamic_output_shape(self) -> bool:
        """An output's size depends on the input data (``aten.nonzero``)."""
        return "dynamic_output_shape" in self.tags

    @property
    def op_name(self) -> str:
        """``aten.add.Tensor``; ``custom.<namespace>.<name>[.<overload>]`` for a custom operator."""
        suffix = f".{self.overload}" if self.overload else ""
        prefix = f"{CUSTOM_DIALECT}.{self.namespace}" if self.is_custom else "aten"
        return f"{prefix}.{self.base_name}{suffix}"

    @property
    def torch_name(self) -> str:
        """``aten::add_.Tensor`` as PyTorch prints it."""
        suffix = f".{self.overload}" if self.overload else ""
        return f"{self.namespace}::{self.base_name}{suffix}"

    @cached_property
    def operand_arguments(self) -> tuple[Argument, ...]:
        """Arguments passed as operands (tensors and tensor lists), in schema order."""
        return tuple(a for a in self.arguments if a.takes_operands)

    @cached_property
    def attribute_arguments(self) -> tuple[Argument, ...]:
        """Arguments passed as attributes (everything else), in schema order."""
        return tuple(a for a in self.arguments if not a.takes_operands)

    @cached_property
    def mutated_arguments(self) -> tuple[Argument, ...]:
        """Arguments the op writes to (``Tensor(a!)``), including ``out=`` arguments."""
        return tuple(a for a in self.arguments if a.is_mutated)

    @property
    def is_mutating(self) -> bool:
        return bool(self.mutated_arguments)

    @cached_property
    def aliased_argument_of_return(self) -> tuple[Argument | None, ...]:
        """For each return, the argument it aliases (a view or the mutated input), or None."""
        by_set = {a.alias_set: a for a in self.arguments if a.alias_set is not None}
        return tuple(by_set.get(r.alias_set) if r.alias_set else None for r in self.returns)

    @property
    def is_functional(self) -> bool:
        """No argument is mutated and no result aliases an argument."""
        return not self.is_mutating and all(a is None for a in self.aliased_argument_of_return)

    @property
    def is_out_variant(self) -> bool:
        return any(a.is_mutated and a.kwarg_only for a in self.arguments)


def _schema_from_record(op_name: str, record: dict) -> Schema:
    _, rest = op_name.split(".", 1)
    base_name, _, overload = rest.partition(".")
    return Schema(
        base_name=base_name,
        overload=overload,
        arguments=tuple(Argument(*fields) for fields in record["args"]),
        returns=tuple(Return(*fields) for fields in record["returns"]),
        tags=frozenset(record.get("tags", ())),
    )


@cache
def _table() -> dict[str, dict]:
    return json.loads(TABLE_PATH.read_text())["ops"]


def torch_version() -> str:
    """The torch version the table was generated from."""
    return json.loads(TABLE_PATH.read_text())["torch_version"]


@cache
def _table_text() -> str:
    return TABLE_PATH.read_text()


def lookup(op_name: str) -> Schema | None:
    """The schema of ``aten.<name>[.<overload>]``, or None if ATen has no such op; that of
    ``custom.<namespace>.<name>[.<overload>]`` from the registry, or None if the process
    has no such operator (Note [custom operators] in ``hopc.dialects.custom``).
    """
    if op_name.startswith(CUSTOM_DIALECT + "."):
        from hopc.dialects.custom import custom_schema  # imports torch: only for custom operators

        return custom_schema(op_name)
    return _aten_lookup(op_name)


@cache
def _aten_lookup(op_name: str) -> Schema | None:
    """The schema of ``aten.<name>[.<overload>]`` from the table, or None.

    Decodes only this op's record: the table is written without spaces, so
    ``"<name>":`` occurs once, as its key; decoding the whole table costs more
    than the rest of starting ``hopc-opt`` on a small module.
    """
    text = _table_text()
    key = json.dumps(op_name) + ":"
    at = text.find(key)
    if at < 0:
        return None
    record, _ = _DECODER.raw_decode(text, at + len(key))
    return _schema_from_record(op_name, record)


def op_tags(op_name: str) -> frozenset[str]:
    """The tags of ``aten.<name>[.<overload>]`` (Note [op tags]); a KeyError if ATen has no such op.

    ``op_tags("aten.add.Tensor") == {"core", "pointwise"}``.
    """
    schema = lookup(op_name)
    if schema is None:
        raise KeyError(f"ATen has no op named {op_name!r}")
    return schema.tags


@cache
def view_copy_variant(schema: Schema) -> Schema | None:
    """The ``_copy`` variant of a view op: ``aten.view.dtype -> aten.view_copy.dtype``.

    The overload of the same overload name whose base name adds ``_copy`` and
    that PyTorch tags ``view_copy``; None for an op that is no view or has no
    such variant (``aten.reshape``, ``aten.contiguous``).
    """
    if not schema.is_view or schema.is_custom:
        return None
    suffix = f".{schema.overload}" if schema.overload else ""
    candidate = lookup(f"aten.{schema.base_name}_copy{suffix}")
    return candidate if candidate is not None and candidate.is_view_copy else None


@cache
def view_of_copy_variant(schema: Schema) -> Schema | None:
    """The view op whose ``_copy`` variant ``schema`` is: ``aten.view_copy.dtype -> aten.view.dtype``
    (the inverse of ``view_copy_variant``); None for an op that is no such variant."""
    if not schema.is_view_copy:
        return None
    suffix = f".{schema.overload}" if schema.overload else ""
    view = lookup(f"aten.{schema.base_name.removesuffix('_copy')}{suffix}")
    return view if view is not None and view_copy_variant(view) is schema else None


@cache
def _overloads_by_base_name() -> dict[str, list[str]]:
    table: dict[str, list[str]] = {}
    for name in _table():
        table.setdefault(name.split(".")[1], []).append(name)
    return table


@cache
def functional_variant(schema: Schema) -> Schema | None:
    """The functional overload computing what a mutating op writes, if ATen has one.

    ``aten.add_.Tensor -> aten.add.Tensor``; ``aten.addmm.out -> aten.addmm``;
    ``aten.add.out -> aten.add.Tensor``; ``aten.__ilshift__.Scalar ->
    aten.__lshift__.Scalar``. The variant is the overload of the same base name
    (without the in-place ``_``, or the ``i`` of a Python in-place operator)
    whose arguments, names and types, are the op's minus its ``out=`` arguments
    and which neither mutates nor aliases. A functional op is its own variant;
    None when ATen has no such overload.
    """
    if schema.is_functional:
        return schema
    if schema.is_custom:
        return None
    inputs = [(a.name, a.type) for a in schema.arguments if not (a.is_mutated and a.kwarg_only)]
    base = schema.base_name if schema.is_out_variant else schema.base_name.removesuffix("_")
    if schema.base_name.startswith("__i") and schema.base_name.endswith("__"):
        base = "__" + schema.base_name.removeprefix("__i")
    for name in _overloads_by_base_name().get(base, []):
        candidate = lookup(name)
        if candidate.is_functional and [(a.name, a.type) for a in candidate.arguments] == inputs:
            return candidate
    return None
