"""``hopc-translate``: translates a kernel-level module out of IR, in the manner of ``mlir-translate``.

    hopc-translate --emit-triton [-o out] in.mlir|-

``--emit-triton`` prints the Triton source of every generated kernel
(``kernel.kernel`` of kind ``pointwise`` or ``reduction``) in module order,
each preceded by a comment naming its symbol; an ``extern`` kernel, run by
its library, is a comment. The module is parsed and its ops verified first
(an entry function is not needed). As in
``hopc-opt``, every error is a diagnostic ``file:line:col: error: ...`` on
stderr with exit status 1, and no Python traceback reaches the user.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import NoReturn

from hopc.ir.diagnostics import HopcError
from hopc.tools.opt import ToolError, _read_input


def translate_to_triton(text: str, filename: str) -> str:
    """The Triton source of the kernels of the module ``text`` (see the module docstring)."""
    from hopc.backend.triton.emit import emit_kernel
    from hopc.backend.triton.names import comment_text
    from hopc.dialects.context import make_context
    from hopc.dialects.kernel import KernelOp
    from hopc.dialects.parse import parse_module

    module = parse_module(text, make_context(), filename=filename)
    _verify_ops(module)
    pieces: list[str] = []
    for op in module.ops:
        if not isinstance(op, KernelOp):
            continue
        if op.kind.data == "extern":
            pieces.append(f"# kernel.kernel {comment_text(op.sym_name.data)} (extern): run by its library\n")
        else:
            pieces.append(emit_kernel(op).source)
    return "\n\n".join(pieces)


def _verify_ops(module) -> None:
    """Verifies every op (as ``hopc.dialects.verify.verify_module`` does), not the entry structure:
    a module of kernels alone, with no entry function, translates."""
    from xdsl.utils.exceptions import VerifyException

    from hopc.ir.diagnostics import op_error

    for op in module.walk():
        try:
            op.verify(verify_nested_ops=False)
        except VerifyException as error:
            message = " ".join(line.strip() for line in str(error).splitlines() if line.strip())
            raise op_error(op, message.removeprefix(f"'{op.name}' ")) from None


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="hopc-translate", allow_abbrev=False,
                                     description="hopc translation driver: kernel-level IR to target source")
    parser.add_argument("input_file", nargs="?", default="-", help="the input file; '-' (the default) reads stdin")
    parser.add_argument("-o", "--output-file", help="write the output to this file (only if all went well)")
    parser.add_argument("--emit-triton", action="store_true", required=True,
                        help="print the Triton source of each generated kernel")

    def error(message: str) -> NoReturn:
        raise ToolError(f"{message}; see 'hopc-translate --help'")

    parser.error = error  # type: ignore[method-assign]
    return parser


def main(argv: Sequence[str] | None = None) -> None:
    """Entry point of the ``hopc-translate`` console script."""
    try:
        args = _parser().parse_args(argv)
        text = _read_input(args.input_file)
        output = translate_to_triton(text, "<stdin>" if args.input_file == "-" else args.input_file)
        if args.output_file:
            try:
                with open(args.output_file, "w", encoding="utf-8") as stream:
                    stream.write(output)
            except OSError as error:
                raise ToolError(f"cannot write output file '{args.output_file}': {error.strerror}") from None
        else:
            sys.stdout.write(output)
    except HopcError as error:
        sys.stderr.write(error.format() + "\n")
        raise SystemExit(1) from None
    except ToolError as error:
        sys.stderr.write(f"hopc-translate: error: {error}\n")
        raise SystemExit(1) from None
    except BrokenPipeError:
        raise SystemExit(1) from None
    except Exception as error:
        sys.stderr.write(f"hopc-translate: error: internal compiler error: {type(error).__name__}: {error}\n")
        raise SystemExit(1) from None


if __name__ == "__main__":
    main()
