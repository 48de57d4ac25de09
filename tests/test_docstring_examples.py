"""Every IR example in a dialect's docstrings parses and verifies.

An example is a reST literal block: the indented lines after a paragraph that
ends in ``::`` (the Python semantics blocks of op docstrings are indented
without ``::``, and are not IR). The examples are collected at test time from
every hopc dialect of ``hopc.registry``: the docstrings of its op classes, of
the other op classes defined beside them (``AtenOp``), and of their modules.

An example is a sequence of ops. Its symbol ops (``hop.symbol``,
``hop.parameter``, ``func.func``...) go to the module level; the other ops go
into the body of a ``func.func @example`` whose arguments are the values the
example uses without defining (``%x`` below), typed as the example uses them:

    %s = aten.sin(%x) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>

The wrapped module must verify as any hop module does (every shape symbol
that the example mentions is declared by a ``hop.symbol`` in it).
"""

from __future__ import annotations

import inspect
import sys
from types import ModuleType

import pytest
from xdsl.dialects.builtin import ModuleOp
from xdsl.dialects.func import FuncOp, ReturnOp
from xdsl.ir import Block, Operation, Region
from xdsl.irdl import IRDLOperation
from xdsl.parser import Parser
from xdsl.traits import SymbolOpInterface
from xdsl.utils.exceptions import ParseError

from hopc import registry
from hopc.dialects.context import make_context
from hopc.dialects.verify import verify_module
from hopc.ir.diagnostics import HopcError


def _documented_objects() -> dict[str, object]:
    """Qualified name -> each op class and module whose docstring may hold examples."""
    objects: dict[str, object] = {}
    for reference in registry.DIALECTS.values():
        if not reference.startswith("hopc."):
            continue
        dialect = registry.load(reference)
        modules = {sys.modules[reference.split(":")[0]]}
        modules |= {sys.modules[op.__module__] for op in dialect.operations}
        for op in dialect.operations:
            objects[f"{op.__module__}.{op.__qualname__}"] = op
        for module in modules:
            objects[module.__name__] = module
            for name, value in vars(module).items():
                if (inspect.isclass(value) and issubclass(value, IRDLOperation)
                        and value.__module__ == module.__name__):
                    objects[f"{module.__name__}.{name}"] = value
    return objects


def literal_blocks(docstring: str) -> list[str]:
    """The reST literal blocks of a docstring, dedented, in order."""
    lines = inspect.cleandoc(docstring).splitlines()
    blocks = []
    for index, line in enumerate(lines):
        if not line.rstrip().endswith("::"):
            continue
        body: list[str] = []
        for following in lines[index + 1:]:
            if following.strip() and not following.startswith((" ", "\t")):
                break
            body.append(following)
        blocks.append(inspect.cleandoc("\n".join(body)))
    return blocks


def _examples() -> list[tuple[str, str]]:
    examples = []
    for name, documented in sorted(_documented_objects().items()):
        docstring = documented.__doc__ if isinstance(documented, ModuleType) \
            else inspect.getdoc(documented)
        for number, block in enumerate(literal_blocks(docstring or "")):
            examples.append((f"{name}[{number}]", block))
    return examples


EXAMPLES = _examples()


def wrapped(example: str) -> ModuleOp:
    """The example as a module: free values become arguments of ``func.func @example``."""
    parser = Parser(make_context(), example, "<example>")
    ops: list[Operation] = []
    while (op := parser.parse_optional_operation()) is not None:
        ops.append(op)
    if example[parser.pos:].strip():
        parser.raise_error("expected an operation")
    body = Block()
    for name, reference in parser.forward_ssa_references.items():
        for free_value in reference.values():
            argument = body.insert_arg(free_value.type, len(body.args))
            argument.name_hint = name
            free_value.replace_all_uses_with(argument)
    symbols = [op for op in ops if op.has_trait(SymbolOpInterface) or isinstance(op, FuncOp)]
    body.add_ops([op for op in ops if op not in symbols] + [ReturnOp()])
    function = FuncOp("example", ([a.type for a in body.args], []), Region(body))
    return ModuleOp([*symbols, function])


def test_examples_are_collected():
    """Collection finds the examples of op classes and of the dialect modules."""
    names = {name.rsplit("[", 1)[0] for name, _ in EXAMPLES}
    assert {"hopc.dialects.hops.control_flow.CondOp", "hopc.dialects.hops.control_flow.WhileOp",
            "hopc.dialects.aten"} <= names


def test_wrapping_makes_free_values_arguments():
    module = wrapped("%s = aten.sin(%x) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>")
    function = module.ops.last
    assert [str(t) for t in function.function_type.inputs] == ["!hop.tensor<[4], f32>"]
    verify_module(module)


def test_literal_blocks_end_at_the_next_paragraph():
    text = "Summary.\n\nExample::\n\n    %a = x\n\n      %b = y\nAfter.\n"
    assert literal_blocks(text) == ["%a = x\n\n  %b = y"]


@pytest.mark.parametrize("example", [e for _, e in EXAMPLES], ids=[n for n, _ in EXAMPLES])
def test_example_parses_and_verifies(example: str):
    verify_module(wrapped(example))


def test_an_incomplete_example_fails():
    """``...`` in place of a body is no IR: the check rejects it."""
    with pytest.raises(ParseError):
        wrapped("%r = hop.wrap(%x) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32> {\n"
                "^bb0(%a: !hop.tensor<[4], f32>): ... hop.yield %a : !hop.tensor<[4], f32>\n}")


def test_an_undeclared_symbol_fails_verification():
    with pytest.raises(HopcError, match="u0"):
        verify_module(wrapped("%u = hop.item %t : !hop.tensor<[], i64> -> !hop.symint<u0>"))
