"""The roles of a function's arguments and results, read off their attributes.

``function_signature(function)`` gives each argument and result of a
``func.func`` its ``Role`` (Note [entry signature] in
``hopc.dialects.hop_module``) and checks what one function alone can say: a
role attribute has a value of the right kind, exclusive roles are not
combined, a copied-back result has its argument's type. What needs the module
(globals declared, which kind of entry may use a role, forward and backward
agreeing) is ``hopc.dialects.hop_module_structure``'s.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, IntegerAttr, SymbolRefAttr, UnitAttr
from xdsl.dialects.func import FuncOp
from xdsl.ir import Attribute

from hopc.dialects.hop_module import (
    ARGUMENT_ROLES,
    COPY_BACK,
    COTANGENT_OF,
    GLOBAL_ROLES,
    GRADIENT_OF,
    PARAMETER,
    REQUIRES_GRAD,
    RESULT_ROLES,
    SAVED,
    STRIDES,
)
from hopc.ir.diagnostics import op_error
from hopc.ir.dims import Dim
from hopc.ir.types import ExprAttr, TensorType

USER = "user"
"""The role of an unmarked argument (a user input) or result (a user output)."""


@dataclass(frozen=True)
class Role:
    """What one argument or result is: ``kind`` is a role attribute's name or ``USER``.

    ``target`` is what the attribute names: a global's symbol for the global
    roles, an index for the others (a saved value's number, an argument or
    result position), ``None`` for ``USER``.
    """

    kind: str
    target: str | int | None = None


@dataclass(frozen=True)
class FunctionSignature:
    """The roles of one function's arguments and results (Note [entry signature]).

    Invariant: ``arguments`` and ``results`` have one role per argument and
    result of ``function``; ``requires_grad`` holds only user inputs and
    parameters.
    """

    function: FuncOp
    arguments: tuple[Role, ...]
    results: tuple[Role, ...]
    requires_grad: frozenset[int]
    """Argument indices marked ``hop.requires_grad``."""
    strides: dict[int, tuple[Dim, ...]]
    """Argument index -> its strides, for the tensor arguments not dense and row-major."""

    @property
    def name(self) -> str:
        return self.function.sym_name.data

    def arguments_with_role(self, kind: str) -> dict[int, str | int | None]:
        """Argument index -> the role's target, for the arguments whose role is ``kind``."""
        return {i: role.target for i, role in enumerate(self.arguments) if role.kind == kind}

    def results_with_role(self, kind: str) -> dict[int, str | int | None]:
        """Result index -> the role's target, for the results whose role is ``kind``."""
        return {i: role.target for i, role in enumerate(self.results) if role.kind == kind}

    @property
    def user_inputs(self) -> tuple[int, ...]:
        """Argument indices of the user's inputs, in order."""
        return tuple(self.arguments_with_role(USER))

    @property
    def user_outputs(self) -> tuple[int, ...]:
        """Result indices of the user's outputs, in order."""
        return tuple(self.results_with_role(USER))

    def argument_indices(self, kind: str) -> dict[int, int]:
        """Argument index -> the index its role names, for the arguments whose index role is ``kind``."""
        return _indices(self.arguments, kind)

    def result_indices(self, kind: str) -> dict[int, int]:
        """Result index -> the index its role names, for the results whose index role is ``kind``."""
        return _indices(self.results, kind)

    @property
    def globals_by_argument(self) -> dict[int, tuple[str, str]]:
        """Argument index -> (role attribute, symbol) for parameters, buffers and constants."""
        return {i: (role.kind, role.target) for i, role in enumerate(self.arguments)
                if role.kind in GLOBAL_ROLES and isinstance(role.target, str)}

    @property
    def copy_back(self) -> dict[int, int]:
        """Result index -> the argument index it is the final value of."""
        return self.result_indices(COPY_BACK)

    @property
    def saved_results(self) -> dict[int, int]:
        """Saved value number -> the result index that saves it (a forward's)."""
        return {k: i for i, k in self.result_indices(SAVED).items()}

    @property
    def saved_arguments(self) -> dict[int, int]:
        """Saved value number -> the argument index that takes it (a backward's)."""
        return {k: i for i, k in self.argument_indices(SAVED).items()}

    @property
    def cotangent_arguments(self) -> dict[int, int]:
        """Argument index -> the result of the differentiated function it is the cotangent of."""
        return self.argument_indices(COTANGENT_OF)

    @property
    def gradient_results(self) -> dict[int, int]:
        """Result index -> the argument of the differentiated function it is the gradient of."""
        return self.result_indices(GRADIENT_OF)


def _indices(roles: tuple[Role, ...], kind: str) -> dict[int, int]:
    return {i: role.target for i, role in enumerate(roles) if role.kind == kind and isinstance(role.target, int)}


def function_signature(function: FuncOp) -> FunctionSignature:
    """Reads the roles of ``function``'s arguments and results; raises a located ``HopcError``."""
    inputs = function.function_type.inputs.data
    outputs = function.function_type.outputs.data
    arguments, requires_grad, strides = [], set(), {}
    for index, attributes in enumerate(_attributes_of(function.arg_attrs, len(inputs))):
        if STRIDES in attributes:
            strides[index] = _strides(function, index, attributes[STRIDES], inputs[index])
        role = _role(function, "argument", index, attributes, ARGUMENT_ROLES)
        if REQUIRES_GRAD in attributes:
            if not isinstance(attributes[REQUIRES_GRAD], UnitAttr):
                raise op_error(function, f"argument {index}: {REQUIRES_GRAD} is a unit attribute, "
                                         f"got {attributes[REQUIRES_GRAD]}")
            if role.kind not in (USER, PARAMETER):
                raise op_error(function, f"argument {index}: {REQUIRES_GRAD} marks a user input or "
                                         f"a parameter, not a {role.kind} argument")
            requires_grad.add(index)
        arguments.append(role)
    results = []
    for index, attributes in enumerate(_attributes_of(function.res_attrs, len(outputs))):
        role = _role(function, "result", index, attributes, RESULT_ROLES)
        results.append(role)
        argument = role.target
        if role.kind != COPY_BACK or not isinstance(argument, int):
            continue
        if argument >= len(inputs):
            raise op_error(function, f"result {index}: {COPY_BACK} must be an argument index, "
                                     f"got {attributes[COPY_BACK]}")
        if outputs[index] != inputs[argument]:
            raise op_error(function, f"result {index} is copied back to argument {argument} but has "
                                     f"type {outputs[index]}, the argument has type {inputs[argument]}")
    return FunctionSignature(function, tuple(arguments), tuple(results), frozenset(requires_grad), strides)


def _attributes_of(dictionaries: ArrayAttr[DictionaryAttr] | None, count: int) -> list[dict[str, Attribute]]:
    if dictionaries is None:
        return [{} for _ in range(count)]
    return [dict(d.data) for d in dictionaries.data]


def _role(function: FuncOp, what: str, index: int, attributes: dict[str, Attribute],
          exclusive: tuple[str, ...]) -> Role:
    """The one role among ``exclusive`` that ``attributes`` give, or ``USER``."""
    marked = [(kind, value) for kind, value in attributes.items() if kind in exclusive]
    if len(marked) > 1:
        raise op_error(function, f"{what} {index} has several roles {[kind for kind, _ in marked]}")
    if not marked:
        return Role(USER)
    kind, value = marked[0]
    if kind in GLOBAL_ROLES:
        if not isinstance(value, SymbolRefAttr):
            raise op_error(function, f"{what} {index}: {kind} must name a symbol, got {value}")
        return Role(kind, value.root_reference.data)
    if not isinstance(value, IntegerAttr) or value.value.data < 0:
        what_it_names = "an argument index" if kind == COPY_BACK else "a non-negative integer"
        raise op_error(function, f"{what} {index}: {kind} must be {what_it_names}, got {value}")
    return Role(kind, value.value.data)


def _strides(function: FuncOp, index: int, attribute: Attribute, type_: Attribute) -> tuple[Dim, ...]:
    """The dims of a ``hop.strides`` attribute: one integer or expression per dimension."""
    elements = attribute.data if isinstance(attribute, ArrayAttr) else None
    if not isinstance(type_, TensorType) or elements is None or len(elements) != type_.rank or \
            not all(isinstance(e, IntegerAttr | ExprAttr) for e in elements):
        raise op_error(function, f"argument {index}: {STRIDES} must list one integer or "
                                 f"#hop.expr per dimension of a tensor, got {attribute}")
    return tuple(e.value.data if isinstance(e, IntegerAttr) else e.value for e in elements)

