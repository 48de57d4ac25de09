"""A lit test format: run the file's RUN lines, then, for ``.mlir`` inputs, the round-trip check."""

import subprocess
import sys

import lit.formats
import lit.Test


class RoundTripShTest(lit.formats.ShTest):
    """``ShTest`` plus ``python -m hopc.tools.roundtrip <file>`` for every ``.mlir`` test."""

    def execute(self, test, lit_config):
        result = super().execute(test, lit_config)
        if result.code != lit.Test.PASS or not test.getSourcePath().endswith(".mlir"):
            return result
        check = subprocess.run(
            [sys.executable, "-m", "hopc.tools.roundtrip", test.getSourcePath()],
            capture_output=True, text=True, env=test.config.environment,
        )
        if check.returncode != 0:
            return lit.Test.Result(lit.Test.FAIL, "round-trip check failed:\n" + check.stdout
                                   + check.stderr)
        return result
