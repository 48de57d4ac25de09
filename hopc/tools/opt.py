"""``hopc-opt``: hopc's optimizer driver, in the manner of ``mlir-opt``, on xDSL's.

    hopc-opt [--<pass> ...] [--pass-pipeline=...] [--split-input-file]
             [--verify-diagnostics] [--print-ir-after-all] [--print-op-generic]
             [-o out] in.mlir|-

Passes run in the order their flags are given, after those of
``--pass-pipeline``/``-p``. The module is verified after parsing and after each
pass. Every error is a diagnostic ``file:line:col: error: ...`` on stderr with
exit status 1; no Python traceback reaches the user.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from io import StringIO

from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass, PassPipeline
from xdsl.printer import Printer
from xdsl.xdsl_opt_main import xDSLOptMain

from hopc import passes
from hopc.ir.context import make_context
from hopc.ir.diagnostics import HopcError, Location
from hopc.ir.parse import parse_module
from hopc.ir.verify import verify_module
from hopc.tools import expected_diagnostics

SPLIT_MARKER = "// -----"


class HopcOptMain(xDSLOptMain):
    """xDSL's opt driver with hopc's context, passes, flags and diagnostics."""

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
            expected = expected_diagnostics.expectations(chunk, line_offset)
            try:
                outputs.append(self._process(chunk, display_name, line_offset))
                produced: list[HopcError] = []
            except HopcError as error:
                produced = [error]
            if self.args.verify_diagnostics:
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
        if self.args.output_file:
            with open(self.args.output_file, "w") as output:
                output.write(text)
        else:
            sys.stdout.write(text)


def _wants_help() -> bool:
    return "-h" in sys.argv or "--help" in sys.argv


def _strip_module_anchor(spec: str) -> str:
    spec = spec.strip()
    for anchor in ("builtin.module(", "any("):
        if spec.startswith(anchor) and spec.endswith(")"):
            return spec[len(anchor):-1]
    return spec


def _read_input(filename: str) -> str:
    try:
        if filename == "-":
            return sys.stdin.read()
        with open(filename, encoding="utf-8") as source:
            return source.read()
    except (OSError, UnicodeDecodeError) as error:
        raise HopcError(f"cannot read input: {error}", Location(filename, 1, 1)) from None


def _chunks(text: str, split: bool) -> list[tuple[str, int]]:
    """The input, or its ``// -----`` separated pieces, each with its first line's offset."""
    if not split:
        return [(text, 0)]
    chunks, offset = [], 0
    for piece in text.split(SPLIT_MARKER):
        chunks.append((piece, offset))
        offset += piece.count("\n")
    return chunks


def main(argv: Sequence[str] | None = None) -> None:
    """Entry point of the ``hopc-opt`` console script."""
    try:
        HopcOptMain(argv).run()
    except HopcError as error:
        sys.stderr.write(error.format() + "\n")
        raise SystemExit(1) from None
    except ValueError as error:  # a malformed pass pipeline
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
