"""The wheel works outside the source tree: every module imports from it, and the default executor runs.

The wheel is built from a copy of the checkout without build outputs (``pip
wheel``, no dependencies, the venv's setuptools) and
installed into a folder of its own (``pip install --target``, not editable);
a fresh interpreter with only that folder ahead of the venv's packages
(and without the finder of the checkout's editable install, which would
serve a module the wheel lacks from the checkout) imports every module of the installed ``hopc`` (its files, not the checkout's),
runs ``hopc-opt``'s passes on the example and compiles a cond program with the
default executor, forward and backward. A package setuptools does not find
(a sub-package missing from the wheel) fails here, not at a user's first call.
"""

from __future__ import annotations

import os
import pathlib
import shutil
import subprocess
import sys

CHECKOUT = pathlib.Path(__file__).resolve().parents[1]

SMOKE = r"""
import importlib, pathlib, pkgutil, sys
sys.meta_path = [finder for finder in sys.meta_path if not getattr(finder, "__module__", "").startswith("__editable__")]
import hopc
site = pathlib.Path(sys.argv[1]).resolve()
assert pathlib.Path(hopc.__file__).resolve().is_relative_to(site), hopc.__file__
for module in pkgutil.walk_packages(hopc.__path__, "hopc."):
    importlib.import_module(module.name)

from hopc.tools.opt import main
sys.argv = ["hopc-opt", sys.argv[2], "--functionalize", "--lift-symbols", "--canonicalize", "--cse", "--dce"]
try:
    main()
except SystemExit as exit:
    assert not exit.code, exit.code

import torch
def program(x):
    return torch.cond(x.sum() > 0, lambda x: x.sin(), lambda x: x.cos(), (x,))
x = torch.randn(4, 3, requires_grad=True)
compiled = hopc.compile(program)
compiled(x).sum().backward()
expected = torch.where(x.sum() > 0, x.cos(), -x.sin())
assert torch.allclose(x.grad, expected.detach()), (x.grad, expected)
print("smoke: ok")
"""


def test_wheel_works_outside_the_source_tree(tmp_path):
    source = tmp_path / "source"  # a copy without build outputs: a stale build/ would fill gaps of the wheel
    shutil.copytree(CHECKOUT, source, ignore=shutil.ignore_patterns(
        ".git", ".venv", "build", "*.egg-info", "__pycache__", "Output", ".hypothesis", "lit_tests", "tests", "bench"))
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "-q"]
    subprocess.run([*pip, "wheel", str(source), "--no-deps", "--no-build-isolation", "-w", str(tmp_path / "dist")],
                   check=True, cwd=tmp_path)
    wheel, = (tmp_path / "dist").glob("hopc-*.whl")
    site = tmp_path / "site"
    subprocess.run([*pip, "install", "--no-deps", "--target", str(site), str(wheel)], check=True, cwd=tmp_path)
    environment = {**os.environ, "PYTHONPATH": str(site), "TRITON_INTERPRET": "1"}
    result = subprocess.run([sys.executable, "-c", SMOKE, str(site), str(CHECKOUT / "examples" / "cond.mlir")],
                            cwd=tmp_path, env=environment, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-4000:]
    assert "smoke: ok" in result.stdout
