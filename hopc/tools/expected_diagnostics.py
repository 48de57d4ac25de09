"""``--verify-diagnostics``: check the errors an input produces against its annotations.

As in ``mlir-opt``, a line ``// expected-error {{text}}`` expects an error whose
message contains ``text`` on that same line; ``@+N``/``@-N`` shift the line,
``@above``/``@below`` mean the previous/next line. The chunk passes when the
errors produced are exactly the expected ones.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from hopc.ir.diagnostics import HopcError

_EXPECTATION = re.compile(
    r"//\s*expected-(error|warning|remark|note)\s*(@(?:[+-]\d+|above|below))?\s*\{\{(.*?)\}\}"
)


@dataclass
class Expectation:
    line: int
    message: str
    annotation_line: int
    matched: bool = False


def expectations(text: str, line_offset: int) -> list[Expectation]:
    found = []
    for index, line_text in enumerate(text.splitlines()):
        for match in _EXPECTATION.finditer(line_text):
            line = index + 1 + line_offset
            shift = match.group(2)
            if shift == "@above":
                target = line - 1
            elif shift == "@below":
                target = line + 1
            elif shift:
                target = line + int(shift[1:])
            else:
                target = line
            found.append(Expectation(target, match.group(3), line))
    return found


def check(expected: list[Expectation], produced: list[HopcError], filename: str) -> list[str]:
    """Messages for each mismatch between expected and produced errors (empty: all good)."""
    problems = []
    for error in produced:
        line = error.location.line if error.location else None
        match = next((e for e in expected if not e.matched and e.line == line
                      and e.message in error.message), None)
        if match is None:
            problems.append(f"{error.format(filename)}\n  (unexpected error)")
        else:
            match.matched = True
    for expectation in expected:
        if not expectation.matched:
            problems.append(f"{filename}:{expectation.annotation_line}:1: error: expected error "
                            f"\"{expectation.message}\" on line {expectation.line} was not produced")
    return problems
