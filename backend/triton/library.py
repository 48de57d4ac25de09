"""Triton helper functions that generated kernels call, as fixed source text.

Each is a ``@triton.jit`` function of Triton's core and ``tl.math`` only (no
``libdevice``, which ``TRITON_INTERPRET=1`` cannot run), accurate near 0
where the naive formula is not: ``_log1p`` and ``_expm1`` use the
corrections of Goldberg and Kahan, ``_tanh`` uses ``exp(-2|x|)``. The GELU
forms are PyTorch's (``aten/src/ATen/native/cpu/Activation.cpp``).
"""

from __future__ import annotations

HELPERS: dict[str, str] = {
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
    return 0.5 * x * (1.0 + tl.math.erf(x * 0.7071067811865476))
''',
    "_gelu_tanh": '''
@triton.jit
def _gelu_tanh(x):
    return 0.5 * x * (1.0 + _tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)))
''',
    "_gelu_erf_backward": '''
@triton.jit
def _gelu_erf_backward(grad, x):
    cdf = 0.5 * (1.0 + tl.math.erf(x * 0.7071067811865476))
    pdf = tl.exp(-0.5 * x * x) * 0.3989422804014327
    return grad * (cdf + x * pdf)
''',
    "_gelu_tanh_backward": '''
@triton.jit
def _gelu_tanh_backward(grad, x):
    inner = 0.7978845608028654 * (x + 0.044715 * x * x * x)
    t = _tanh(inner)
    left_derivative = 0.5 * (1.0 + t)
    right_derivative = 0.5 * x * (1.0 - t * t) * 0.7978845608028654 * (1.0 + 3.0 * 0.044715 * x * x)
    return grad * (left_derivative + right_derivative)
''',
}
"""Helper name -> its source; a helper that calls another comes after it (``_tanh`` first)."""


def helper_source(names: set[str]) -> str:
    """The source of the helpers ``names``, in ``HELPERS`` order (callees first)."""
    return "".join(text for name, text in HELPERS.items() if name in names)
