"""Compiles generated Triton kernels ahead of time for CUDA, without a GPU: ``python aot_compile.py SPECS``.

Run by ``test_aot_cuda.py`` in a fresh process with ``TRITON_INTERPRET``
unset (Note [kernel targets] in ``hopc.backend.triton.target``: interpreted
and compiled Triton are never mixed in one process). ``SPECS`` is a JSON
list of launches, each ``{"source", "name", "arguments", "constexprs"}``:
the kernel's source and function name, its positional arguments (a dtype
name such as ``"float32"`` for a tensor, an int for a scalar) and its block
constexprs. Each launch is specialized as Triton specializes one at launch
(``specialize``), the distinct (source, specialization) pairs are compiled
for every architecture of ``ARCHITECTURES`` with Triton's bundled
``ptxas``, and one JSON object is printed: the count compiled per
architecture and the failures.
"""

from __future__ import annotations

import importlib.util
import json
import os
import pathlib
import sys
import tempfile

ARCHITECTURES = (90, 80)
"""sm_90 (H100, H200) and sm_80 (A100)."""


def load_function(source: str, name: str, directory: pathlib.Path, index: int):
    """The jit function ``name`` of ``source``, imported from a file (``triton.jit`` reads it with ``inspect``)."""
    path = directory / f"kernel_{index}.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(f"aot_kernel_{index}", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return getattr(module, name)


POINTER_TYPES = {"bool": "u1", "int8": "i8", "int16": "i16", "int32": "i32", "int64": "i64", "uint8": "u8",
                 "float16": "fp16", "bfloat16": "bf16", "float32": "fp32", "float64": "fp64"}
DIVISIBLE = [["tt.divisibility", 16]]


def specialize(names: list[str], arguments: list, blocks: dict[str, int]):
    """(signature, constexprs, attrs) of a launch as Triton's launcher specializes one (its
    ``native_specialize_impl``, by default): a tensor is a pointer to its dtype, 16-byte aligned
    as torch allocates; an int equal to 1 a constexpr, any other an ``i32`` where it fits and an
    ``i64`` otherwise, divisible by 16 where it is (0 too); blocks are constexprs."""
    signature, constexprs, attrs = {}, {}, {}
    for index, (name, argument) in enumerate(zip(names, [*arguments, *blocks.values()])):
        attrs[(index,)] = []
        if name in blocks or argument == 1:
            signature[name], constexprs[(index,)] = "constexpr", argument
        elif isinstance(argument, str):
            signature[name], attrs[(index,)] = "*" + POINTER_TYPES[argument], DIVISIBLE
        else:
            signature[name] = "i32" if -2**31 <= argument < 2**31 else "i64"
            attrs[(index,)] = DIVISIBLE if argument % 16 == 0 else []
    return signature, constexprs, attrs


def main(specs_path: str) -> None:
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    specs = json.loads(pathlib.Path(specs_path).read_text())
    targets = {arch: GPUTarget("cuda", arch, 32) for arch in ARCHITECTURES}
    compiled = {arch: 0 for arch in ARCHITECTURES}
    failures: list[str] = []
    seen: set[str] = set()
    functions: dict[tuple[str, str], object] = {}
    with tempfile.TemporaryDirectory() as directory:
        for spec in specs:
            key = (spec["source"], spec["name"])
            if key not in functions:
                functions[key] = load_function(*key, pathlib.Path(directory), len(functions))
            function = functions[key]
            signature, constants, attrs = specialize(function.arg_names, spec["arguments"], spec["constexprs"])
            identity = repr((spec["source"], sorted(signature.items()), sorted(constants.items()), sorted(attrs.items())))
            if identity in seen:
                continue
            seen.add(identity)
            for arch, target in targets.items():
                try:
                    kernel = triton.compile(ASTSource(function, signature, constants, attrs), target=target)
                    if not kernel.asm.get("cubin"):
                        raise RuntimeError("no cubin")
                    compiled[arch] += 1
                except Exception as error:  # every failure is reported, with its kernel
                    failures.append(f"sm_{arch} {spec['name']} {signature}: {type(error).__name__}: "
                                    f"{str(error)[:2000]}\n{spec['source']}")
    print(json.dumps({"compiled": compiled, "distinct": len(seen), "kernels": len(functions),
                      "failures": failures,
                      "interpreter_imported": "triton.runtime.interpreter" in sys.modules,
                      "interpret_environment": os.environ.get("TRITON_INTERPRET")}))


if __name__ == "__main__":
    main(sys.argv[1])
