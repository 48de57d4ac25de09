"""The autotuner's size classes and its choice under the interpreter (Note [autotuning])."""

from __future__ import annotations

from hopc.backend.triton.autotune import CANDIDATES, Autotuner, size_class


def test_size_class_is_the_next_power_of_two():
    assert [size_class(n) for n in (0, 1, 2, 3, 37, 64, 65)] == [1, 1, 2, 4, 64, 64, 128]


def test_interpreter_takes_the_largest_fitting_block_without_timing(monkeypatch):
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    tuner, launched = Autotuner(), []

    def never_timed(block: int) -> None:
        raise AssertionError("a scratch run under the interpreter")

    assert tuner.block("k", "RBLOCK", 300, launched.append, never_timed) == 256
    assert tuner.block("k", "RBLOCK", 5, launched.append, never_timed) == CANDIDATES["RBLOCK"][0]
    assert tuner.block("k", "RBLOCK", 400, launched.append, never_timed) == 256  # class 512, chosen once
    assert launched == [256, 16, 256]
    assert len(tuner.chosen) == 2
