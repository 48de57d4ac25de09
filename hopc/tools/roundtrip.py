"""Checks that a ``.mlir`` file's IR survives printing and parsing, in both forms.

    python -m hopc.tools.roundtrip file.mlir

For each ``// -----`` chunk that is valid IR (chunks annotated with
``expected-error`` are skipped): printing the parsed module, parsing that and
printing again gives the same text; the generic form parses back to the same
module; and, when ``$HOPC_MLIR_OPT`` names a real ``mlir-opt``, it accepts the
generic form with ``--allow-unregistered-dialect``. Exit status 1 on any failure.
"""

from __future__ import annotations

import os
import subprocess
import sys

from xdsl.dialects.builtin import ModuleOp

from hopc import to_text
from hopc.dialects.parse import parse_module
from hopc.ir.diagnostics import HopcError
from hopc.tools.opt import split_input


def _print(module: ModuleOp, generic: bool) -> str:
    return to_text(module, generic=generic) + "\n"


def check_chunk(text: str, mlir_opt: str | None) -> list[str]:
    """Problems with one chunk's round trip (empty when it is a fixed point)."""
    try:
        module = parse_module(text)
    except HopcError:
        return []  # not valid IR on its own (the test's RUN lines say what it should do)
    custom = _print(module, generic=False)
    generic = _print(module, generic=True)
    problems = []
    if _print(parse_module(custom), generic=False) != custom:
        problems.append("custom form: print -> parse -> print changed the text")
    if _print(parse_module(generic), generic=False) != custom:
        problems.append("generic form parses back to a different module")
    if mlir_opt:
        run = subprocess.run([mlir_opt, "--allow-unregistered-dialect", "-"], input=generic,
                             capture_output=True, text=True)
        if run.returncode != 0:
            problems.append(f"mlir-opt rejects the generic form:\n{run.stderr}")
    return problems


def main() -> None:
    path = sys.argv[1]
    with open(path, encoding="utf-8") as file:
        text = file.read()
    mlir_opt = os.environ.get("HOPC_MLIR_OPT")
    failed = False
    for index, (chunk, _) in enumerate(split_input(text)):
        if "expected-error" in chunk:
            continue
        for problem in check_chunk(chunk, mlir_opt):
            print(f"{path}: chunk {index}: {problem}")
            failed = True
    raise SystemExit(1 if failed else 0)


if __name__ == "__main__":
    main()
