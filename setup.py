"""The packages of the wheel, found by setuptools under the folder each import name maps to.

The top-level folders are the user's layout (``ir/``, ``passes/``, ...); installed, they are
``hopc.ir``, ``hopc.passes``, ... (``PACKAGE_FOLDERS``). Every package below them is found,
so a new sub-package is in the wheel without a list to keep (``tests/test_packaging.py``
builds the wheel and imports every module from it). The rest of the metadata is in
``pyproject.toml``.
"""

from setuptools import find_packages, setup

PACKAGE_FOLDERS = {
    "hopc": "hopc",
    "hopc.ir": "ir",
    "hopc.dialects": "dialects",
    "hopc.passes": "passes",
    "hopc.frontend": "frontend",
    "hopc.backend": "backend",
}

packages = []
for package, folder in PACKAGE_FOLDERS.items():
    packages += [package, *(f"{package}.{found}" for found in find_packages(folder))]

setup(packages=packages, package_dir=PACKAGE_FOLDERS)
