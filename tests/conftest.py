"""Settings of the whole test suite.

Hypothesis runs derandomized: every run draws the same examples, so the
suite is a deterministic gate and CI never fails on an example that no
earlier run drew (a random search found a generator case in CI's place
once). ``HOPC_HYPOTHESIS=explore bash scripts/test.sh`` draws fresh examples,
a search for bugs; a failure it finds prints the draws that reproduce it.
"""

import os

from hypothesis import settings

settings.register_profile("deterministic", derandomize=True)
settings.register_profile("explore", derandomize=False)
settings.load_profile("explore" if os.environ.get("HOPC_HYPOTHESIS") == "explore" else "deterministic")
