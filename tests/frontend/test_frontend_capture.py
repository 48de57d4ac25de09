"""``hopc.capture`` on the corpus: IR kept as PyTorch ran it, equal to eager on every input set."""

import pytest
from frontend_corpus import CASES
from frontend_harness import check_capture


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.name)
def test_capture_matches_eager(case):
    module = check_capture(case.make(), case.inputs, case.dynamic_shapes)
    text = str(module)
    for op in case.ops:
        assert op in text, f"{op} missing from the captured IR"
