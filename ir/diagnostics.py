"""Located errors: every problem hopc reports names a place in the user's input.

A ``HopcError`` carries a message and a location (file, line, column); its
``format()`` is the MLIR diagnostic ``file:line:col: error: message``. Ops get
their locations from the parser (``hopc.dialects.parse``) or from the frontend (the
user's Python line), so any error raised about an op can be located.

``user_location`` is the user's line in a Python stack (the innermost frame
outside PyTorch's and hopc's sources): the runtime and the frontend locate
errors about a call there. It imports no torch (``is_torch_source``) and no xDSL: a
compiled call's errors, and a compile that the compile cache serves, are located without
it; what reads an op's or attribute's location imports xDSL where it runs.
"""

from __future__ import annotations

import bisect
import importlib.util
import os
import re
import traceback
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from xdsl.dialects.builtin import FileLineColLoc
    from xdsl.ir import Attribute, Operation


@dataclass(frozen=True)
class Location:
    file: str
    line: int
    column: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}"

    def attribute(self) -> FileLineColLoc:
        from xdsl.dialects.builtin import FileLineColLoc, IntAttr, StringAttr

        return FileLineColLoc(StringAttr(self.file), IntAttr(self.line), IntAttr(self.column))


class HopcError(Exception):
    """An error in the user's input or program, with where it is."""

    def __init__(self, message: str, location: Location | None = None):
        super().__init__(message)
        self.message = message
        self.location = location

    def format(self, fallback_file: str = "<unknown>") -> str:
        where = self.location or Location(fallback_file, 1, 1)
        return f"{where}: error: {self.message}"

    def __str__(self) -> str:
        return self.format()


def location_from_attribute(attribute: Attribute) -> Location | None:
    """The file location in an MLIR location attribute, if it has one."""
    from xdsl.dialects.builtin import FileLineColLoc, NameLoc

    if isinstance(attribute, FileLineColLoc):
        return Location(attribute.filename.data, attribute.line.data, attribute.column.data)
    for nested in getattr(attribute, "locations", ()) or ():  # fused locations
        if (found := location_from_attribute(nested)) is not None:
            return found
    if isinstance(attribute, NameLoc):
        return location_from_attribute(attribute.location)
    return None


def location_of(op: Operation | None) -> Location | None:
    """The location of ``op``, or of its nearest located ancestor."""
    while op is not None:
        if (found := location_from_attribute(op.location)) is not None:
            return found
        op = op.parent_op()
    return None


def op_name(op: Operation) -> str:
    """The name the op was written with (an unregistered op's own name too)."""
    written = getattr(op, "op_name", None)  # xDSL's UnregisteredOp keeps it here
    return written.data if written is not None else op.name


def op_error(op: Operation, message: str) -> HopcError:
    """An error about ``op``, located at it: ``'hop.cond' op <message>``."""
    return HopcError(f"'{op_name(op)}' op {message}", location_of(op))


_NEWLINE = re.compile("\n")


class LineIndex:
    """Maps offsets in a text to 1-based (line, column), in O(log n) each."""

    def __init__(self, text: str, line_offset: int = 0):
        self._starts = [0] + [newline.end() for newline in _NEWLINE.finditer(text)]
        self._line_offset = line_offset

    def line_column(self, offset: int) -> tuple[int, int]:
        line = bisect.bisect_right(self._starts, offset) - 1
        return line + 1 + self._line_offset, offset - self._starts[line] + 1


HOPC_PACKAGES = ("hopc", "hopc.ir", "hopc.dialects", "hopc.passes", "hopc.frontend", "hopc.backend")
"""hopc's top-level packages (in an editable install, each a top-level folder of the checkout):
where locations skip hopc's frames, and whose sources the compile cache's key digests."""


@cache
def _source_folders(packages: tuple[str, ...]) -> tuple[str, ...]:
    """The folders of ``packages``, found without importing them (``hopc-opt`` never imports torch)."""
    return tuple(os.path.abspath(folder) + os.sep for package in packages
                 for folder in importlib.util.find_spec(package).submodule_search_locations)


def is_torch_source(path: str) -> bool:
    """Whether ``path`` is one of PyTorch's own source files."""
    return path.startswith(_source_folders(("torch",)))


def is_hopc_source(path: str) -> bool:
    """Whether ``path`` is one of hopc's own source files."""
    return path.startswith(_source_folders(HOPC_PACKAGES))


def user_location(stack: traceback.StackSummary | None) -> Location | None:
    """The innermost frame outside PyTorch's and hopc's sources."""
    for frame in reversed(stack or []):
        if not is_torch_source(frame.filename) and not is_hopc_source(frame.filename):
            column = (frame.colno or 0) + 1
            return Location(frame.filename, frame.lineno or 1, column)
    return None
