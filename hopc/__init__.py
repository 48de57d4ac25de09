"""hopc: an MLIR-style compiler for PyTorch programs with higher-order ops.

The public API; each entry point imports its machinery on first use, so that
``import hopc`` imports neither torch nor the dialects.

- ``capture(program, args, kwargs=None, *, dynamic_shapes=None, weights=False)``
  -> the captured-level module of a PyTorch program (``hopc.frontend.capture``);
  with ``weights`` its parameters and buffers carry their values, which
  ``hopc-opt --freeze`` folds;
- ``compile(program, options=None, **keywords)`` -> a callable with the
  program's eager semantics (``hopc.frontend.compile``), compiled as a
  ``CompileOptions`` says (``hopc.compile_options``), given whole as ``options`` or
  field by field as keywords (``executor="aten"``, ``freeze=True``, ...);
- ``parse(text)`` -> the module that hop-level IR text denotes
  (``hopc.dialects.parse.parse_module``);
- ``to_text(module, *, debuginfo=False, generic=False)`` -> the module's
  text; with ``debuginfo`` every op's location is printed too
  (``loc("model.py":12:9)``, the user's Python line for a captured op), as
  ``mlir-opt --mlir-print-debuginfo`` prints them; ``generic`` prints MLIR's
  generic form. ``str(module)`` is ``to_text(module)`` without the file's
  resource section (the bytes of ``dense_resource`` constants, which
  ``hopc.ir.resources`` keeps).

``CompiledModule`` (what ``compile`` returns for an ``nn.Module``: a module
sharing the original's state), ``CompileOptions`` (``compile``'s options) and
``EagerFallbackWarning`` (Dynamo gave up on a frame, which runs eagerly) are
imported on first use too.
"""

from __future__ import annotations

from typing import Any

__all__ = ["CompileOptions", "CompiledModule", "EagerFallbackWarning", "capture", "compile", "parse", "to_text"]

_LAZY = {"CompiledModule": "hopc.frontend.compile", "CompileOptions": "hopc.compile_options",
         "EagerFallbackWarning": "hopc.frontend.eager_fallback"}
"""The public classes, by the module that defines them (imported on first use)."""


def __getattr__(name: str) -> Any:
    if name not in _LAZY:
        raise AttributeError(f"module 'hopc' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(_LAZY[name]), name)


def capture(program: Any, args: Any, kwargs: Any = None, *, dynamic_shapes: Any = None,
            weights: bool = False) -> Any:
    from hopc.frontend.capture import capture as capture_program

    return capture_program(program, args, kwargs, dynamic_shapes=dynamic_shapes, weights=weights)


def compile(program: Any, options: Any = None, **keywords: Any) -> Any:
    from hopc.frontend.compile import compile_program

    return compile_program(program, options, **keywords)


def parse(text: str, **options: Any) -> Any:
    from hopc.dialects.parse import parse_module

    return parse_module(text, **options)


def to_text(module: Any, *, debuginfo: bool = False, generic: bool = False) -> str:
    import io

    from xdsl.printer import Printer

    from hopc.ir.resources import resource_section

    stream = io.StringIO()
    Printer(stream=stream, print_debuginfo=debuginfo, print_generic_format=generic).print_op(module)
    return stream.getvalue() + resource_section(module)


capture.__doc__ = "The captured-level module of ``program(*args, **kwargs)`` (see ``hopc.frontend.capture``)."
compile.__doc__ = "A callable with ``program``'s eager semantics (see ``hopc.frontend.compile``)."
parse.__doc__ = "The module that hop-level IR ``text`` denotes (see ``hopc.dialects.parse.parse_module``)."
to_text.__doc__ = ("The text of ``module``; with ``debuginfo``, each op's ``loc(...)`` too; "
                   "``generic``: MLIR's generic form.")
