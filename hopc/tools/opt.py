"""``hopc-opt``: hopc's optimizer driver, in the manner of ``mlir-opt``, on xDSL's.

    hopc-opt [--<pass> ...] [--pass-pipeline=...] [--split-input-file]
             [--verify-diagnostics] [--print-ir-after-all] [--print-op-generic]
             [-o out] in.mlir|-

Passes run in the order their flags are given, after those of
``--pass-pipeline``/``-p``. The module is verified after parsing and after each
pass. Every error is a diagnostic ``file:line:col: error: ...`` on stderr with
exit status 1; no Python traceback reaches the user.

Note [no cyclic collection in hopc-opt]: the IR that hopc-opt builds lives
until the process ends, and what passes drop is freed by reference counting.
Python's cyclic collector finds nothing to free, but it walks the growing IR
again and again while the parser builds it: 15-20% of the time of parsing a
large module, growing with its size (bench/RESULTS.md). ``main`` turns it off
while it runs.
"""

from __future__ import annotations

import argparse
import gc
import re
import sys
from collections.abc import Sequence
from io import StringIO

from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass, PassPipeline
from xdsl.printer import Printer
from xdsl.utils.exceptions import ArgSpecParseError
from xdsl.xdsl_opt_main import xDSLOptMain

from hopc import passes
from hopc.ir.context import make_context
from hopc.ir.diagnostics import HopcError, Location
from hopc.ir.parse import parse_module
from hopc.ir.verify import verify_module
from hopc.tools import expected_diagnostics

SPLIT_MARKER = "// -----"
_SPLIT_LINE = re.compile(r"^// -----[ \t]*$", re.MULTILINE)


class ToolError(Exception):
    """A problem with the command line or the files it names, at no position in the input."""


class HopcOptMain(xDSLOptMain):
    """xDSL's opt driver with hopc's context, passes, flags and diagnostics."""

    version_format = "hopc-opt (hopc 0.1.0), built on xDSL {xdsl_version}"

    def __init__(self, args: Sequence[str] | None = None):
        super().__init__(description="hopc modular optimizer driver", args=args)

    # ----------------------------------------------------------------- registration

    def register_all_dialects(self) -> None:
        self.ctx = make_context()

    def register_all_passes(self) -> None:
        for name, factory in passes.pass_factories().items():
            self.register_pass(name, factory)

    def register_all_arguments(self, arg_parser: argparse.ArgumentParser) -> None:
        super().register_all_arguments(arg_parser)
        group = arg_parser.add_argument_group("passes (run in the order given)")
        for name in passes.PASS_CLASSES:
            group.add_argument(f"--{name}", dest="pass_flags", action="append_const",
                               const=name, help=passes.summary(name) if _wants_help() else None)
        arg_parser.add_argument("--pass-pipeline", default="",
                                help="passes as 'builtin.module(p1,p2{opt=v})' or 'p1,p2'")
        arg_parser.add_argument("--print-ir-after-all", action="store_true",
                                help="print the IR to stderr after every pass")

    # ----------------------------------------------------------------- pipeline

    def setup_pipeline(self) -> None:
        spec = _strip_module_anchor(self.args.pass_pipeline)
        names = [spec, self.args.passes, *(self.args.pass_flags or [])]
        full_spec = ",".join(part for part in names if part)
        self.pipeline = PassPipeline.parse_spec(self.available_passes, full_spec,
                                                self._between_passes)

    def _between_passes(self, previous: ModulePass | None, module: ModuleOp,
                        _next: ModulePass | None) -> None:
        if previous is None:
            return
        if not self.args.disable_verify:
            verify_module(module)
        if self.args.print_ir_after_all:
            sys.stderr.write(f"// -----// IR Dump After {previous.name} //----- //\n")
            sys.stderr.write(self._print(module))

    def apply_passes(self, module: ModuleOp) -> None:
        self.pipeline.apply(self.ctx, module)
        if self.pipeline.passes:
            self._between_passes(self.pipeline.passes[-1], module, None)

    # ----------------------------------------------------------------- running

    def run(self) -> None:
        filename = self.args.input_file or "-"
        text = _read_input(filename)
        display_name = "<stdin>" if filename == "-" else filename
        outputs: list[str] = []
        failures: list[str] = []
        for chunk, line_offset in _chunks(text, self.args.split_input_file):
            try:
                outputs.append(self._process(chunk, display_name, line_offset))
                produced: list[HopcError] = []
            except HopcError as error:
                produced = [error]
            if self.args.verify_diagnostics:
                expected = expected_diagnostics.expectations(chunk, line_offset)
                failures += expected_diagnostics.check(expected, produced, display_name)
            else:
                failures += [error.format(display_name) for error in produced]
                if produced:
                    break
        if failures:
            sys.stderr.write("\n".join(failures) + "\n")
            raise SystemExit(1)
        self._write(f"{SPLIT_MARKER}\n".join(outputs))

    def _process(self, chunk: str, filename: str, line_offset: int) -> str:
        module = parse_module(chunk, self.ctx, filename=filename, line_offset=line_offset)
        if not self.args.disable_verify:
            verify_module(module)
        self.apply_passes(module)
        return self._print(module)

    def _print(self, module: ModuleOp) -> str:
        stream = StringIO()
        Printer(stream=stream, print_generic_format=self.args.print_op_generic,
                print_debuginfo=self.args.print_debuginfo).print_op(module)
        return stream.getvalue() + "\n"

    def _write(self, text: str) -> None:
        if not self.args.output_file:
            sys.stdout.write(text)
            return
        try:
            with open(self.args.output_file, "w", encoding="utf-8") as output:
                output.write(text)
        except OSError as error:
            raise ToolError(f"cannot write output file '{self.args.output_file}': "
                            f"{error.strerror}") from None


def _wants_help() -> bool:
    return "-h" in sys.argv or "--help" in sys.argv


def _strip_module_anchor(spec: str) -> str:
    spec = spec.strip()
    for anchor in ("builtin.module(", "any("):
        if spec.startswith(anchor) and spec.endswith(")"):
            return spec[len(anchor):-1]
    return spec


def _read_input(filename: str) -> str:
    """The input's text, with newlines as ``\\n``; a byte that is not UTF-8 is a located error."""
    try:
        if filename == "-":
            data = sys.stdin.buffer.read()
        else:
            with open(filename, "rb") as source:
                data = source.read()
    except OSError as error:
        raise ToolError(f"cannot read input file '{filename}': {error.strerror}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        before = data[: error.start]
        line = before.count(b"\n") + 1
        column = error.start - (before.rfind(b"\n") + 1) + 1
        raise HopcError(f"input is not UTF-8 text (byte 0x{data[error.start]:02x})",
                        Location("<stdin>" if filename == "-" else filename, line, column)) from None
    return text.replace("\r\n", "\n").replace("\r", "\n")


def split_input(text: str) -> list[tuple[str, int]]:
    """The pieces of ``text`` between ``// -----`` lines, each with its first line's offset.

    As in ``mlir-opt``, the marker splits only where it starts a line of its own,
    so a comment that mentions it does not.
    """
    chunks, start, offset = [], 0, 0
    for marker in _SPLIT_LINE.finditer(text):
        piece = text[start : marker.start()]
        chunks.append((piece, offset))
        offset += piece.count("\n")
        start = marker.end()
    chunks.append((text[start:], offset))
    return chunks


def _chunks(text: str, split: bool) -> list[tuple[str, int]]:
    """The input, or its ``// -----`` separated pieces, each with its first line's offset."""
    return split_input(text) if split else [(text, 0)]


def main(argv: Sequence[str] | None = None) -> None:
    """Entry point of the ``hopc-opt`` console script."""
    collecting = gc.isenabled()
    gc.disable()  # Note [no cyclic collection in hopc-opt]
    try:
        _run(argv)
    finally:
        if collecting:
            gc.enable()


def _run(argv: Sequence[str] | None) -> None:
    """Runs the driver; every failure becomes a diagnostic and ``SystemExit(1)``."""
    try:
        HopcOptMain(argv).run()
    except HopcError as error:
        sys.stderr.write(error.format() + "\n")
        raise SystemExit(1) from None
    except (ToolError, ValueError, ArgSpecParseError) as error:  # ValueError: a bad pipeline
        sys.stderr.write(f"hopc-opt: error: {error}\n")
        raise SystemExit(1) from None
    except (KeyboardInterrupt, BrokenPipeError):
        raise SystemExit(1) from None
    except Exception as error:  # noqa: BLE001 - the promise is: no traceback, ever
        sys.stderr.write(f"hopc-opt: error: internal compiler error: "
                         f"{type(error).__name__}: {error}\n")
        raise SystemExit(1) from None


if __name__ == "__main__":
    main()
