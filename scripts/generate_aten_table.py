"""Regenerates ``dialects/aten_ops.json`` from PyTorch's operator registry.

Every ``aten::`` overload whose schema torchgen can model is recorded with its
arguments and returns as PyTorch declares them, so that the ``aten`` dialect can
represent any ATen operator without importing torch (the way torch-mlir
generates its op table), and with the op tags that passes ask about
(``aten_schema.RECORDED_TAGS``: PyTorch's ``torch.Tag``s of the overload, plus
hopc's ``DERIVED_TAGS``: ``view`` where a return aliases an argument, and the
two tags of Note [result storage] in ``hopc.dialects.aten_storage``). Run it
after a torch upgrade:

    python scripts/generate_aten_table.py
"""

import json
import pathlib
import re

import torch
from torchgen.model import FunctionSchema
from torchgen.packaged.autograd.gen_inplace_or_view_type import ALL_VIEW_FUNCTIONS, RETURNS_VIEWS_OF_INPUT
from torchgen.packaged.autograd.gen_variable_type import DONT_ENFORCE_STORAGE_IMPL_USE_COUNT

from hopc.dialects.aten_schema import COMPOSITE_IMPLICIT_TAG, RECORDED_TAGS, RETURNS_INPUT_STORAGE_TAG, VIEW_TAG

UNDECLARED_STORAGE_SHARING = (set(ALL_VIEW_FUNCTIONS) | RETURNS_VIEWS_OF_INPUT | DONT_ENFORCE_STORAGE_IMPL_USE_COUNT)
"""Base names whose results may share an argument's storage, by torchgen's own lists: views
(``_unsafe_view``, a view autograd does not track, among them) and the ops exempt from
its check that a non-view result owns its storage (Note [result storage])."""

_LIST_DEFAULT = re.compile(r"=\[([^\]]*)\]")


def _torchgen_text(schema) -> str:
    """The schema as torchgen parses it: list defaults written without spaces."""
    text = str(schema).removeprefix("aten::")
    return _LIST_DEFAULT.sub(lambda m: "=[" + m.group(1).replace(" ", "") + "]", text)


TABLE = pathlib.Path(__file__).resolve().parent.parent / "dialects" / "aten_ops.json"


def _argument_record(argument, kwarg_only: bool) -> list:
    annotation = str(argument.annotation) if argument.annotation else None
    return [argument.name, str(argument.type), annotation, kwarg_only, argument.default]


def _return_record(ret) -> list:
    annotation = str(ret.annotation) if ret.annotation else None
    return [ret.name or "", str(ret.type), annotation]


def _tags(base: str, overload: str, parsed: FunctionSchema) -> list[str]:
    """The recorded tags of an overload, sorted: its ``torch.Tag``s among
    ``RECORDED_TAGS``, ``view`` where a return aliases an argument without
    writing it (``Tensor(a)``, as ``view`` and ``reshape`` return), and the
    tags of Note [result storage]."""
    packet = getattr(torch.ops.aten, base, None)
    op = getattr(packet, overload or "default", None) if packet is not None else None
    tags = {tag.name for tag in op.tags} & set(RECORDED_TAGS) if op is not None else set()
    declared = any(r.annotation is not None and not r.annotation.is_write for r in parsed.returns)
    if declared:
        tags.add(VIEW_TAG)
    tensor_returns = any("Tensor" in str(r.type) for r in parsed.returns) \
        and all(r.annotation is None for r in parsed.returns)  # an out= or in-place op returns what it writes
    if tensor_returns and not declared and base in UNDECLARED_STORAGE_SHARING:
        tags.add(RETURNS_INPUT_STORAGE_TAG)
    if tensor_returns and op is not None and _has_composite_implicit_kernel(op):
        tags.add(COMPOSITE_IMPLICIT_TAG)
    return sorted(tags)


def _has_composite_implicit_kernel(op: torch._ops.OpOverload) -> bool:
    """Whether the dispatcher runs ``op`` as a decomposition; False for an op only
    TorchScript registers (``aten::as_tensor.bool``), which the dispatcher does not know."""
    try:
        return op.has_kernel_for_dispatch_key(torch._C.DispatchKey.CompositeImplicitAutograd)
    except RuntimeError:
        return False


def schema_records() -> dict[str, dict]:
    records: dict[str, dict] = {}
    for schema in torch._C._jit_get_all_schemas():
        if not schema.name.startswith("aten::"):
            continue
        try:
            parsed = FunctionSchema.parse(_torchgen_text(schema))
        except (AssertionError, RuntimeError, KeyError, ValueError):
            continue  # TorchScript-only signatures (Dict[str, t], Future[t], ...)
        base = str(parsed.name.name)
        overload = parsed.name.overload_name
        op_name = f"aten.{base}" + (f".{overload}" if overload else "")
        arguments = parsed.arguments
        args = [_argument_record(a, False) for a in arguments.flat_positional]
        args += [_argument_record(a, True) for a in arguments.flat_kwarg_only]
        args += [_argument_record(a, True) for a in arguments.out]
        records[op_name] = {
            "args": args,
            "returns": [_return_record(r) for r in parsed.returns],
        }
        if tags := _tags(base, overload, parsed):
            records[op_name]["tags"] = tags
    return dict(sorted(records.items()))


def table_text(torch_version: str, records: dict[str, dict]) -> str:
    """The table as one JSON document with one op per line, in sorted order.

    A torch upgrade then reads as a line diff. Within a line nothing is spaced,
    so ``"<name>":`` occurs only as that op's key (``aten_schema.lookup`` finds
    an op's record by that string without decoding the rest).
    """
    compact = {"separators": (",", ":")}
    ops = ",\n".join(
        json.dumps(name) + ":" + json.dumps(record, **compact)
        for name, record in sorted(records.items())
    )
    return '{"torch_version":' + json.dumps(torch_version) + ',"ops":{\n' + ops + "\n}}\n"


def main() -> None:
    records = schema_records()
    TABLE.write_text(table_text(torch.__version__, records))
    print(f"wrote {len(records)} ATen overloads to {TABLE}")


if __name__ == "__main__":
    main()
