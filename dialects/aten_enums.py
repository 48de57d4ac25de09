"""The values of ATen's enum-like argument types, as strings, checked without torch.

An ``aten`` op stores a ``Device``, ``Layout`` or ``MemoryFormat`` argument as a
string (``{memory_format = "channels_last"}``); ``hopc.torch_bridge.torch_values`` turns
it into the torch value when the op runs. The verifier checks the string
here, so that IR naming no such value is refused where it is written
(``file:line:col: error:``), not when it runs. The names are torch's own:
``tests/test_aten_enums.py`` compares them with the installed torch, as
Note [op tags] compares the table with PyTorch's registry.

Invariant: ``invalid_value(t, s)`` is None exactly when ``value_of_attribute``
converts the string ``s`` for schema type ``t`` without an error.

A plain ``str`` argument (``rounding_mode``, ``reduce``, ``approximate``) has
no values in its schema; its kernel checks it when it runs, and the
interpreter reports that as an error located at the op.
"""

from __future__ import annotations

import re

from xdsl.dialects.builtin import StringAttr
from xdsl.ir import Attribute

MEMORY_FORMATS = ("channels_last", "channels_last_3d", "contiguous_format",
                  "legacy_contiguous_format", "preserve_format")
"""The names of the ``torch.memory_format`` values in the ``torch`` namespace."""

LAYOUTS = ("_mkldnn", "jagged", "sparse_bsc", "sparse_bsr", "sparse_coo", "sparse_csc",
           "sparse_csr", "strided")
"""The names of the ``torch.layout`` values in the ``torch`` namespace."""

DEVICE_TYPES = ("cpu", "cuda", "ipu", "xpu", "mkldnn", "opengl", "opencl", "ideep", "hip", "ve",
                "fpga", "maia", "xla", "lazy", "vulkan", "mps", "meta", "hpu", "mtia",
                "privateuseone")
"""The device types ``torch.device`` accepts, in the order its error message lists them."""

_DEVICE = re.compile(r"(?P<type>[a-z_]+)(?::(?:0|[1-9][0-9]*))?")
"""``type`` or ``type:index``, as ``torch.device`` parses a string (no sign, no leading zero)."""


def invalid_value(schema_type: str, attribute: Attribute) -> str | None:
    """Why ``attribute`` names no value of the enum-like ``schema_type``; None where it does,
    or where the type is not one of these (its other checks are the verifier's)."""
    if not isinstance(attribute, StringAttr):
        return None
    schema_type = schema_type.removesuffix("?")
    text = attribute.data
    if schema_type == "Device":
        match = _DEVICE.fullmatch(text)
        if match is None or match["type"] not in DEVICE_TYPES:
            return f"a Device is a device type ({', '.join(DEVICE_TYPES)}), optionally ':<index>'"
    names = {"Layout": LAYOUTS, "MemoryFormat": MEMORY_FORMATS}.get(schema_type)
    if names is not None and text not in names:
        return f"a {schema_type} is one of {', '.join(names)}"
    return None
