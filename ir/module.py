"""The structure of a hop-level module: its entry function, signature and shape symbols.

See Note [entry signature] in ``hopc.dialects.hop``. ``entry_signature`` reads
the signature off the entry function's argument and result attributes;
``verify_structure`` checks it and that every shape symbol the module mentions
is declared by a ``hop.symbol``.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, IntegerAttr, ModuleOp, SymbolRefAttr
from xdsl.dialects.func import FuncOp
from xdsl.ir import Attribute, Operation

from hopc.dialects.hop import BufferOp, ConstantOp, ParameterOp, SymbolOp
from hopc.ir.diagnostics import HopcError, location_of, op_error
from hopc.ir.types import Dim, ExprAttr, TensorType, free_symbols_of_types

ARGUMENT_ROLES = {"hop.parameter": ParameterOp, "hop.buffer": BufferOp, "hop.constant": ConstantOp}
COPY_BACK = "hop.copy_back_to"
STRIDES = "hop.strides"


@dataclass(frozen=True)
class EntrySignature:
    """Roles of the entry function's arguments and results."""

    function: FuncOp
    globals_by_argument: dict[int, tuple[str, str]]
    """Argument index -> (role attribute, symbol) for parameters, buffers and constants."""
    user_inputs: tuple[int, ...]
    """Argument indices of the user's inputs, in order."""
    copy_back: dict[int, int]
    """Result index -> the argument index it is the final value of."""
    user_outputs: tuple[int, ...]
    """Result indices of the user's outputs, in order."""
    strides: dict[int, tuple[Dim, ...]]
    """Argument index -> its strides, for the tensor arguments not dense and row-major."""

    def arguments_with_role(self, role: str) -> dict[int, str]:
        return {i: name for i, (r, name) in self.globals_by_argument.items() if r == role}


def entry_function(module: ModuleOp) -> FuncOp:
    """The module's one public ``func.func``."""
    public = [op for op in module.ops if isinstance(op, FuncOp)
              and (op.sym_visibility is None or op.sym_visibility.data == "public")]
    if len(public) != 1:
        names = ": " + ", ".join(f"@{op.sym_name.data}" for op in public) if public else ""
        raise HopcError(f"a hop module needs exactly one public func.func, found "
                        f"{len(public)}{names}",
                        location_of(public[1] if public else module.ops.first or module))
    return public[0]


def _attributes_of(dictionaries: Attribute | None, count: int) -> list[dict[str, Attribute]]:
    if dictionaries is None:
        return [{} for _ in range(count)]
    return [d.data if isinstance(d, DictionaryAttr) else {} for d in dictionaries.data]  # type: ignore[attr-defined]


def entry_signature(module: ModuleOp) -> EntrySignature:
    """Reads and checks the signature of the module's entry function."""
    function = entry_function(module)
    inputs = function.function_type.inputs.data
    outputs = function.function_type.outputs.data
    globals_by_argument: dict[int, tuple[str, str]] = {}
    user_inputs = []
    strides: dict[int, tuple[Dim, ...]] = {}
    for index, attributes in enumerate(_attributes_of(function.arg_attrs, len(inputs))):
        if STRIDES in attributes:
            strides[index] = _strides(function, index, attributes[STRIDES], inputs[index])
        roles = [(k, v) for k, v in attributes.items() if k in ARGUMENT_ROLES]
        if len(roles) > 1:
            raise op_error(function, f"argument {index} has several roles {[k for k, _ in roles]}")
        if not roles:
            user_inputs.append(index)
            continue
        role, reference = roles[0]
        if not isinstance(reference, SymbolRefAttr):
            raise op_error(function, f"argument {index}: {role} must name a symbol, got {reference}")
        globals_by_argument[index] = (role, reference.root_reference.data)
    copy_back: dict[int, int] = {}
    user_outputs = []
    for index, attributes in enumerate(_attributes_of(function.res_attrs, len(outputs))):
        target = attributes.get(COPY_BACK)
        if target is None:
            user_outputs.append(index)
            continue
        if not isinstance(target, IntegerAttr) or not 0 <= target.value.data < len(inputs):
            raise op_error(function, f"result {index}: {COPY_BACK} must be an argument index, got {target}")
        argument = target.value.data
        if outputs[index] != inputs[argument]:
            raise op_error(function, f"result {index} is copied back to argument {argument} but has "
                                     f"type {outputs[index]}, the argument has type {inputs[argument]}")
        copy_back[index] = argument
    return EntrySignature(function, globals_by_argument, tuple(user_inputs), copy_back,
                          tuple(user_outputs), strides)


def _strides(function: FuncOp, index: int, attribute: Attribute, type_: Attribute) -> tuple[Dim, ...]:
    """The dims of a ``hop.strides`` attribute: one integer or expression per dimension."""
    elements = attribute.data if isinstance(attribute, ArrayAttr) else None
    if not isinstance(type_, TensorType) or elements is None or len(elements) != type_.rank or \
            not all(isinstance(e, IntegerAttr | ExprAttr) for e in elements):
        raise op_error(function, f"argument {index}: {STRIDES} must list one integer or "
                                 f"#hop.expr per dimension of a tensor, got {attribute}")
    return tuple(e.value.data if isinstance(e, IntegerAttr) else e.value for e in elements)


def declared_symbols(module: ModuleOp) -> dict[str, SymbolOp]:
    return {op.symbol: op for op in module.ops if isinstance(op, SymbolOp)}


def _check_globals(module: ModuleOp, signature: EntrySignature) -> None:
    globals_by_name = {op.symbol: op for op in module.ops
                       if isinstance(op, (ParameterOp, BufferOp, ConstantOp))}
    inputs = signature.function.function_type.inputs.data
    for index, (role, name) in signature.globals_by_argument.items():
        declared = globals_by_name.get(name)
        if not isinstance(declared, ARGUMENT_ROLES[role]):
            raise op_error(signature.function, f"argument {index}: {role} @{name} is not declared "
                                               f"by a {role} op")
        if declared.tensor_type != inputs[index]:
            raise op_error(signature.function, f"argument {index} has type {inputs[index]}, "
                                               f"but {role} @{name} is {declared.tensor_type}")


def _mentioned_symbols(op: Operation) -> frozenset[str]:
    types = [r.type for r in op.results]
    types += [a.type for region in op.regions for block in region.blocks for a in block.args]
    names = set(free_symbols_of_types(types))
    for attribute in op.properties.values():
        names |= _attribute_symbols(attribute)
    if isinstance(op, (ParameterOp, BufferOp, ConstantOp)) and isinstance(op.tensor_type, TensorType):
        names |= op.tensor_type.free_symbols()
    return frozenset(names)


def _attribute_symbols(attribute: Attribute) -> set[str]:
    if isinstance(attribute, ExprAttr):
        return set(attribute.free_symbols())
    nested = getattr(attribute, "data", None)
    if isinstance(nested, tuple) and nested and isinstance(nested[0], Attribute):
        return set().union(*(_attribute_symbols(a) for a in nested))
    return set()


def verify_structure(module: ModuleOp) -> None:
    """Checks the entry signature and that every mentioned shape symbol is declared."""
    signature = entry_signature(module)
    _check_globals(module, signature)
    declared = declared_symbols(module)
    for op in module.walk():
        undeclared = _mentioned_symbols(op) - declared.keys()
        if undeclared:
            raise op_error(op, f"uses shape symbol '{sorted(undeclared)[0]}', which no hop.symbol "
                               "declares")
