"""Settings of the whole test suite.

Hypothesis runs derandomized: every run draws the same examples, so the
suite is a deterministic gate and CI never fails on an example that no
earlier run drew (a random search found a generator case in CI's place
once). ``HOPC_HYPOTHESIS=explore bash scripts/test.sh`` draws fresh examples,
a search for bugs; a failure it finds prints the draws that reproduce it.

The persistent compile cache (``hopc.compile_cache``) is off for the suite, so
that each test compiles what it compiles and sees every stage run, whatever
ran before it (and whatever the shell sets); the cache's own tests turn it on
in a directory of their own. Nothing the suite runs writes to the user's
cache: ``HOPC_CACHE_DIR`` is a fresh directory, removed at the end.
"""

import atexit
import os
import pathlib
import shutil
import tempfile

import pytest
from hypothesis import settings

settings.register_profile("deterministic", derandomize=True)
settings.register_profile("explore", derandomize=False)
settings.load_profile("explore" if os.environ.get("HOPC_HYPOTHESIS") == "explore" else "deterministic")

os.environ["HOPC_CACHE"] = "0"
os.environ["HOPC_CACHE_DIR"] = tempfile.mkdtemp(prefix="hopc-test-cache-")
atexit.register(shutil.rmtree, os.environ["HOPC_CACHE_DIR"], ignore_errors=True)


@pytest.fixture
def compile_cache_dir(monkeypatch, tmp_path) -> pathlib.Path:
    """The compile cache turned on, in a directory of the test's own (missing until used)."""
    directory = tmp_path / "cache"
    monkeypatch.setenv("HOPC_CACHE", "1")
    monkeypatch.setenv("HOPC_CACHE_DIR", str(directory))
    return directory


@pytest.fixture
def fresh_dynamo():
    """Dynamo's caches emptied before and after the test: each compile in it is a frame's first."""
    import torch._dynamo

    torch._dynamo.reset()
    yield
    torch._dynamo.reset()
