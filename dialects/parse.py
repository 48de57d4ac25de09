"""Parsing hop-level IR text, with every op located in the input.

``parse_module`` is xDSL's parser with these additions: each op without an
explicit ``loc(...)`` gets the file location where its text starts; parse
errors become ``HopcError`` diagnostics; and where xDSL's message is vague,
the error names what is wrong and where (an unclosed bracket in a type body,
an op the input ends inside, a stray token at the top level, the first use of
an undefined value, nesting too deep).

Note [string literal lexing]: xDSL 0.74 lexes a string literal with the
pattern ``"(?:[^"]+|escape)*"`` (roughly), whose nested repetition backtracks
exponentially when the closing quote is missing, so one unterminated string
on a long line hangs the parser. ``_Lexer`` uses the same pattern with
possessive repetition, which matches the same strings in linear time.

Note [region value scopes]: xDSL 0.74 opens the value scope of each region
with a copy of the whole table of SSA names in scope, and restores that copy
after the region, so a module costs its regions times its values: quadratic
(a 36k-op module of 1.6k regions spent a quarter of its parse copying).
``LocatingParser`` gives each region a ``ChainMap`` child of the enclosing
scope instead: a name defined in the region goes into the child and is gone
after it; a lookup sees the enclosing scopes, one dictionary per level of
nesting, exactly the names the copy held.

Note [deep nesting]: parsing recurses through about 11 Python frames per
level of op nesting (printing 6, verifying 3, each pass at most 5, measured
with xDSL 0.74 on CPython 3.11). The parser refuses an op inside more than
``MAX_REGION_NESTING`` regions with a located error, and ``hopc-opt`` runs with
a recursion limit of ``RECURSION_PER_NESTED_REGION`` frames per allowed level
(and a thread stack to match), so every stage handles any module the parser accepts.
Elsewhere (``hopc.parse`` from Python) the caller's recursion limit applies;
running out of it while parsing is the same located "nesting too deep" error.
"""

from __future__ import annotations

import re
from collections import ChainMap
from collections.abc import Iterable
from typing import NoReturn

from xdsl.context import Context
from xdsl.dialect_interfaces.op_asm import OpAsmDialectInterface
from xdsl.dialects.builtin import ModuleOp, UnknownLoc
from xdsl.ir import Attribute, Operation, Region, SSAValue
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.parser.generic_parser import ParserState
from xdsl.utils.exceptions import ParseError, VerifyException
from xdsl.utils.lexer import Input, Position, Span
from xdsl.utils.mlir_lexer import MLIRLexer, MLIRTokenKind

from hopc.ir.diagnostics import HopcError, LineIndex, Location
from hopc.ir.resources import ResourceBlobs, parse_blob_text, rename_resources

MAX_REGION_NESTING = 1000
"""The most regions, one inside the other, that an op may be in (Note [deep nesting])."""

RECURSION_PER_NESTED_REGION = 32
"""Python frames a tool allows per level of op nesting: 3x the most any stage needs."""

_MODULE_SPELLINGS = ("builtin.module", "module", '"builtin.module"')

_CLOSER = {"<": ">", "(": ")", "[": "]", "{": "}"}


class _Lexer(MLIRLexer):
    """MLIR's lexer, with string literals lexed in linear time (Note [string literal lexing])."""

    _unescaped_characters_regex = re.compile(
        r'"(?:[^"\\\n\v\f]++|\\(?:["nt\\]|[0-9A-Fa-f]{2}))*+"'
    )


class LocatingParser(Parser):
    """An xDSL parser that stamps each op with the location of its text.

    Invariant: ``_open_ops`` holds the start offsets of the ops whose parsing
    has begun and not finished, outermost first; after a parse error, those the
    error happened inside. An op is inside one region per open op, plus
    ``_implicit_regions``: 1 for the implicit top-level module, else 0.
    """

    def __init__(self, context: Context, text: str, filename: str, line_offset: int = 0):
        super().__init__(context, "", filename)
        self._parser_state = ParserState(_Lexer(Input(text, filename)))
        self._text = text
        self._lines = LineIndex(text, line_offset)
        self._filename = filename
        self._open_ops: list[int] = []
        self._implicit_regions = 1
        self._first_forward_use: dict[str, Span] = {}
        self._renamed_resources: dict[str, str] = {}

    def parse_module(self, allow_implicit_module: bool = True) -> ModuleOp:
        if self._at_end():  # no ops at all: an empty module
            return ModuleOp([])
        self._implicit_regions = 0 if self._current_token.text in _MODULE_SPELLINGS else 1
        try:
            module = super().parse_module(allow_implicit_module)
            rename_resources(module, self._renamed_resources)
            return module
        except RecursionError:
            self.raise_error("nesting too deep to parse (Python's recursion limit was reached here)")
        except ParseError as error:
            if error.msg == "Could not parse entire input!" and self._at_end():
                return ModuleOp([])  # symbol aliases and no op: an empty module, as in MLIR
            self._raise_clearer(error)

    def parse_operation(self) -> Operation:
        start = self._current_token.span.start
        if len(self._open_ops) + self._implicit_regions > MAX_REGION_NESTING:
            self.raise_error(f"nesting too deep: this op is inside more than "
                             f"{MAX_REGION_NESTING} nested regions", start)
        self._open_ops.append(start)
        try:
            op = super().parse_operation()
        except (VerifyException, ValueError, TypeError) as error:
            # A malformed property or type found while building the op.
            self.raise_error(str(error).split("\n")[0], start)
        self._open_ops.pop()
        if isinstance(op.location, UnknownLoc):
            line, column = self._lines.line_column(start)
            op.location = Location(self._filename, line, column).attribute()
        return op

    def parse_optional_region(self, arguments: Iterable[Parser.Argument] | None = None) -> Region | None:
        """xDSL's, in a value scope of its own that copies nothing (Note [region value scopes])."""
        enclosing = self.ssa_values
        self.ssa_values = ChainMap({}, enclosing)
        try:
            return super().parse_optional_region(arguments)
        finally:
            self.ssa_values = enclosing

    def _get_op_by_name(self, name: str) -> type[Operation]:
        if name.startswith("custom.") and self.ctx.get_optional_op(name) is None:
            from hopc.dialects.custom import unregistered_message

            self.raise_error(unregistered_message(name), self._open_ops[-1] if self._open_ops else None)
        return super()._get_op_by_name(name)

    def _parse_resource(self, dialect_name: str, interface: OpAsmDialectInterface) -> None:
        """One blob of the resource section, bound in the store; a handle that names other
        bytes already is bound afresh and renamed in the module (Note [one blob store] in
        ``hopc.ir.resources``)."""
        if not isinstance(interface, ResourceBlobs):
            return super()._parse_resource(dialect_name, interface)
        handle = self.parse_identifier(" for resource handle")
        self._parse_token(MLIRTokenKind.COLON, "expected `:`")
        start = self._current_token.span.start
        try:
            blob = parse_blob_text(self.parse_str_literal())
        except ValueError as error:
            self.raise_error(f"resource '{handle}': {error}", start)
        bound = interface.intern(handle, blob)
        if bound != handle:
            self._renamed_resources[handle] = bound

    def resolve_operand(self, operand: UnresolvedOperand, type: Attribute) -> SSAValue:
        if operand.operand_name not in self.ssa_values:
            self._first_forward_use.setdefault(operand.operand_name, operand.span)
        return super().resolve_operand(operand, type)

    def _raw_scan_balanced(self, pos: Position) -> Position:
        """xDSL's scan for the ``>`` that ends a dialect type or attribute body.

        Its errors name the bracket left open: ``'[' at 1:30 is not closed:
        expected ']', found '>'``, at the bracket found instead, or at the open
        bracket when the input ends first.
        """
        try:
            return super()._raw_scan_balanced(pos)
        except ParseError as error:
            unbalanced = error.msg.startswith("Unbalanced")
            if not (unbalanced or error.msg.startswith("Unexpected end of file")):
                raise
            found = error.span.start if unbalanced else len(self._text)
            opened = _open_brackets(self._text, pos - 1, found)
            if not opened:  # the body's '<' is missing too: the input ended before it
                raise
            closer = _CLOSER[self._text[opened[-1]]]
            if unbalanced:
                self.raise_error(f"{self._bracket(opened[-1])} is not closed: expected "
                                 f"'{closer}', found '{self._text[found]}'", found)
            self.raise_error(f"'{self._text[opened[-1]]}' is not closed: expected '{closer}' "
                             f"before the end of the input", opened[-1])

    def _bracket(self, offset: int) -> str:
        line, column = self._lines.line_column(offset)
        return f"'{self._text[offset]}' at {line}:{column}"

    def _at_end(self) -> bool:
        return self._current_token.kind == MLIRTokenKind.EOF

    def _raise_clearer(self, error: ParseError) -> NoReturn:
        """Raises ``error``, or a clearer error where xDSL's message is vague."""
        token = self._current_token
        if error.span.start >= len(self._text) and self._open_ops:
            self.raise_error("unexpected end of the input: this op is not finished",
                             self._open_ops[-1])
        if error.msg == "Could not parse entire input!":  # a token that starts no op
            self.raise_error(f"expected an operation, found '{token.text}'")
        if error.msg.startswith("values used but not defined"):
            uses = [self._first_forward_use[name] for name in self.forward_ssa_references]
            first = min(uses, key=lambda span: span.start)
            self.raise_error(f"use of undefined value {first.text}", first)
        raise error


def _open_brackets(text: str, start: int, end: int) -> list[int]:
    """Offsets of the brackets opened in ``text[start:end]`` and not closed there.

    Innermost last; scanned as xDSL scans a dialect symbol body: string literals
    are skipped, ``->`` is no bracket. ``text[start:end]`` closes only what it
    opened (xDSL's scan checked that before it failed at ``end``).
    """
    stack: list[int] = []
    at = start
    while at < end:
        character = text[at]
        if character in _CLOSER:
            stack.append(at)
        elif character == "-" and text.startswith(">", at + 1):
            at += 1
        elif character in ")]}>":
            stack.pop()
        elif character == '"':
            at += 1
            while at < end and text[at] != '"':
                at += 2 if text[at] == "\\" else 1
        at += 1
    return stack


def parse_error(error: ParseError, text: str, filename: str, line_offset: int = 0) -> HopcError:
    """``error`` as a located diagnostic, with xDSL's words mended where they say too little."""
    line, column = LineIndex(text, line_offset).line_column(error.span.start)
    message = error.msg.strip()
    if message == "Expected suffix identifier after {first_char}":  # xDSL 0.74's unformatted text
        message = f"expected a name after '{error.span.text[:1]}'"
    if not message or message.startswith("in "):  # xDSL names only the context of some tokens
        message = f"unexpected '{error.span.text}' {message}".strip()
    return HopcError(message, Location(filename, line, column))


def parse_module(text: str, context: Context | None = None, *, filename: str = "<input>",
                 line_offset: int = 0) -> ModuleOp:
    """Parses a module (the implicit top-level module allowed); raises ``HopcError``."""
    if context is None:
        from hopc.dialects.context import make_context

        context = make_context()
    try:
        module = LocatingParser(context, text, filename, line_offset).parse_module()
    except ParseError as error:
        raise parse_error(error, text, filename, line_offset) from None
    if isinstance(module.location, UnknownLoc):  # the implicit module: where its text starts
        module.location = Location(filename, line_offset + 1, 1).attribute()
    return module
