"""The wheel holds every package, and works installed into a clean virtual environment.

Note [clean virtual environment]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
The wheel is built from a copy of the checkout without build outputs (a stale
``build/`` would fill gaps of the wheel) by ``pip wheel`` (no dependencies,
this venv's setuptools) and installed, not editable, into a new virtual
environment without system site packages. Its dependencies (torch, xDSL,
sympy, ...) are this environment's: a ``.pth`` file in the new venv's
site-packages names the folders they lie in. Installing them afresh would take
a minute and 2 GB for every run. A folder named by a ``.pth`` line is put on
``sys.path`` as it is, its own ``.pth`` files unread, so the finder of this
checkout's editable install (``__editable__.hopc-*.pth``) is not installed
there, and the folders must hold no ``hopc`` of their own (asserted): a module
the wheel lacks then fails to import instead of being served from the checkout.
``tests/packaging_smoke.py`` runs under the new venv's interpreter (``-I``: no
``PYTHONPATH``, no script folder on ``sys.path``) from outside the source tree
and checks that ``hopc`` is the installed copy, then runs ``hopc-opt``, every
pass and every executor from it.
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import pathlib
import shutil
import subprocess
import sys

from packaging.requirements import Requirement

CHECKOUT = pathlib.Path(__file__).resolve().parents[1]
SMOKE = CHECKOUT / "tests" / "packaging_smoke.py"
NOT_SOURCES = shutil.ignore_patterns(".git", ".venv*", "build", "*.egg-info", "__pycache__", "Output", ".hypothesis",
                                     ".ruff_cache", "lit_tests", "tests", "bench")


def dependency_folders() -> list[str]:
    """The folders holding the distributions hopc requires (not its extras), as installed here."""
    requirements = [Requirement(text) for text in importlib.metadata.requires("hopc") or []]
    folders = {str(importlib.metadata.distribution(requirement.name).locate_file("").resolve())
               for requirement in requirements if requirement.marker is None}
    return sorted(folders)


def make_virtual_environment(path: pathlib.Path) -> tuple[pathlib.Path, pathlib.Path]:
    """A venv without system site packages that sees this one's dependencies; its
    interpreter and site-packages (Note [clean virtual environment])."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(path)], check=True)
    python = path / "bin" / "python"
    site_packages = pathlib.Path(subprocess.run(
        [python, "-I", "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
        check=True, capture_output=True, text=True).stdout.strip())
    folders = dependency_folders()
    for folder in folders:
        assert not any((pathlib.Path(folder) / name).exists() for name in ("hopc", "hopc.py")), (
            f"{folder} holds a hopc of its own, which would hide what the wheel lacks")
    (site_packages / "hopc-test-dependencies.pth").write_text("".join(f"{folder}\n" for folder in folders))
    return python, site_packages


def test_wheel_works_in_a_clean_virtual_environment(tmp_path):
    source = tmp_path / "source"
    shutil.copytree(CHECKOUT, source, ignore=NOT_SOURCES)
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "-q"]
    subprocess.run([*pip, "wheel", str(source), "--no-deps", "--no-build-isolation", "-w", str(tmp_path / "dist")],
                   check=True, cwd=tmp_path)
    wheel, = (tmp_path / "dist").glob("hopc-*.whl")
    python, site_packages = make_virtual_environment(tmp_path / "venv")
    subprocess.run([*pip, "--python", str(python), "install", "--no-deps", "--no-index", str(wheel)],
                   check=True, cwd=tmp_path)
    work = tmp_path / "work"
    work.mkdir()
    environment = {name: value for name, value in os.environ.items() if name != "PYTHONPATH"}
    result = subprocess.run([python, "-I", str(SMOKE), str(site_packages), str(work)],
                            cwd=work, env={**environment, "TRITON_INTERPRET": "1"},
                            capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr[-6000:]
    assert result.stdout.strip().endswith("smoke: ok"), result.stdout[-2000:]


SETUPTOOLS_PACKAGES = """
import json
from distutils.core import run_setup
distribution = run_setup("setup.py", stop_after="init")
print(json.dumps({"packages": distribution.packages, "package_dir": distribution.package_dir}))
"""


def test_setuptools_finds_every_package_folder():
    """The packages ``setup.py`` gives setuptools are exactly the folders with an ``__init__.py``
    under the package roots, and no folder of Python files there lacks one (it would be left
    out of the wheel: setuptools finds only regular packages)."""
    found = json.loads(subprocess.run([sys.executable, "-c", SETUPTOOLS_PACKAGES], cwd=CHECKOUT, check=True,
                                      capture_output=True, text=True).stdout)
    on_disk, without_init = set(), []
    for root_package, root in found["package_dir"].items():
        for folder in {path.parent for path in (CHECKOUT / root).rglob("*.py") if "__pycache__" not in path.parts}:
            relative = folder.relative_to(CHECKOUT / root)
            if (folder / "__init__.py").exists():
                on_disk.add(".".join((root_package, *relative.parts)))
            else:
                without_init.append(str(folder.relative_to(CHECKOUT)))
    assert not without_init, f"folders of Python files without __init__.py: {without_init}"
    packages = set(found["packages"])
    assert packages == on_disk, (f"setup.py leaves out {sorted(on_disk - packages)}, "
                                 f"and finds {sorted(packages - on_disk)} in no folder")
