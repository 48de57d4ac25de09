"""``--verify-diagnostics``: check the errors an input produces against its annotations.

As in ``mlir-opt``, a line ``// expected-error {{text}}`` expects an error whose
message contains ``text`` on that same line; ``@+N``/``@-N`` shift the line,
``@above``/``@below`` mean the previous/next line. The chunk passes when the
errors produced are exactly the expected ones. Mismatches are reported in
mlir-opt's words: ``file:L:C: error: unexpected error: ...`` at the error, and
``file:L:C: error: expected error "..." was not produced`` at the annotation.
hopc reports only errors, so an expected warning, remark or note never matches.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from hopc.ir.diagnostics import HopcError, Location

_EXPECTATION = re.compile(
    r"//\s*(?P<keyword>expected-(?P<kind>error|warning|remark|note))"
    r"\s*(?P<shift>@(?:[+-]\d+|above|below))?\s*\{\{(?P<message>.*?)\}\}"
)


@dataclass
class Expectation:
    """An annotation: an error (or ``kind``) whose message contains ``message`` on ``line``.

    ``annotation`` is where the annotation is written; ``matched`` turns true
    once a produced diagnostic has been matched to it, and at most one is.
    """

    kind: str
    line: int
    message: str
    annotation: Location
    matched: bool = False


def expectations(text: str, line_offset: int, filename: str) -> list[Expectation]:
    """The annotations in ``text``, a chunk whose first line is ``line_offset + 1``."""
    found = []
    for index, line_text in enumerate(text.splitlines()):
        for match in _EXPECTATION.finditer(line_text):
            line = index + 1 + line_offset
            shift = match["shift"]
            if shift == "@above":
                target = line - 1
            elif shift == "@below":
                target = line + 1
            elif shift:
                target = line + int(shift[1:])
            else:
                target = line
            annotation = Location(filename, line, match.start("keyword") + 1)
            found.append(Expectation(match["kind"], target, match["message"], annotation))
    return found


def check(expected: list[Expectation], produced: list[HopcError], filename: str) -> list[str]:
    """Messages for each mismatch between expected and produced errors (empty: all good)."""
    problems = []
    for error in produced:
        line = error.location.line if error.location else None
        match = next((e for e in expected if not e.matched and e.kind == "error"
                      and e.line == line and e.message in error.message), None)
        if match is None:
            problems.append(HopcError(f"unexpected error: {error.message}",
                                      error.location).format(filename))
        else:
            match.matched = True
    for expectation in expected:
        if not expectation.matched:
            problems.append(f"{expectation.annotation}: error: expected {expectation.kind} "
                            f"\"{expectation.message}\" was not produced")
    return problems
