"""Regenerates ``dialects/aten_ops.json`` from PyTorch's operator registry.

Every ``aten::`` overload whose schema torchgen can model is recorded with its
arguments and returns as PyTorch declares them, so that the ``aten`` dialect can
represent any ATen operator without importing torch (the way torch-mlir
generates its op table), and with the op tags that passes ask about
(``aten_schema.RECORDED_TAGS``: PyTorch's ``torch.Tag``s of the overload, plus
``view`` where a return aliases an argument). Run it after a torch upgrade:

    python scripts/generate_aten_table.py
"""

import json
import pathlib
import re

import torch
from torchgen.model import FunctionSchema

from hopc.dialects.aten_schema import RECORDED_TAGS, VIEW_TAG

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
    ``RECORDED_TAGS``, and ``view`` where a return aliases an argument without
    writing it (``Tensor(a)``, as ``view`` and ``reshape`` return)."""
    packet = getattr(torch.ops.aten, base, None)
    op = getattr(packet, overload or "default", None) if packet is not None else None
    tags = {tag.name for tag in op.tags} & set(RECORDED_TAGS) if op is not None else set()
    if any(r.annotation is not None and not r.annotation.is_write for r in parsed.returns):
        tags.add(VIEW_TAG)
    return sorted(tags)


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
