"""The tables of bench/cpu.py: one cell per system and program, footnotes, ratios.

A ``Cell`` holds a figure or why there is none; ``Notes`` numbers the
footnotes that failures (the exception's type in the cell), mismatches with
eager (``!``) and Dynamo's eager fall-backs (``~``) add beside a figure.
"""

from __future__ import annotations


class Cell:
    """One system's figure for one program, or why there is none, and what to mark beside it."""

    def __init__(self, value: float | None = None, failure: tuple[str, str] | None = None,
                 mismatch: str | None = None, fallback: str | None = None):
        self.value, self.failure, self.mismatch, self.fallback = value, failure, mismatch, fallback


class Notes:
    """Footnotes of a table: failures, mismatches (``!``) and eager fall-backs (``~``), numbered."""

    def __init__(self) -> None:
        self.lines: list[str] = []

    def _note(self, where: str, text: str) -> int:
        self.lines.append(f"[{len(self.lines) + 1}] {where}: {text}")
        return len(self.lines)

    def text(self, cell: Cell | None, where: str, digits: int) -> str:
        if cell is None:
            return "-"
        if cell.failure is not None:
            return f"{cell.failure[0]}[{self._note(where, ': '.join(cell.failure))}]"
        text = f"{cell.value:.{digits}f}"
        if cell.fallback is not None:
            text += f"~[{self._note(where, 'part run eagerly by Dynamo after the backend failed: ' + cell.fallback)}]"
        if cell.mismatch is not None:
            text += f"![{self._note(where, cell.mismatch)}]"
        return text


def print_table(header: list[str], rows: list[list[str]]) -> None:
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    for row in [header, *rows]:
        print("  ".join(cell.ljust(w) if i == 0 else cell.rjust(w) for i, (cell, w) in enumerate(zip(row, widths))))


def ratio(numerator: Cell | None, denominator: Cell | None, suffix: str = "x") -> str:
    if numerator is None or denominator is None or numerator.value is None or denominator.value is None:
        return "-"
    return f"{numerator.value / denominator.value:.2f}{suffix}"
