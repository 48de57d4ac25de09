"""Triton helper functions that generated kernels call, and the math functions of each target.

``MATH`` names, per target (Note [kernel targets] in
``hopc.backend.triton.target``), the function that computes ``exp``,
``tanh``, ``erf``, ``log1p``, ``expm1``, ``sigmoid`` and ``sqrt``: on
CUDA libdevice's (``sqrt_rn``: ``tl.sqrt`` is ``sqrt.approx.ftz`` there,
eager's ``sqrtf`` is correctly rounded); on the interpreter, which has no
libdevice, Triton's core language and the helpers here, accurate near 0
where the naive formula is not: ``_log1p`` and ``_expm1`` use the
corrections of Goldberg and Kahan, ``_tanh`` uses ``exp(-2|x|)``. The GELU forms are PyTorch's
(``aten/src/ATen/native/cpu/Activation.cpp``), written with the target's
functions.
"""

from __future__ import annotations

import re

from hopc.backend.triton.target import Target

HEADERS: dict[Target, str] = {
    Target.CUDA: "import triton\nimport triton.language as tl\nimport triton.language.extra.libdevice as libdevice\n",
    Target.INTERPRETER: "import triton\nimport triton.language as tl\n",
}
"""The imports of a generated source, per target."""

MATH: dict[Target, dict[str, str]] = {
    Target.CUDA: {"exp": "libdevice.exp", "tanh": "libdevice.tanh", "erf": "libdevice.erf",
                  "log1p": "libdevice.log1p", "expm1": "libdevice.expm1", "sigmoid": "_sigmoid",
                  "sqrt": "libdevice.sqrt_rn"},
    Target.INTERPRETER: {"exp": "tl.exp", "tanh": "_tanh", "erf": "tl.math.erf",
                         "log1p": "_log1p", "expm1": "_expm1", "sigmoid": "tl.sigmoid", "sqrt": "tl.sqrt"},
}
"""Math function -> the Triton function computing it, per target."""

HELPERS: dict[str, str] = {
    "_sigmoid": '''
@triton.jit
def _sigmoid(x):
    return 1.0 / (1.0 + {exp}(-x))
''',
    "_tanh": '''
@triton.jit
def _tanh(x):
    e = tl.exp(-2.0 * tl.abs(x))
    t = (1.0 - e) / (1.0 + e)
    return tl.where(x < 0, -t, t)
''',
    "_log1p": '''
@triton.jit
def _log1p(x):
    u = 1.0 + x
    d = u - 1.0
    return tl.where(d == 0.0, x, tl.where(u == float("inf"), u, tl.log(u) * (x / d)))
''',
    "_expm1": '''
@triton.jit
def _expm1(x):
    u = tl.exp(x)
    d = u - 1.0
    return tl.where(u == 1.0, x, tl.where(d == -1.0, -1.0, tl.where(u == float("inf"), u, d * (x / tl.log(u)))))
''',
    "_gelu_erf": '''
@triton.jit
def _gelu_erf(x):
    return 0.5 * x * (1.0 + {erf}(x * 0.7071067811865476))
''',
    "_gelu_tanh": '''
@triton.jit
def _gelu_tanh(x):
    return 0.5 * x * (1.0 + {tanh}(0.7978845608028654 * (x + 0.044715 * x * x * x)))
''',
    "_gelu_erf_backward": '''
@triton.jit
def _gelu_erf_backward(grad, x):
    cdf = 0.5 * (1.0 + {erf}(x * 0.7071067811865476))
    pdf = {exp}(-0.5 * x * x) * 0.3989422804014327
    return grad * (cdf + x * pdf)
''',
    "_gelu_tanh_backward": '''
@triton.jit
def _gelu_tanh_backward(grad, x):
    inner = 0.7978845608028654 * (x + 0.044715 * x * x * x)
    t = {tanh}(inner)
    left_derivative = 0.5 * (1.0 + t)
    right_derivative = 0.5 * x * (1.0 - t * t) * 0.7978845608028654 * (1.0 + 3.0 * 0.044715 * x * x)
    return grad * (left_derivative + right_derivative)
''',
}
"""Helper name -> its source, a template of the target's ``MATH`` functions (``{exp}``); a
helper that calls another comes after it (``_tanh`` before ``_gelu_tanh``)."""


def helper_source(names: set[str], target: Target) -> str:
    """The source of the helpers ``names`` and of those they call, for ``target``, in ``HELPERS``
    order (callees first)."""
    texts = {name: text.format(**MATH[target]) for name, text in HELPERS.items()}
    wanted = set(names)
    for name in reversed(HELPERS):
        if name in wanted:
            wanted.update(callee for callee in HELPERS
                          if callee != name and re.search(rf"\b{callee}\(", texts[name]))
    return "".join(texts[name] for name in HELPERS if name in wanted)
