"""Parsing hop-level IR text, with every op located in the input.

``parse_module`` is xDSL's parser with two additions: each op without an
explicit ``loc(...)`` gets the file location where its text starts, and parse
errors become ``HopcError`` diagnostics.
"""

from __future__ import annotations

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, UnknownLoc
from xdsl.ir import Operation
from xdsl.parser import Parser
from xdsl.utils.exceptions import ParseError, VerifyException

from hopc.ir.diagnostics import HopcError, LineIndex, Location


class LocatingParser(Parser):
    """An xDSL parser that stamps each op with the location of its text."""

    def __init__(self, context: Context, text: str, filename: str, line_offset: int = 0):
        super().__init__(context, text, filename)
        self._filename = filename
        self._lines = LineIndex(text, line_offset)

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
    return HopcError(error.msg, Location(filename, line, column))


def parse_module(text: str, context: Context | None = None, *, filename: str = "<input>",
                 line_offset: int = 0) -> ModuleOp:
    """Parses a module (the implicit top-level module allowed); raises ``HopcError``."""
    if context is None:
        from hopc.ir.context import make_context

        context = make_context()
    try:
        return LocatingParser(context, text, filename, line_offset).parse_module()
    except ParseError as error:
        raise parse_error(error, text, filename, line_offset) from None
