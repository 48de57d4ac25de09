"""``hopc-opt`` as a user meets it: flags, files, stdin, and diagnostics, never tracebacks."""

from __future__ import annotations

import contextlib
import io
import random
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from hopc import passes
from hopc.tools.opt import main

SCRIPT = Path(sys.executable).with_name("hopc-opt")
COMMAND = [str(SCRIPT)] if SCRIPT.exists() else [sys.executable, "-m", "hopc.tools.opt"]

VALID = """\
hop.symbol @s0 backed [2, oo]
hop.symbol @u0 unbacked [0, oo]
hop.parameter @w : !hop.tensor<[4, 4], f32>
func.func @forward(%w: !hop.tensor<[4, 4], f32> {hop.parameter = @w}, %x: !hop.tensor<[s0, 4], f32>, %p: !hop.tensor<[], i1>, %n: !hop.tensor<[], i64>) -> !hop.tensor<[s0, 4], f32> {
  %0 = aten.mm(%x, %w) : (!hop.tensor<[s0, 4], f32>, !hop.tensor<[4, 4], f32>) -> !hop.tensor<[s0, 4], f32>
  %1 = aten.add.Tensor(%0, %x) {alpha = 2 : i64} : (!hop.tensor<[s0, 4], f32>, !hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32>
  %2 = hop.cond %p(%1) : !hop.tensor<[], i1>, (!hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32> then {
  ^bb0(%a: !hop.tensor<[s0, 4], f32>):
    %3 = aten.sin(%a) : (!hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32>
    hop.yield %3 : !hop.tensor<[s0, 4], f32>
  } else {
  ^bb0(%b: !hop.tensor<[s0, 4], f32>):
    hop.yield %b : !hop.tensor<[s0, 4], f32>
  }
  %c = aten.cat([%2, %2]) {dim = 0 : i64} : (!hop.tensor<[s0, 4], f32>, !hop.tensor<[s0, 4], f32>) -> !hop.tensor<[2*s0, 4], f32>
  %s = hop.sym_size %c[0] : !hop.tensor<[2*s0, 4], f32> -> !hop.symint<2*s0>
  %v = aten.view(%c) {size = [#hop.expr<s0>, 8]} : (!hop.tensor<[2*s0, 4], f32>) -> !hop.tensor<[s0, 8], f32>
  %u = hop.item %n : !hop.tensor<[], i64> -> !hop.symint<u0>
  %r = hop.while(%2) additional(%w) : (!hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32>, !hop.tensor<[4, 4], f32> cond {
  ^bb0(%cx: !hop.tensor<[s0, 4], f32>, %cw: !hop.tensor<[4, 4], f32>):
    %go = aten.any(%cx) : (!hop.tensor<[s0, 4], f32>) -> !hop.tensor<[], i1>
    hop.yield %go : !hop.tensor<[], i1>
  } body {
  ^bb0(%bx: !hop.tensor<[s0, 4], f32>, %bw: !hop.tensor<[4, 4], f32>):
    %next = aten.mm(%bx, %bw) : (!hop.tensor<[s0, 4], f32>, !hop.tensor<[4, 4], f32>) -> !hop.tensor<[s0, 4], f32>
    hop.yield %next : !hop.tensor<[s0, 4], f32>
  }
  func.return %r : !hop.tensor<[s0, 4], f32>
}
"""

LOCATED = re.compile(r"^(?P<file>.+):(?P<line>\d+):(?P<column>\d+): error: \S")


def run(*args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([*COMMAND, *args], input=stdin, capture_output=True, timeout=120)


def write(tmp_path: Path, name: str, content: str | bytes) -> Path:
    path = tmp_path / name
    if isinstance(content, str):
        path.write_text(content)
    else:
        path.write_bytes(content)
    return path


# --------------------------------------------------------------------------- flags


def test_help_lists_each_pass_with_its_summary():
    result = run("--help")
    assert result.returncode == 0
    help_text = " ".join(result.stdout.decode().split())  # argparse wraps long lines
    for name in ("canonicalize", "cse", "dce"):
        summary = " ".join(passes.summary(name).split())
        assert summary
        assert f"--{name} {summary}" in help_text


def test_valid_input_prints_the_module_and_exits_0(tmp_path):
    result = run(str(write(tmp_path, "valid.mlir", VALID)))
    assert result.returncode == 0, result.stderr.decode()
    assert result.stderr == b""
    assert result.stdout.decode().startswith("builtin.module {\n  hop.symbol @s0 backed [2, oo]")


def test_output_is_a_fixed_point(tmp_path):
    first = run(str(write(tmp_path, "valid.mlir", VALID))).stdout
    assert run("-", stdin=first).stdout == first


def test_dash_reads_stdin():
    result = run("-", stdin=VALID.encode())
    assert result.returncode == 0
    assert b"func.func @forward" in result.stdout


def test_errors_on_stdin_are_located_in_stdin():
    result = run("-", stdin=b"func.func @f( {\n")
    assert result.returncode == 1
    assert result.stderr.decode() == "<stdin>:1:15: error: Expected argument or type\n"


def test_dash_o_writes_the_file_and_nothing_to_stdout(tmp_path):
    output = tmp_path / "out.mlir"
    result = run(str(write(tmp_path, "valid.mlir", VALID)), "-o", str(output))
    assert result.returncode == 0
    assert result.stdout == b""
    assert output.read_text() == run(str(tmp_path / "valid.mlir")).stdout.decode()


def test_split_input_file_separates_outputs_with_the_marker(tmp_path):
    text = "func.func @a() {\n  func.return\n}\n// -----\nfunc.func @b() {\n  func.return\n}\n"
    result = run(str(write(tmp_path, "split.mlir", text)), "--split-input-file")
    assert result.returncode == 0
    first, second = result.stdout.decode().split("// -----\n")
    assert "@a" in first and "@b" not in first
    assert "@b" in second


def test_split_input_file_locates_errors_in_the_whole_file(tmp_path):
    text = ("func.func @a() {\n  func.return\n}\n// -----\n"
            'func.func @b() {\n  %x = "foo.bar"() : () -> i32\n}\n')
    result = run(str(write(tmp_path, "split.mlir", text)), "--split-input-file")
    assert result.returncode == 1
    assert re.match(r".*split\.mlir:6:\d+: error: Operation foo.bar is not registered",
                    result.stderr.decode())


def test_passes_run_from_flags_and_from_the_pipeline(tmp_path):
    path = str(write(tmp_path, "valid.mlir", VALID))
    by_flags = run(path, "--canonicalize", "--cse")
    by_pipeline = run(path, "--pass-pipeline=builtin.module(canonicalize,cse)")
    assert by_flags.returncode == by_pipeline.returncode == 0
    assert by_flags.stdout == by_pipeline.stdout


@pytest.mark.parametrize(("args", "message"), [
    (["--no-such-flag", "-"], "unknown command line argument '--no-such-flag'"),
    (["--canon", "-"],  # no abbreviations, but a suggestion
     "unknown command line argument '--canon' (did you mean '--canonicalize'?)"),
    (["--functionalise", "-"],
     "unknown command line argument '--functionalise' (did you mean '--functionalize'?)"),
    (["--target=wgsl", "-"], "unknown command line argument '--target=wgsl'"),  # xdsl-opt's
    (["-", "extra.mlir"], "more than one input file: 'extra.mlir'"),
    (["-o"], "argument -o/--output-file: expected one argument"),
])
def test_a_bad_command_line_is_one_line_with_a_hint_and_exit_1(args, message):
    result = run(*args, stdin=VALID.encode())
    assert result.returncode == 1
    assert result.stderr.decode() == f"hopc-opt: error: {message}; see 'hopc-opt --help'\n"


def test_split_input_file_goes_on_past_a_failing_chunk(tmp_path):
    text = ("func.func @a() {\n  func.return\n}\n// -----\nfunc.func @b( {\n// -----\n"
            "func.func @c() {\n  func.return\n}\n")
    path = write(tmp_path, "split.mlir", text)
    result = run(str(path), "--split-input-file", "-o", str(tmp_path / "out.mlir"))
    assert result.returncode == 1
    assert result.stderr.decode() == f"{path}:5:15: error: Expected argument or type\n"
    assert not (tmp_path / "out.mlir").exists()
    first, failed, third = run(str(path), "--split-input-file").stdout.decode().split("// -----\n")
    assert ("@a" in first, failed, "@c" in third) == (True, "", True)


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="needs Linux's /proc")
def test_an_interrupt_ends_the_process_by_sigint_without_a_traceback():
    process = subprocess.Popen([*COMMAND, "-"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE)
    threads = Path(f"/proc/{process.pid}/task")
    deadline = time.monotonic() + 120
    while len(list(threads.iterdir())) < 2:  # until the driver thread waits for stdin
        assert time.monotonic() < deadline and process.poll() is None
        time.sleep(0.05)
    process.send_signal(signal.SIGINT)
    process.wait(timeout=120)  # stdin stays open: an end of input must not race the signal
    stderr = process.stderr.read()
    process.stdin.close()
    process.stdout.close()
    process.stderr.close()
    assert (process.returncode, stderr) == (-signal.SIGINT, b"")


# --------------------------------------------------------------------------- malformed input

MALFORMED = {
    "syntax_error": ("func.func @f( {\n", 1),
    "unknown_op": ('func.func @f() {\n  "foo.bar"() : () -> ()\n  func.return\n}\n', 2),
    "bad_type_body": ("func.func @f(%x: !hop.tensor<[4, f32>) {\n  func.return\n}\n", 1),
    "bad_dimension": ("func.func @f(%x: !hop.tensor<[s0 +], f32>) {\n  func.return\n}\n", 1),
    "unknown_element_type": ("func.func @f(%x: !hop.tensor<[4], f12>) {\n  func.return\n}\n", 1),
    "unterminated_string": ('hop.symbol @s0 backed [1, oo] {hop.note = "a note without its end}\n',
                            1),
    "empty_file": ("", 1),
    "binary_junk": (b"\n\n\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\xff\xfe", 3),
    "control_characters": (b"\x01\x02\x03\x04", 1),
    "verifier_error": ("func.func @f(%x: !hop.tensor<[4], f32>) {\n"
                       "  %n = hop.sym_size %x[7] : !hop.tensor<[4], f32> -> !hop.symint<4>\n"
                       "  func.return\n}\n", 2),
}


@pytest.mark.parametrize(("content", "line"), MALFORMED.values(), ids=MALFORMED.keys())
def test_malformed_input_is_one_located_diagnostic(tmp_path, content, line):
    path = write(tmp_path, "input.mlir", content)
    result = run(str(path))
    stderr = result.stderr.decode()
    assert result.returncode == 1
    assert "Traceback" not in stderr
    assert result.stdout == b""
    match = LOCATED.match(stderr)
    assert match, stderr
    assert (match["file"], int(match["line"])) == (str(path), line)
    assert stderr.count("\n") == 1


@pytest.mark.parametrize(("args", "message"), [
    (["missing.mlir"],
     "hopc-opt: error: cannot read input file 'missing.mlir': No such file or directory\n"),
    (["."], "hopc-opt: error: cannot read input file '.': Is a directory\n"),
    (["--pass-pipeline=builtin.module(no-such-pass)", "-"],
     "hopc-opt: error: Unrecognized passes: ['no-such-pass']\n"),
    (["-p", "cse,no-such-pass", "-"], "hopc-opt: error: Unrecognized passes: ['no-such-pass']\n"),
])
def test_errors_without_a_position_name_the_tool(args, message):
    result = run(*args, stdin=VALID.encode())
    assert result.returncode == 1
    assert result.stderr.decode() == message


def test_a_malformed_pipeline_is_a_diagnostic():
    result = run("--pass-pipeline=builtin.module(cse", "-", stdin=VALID.encode())
    assert result.returncode == 1
    assert result.stderr.decode().startswith("hopc-opt: error: Error parsing pass pipeline")


def test_an_unwritable_output_file_is_a_diagnostic(tmp_path):
    result = run("-", "-o", str(tmp_path / "no" / "such" / "out.mlir"), stdin=VALID.encode())
    assert result.returncode == 1
    assert result.stderr.decode().startswith("hopc-opt: error: cannot write output file")


# --------------------------------------------------------------------------- fuzzing

FUZZ_CASES = 200


def _mutations(seed: int = 0) -> list[bytes]:
    """Truncations, byte flips, character swaps, deletions and duplications of ``VALID``."""
    rng = random.Random(seed)
    base = VALID.encode()
    punctuation = b'(){}[]<>%:,=@"!#^-+*/ \n0123456789absxyz'
    cases = []
    for index in range(FUZZ_CASES):
        data = bytearray(base)
        kind = index % 5
        if kind == 0:
            data = data[: rng.randrange(len(data))]
        elif kind == 1:
            for _ in range(rng.randint(1, 4)):
                data[rng.randrange(len(data))] = rng.randrange(256)
        elif kind == 2:
            for _ in range(rng.randint(1, 4)):
                data[rng.randrange(len(data))] = rng.choice(punctuation)
        elif kind == 3:
            start, end = sorted(rng.sample(range(len(data)), 2))
            del data[start:end]
        else:
            start = rng.randrange(len(data))
            piece = data[start : start + rng.randint(1, 40)]
            at = rng.randrange(len(data))
            data[at:at] = piece
        cases.append(bytes(data))
    return cases


def _run_in_process(path: Path) -> tuple[int, str]:
    """``hopc-opt path`` in this process: its exit status and stderr. Any exception escapes."""
    stderr = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(stderr):
        try:
            main([str(path)])
        except SystemExit as exit_:
            return exit_.code, stderr.getvalue()
    return 0, stderr.getvalue()


def test_mutated_inputs_give_diagnostics_not_crashes(tmp_path):
    path = tmp_path / "mutated.mlir"
    for index, data in enumerate(_mutations()):
        path.write_bytes(data)
        code, stderr = _run_in_process(path)
        assert code in (0, 1), (index, data)
        if code == 1:
            assert LOCATED.match(stderr) or stderr.startswith("hopc-opt: error: "), (index, stderr)
            assert "internal compiler error" not in stderr, (index, data, stderr)


def test_mutated_inputs_never_print_a_traceback(tmp_path):
    # The real console script on every mutation that is still text, in one run:
    # --verify-diagnostics goes on past each chunk's error.
    texts = []
    for data in _mutations():
        with contextlib.suppress(UnicodeDecodeError):
            texts.append(data.decode("utf-8"))
    path = write(tmp_path, "mutations.mlir", "\n// -----\n".join(texts))
    result = run(str(path), "--split-input-file", "--verify-diagnostics")
    assert result.returncode in (0, 1)
    assert b"Traceback" not in result.stderr
    assert b"internal compiler error" not in result.stderr
