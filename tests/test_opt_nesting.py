"""Deep nesting (Note [deep nesting] in ``hopc.dialects.parse``): ``hopc-opt`` takes ops
inside up to ``MAX_REGION_NESTING`` regions through every stage, and one region
more is a located error at the op, never an internal error."""

from __future__ import annotations

import contextlib
import gc
import io
import subprocess
import sys
from pathlib import Path

import pytest

import hopc
from hopc.dialects.parse import MAX_REGION_NESTING
from hopc.ir.diagnostics import HopcError
from hopc.tools.opt import main

SCRIPT = Path(sys.executable).with_name("hopc-opt")
COMMAND = [str(SCRIPT)] if SCRIPT.exists() else [sys.executable, "-m", "hopc.tools.opt"]
TENSOR = "!hop.tensor<[4], f32>"


def nested_module(regions: int) -> str:
    """A module whose innermost op, its only ``hop.yield %a<n>``, is inside ``regions``
    regions: the implicit module's, the function's, and ``regions - 2`` ``hop.wrap``s."""
    wraps = regions - 2
    lines = [f"func.func @f(%x: {TENSOR}) -> {TENSOR} {{"]
    value = "%x"
    for level in range(wraps):
        lines.append(f"%r{level} = hop.wrap({value}) : ({TENSOR}) -> {TENSOR} {{")
        lines.append(f"^bb0(%a{level}: {TENSOR}):")
        value = f"%a{level}"
    for level in reversed(range(wraps)):
        lines += [f"hop.yield {value} : {TENSOR}", "}"]
        value = f"%r{level}"
    lines += [f"func.return {value} : {TENSOR}", "}"]
    return "\n".join(lines) + "\n"


def run(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([*COMMAND, *args], input=stdin, capture_output=True, text=True,
                          timeout=300)


def test_the_deepest_nesting_accepted_goes_through_every_stage(tmp_path):
    path = tmp_path / "deepest.mlir"
    path.write_text(nested_module(MAX_REGION_NESTING))
    printed = run(str(path))
    assert (printed.returncode, printed.stderr) == (0, "")
    # The printed module has an explicit builtin.module, at the same depth: it parses back.
    assert run("-", stdin=printed.stdout).stdout == printed.stdout
    generic = run(str(path), "--print-op-generic")
    assert (generic.returncode, generic.stderr) == (0, "")
    assert run("-", stdin=generic.stdout).stdout == printed.stdout
    # functionalize recurses deepest of the passes (Note [deep nesting]).
    transformed = run(str(path), "--functionalize")
    assert (transformed.returncode, transformed.stderr) == (0, "")


def test_one_region_deeper_is_a_located_error_at_the_op(tmp_path):
    text = nested_module(MAX_REGION_NESTING + 1)
    path = tmp_path / "too_deep.mlir"
    path.write_text(text)
    before_yield = text[: text.index("hop.yield")]
    line, column = before_yield.count("\n") + 1, len(before_yield.rsplit("\n", 1)[-1]) + 1
    result = run(str(path))
    assert result.returncode == 1
    assert result.stderr == (f"{path}:{line}:{column}: error: nesting too deep: this op is "
                             f"inside more than {MAX_REGION_NESTING} nested regions\n")


def test_a_deeply_nested_attribute_is_a_located_error(tmp_path):
    depth = 50_000
    path = tmp_path / "deep_attribute.mlir"
    path.write_text(f"func.func @f() attributes {{hop.note = {'[' * depth}1{']' * depth}}} {{\n"
                    "  func.return\n}\n")
    result = run(str(path))
    assert result.returncode == 1
    assert result.stderr.startswith(f"{path}:1:")
    assert "error: nesting too deep to parse" in result.stderr
    assert result.stderr.count("\n") == 1


def test_parsing_from_python_within_the_callers_recursion_limit_is_a_located_error():
    regions = 2 * sys.getrecursionlimit()  # needs several frames per region
    with pytest.raises(HopcError, match="nesting too deep to parse") as raised:
        hopc.parse(nested_module(regions))
    assert raised.value.location is not None


def test_main_restores_the_recursion_limit_and_the_collector(tmp_path):
    path = tmp_path / "deep.mlir"
    path.write_text(nested_module(200))
    limit = sys.getrecursionlimit()
    with contextlib.redirect_stdout(io.StringIO()) as output:
        main([str(path)])
    assert "hop.wrap" in output.getvalue()
    assert sys.getrecursionlimit() == limit
    assert gc.isenabled()
