"""Block sizes for generated kernels, chosen on first launch per size class and kept in memory.

Note [autotuning]
~~~~~~~~~~~~~~~~~
A kernel's block size (``XBLOCK`` of a pointwise kernel, ``RBLOCK`` of a
reduction) is chosen per (kernel, size class), the size class being the next
power of two of the pointwise numel or of the reduced row's length: the first
launch in a class times each candidate up to the class (``CANDIDATES``) with
``triton.testing.do_bench`` on scratch outputs (the caller's outputs may be
an input's storage, which a second run would read changed) and keeps the
fastest. Under ``TRITON_INTERPRET=1`` (CPU) nothing is timed: the
interpreter runs each program as NumPy on the host, so a timing measures
Python overhead per program, not the kernel, and always favours the largest
block; the largest candidate up to the class is taken without running.

A reduction program also takes ``rows_per_program`` rows (``YBLOCK``), a
power of two fixed by its ``RBLOCK`` and the row count: as many rows as
``ROW_BLOCK_ELEMENTS`` holds with ``RBLOCK`` columns (64 rows of 16 columns,
one row of 1024), at most the class of the row count.
"""

from __future__ import annotations

from collections.abc import Callable

import torch

from hopc.backend.triton.target import interpreting

CANDIDATES: dict[str, tuple[int, ...]] = {
    "XBLOCK": (128, 256, 512, 1024),
    "RBLOCK": (16, 64, 256, 1024),
}
"""Block sizes tried, per block constexpr; a class smaller than the least gets the least."""


ROW_BLOCK_ELEMENTS = 1024
"""The elements a reduction program holds per column step, ``YBLOCK * RBLOCK``, at most."""


def size_class(size: int) -> int:
    """The next power of two of ``size`` (1 for 0 and 1)."""
    return 1 << max(size - 1, 0).bit_length()


def rows_per_program(column_block: int, rows: int) -> int:
    """``YBLOCK`` of a reduction of ``rows`` rows whose ``RBLOCK`` is ``column_block`` (Note [autotuning])."""
    return max(1, min(ROW_BLOCK_ELEMENTS // column_block, size_class(rows)))


def fitting_blocks(block_name: str, size: int) -> list[int]:
    """The candidates for a launch of ``size``: those up to its class, or the least."""
    return [b for b in CANDIDATES[block_name] if b <= size_class(size)] or [CANDIDATES[block_name][0]]


class Autotuner:
    """The block sizes chosen so far, keyed by (kernel source key, block name, size class)."""

    def __init__(self) -> None:
        self.chosen: dict[tuple[str, str, int], int] = {}

    def block(self, key: str, block_name: str, size: int, run: Callable[[int], None],
              scratch_run: Callable[[int], None]) -> int:
        """The block for a launch of ``size``; ``run(block)`` launches on the caller's outputs.

        On the first launch of a class, ``scratch_run(block)`` (a launch on scratch
        outputs) is timed per candidate; under the interpreter none is (Note [autotuning]).
        """
        entry = (key, block_name, size_class(size))
        if entry not in self.chosen:
            fitting = fitting_blocks(block_name, size)
            if interpreting() or len(fitting) == 1:
                self.chosen[entry] = fitting[-1]
            else:
                self.chosen[entry] = min(fitting, key=lambda b: _time(lambda: scratch_run(b)))
        block = self.chosen[entry]
        run(block)
        return block


def _time(launch: Callable[[], None]) -> float:
    from triton.testing import do_bench

    torch.cuda.synchronize()
    return float(do_bench(launch, warmup=5, rep=20))


AUTOTUNER = Autotuner()
"""The process's tuner, shared by every launcher."""
