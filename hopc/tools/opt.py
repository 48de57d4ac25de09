"""``hopc-opt``: hopc's optimizer driver, in the manner of ``mlir-opt``, on xDSL's.

    hopc-opt [--<pass> ...] [--pass-pipeline=...] [--split-input-file]
             [--verify-diagnostics] [--print-ir-after-all] [--print-op-generic]
             [-o out] in.mlir|-

Passes run in the order their flags are given, after those of
``--pass-pipeline``/``-p``; ``--pass-pipeline='builtin.module(hopc-pipeline{to=kernel})'``
runs the stages ``hopc.compile`` runs, up to the one named (Note [compile stages]
in ``hopc.driver``). The module is verified after parsing and after each
pass. Every error is a diagnostic ``file:line:col: error: ...`` on stderr with
exit status 1; no Python traceback reaches the user.

Note [no cyclic collection in hopc-opt]: the IR that hopc-opt builds lives
until the process ends, and what passes drop is freed by reference counting.
Python's cyclic collector finds nothing to free, but it walks the growing IR
again and again while the parser builds it: 15-20% of the time of parsing a
large module, growing with its size (bench/RESULTS.md). ``main`` turns it off
while it runs.

``main`` also runs the driver on a thread with a large stack and a recursion
limit that fit the deepest nesting the parser accepts (Note [deep nesting] in
``hopc.dialects.parse``), and restores both when it returns.
"""

from __future__ import annotations

import argparse
import difflib
import functools
import gc
import os
import re
import signal
import sys
import threading
from collections.abc import Sequence
from io import StringIO
from typing import NoReturn

from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass, PassPipeline
from xdsl.printer import Printer
from xdsl.utils.exceptions import ArgSpecParseError
from xdsl.xdsl_opt_main import VersionAction, xDSLOptMain

from hopc import passes
from hopc.dialects.context import make_context
from hopc.dialects.parse import MAX_REGION_NESTING, RECURSION_PER_NESTED_REGION, parse_module
from hopc.dialects.verify import verify_module
from hopc.ir.diagnostics import HopcError, Location
from hopc.ir.resources import resource_section
from hopc.tools import expected_diagnostics

SPLIT_MARKER = "// -----"
_SPLIT_LINE = re.compile(r"^// -----[ \t]*$", re.MULTILINE)
_THREAD_STACK_BYTES = 256 << 20
"""The driver thread's stack: 8 MiB was measured to parse, verify and print
3000 levels of nesting, 3x ``MAX_REGION_NESTING``; memory is committed only as used."""


class ToolError(Exception):
    """A problem with the command line or the files it names, at no position in the input."""


class HopcOptMain(xDSLOptMain):
    """xDSL's opt driver with hopc's context, passes, flags and diagnostics."""

    version_format = "hopc-opt (hopc 0.1.0), built on xDSL {xdsl_version}"

    def __init__(self, args: Sequence[str] | None = None):
        arguments = sys.argv[1:] if args is None else args
        self._help_requested = "-h" in arguments or "--help" in arguments
        super().__init__(description="hopc modular optimizer driver", args=args)

    # ----------------------------------------------------------------- registration

    def register_all_dialects(self) -> None:
        self.ctx = make_context()

    def register_all_passes(self) -> None:
        for name, factory in passes.pass_factories().items():
            self.register_pass(name, factory)
        self.register_pass("hopc-pipeline", _hopc_pipeline)

    def register_all_arguments(self, arg_parser: argparse.ArgumentParser) -> None:
        """The flags hopc-opt honours, and only those (xdsl-opt's others are unknown).

        As in mlir-opt, a flag is written in full (no argparse abbreviations),
        and a bad command line is one line on stderr with exit status 1.
        """
        arg_parser.allow_abbrev = False
        arg_parser.error = functools.partial(_usage_error, arg_parser)  # type: ignore[method-assign]
        arg_parser.set_defaults(target="mlir", syntax_highlight=False)  # read by xDSLOptMain
        arg_parser.add_argument("input_file", nargs="?", default="-",
                                help="the input file; '-' (the default) reads stdin")
        arg_parser.add_argument("-o", "--output-file",
                                help="write the output to this file (only if all went well)")
        arg_parser.add_argument("--split-input-file", action="store_true",
                                help="process each '// -----' separated chunk as a module")
        arg_parser.add_argument("--verify-diagnostics", action="store_true",
                                help="check the errors against '// expected-error {{...}}' "
                                     "annotations in the input")
        arg_parser.add_argument("--print-op-generic", action="store_true",
                                help="print ops in the generic form")
        arg_parser.add_argument("--print-debuginfo", action="store_true",
                                help="print each op's location")
        arg_parser.add_argument("--print-ir-after-all", action="store_true",
                                help="print the IR to stderr after every pass")
        arg_parser.add_argument("--disable-verify", action="store_true",
                                help="do not verify the module after parsing and each pass")
        arg_parser.add_argument("--allow-unregistered-dialect", action="store_true",
                                help="accept ops of dialects hopc does not know")
        arg_parser.add_argument("-v", "--version", action=VersionAction,
                                version_format=self.version_format,
                                help="print the version and exit")
        arg_parser.add_argument("--pass-pipeline", default="",
                                help="passes as 'builtin.module(p1,p2{opt=v})' or 'p1,p2'")
        arg_parser.add_argument("-p", "--passes", default="", help="passes as 'p1,p2'")
        group = arg_parser.add_argument_group("passes (run in the order given)")
        for name in passes.PASS_CLASSES:
            group.add_argument(f"--{name}", dest="pass_flags", action="append_const", const=name,
                               help=passes.summary(name) if self._help_requested else None)

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
        """Processes each chunk, even after one fails, as mlir-opt does.

        The output has one entry per chunk, empty for a chunk that failed; it
        goes to stdout in any case, to ``-o``'s file only if every chunk passed.
        """
        filename = self.args.input_file
        text = _read_input(filename)
        display_name = "<stdin>" if filename == "-" else filename
        outputs: list[str] = []
        failures: list[str] = []
        for chunk, line_offset in _chunks(text, self.args.split_input_file):
            try:
                outputs.append(self._process(chunk, display_name, line_offset))
                produced: list[HopcError] = []
            except HopcError as error:
                outputs.append("")
                produced = [error]
            if self.args.verify_diagnostics:
                expected = expected_diagnostics.expectations(chunk, line_offset, display_name)
                failures += expected_diagnostics.check(expected, produced, display_name)
            else:
                failures += [error.format(display_name) for error in produced]
        if not (failures and self.args.output_file):
            self._write(f"{SPLIT_MARKER}\n".join(outputs))
        if failures:
            sys.stderr.write("\n".join(failures) + "\n")
            raise SystemExit(1)

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
        return stream.getvalue() + resource_section(module) + "\n"

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


def _hopc_pipeline() -> type[ModulePass]:
    """``hopc-pipeline{to=<stage>}``: the stages ``hopc.compile`` runs (``hopc.driver``, imported
    only where the pipeline is named: it loads torch)."""
    from hopc.pipeline_pass import HopcPipelinePass

    return HopcPipelinePass


def _usage_error(parser: argparse.ArgumentParser, message: str) -> NoReturn:
    """argparse's complaint about the command line, as one line that names the argument.

    An unknown flag close to a known one (``--functionalise``) gets a suggestion.
    """
    if message.startswith("unrecognized arguments: "):
        first = message.removeprefix("unrecognized arguments: ").split(" ")[0]
        if first.startswith("-") and first != "-":
            message = f"unknown command line argument '{first}'"
            close = difflib.get_close_matches(first.split("=")[0], parser._option_string_actions, n=1)
            if close:
                message += f" (did you mean '{close[0]}'?)"
        else:
            message = f"more than one input file: '{first}'"
    raise ToolError(f"{message}; see 'hopc-opt --help'")


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
    """Entry point of the ``hopc-opt`` console script.

    Runs the driver on a thread whose stack and recursion limit fit the
    deepest nesting the parser accepts (Note [deep nesting] in ``hopc.dialects.parse``),
    with the cyclic collector off (Note [no cyclic collection in hopc-opt]);
    restores all three when the driver is done, and re-raises its exit. An
    interrupt (Ctrl-C) ends the process by SIGINT, without a traceback.
    """
    outcome: list[BaseException] = []

    def drive() -> None:
        try:
            _run(argv)
        except BaseException as exit_:
            outcome.append(exit_)

    collecting = gc.isenabled()
    recursion_limit = sys.getrecursionlimit()
    gc.disable()
    sys.setrecursionlimit(recursion_limit + MAX_REGION_NESTING * RECURSION_PER_NESTED_REGION)
    stack_size = threading.stack_size(_THREAD_STACK_BYTES)
    try:
        driver = threading.Thread(target=drive, name="hopc-opt", daemon=True)
        driver.start()
        driver.join()
    except KeyboardInterrupt:
        # Die of the interrupt, as mlir-opt does: the driver thread cannot be
        # stopped, and a normal exit would wait on what it holds (stdin's lock).
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGINT)
    finally:
        threading.stack_size(stack_size)
        sys.setrecursionlimit(recursion_limit)
        if collecting:
            gc.enable()
    if outcome:
        raise outcome[0]


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
    except BrokenPipeError:
        raise SystemExit(1) from None
    except Exception as error:
        sys.stderr.write(f"hopc-opt: error: internal compiler error: "
                         f"{type(error).__name__}: {error}\n")
        raise SystemExit(1) from None


if __name__ == "__main__":
    main()
