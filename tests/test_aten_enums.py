"""The enum-like argument values the aten verifier accepts are torch's own, and only those.

``hopc.dialects.aten_enums`` lists them without importing torch; these tests
hold the lists to the installed torch (rerun after a torch upgrade).
"""

import pytest
import torch
from xdsl.dialects.builtin import StringAttr

from hopc.dialects import aten_schema
from hopc.dialects.aten_enums import DEVICE_TYPES, LAYOUTS, MEMORY_FORMATS, invalid_value
from hopc.torch_bridge.torch_values import value_of_attribute

ZEROS = {a.name: a for a in aten_schema.lookup("aten.zeros").attribute_arguments}
CLONE = {a.name: a for a in aten_schema.lookup("aten.clone").attribute_arguments}


def _torch_names(kind: type) -> set[str]:
    return {name for name in dir(torch) if isinstance(getattr(torch, name, None), kind)}


def _torch_device_types() -> set[str]:
    with pytest.raises(RuntimeError, match="Expected one of") as refused:
        torch.device("no_such_device")
    listed = str(refused.value).removeprefix("Expected one of ").split(" device type")[0]
    return set(listed.split(", "))


def test_memory_formats_are_torchs():
    assert set(MEMORY_FORMATS) == _torch_names(torch.memory_format)


def test_layouts_are_torchs():
    assert set(LAYOUTS) == _torch_names(torch.layout)


def test_device_types_are_torchs():
    assert set(DEVICE_TYPES) == _torch_device_types()


def _converts(argument, text: str) -> bool:
    try:
        value_of_attribute(argument, StringAttr(text), {})
    except ValueError:
        return False
    return True


@pytest.mark.parametrize("text", ["cpu", "cuda", "cuda:0", "cuda:12", "meta", "mps:1", "gpu", "CPU",
                                  "cuda:01", "cuda:-1", "cuda:", " cpu", "cpu ", "cuda:0:1", ""])
def test_device_accepted_exactly_when_torch_converts_it(text):
    argument = ZEROS["device"]
    assert (invalid_value(argument.type, StringAttr(text)) is None) == _converts(argument, text)


@pytest.mark.parametrize(("argument", "text"), [
    (ZEROS["layout"], "strided"), (ZEROS["layout"], "sparse_coo"), (ZEROS["layout"], "dense"),
    (ZEROS["layout"], "contiguous_format"), (CLONE["memory_format"], "channels_last"),
    (CLONE["memory_format"], "bogus"), (CLONE["memory_format"], "strided"),
    (CLONE["memory_format"], "float32"),
])
def test_layout_and_memory_format_accepted_exactly_when_torch_converts_them(argument, text):
    assert (invalid_value(argument.type, StringAttr(text)) is None) == _converts(argument, text)


def test_refusal_names_the_choices():
    assert invalid_value("MemoryFormat?", StringAttr("bogus")) == (
        "a MemoryFormat is one of channels_last, channels_last_3d, contiguous_format, "
        "legacy_contiguous_format, preserve_format")
