"""The ``// -----`` chunks of the passes' lit tests, as pytest parameters.

``pass_chunks`` reads the flat ``lit_tests/passes/<name>.mlir`` files;
``chunks_for_pass`` finds every lit test under ``lit_tests/passes`` (flat or
in a folder per pass) whose RUN line starts with a given pass: its chunks are
input at the level that pass expects (a kernel-level pass's input included).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

import pytest

from hopc.passes import PASS_CLASSES

LIT_PASSES = Path(__file__).resolve().parent.parent / "lit_tests" / "passes"

_PASS_FLAG = re.compile(r"--([a-z-]+)|(?:-p |--pass-pipeline=)'(?:builtin\.module\()?([a-z-]+)")
"""A pass in a ``hopc-opt`` command line: ``--<name>``, ``-p '<name>{...}'`` or
``--pass-pipeline='builtin.module(<name>...)'``."""


def pass_chunks(passes: Iterable[str]) -> list:
    """``pytest.param(name, chunk, id="<name>-<index>")`` for every chunk of every
    ``lit_tests/passes/<name>.mlir`` of ``passes``."""
    params = []
    for name in passes:
        for index, chunk in enumerate((LIT_PASSES / f"{name}.mlir").read_text().split("// -----")):
            params.append(pytest.param(name, chunk, id=f"{name}-{index}"))
    return params


def chunks_for_pass(name: str) -> list:
    """``pytest.param(name, chunk, id=...)`` for every chunk of every lit test under
    ``lit_tests/passes`` with a RUN line whose first pass is ``name``, except chunks that
    expect an error (``expected-error``)."""
    params = []
    for path in sorted(LIT_PASSES.rglob("*.mlir")):
        text = path.read_text()
        runs = [line for line in text.splitlines() if line.startswith("// RUN:")]
        if not any(_first_pass(run) == name for run in runs):
            continue
        chunks = text.split("// -----") if any("--split-input-file" in run for run in runs) else [text]
        stem = path.relative_to(LIT_PASSES).with_suffix("").as_posix()
        params += [pytest.param(name, chunk, id=f"{stem}-{index}")
                   for index, chunk in enumerate(chunks) if "expected-error" not in chunk]
    return params


def _first_pass(run: str) -> str | None:
    """The first pass the first ``hopc-opt`` of a RUN line runs, if any."""
    command = run.split("|")[0]
    for match in _PASS_FLAG.finditer(command):
        found = match[1] or match[2]
        if found in PASS_CLASSES:
            return found
    return None
