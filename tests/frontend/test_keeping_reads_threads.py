"""Lowerings to ATen in two threads at once patch ``dedupe_symints`` one at a time
(Note [one patch at a time] in ``hopc.frontend.aten_lowering``)."""

from __future__ import annotations

import threading

from torch._inductor.fx_passes import dedupe_symint_uses

from hopc.frontend.aten_lowering import _keeping_reads

_WAIT = 0.5
"""Seconds each thread waits for the other: with the lock, the second is never inside while
the first is, and the first has left before the second enters."""


def test_a_thread_leaving_first_leaves_torch_as_it_was():
    """Unlocked, the second thread would enter while the first is inside, the first would
    restore torch's function, and the second would then put the first's patch back for good."""
    original = dedupe_symint_uses.dedupe_symints
    first_inside, second_inside, first_left = threading.Event(), threading.Event(), threading.Event()
    second_saw: list[object] = []

    def first() -> None:
        with _keeping_reads():
            first_inside.set()
            second_inside.wait(_WAIT)
        first_left.set()

    def second() -> None:
        first_inside.wait()
        with _keeping_reads():
            second_inside.set()
            second_saw.append(dedupe_symint_uses.dedupe_symints)
            first_left.wait(_WAIT)

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert second_saw and second_saw[0] is not original  # the second thread's own patch
    assert dedupe_symint_uses.dedupe_symints is original


def test_a_lowering_inside_a_lowering_restores_in_turn():
    """One thread may lower a graph while lowering another (the lock is reentrant)."""
    original = dedupe_symint_uses.dedupe_symints
    with _keeping_reads():
        outer = dedupe_symint_uses.dedupe_symints
        with _keeping_reads():
            assert dedupe_symint_uses.dedupe_symints not in (original, outer)
        assert dedupe_symint_uses.dedupe_symints is outer
    assert dedupe_symint_uses.dedupe_symints is original
