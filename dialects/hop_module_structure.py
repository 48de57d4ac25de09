"""The structure of a hop-level module: its entry functions, their roles, its shape symbols.

See Note [entry signature] in ``hopc.dialects.hop_module``. ``entry_functions``
finds the entries (named by ``hop.entry`` ops, or the single public
``func.func``, the forward); ``entry_signature`` reads one entry's roles
(``hopc.dialects.hop_function_signature``); ``verify_structure`` checks every entry's roles
against the module's globals, its kind and the entry it differentiates, and
that every shape symbol the module mentions is declared by a ``hop.symbol``.
"""

from __future__ import annotations

from xdsl.dialects.builtin import ModuleOp
from xdsl.dialects.func import FuncOp
from xdsl.traits import SymbolTable
from xdsl.utils.exceptions import VerifyException

from hopc.dialects.hop import BufferOp, ConstantOp, ParameterOp, SymbolOp
from hopc.dialects.hop_function_signature import USER, FunctionSignature, function_signature
from hopc.dialects.hop_module import (
    COPY_BACK,
    COTANGENT_OF,
    ENTRY_KIND_BY_NAME,
    GLOBAL_OPS,
    GRADIENT_OF,
    REQUIRES_GRAD,
    SAVED,
    STRIDES,
    EntryKind,
    EntryOp,
)
from hopc.ir.diagnostics import HopcError, location_of, op_error
from hopc.ir.symbol_uses import symbols_mentioned_by

__all__ = ["COPY_BACK", "STRIDES", "FunctionSignature", "entry_function", "entry_functions",
           "entry_signature", "function_signature", "verify_structure"]


def entry_functions(module: ModuleOp) -> dict[str, FuncOp]:
    """Entry kind -> its function, in the order the module names them.

    Those the ``hop.entry`` ops name; a module without any has one entry, its
    single public ``func.func``, the forward (an error otherwise).
    """
    entries = [op for op in module.ops if isinstance(op, EntryOp)]
    if not entries:
        return {"forward": _single_public_function(module)}
    functions: dict[str, FuncOp] = {}
    for entry in entries:
        try:
            entry.verify_()  # the kind is known, the function a func.func: also for unverified modules
        except VerifyException as error:
            raise op_error(entry, str(error).removeprefix("'hop.entry' ")) from None
        function = SymbolTable.lookup_symbol(entry, entry.function)
        assert isinstance(function, FuncOp)
        functions[entry.kind.data] = function
    return functions


def _single_public_function(module: ModuleOp) -> FuncOp:
    public = [op for op in module.ops if isinstance(op, FuncOp)
              and (op.sym_visibility is None or op.sym_visibility.data == "public")]
    if len(public) != 1:
        names = ": " + ", ".join(f"@{op.sym_name.data}" for op in public) if public else ""
        raise HopcError(f"a hop module needs exactly one public func.func, found "
                        f"{len(public)}{names}",
                        location_of(public[1] if public else module.ops.first or module))
    return public[0]


def entry_function(module: ModuleOp, kind: str = "forward") -> FuncOp:
    """The module's entry function of ``kind`` (by default its forward, the single public one)."""
    functions = entry_functions(module)
    if kind not in functions:
        raise HopcError(f"the module has no {kind} entry (no 'hop.entry {kind}' op)",
                        location_of(module.ops.first or module))
    return functions[kind]


def entry_signature(module: ModuleOp, kind: str = "forward") -> FunctionSignature:
    """The roles of the arguments and results of the module's entry function of ``kind``."""
    return function_signature(entry_function(module, kind))


def declared_symbols(module: ModuleOp) -> dict[str, SymbolOp]:
    return {op.symbol: op for op in module.ops if isinstance(op, SymbolOp)}


def _check_globals(module: ModuleOp, signature: FunctionSignature) -> None:
    globals_by_name = {op.symbol: op for op in module.ops
                       if isinstance(op, (ParameterOp, BufferOp, ConstantOp))}
    inputs = signature.function.function_type.inputs.data
    for index, (role, name) in signature.globals_by_argument.items():
        declared = globals_by_name.get(name)
        if not isinstance(declared, GLOBAL_OPS[role]):
            raise op_error(signature.function, f"argument {index}: {role} @{name} is not declared "
                                               f"by a {role} op")
        if declared.tensor_type != inputs[index]:
            raise op_error(signature.function, f"argument {index} has type {inputs[index]}, "
                                               f"but {role} @{name} is {declared.tensor_type}")


def verify_structure(module: ModuleOp) -> None:
    """Checks every entry's roles (Note [entry signature]) and that every mentioned shape symbol is declared."""
    signatures = {kind: function_signature(function) for kind, function in entry_functions(module).items()}
    for kind, signature in signatures.items():
        _check_globals(module, signature)
        _check_placement(ENTRY_KIND_BY_NAME[kind], signature)
        _check_saved_numbering(signature)
    for kind, signature in signatures.items():
        differentiated = ENTRY_KIND_BY_NAME[kind].differentiates
        if differentiated is not None:  # named too: entry_functions checked each hop.entry
            _check_differentiation(signature, signatures[differentiated])
    declared = declared_symbols(module)
    for op in module.walk():
        undeclared = set(symbols_mentioned_by(op)) - declared.keys()
        if undeclared:
            raise op_error(op, f"uses shape symbol '{sorted(undeclared)[0]}', which no hop.symbol "
                               "declares")


def _check_placement(kind: EntryKind, signature: FunctionSignature) -> None:
    """Every role of the entry is one an entry of ``kind`` may have."""
    arguments = [(index, role.kind) for index, role in enumerate(signature.arguments) if role.kind != USER]
    arguments += [(index, REQUIRES_GRAD) for index in sorted(signature.requires_grad)]
    for index, role in arguments:
        if role not in kind.argument_roles:
            raise op_error(signature.function, f"@{signature.name} argument {index}: a {kind.name} "
                                               f"entry takes no {role} argument")
    for index, result in enumerate(signature.results):
        if result.kind != USER and result.kind not in kind.result_roles:
            raise op_error(signature.function, f"@{signature.name} result {index}: a {kind.name} "
                                               f"entry returns no {result.kind} result")


def _check_saved_numbering(signature: FunctionSignature) -> None:
    """The saved results are numbered 0..n-1, each once."""
    saved = signature.result_indices(SAVED)
    first_result: dict[int, int] = {}
    for index, number in saved.items():
        if number in first_result:
            raise op_error(signature.function, f"@{signature.name} result {index}: saved value "
                                               f"{number} is already result {first_result[number]}")
        first_result[number] = index
        if number >= len(saved):
            raise op_error(signature.function, f"@{signature.name} result {index}: {SAVED} = {number}, "
                                               f"but its {len(saved)} saved values are numbered "
                                               f"0..{len(saved) - 1}")


def differentiable_results(signature: FunctionSignature) -> list[int]:
    """The results of ``signature`` a cotangent may be given for: the user outputs, and the
    copy-backs of arguments marked ``hop.requires_grad`` (Note [entry signature])."""
    copied_with_gradient = [r for r, a in signature.copy_back.items() if a in signature.requires_grad]
    return sorted([*signature.user_outputs, *copied_with_gradient])


def _check_differentiation(signature: FunctionSignature, reference: FunctionSignature) -> None:
    """Saved values, cotangents and gradients of ``signature`` match ``reference``, the entry it differentiates."""
    inputs = signature.function.function_type.inputs.data
    outputs = signature.function.function_type.outputs.data
    reference_outputs = reference.function.function_type.outputs.data
    reference_inputs = reference.function.function_type.inputs.data
    saved = reference.saved_results
    checks = [  # (what, own index -> target, own types, allowed target -> its type, why a target is wrong)
        ("argument", SAVED, signature.argument_indices(SAVED), inputs,
         {k: (f"result {r}", reference_outputs[r]) for k, r in saved.items()}, "saves no such value"),
        ("argument", COTANGENT_OF, signature.cotangent_arguments, inputs,
         {r: (f"result {r}", reference_outputs[r]) for r in differentiable_results(reference)},
         f"has no such user output, nor a copy-back of an argument marked {REQUIRES_GRAD}"),
        ("result", GRADIENT_OF, signature.gradient_results, outputs,
         {a: (f"argument {a}", reference_inputs[a]) for a in sorted(reference.requires_grad)},
         f"has no such argument marked {REQUIRES_GRAD}"),
    ]
    for what, role, targets, types, allowed, why in checks:
        first: dict[int, int] = {}
        for index, target in targets.items():
            here = f"@{signature.name} {what} {index} ({role} = {target})"
            if target in first:
                raise op_error(signature.function, f"{here}: {what} {first[target]} has the same role")
            first[target] = index
            if target not in allowed:
                raise op_error(signature.function, f"{here}: @{reference.name} {why}")
            there, expected = allowed[target]
            if types[index] != expected:
                raise op_error(signature.function, f"{here} has type {types[index]}, but @{reference.name} "
                                                   f"{there} has type {expected}")
    missing = sorted(saved.keys() - signature.saved_arguments.keys())
    if missing:
        raise op_error(signature.function, f"@{signature.name} takes {len(signature.saved_arguments)} "
                                           f"saved values, @{reference.name} saves {len(saved)}: no "
                                           f"argument takes {SAVED} = {missing[0]} "
                                           f"(@{reference.name} result {saved[missing[0]]})")
