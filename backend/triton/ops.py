"""The ATen ops a generated Triton kernel computes, and the Triton each becomes.

``can_emit(op)`` says whether ``op``, with its operand and result types and
its attributes, can be generated (the converter asks it to decide what
fuses); ``POINTWISE`` maps a pointwise op to its ``PointwiseRule`` and
``REDUCTIONS`` a reduction to its ``Reduction``.

Note [triton dtypes]
~~~~~~~~~~~~~~~~~~~~
An op computes in its compute dtype, as PyTorch's references do:
``torch._prims_common.elementwise_dtypes`` of the arguments that take part
in type promotion, under the op's promotion kind (that of its reference in
``torch._refs``), gives it, and it is the opmath type: f16 and bf16 compute
in f32, integers in themselves. Each operand is converted to it, the
expression is computed, and the value is converted to the dtype of the op's
IR result, so every intermediate value is rounded to its IR dtype as eager
rounds it, and a comparison gives bool. A conversion to bool is ``x != 0``; an ``ALWAYS_BOOL`` op's expression
is bool already (its compute dtype is that of the compared operands).
A Python scalar argument is printed as a literal of the compute dtype's kind
(``names.literal``); symbolic scalars (``#hop.expr``) are not generated.
Handled dtypes: ``names.TRITON_DTYPES`` (no complex).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import torch
from torch._prims_common import ELEMENTWISE_TYPE_PROMOTION_KIND as Kind
from torch._prims_common import elementwise_dtypes
from xdsl.ir import Attribute

from hopc.backend.triton.library import HELPERS, MATH
from hopc.backend.triton.names import TRITON_DTYPES, literal
from hopc.backend.triton.target import Target
from hopc.dialects.aten import AtenOp
from hopc.ir.symbolic import UnboundSymbolError
from hopc.ir.types import TensorType
from hopc.torch_bridge.torch_values import dtype_of, value_of_attribute

Scalar = bool | int | float


@dataclass(frozen=True)
class RuleContext:
    """What a rule's body reads: converted operands, scalars, the compute dtype, the target.

    ``helpers`` collects the ``library`` helpers the body's expression calls
    (``math``, ``helper``)."""

    args: dict[str, str]
    """Schema argument name -> Triton expression: a tensor in the compute dtype
    (unconverted where the rule does not promote it), a scalar as a literal."""
    scalars: dict[str, Scalar | str | None]
    """Schema argument name -> the Python value of each non-tensor argument given."""
    compute: torch.dtype
    shape: str
    """The block shape of the values computed here, as Triton source (``[XBLOCK]``)."""
    target: Target
    helpers: set[str] = field(default_factory=set)

    def __getitem__(self, name: str) -> str:
        return self.args[name]

    def literal(self, value: Scalar) -> str:
        return literal(value, self.compute)

    def math(self, function: str, argument: str) -> str:
        """``function(argument)`` (``exp``, ``tanh``, ...) as the target computes it (``library.MATH``)."""
        return f"{self.helper(MATH[self.target][function])}({argument})"

    def helper(self, name: str) -> str:
        """``name``, recorded as a helper the body calls where it is one of ``library.HELPERS``."""
        if name in HELPERS:
            self.helpers.add(name)
        return name


Body = Callable[[RuleContext], str]


@dataclass(frozen=True)
class PointwiseRule:
    """How one pointwise op becomes a Triton expression.

    ``promoted`` are the arguments (tensors or scalars, by schema name) that
    take part in type promotion under ``kind`` (Note [triton dtypes]); the
    tensors among them are converted to the compute dtype, the others reach
    ``body`` as loaded. With ``kind`` None the compute dtype is the result's
    (a copy or a fill).
    """

    body: Body
    kind: Kind | None = Kind.DEFAULT
    promoted: tuple[str, ...] = ("self",)
    numbers_only: bool = True
    """Refuses bool compute dtypes (arithmetic on bool is no Triton op)."""
    accepts: Callable[[dict[str, Scalar | str | None], torch.dtype], bool] = lambda scalars, compute: True
    """Whether the rule computes the op with these non-tensor arguments in this compute dtype."""


@dataclass(frozen=True)
class Reduction:
    """A reduction over the last dimension: its combine and how it starts and ends."""

    combine: str
    """``sum``, ``max`` or ``min``."""
    mean: bool = False
    """Divides the sum by the reduced size."""


_FLOAT = Kind.INT_TO_FLOAT
_BOOL = Kind.ALWAYS_BOOL


def _unary(template: str, kind: Kind = _FLOAT) -> PointwiseRule:
    return PointwiseRule(lambda c: template.format(x=c["self"]), kind)


def _math(function: str) -> PointwiseRule:
    """A unary op computed by the target's ``function`` (Note [kernel targets])."""
    return PointwiseRule(lambda c: c.math(function, c["self"]), _FLOAT)


def _with_alpha(operator: str) -> Body:
    def body(c: RuleContext) -> str:
        other = c["other"]
        if c.scalars.get("alpha", 1) != 1:
            other = f"({other} * {c['alpha']})"
        return f"{c['self']} {operator} {other}"
    return body


def _binary(operator: str, kind: Kind = Kind.DEFAULT, numbers_only: bool = True) -> PointwiseRule:
    return PointwiseRule(lambda c: f"{c['self']} {operator} {c['other']}", kind, ("self", "other"),
                         numbers_only)


def _clamp(c: RuleContext) -> str:
    value = c["self"]
    if c.scalars.get("min") is not None:
        value = f"tl.where({value} < {c['min']}, {c['min']}, {value})"
    if c.scalars.get("max") is not None:
        value = f"tl.where({value} > {c['max']}, {c['max']}, {value})"
    return value


def _pow(c: RuleContext) -> str:
    """``x ** n``: multiplications for ``|n| <= 8`` (a reciprocal for negative ``n``); otherwise
    libdevice's ``pow`` on CUDA (Note [kernel targets]), and on the interpreter ``exp2``/``log2``
    of ``|x|`` with the sign of an odd power for other integers, of ``x`` otherwise (NaN below 0)."""
    exponent = c.scalars["exponent"]
    x = c["self"]
    if exponent == 0:
        return f"tl.full({c.shape}, 1, {_tl(c.compute)})"
    if float(exponent).is_integer() and abs(exponent) <= _MAX_MULTIPLIED_EXPONENT:
        product = "(" + " * ".join([x] * abs(int(exponent))) + ")"
        return product if exponent > 0 else f"(1.0 / {product})"
    if exponent == 0.5:
        return c.math("sqrt", x)
    if c.target == Target.CUDA:
        return f"libdevice.pow({x}, tl.full({c.shape}, {c.literal(exponent)}, {_tl(c.compute)}))"
    if float(exponent).is_integer():
        magnitude = f"tl.exp2({c.literal(exponent)} * tl.log2(tl.abs({x})))"
        return f"tl.where({x} < 0, -{magnitude}, {magnitude})" if int(exponent) % 2 else magnitude
    return f"tl.exp2({c.literal(exponent)} * tl.log2({x}))"


_MAX_MULTIPLIED_EXPONENT = 8
"""``pow`` by an integer up to this is repeated multiplication."""


def _pow_accepts(scalars: dict[str, Scalar | str | None], compute: torch.dtype) -> bool:
    """A number exponent; with an integer compute dtype, a multiplied one (no negative powers)."""
    exponent = scalars["exponent"]
    if not isinstance(exponent, int | float) or isinstance(exponent, bool):
        return False
    return compute.is_floating_point or (float(exponent).is_integer()
                                         and 0 <= exponent <= _MAX_MULTIPLIED_EXPONENT)


def _fill(value: str) -> Body:
    return lambda c: f"tl.full({c.shape}, {c.literal(c.scalars[value])}, {_tl(c.compute)})"


def _tl(dtype: torch.dtype) -> str:
    return TRITON_DTYPES[dtype]


def _approximate_known(scalars: dict[str, Scalar | str | None], compute: torch.dtype) -> bool:
    return scalars.get("approximate", "none") in ("none", "tanh")


def _gelu(c: RuleContext) -> str:
    helper = "_gelu_tanh" if c.scalars.get("approximate", "none") == "tanh" else "_gelu_erf"
    return f"{c.helper(helper)}({c['self']})"


def _gelu_backward(c: RuleContext) -> str:
    helper = "_gelu_tanh_backward" if c.scalars.get("approximate", "none") == "tanh" else "_gelu_erf_backward"
    return f"{c.helper(helper)}({c['grad_output']}, {c['self']})"


_HARMLESS = {"layout": ("strided",), "pin_memory": (False,), "non_blocking": (False, True),
             "memory_format": ("preserve_format", "contiguous_format")}
"""Factory arguments that change nothing a contiguous result of the op's dtype would show."""


def _only_dtype(*names: str) -> Callable[[dict[str, Scalar | str | None], torch.dtype], bool]:
    """Accepts the op when its arguments but ``names`` are absent, None or ``_HARMLESS`` (no device)."""
    return lambda scalars, compute: all(value is None or name in names or value in _HARMLESS.get(name, ())
                                        for name, value in scalars.items())


_UNARY_FLOAT = {
    "sin": "tl.sin({x})", "cos": "tl.cos({x})", "tan": "(tl.sin({x}) / tl.cos({x}))",
    "log": "tl.log({x})", "rsqrt": "tl.rsqrt({x})", "reciprocal": "(1.0 / {x})",
}
_TARGET_MATH = ("exp", "tanh", "erf", "log1p", "expm1", "sigmoid", "sqrt")
"""Unary ops whose function differs per target (``library.MATH``)."""
_COMPARISONS = {"eq": "==", "ne": "!=", "lt": "<", "le": "<=", "gt": ">", "ge": ">="}

POINTWISE: dict[str, PointwiseRule] = {
    **{f"aten.{name}": _unary(template) for name, template in _UNARY_FLOAT.items()},
    **{f"aten.{name}": _math(name) for name in _TARGET_MATH},
    "aten.silu": PointwiseRule(lambda c: f"({c['self']} * {c.math('sigmoid', c['self'])})", _FLOAT),
    **{f"aten.{name}.{overload}": PointwiseRule(_with_alpha(op), Kind.DEFAULT, ("self", "other"))
       for name, op in (("add", "+"), ("sub", "-")) for overload in ("Tensor", "Scalar")},
    **{f"aten.{name}.{overload}": _binary(op, kind)
       for name, op, kind in (("mul", "*", Kind.DEFAULT), ("div", "/", _FLOAT))
       for overload in ("Tensor", "Scalar")},
    **{f"aten.{name}.{overload}": _binary(op, _BOOL, numbers_only=False)
       for name, op in _COMPARISONS.items() for overload in ("Tensor", "Scalar")},
    "aten.neg": _unary("(-{x})", Kind.DEFAULT),
    "aten.abs": _unary("tl.abs({x})", Kind.COMPLEX_TO_FLOAT),
    "aten.relu": _unary("tl.where({x} < 0, 0, {x})", Kind.DEFAULT),
    "aten.sign": _unary("(tl.where({x} > 0, 1, 0) - tl.where({x} < 0, 1, 0))", Kind.DEFAULT),
    "aten.gelu": PointwiseRule(_gelu, _FLOAT, accepts=_approximate_known),
    "aten.pow.Tensor_Scalar": PointwiseRule(_pow, Kind.BOOL_TO_LONG, ("self", "exponent"),
                                            accepts=_pow_accepts, ),
    "aten.where.self": PointwiseRule(lambda c: f"tl.where({c['condition']}, {c['self']}, {c['other']})",
                                     Kind.NO_OPMATH, ("self", "other"), numbers_only=False),
    "aten.logical_and": PointwiseRule(lambda c: f"(({c['self']} != 0) & ({c['other']} != 0))", _BOOL,
                                      ("self", "other"), numbers_only=False),
    "aten.logical_or": PointwiseRule(lambda c: f"(({c['self']} != 0) | ({c['other']} != 0))", _BOOL,
                                     ("self", "other"), numbers_only=False),
    "aten.logical_not": PointwiseRule(lambda c: f"({c['self']} == 0)", _BOOL, numbers_only=False),
    "aten.maximum": PointwiseRule(lambda c: f"tl.where(({c['self']} > {c['other']}) | ({c['self']} != {c['self']}), "
                                            f"{c['self']}, {c['other']})", Kind.DEFAULT, ("self", "other")),
    "aten.minimum": PointwiseRule(lambda c: f"tl.where(({c['self']} < {c['other']}) | ({c['self']} != {c['self']}), "
                                            f"{c['self']}, {c['other']})", Kind.DEFAULT, ("self", "other")),
    "aten.clamp": PointwiseRule(_clamp, Kind.DEFAULT, ("self", "min", "max")),
    "aten.clamp_min": PointwiseRule(_clamp, Kind.DEFAULT, ("self", "min")),
    "aten.clamp_max": PointwiseRule(_clamp, Kind.DEFAULT, ("self", "max")),
    "aten._to_copy": PointwiseRule(lambda c: c["self"], None, (), numbers_only=False,
                                   accepts=_only_dtype("dtype")),
    "aten.copy": PointwiseRule(lambda c: c["src"], None, ("src",), numbers_only=False,
                               accepts=_only_dtype()),
    "aten.threshold_backward": PointwiseRule(
        lambda c: f"tl.where({c['self']} <= {c['threshold']}, 0, {c['grad_output']})",
        Kind.DEFAULT, ("grad_output", "self")),
    "aten.tanh_backward": PointwiseRule(lambda c: f"{c['grad_output']} * (1.0 - {c['output']} * {c['output']})",
                                        Kind.DEFAULT, ("grad_output", "output")),
    "aten.sigmoid_backward": PointwiseRule(
        lambda c: f"{c['grad_output']} * (1.0 - {c['output']}) * {c['output']}",
        Kind.DEFAULT, ("grad_output", "output")),
    "aten.gelu_backward": PointwiseRule(_gelu_backward, Kind.DEFAULT, ("grad_output", "self"),
                                        accepts=_approximate_known),
    "aten.fill.Scalar": PointwiseRule(_fill("value"), None, (), numbers_only=False),
    "aten.fill.Tensor": PointwiseRule(lambda c: f"tl.broadcast_to({c['value']}, {c.shape})", None, ("value",),
                                      numbers_only=False),
    "aten.full_like": PointwiseRule(_fill("fill_value"), None, (), numbers_only=False,
                                    accepts=_only_dtype("dtype", "fill_value")),
    "aten.scalar_tensor": PointwiseRule(_fill("s"), None, (), numbers_only=False,
                                        accepts=_only_dtype("dtype", "s")),
}
"""Pointwise op name -> its rule. Operands that no rule promotes keep their dtype
(``where``'s condition); ``copy``'s ``self`` gives only the shape and dtype."""

REDUCTIONS: dict[str, Reduction] = {
    "aten.sum.dim_IntList": Reduction("sum"),
    "aten.mean.dim": Reduction("sum", mean=True),
    "aten.amax": Reduction("max"),
    "aten.amin": Reduction("min"),
}
"""Reductions over the last dimension (``dim`` ``[-1]`` or ``[rank - 1]``), keepdim either way; a
``dtype`` argument converts the input to the result's dtype before the sum, as in PyTorch."""


# --------------------------------------------------------------------------- queries


def tensor_dtype(type_: Attribute) -> torch.dtype | None:
    """The dtype of a tensor type a kernel handles, or None."""
    if not isinstance(type_, TensorType):
        return None
    try:
        dtype = dtype_of(type_.element_type)
    except ValueError:
        return None
    return dtype if dtype in TRITON_DTYPES else None


def scalar_arguments(op: AtenOp) -> dict[str, Scalar | str | None] | None:
    """The Python value of each non-tensor argument ``op`` gives; None if one is symbolic or unreadable."""
    values: dict[str, Scalar | str | None] = {}
    for argument in op.SCHEMA.attribute_arguments:
        attribute = op.argument_attribute(argument.name)
        if attribute is None:
            continue
        try:
            value = value_of_attribute(argument, attribute, {})
        except (UnboundSymbolError, ValueError):
            return None
        if isinstance(value, torch.dtype | torch.layout | torch.memory_format | torch.device):
            value = str(value).removeprefix("torch.")
        elif isinstance(value, list):
            if not all(isinstance(v, int) for v in value):
                return None
            value = tuple(value)  # type: ignore[assignment]
        values[argument.name] = value  # type: ignore[assignment]
    return values


def compute_dtype(op: AtenOp, rule: PointwiseRule, scalars: dict[str, Scalar | str | None]) -> torch.dtype:
    """The dtype ``op`` computes in (Note [triton dtypes])."""
    result = tensor_dtype(op.results[0].type)
    if rule.kind is None:
        assert result is not None
        return result
    operands = {argument.name: values for argument, values in op.operand_groups()}
    participants: list[object] = []
    for name in rule.promoted:
        if name in operands:
            for value in operands[name]:
                dtype = tensor_dtype(value.type)
                assert dtype is not None
                participants.append(torch.empty((1,) * value.type.rank, dtype=dtype, device="meta"))
        elif scalars.get(name) is not None:
            participants.append(scalars[name])
    computation, _ = elementwise_dtypes(*participants, type_promotion_kind=rule.kind)
    return computation


def reduction_dim_is_last(op: AtenOp, scalars: dict[str, Scalar | str | None]) -> bool:
    """``dim`` names exactly the last dimension of ``op``'s input."""
    rank = op.operands[0].type.rank
    dims = scalars.get("dim")
    return rank >= 1 and isinstance(dims, tuple) and len(dims) == 1 and dims[0] in (-1, rank - 1)


def can_emit(op: AtenOp) -> bool:
    """Whether a generated kernel computes ``op`` with its types and attributes.

    True for an op of ``POINTWISE`` or ``REDUCTIONS`` whose operands and
    results are tensors of ``names.TRITON_DTYPES``, whose non-tensor
    arguments are concrete (no ``#hop.expr``) and accepted by its rule, and,
    for a reduction, that reduces exactly the last dimension of a float or
    integer input.
    """
    name = op.name
    if name not in POINTWISE and name not in REDUCTIONS:
        return False
    if any(tensor_dtype(v.type) is None for v in (*op.operands, *op.results)) or len(op.results) != 1:
        return False
    scalars = scalar_arguments(op)
    if scalars is None:
        return False
    if name in REDUCTIONS:
        input_dtype = tensor_dtype(op.operands[0].type)
        return (reduction_dim_is_last(op, scalars) and input_dtype != torch.bool
                and (not REDUCTIONS[name].mean or tensor_dtype(op.results[0].type).is_floating_point))
    rule = POINTWISE[name]
    try:
        compute = compute_dtype(op, rule, scalars)
    except (RuntimeError, ValueError, TypeError):
        return False
    return (compute in TRITON_DTYPES and not (rule.numbers_only and compute == torch.bool)
            and rule.accepts(scalars, compute))
