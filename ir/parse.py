"""Parsing hop-level IR text, with every op located in the input.

``parse_module`` is xDSL's parser with two additions: each op without an
explicit ``loc(...)`` gets the file location where its text starts, and parse
errors become ``HopcError`` diagnostics.

Note [string literal lexing]: xDSL 0.74 lexes a string literal with the
pattern ``"(?:[^"]+|escape)*"`` (roughly), whose nested repetition backtracks
exponentially when the closing quote is missing, so one unterminated string
on a long line hangs the parser. ``_Lexer`` uses the same pattern with
possessive repetition, which matches the same strings in linear time.
"""

from __future__ import annotations

import re

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, UnknownLoc
from xdsl.ir import Operation
from xdsl.parser import Parser
from xdsl.parser.generic_parser import ParserState
from xdsl.utils.exceptions import ParseError, VerifyException
from xdsl.utils.lexer import Input
from xdsl.utils.mlir_lexer import MLIRLexer, MLIRTokenKind

from hopc.ir.diagnostics import HopcError, LineIndex, Location


class _Lexer(MLIRLexer):
    """MLIR's lexer, with string literals lexed in linear time (Note [string literal lexing])."""

    _unescaped_characters_regex = re.compile(
        r'"(?:[^"\\\n\v\f]++|\\(?:["nt\\]|[0-9A-Fa-f]{2}))*+"'
    )


class LocatingParser(Parser):
    """An xDSL parser that stamps each op with the location of its text."""

    def __init__(self, context: Context, text: str, filename: str, line_offset: int = 0):
        super().__init__(context, "", filename)
        self._parser_state = ParserState(_Lexer(Input(text, filename)))
        self._filename = filename
        self._lines = LineIndex(text, line_offset)

    def parse_module(self, allow_implicit_module: bool = True) -> ModuleOp:
        if self._current_token.kind == MLIRTokenKind.EOF:  # no ops at all: an empty module
            return ModuleOp([])
        return super().parse_module(allow_implicit_module)

    def parse_operation(self) -> Operation:
        start = self._current_token.span.start
        try:
            op = super().parse_operation()
        except (VerifyException, ValueError, TypeError) as error:
            # A malformed property or type found while building the op.
            self.raise_error(str(error).split("\n")[0], start)
        if isinstance(op.location, UnknownLoc):
            line, column = self._lines.line_column(start)
            op.location = Location(self._filename, line, column).attribute()
        return op


def parse_error(error: ParseError, text: str, filename: str, line_offset: int = 0) -> HopcError:
    line, column = LineIndex(text, line_offset).line_column(error.span.start)
    message = error.msg.strip()
    if not message or message.startswith("in "):  # xDSL names only the context of some tokens
        message = f"unexpected '{error.span.text}' {message}".strip()
    return HopcError(message, Location(filename, line, column))


def parse_module(text: str, context: Context | None = None, *, filename: str = "<input>",
                 line_offset: int = 0) -> ModuleOp:
    """Parses a module (the implicit top-level module allowed); raises ``HopcError``."""
    if context is None:
        from hopc.ir.context import make_context

        context = make_context()
    try:
        module = LocatingParser(context, text, filename, line_offset).parse_module()
    except ParseError as error:
        raise parse_error(error, text, filename, line_offset) from None
    if isinstance(module.location, UnknownLoc):  # the implicit module: where its text starts
        module.location = Location(filename, line_offset + 1, 1).attribute()
    return module
