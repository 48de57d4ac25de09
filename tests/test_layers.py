"""hopc's packages import one way: each layer only from the layers below it.

The layers are the ``[tool.importlinter]`` contract of ``pyproject.toml``, top
to bottom: the tools and the driver, ``frontend``, ``backend``, ``passes``,
``fx_import``, ``torch_bridge``, ``dialects``, ``ir``, ``registry``; every
module of ``hopc`` is in one of them (``exhaustive``). import-linter sees
imports inside functions too, so a lazy import does not get around the order.

import-linter (grimp) finds a package's modules by walking its folder, and the
checkout's folders are not the installed layout (``ir/`` is ``hopc.ir``:
``setup.py``'s ``PACKAGE_FOLDERS``). So the test copies the sources into a
``hopc/`` tree laid out as installed and lints that tree in a fresh
interpreter without the editable install's finder (which would serve the
checkout's folders), checking first that ``hopc`` resolves to the copy.
"""

from __future__ import annotations

import ast
import os
import pathlib
import shutil
import subprocess
import sys

CHECKOUT = pathlib.Path(__file__).resolve().parents[1]

LINT = r"""
import importlib.util, pathlib, sys
sys.meta_path = [finder for finder in sys.meta_path if not getattr(finder, "__module__", "").startswith("__editable__")]
tree = pathlib.Path(sys.argv[1]).resolve()
found = pathlib.Path(importlib.util.find_spec("hopc").origin).resolve()
assert found.is_relative_to(tree), f"hopc resolves to {found}, not to the copy in {tree}"
from importlinter.cli import lint_imports
sys.exit(lint_imports(config_filename=sys.argv[2], no_cache=True))
"""


def _package_folders() -> dict[str, str]:
    """``setup.py``'s ``PACKAGE_FOLDERS`` (import name -> folder of the checkout)."""
    for node in ast.parse((CHECKOUT / "setup.py").read_text()).body:
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", None) == "PACKAGE_FOLDERS":
            return ast.literal_eval(node.value)
    raise AssertionError("setup.py defines no PACKAGE_FOLDERS")


def _installed_layout(destination: pathlib.Path) -> pathlib.Path:
    """A copy of the Python sources under ``destination/hopc``, as the wheel lays them out."""
    for package, folder in _package_folders().items():
        root = CHECKOUT / folder
        for source in root.rglob("*.py"):
            target = destination.joinpath(*package.split("."), source.relative_to(root))
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, target)
    return destination


def _lint(tree: pathlib.Path) -> subprocess.CompletedProcess:
    environment = {**os.environ, "PYTHONPATH": str(tree)}
    return subprocess.run([sys.executable, "-c", LINT, str(tree), str(CHECKOUT / "pyproject.toml")],
                          cwd=tree, env=environment, capture_output=True, text=True, timeout=300)


def test_each_layer_imports_only_the_layers_below_it(tmp_path):
    result = _lint(_installed_layout(tmp_path))
    assert result.returncode == 0, result.stdout[-6000:] + result.stderr[-3000:]
    assert "1 kept, 0 broken" in result.stdout


def test_an_upward_import_breaks_the_contract(tmp_path):
    tree = _installed_layout(tmp_path)
    types = tree / "hopc" / "ir" / "types.py"
    types.write_text(types.read_text() + "\n\ndef _upward():\n    from hopc.passes import pipeline\n")
    result = _lint(tree)
    assert result.returncode == 1, result.stdout[-3000:] + result.stderr[-3000:]
    assert "hopc.ir.types -> hopc.passes.pipeline" in result.stdout


def test_a_module_outside_every_layer_breaks_the_contract(tmp_path):
    tree = _installed_layout(tmp_path)
    (tree / "hopc" / "stray.py").write_text("")
    result = _lint(tree)
    assert result.returncode == 1, result.stdout[-3000:] + result.stderr[-3000:]
    assert "- hopc.stray" in result.stdout
