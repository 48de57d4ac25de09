"""The identifiers and literals generated Triton source may contain.

Note [no IR text in generated source]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
Generated source is imported and run as Python, so no string from IR reaches
it unchecked: symbol names, SSA name hints and string attributes can hold any
text (``@"x; import os"``). The generator names values itself (``in0``,
``t3``, ``out0``: ``value_name``); a kernel's function is ``k_<symbol>`` only
where the symbol is a short run of ``[A-Za-z0-9_]``, and ``k_<hash>``
otherwise (``function_name``); a symbol shown in a comment is printed as a JSON
string of ASCII, which holds no newline (``comment_text``). Constants are
printed from typed Python values: ``int(v)``, ``repr(float(v))`` with
``float("inf")``/``float("nan")`` for the values ``repr`` prints as names,
``True``/``False`` (``literal``). String attributes are never printed: the
rules that read one (``gelu``'s ``approximate``) compare it with known words.
"""

from __future__ import annotations

import hashlib
import json
import math
import re

import torch

_PLAIN_SYMBOL = re.compile(r"[A-Za-z0-9_]{1,64}\Z")

TRITON_DTYPES: dict[torch.dtype, str] = {
    torch.bool: "tl.int1",
    torch.int8: "tl.int8",
    torch.int16: "tl.int16",
    torch.int32: "tl.int32",
    torch.int64: "tl.int64",
    torch.uint8: "tl.uint8",
    torch.float16: "tl.float16",
    torch.bfloat16: "tl.bfloat16",
    torch.float32: "tl.float32",
    torch.float64: "tl.float64",
}
"""The dtypes a generated kernel handles, and their Triton names."""


def function_name(symbol: str) -> str:
    """The Python name of the jit function of kernel ``@symbol``: always an identifier."""
    if _PLAIN_SYMBOL.match(symbol):
        return f"k_{symbol}"
    return "k_" + hashlib.sha256(symbol.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def comment_text(symbol: str) -> str:
    """``@symbol`` as a JSON string of ASCII: no newline, fit for a ``#`` comment."""
    return "@" + json.dumps(symbol, ensure_ascii=True)


def value_name(prefix: str, index: int) -> str:
    """``t3``: a generated name; ``prefix`` is one of the generator's own, never from IR."""
    if not prefix.isidentifier():
        raise ValueError(f"{prefix!r} is not an identifier prefix")
    return f"{prefix}{int(index)}"


def literal(value: bool | int | float, dtype: torch.dtype) -> str:
    """``value`` as a Python literal of ``dtype``'s kind (float, int or bool)."""
    if dtype == torch.bool:
        return "True" if bool(value) else "False"
    if dtype.is_floating_point:
        number = float(value)
        if math.isnan(number):
            return 'float("nan")'
        if math.isinf(number):
            return 'float("inf")' if number > 0 else '-float("inf")'
        return repr(number)
    if isinstance(value, float) and not value.is_integer():
        raise ValueError(f"{value!r} is no {dtype} value")
    return repr(int(value))
