"""lit configuration of hopc's FileCheck tests.

Every ``.mlir`` test also gets the round-trip check of ``hopc.tools.roundtrip``
(print -> parse -> print is a fixed point, custom and generic forms agree, and
real ``mlir-opt`` accepts the generic form when it is installed); see
``RoundTripShTest``.
"""

import importlib.metadata
import importlib.util
import os
import pathlib
import shutil
import sys

sys.path.insert(0, os.path.dirname(__file__))
from roundtrip_format import RoundTripShTest

config.name = "hopc"
config.test_format = RoundTripShTest(execute_external=False)
config.suffixes = [".mlir", ".py"]
config.excludes = ["lit.cfg.py", "roundtrip_format.py", "lit.local.cfg"]
config.test_source_root = os.path.dirname(__file__)

python = sys.executable
config.substitutions.append(("%python", python))
config.environment["PYTHONUNBUFFERED"] = "1"
config.environment["TRITON_INTERPRET"] = "1"
# Each test compiles afresh: no entry of the user's compile cache serves it, none is written.
config.environment["HOPC_CACHE"] = "0"
for name in ("HOME", "PATH", "TMPDIR"):
    if name in os.environ:
        config.environment[name] = os.environ[name]
# Tools of the active environment come first (hopc-opt, filecheck).
config.environment["PATH"] = os.path.dirname(python) + os.pathsep + config.environment.get("PATH", "")

MLIR_OPT_CANDIDATES = ("mlir-opt", "mlir-opt-22", "/usr/lib/llvm-22/bin/mlir-opt")
mlir_opt = next((shutil.which(c) for c in MLIR_OPT_CANDIDATES if shutil.which(c)), None)
if mlir_opt:
    config.available_features.add("mlir-opt")
    config.substitutions.append(("%mlir-opt", mlir_opt))
    config.environment["HOPC_MLIR_OPT"] = mlir_opt
else:
    lit_config.note("real mlir-opt not found (Debian package mlir-22-tools): "
                    "generic-form checks against MLIR are skipped")

# torch's fake slice gives x[:u0] (u0 >= 0 unbacked, no fact against the size) Min(s0, u0) rows
# since pytorch#178899 (torch 2.13), a fresh size before it (torch 2.11): the test of hopc's
# refusal of such a slice declared [u0] needs the former. Read from torch's source, not imported.
fake_impls = pathlib.Path(importlib.util.find_spec("torch").origin).parent / "_subclasses" / "fake_impls.py"
if "return torch.sym_min(index, size)" in fake_impls.read_text():
    config.available_features.add("torch-bounds-unbacked-slices")

# Dynamo 2.13 asserts a torch._check of a conjunction as the whole And; 2.11 as its parts,
# which hopc keeps as they are (frontend/symbolic_conjunction.py checks the former).
torch_version = importlib.metadata.version("torch").split("+")[0]
if tuple(int(part) for part in torch_version.split(".")[:2]) >= (2, 13):
    config.available_features.add("dynamo-asserts-whole-conjunctions")
