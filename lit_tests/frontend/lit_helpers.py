"""What the frontend lit tests share: decorators that run a test under its label.

Each test is a function decorated with ``@run``: it runs at import, after a
``TEST: <name>`` line that its ``CHECK-LABEL`` matches. ``lit.local.cfg`` keeps
this module out of the tests; the tests import it from beside them.
"""

from hopc.ir.diagnostics import HopcError


def run(test):
    print(f"TEST: {test.__name__}")
    test()
    return test


def run_printing_errors(test):
    """``run``, printing the ``HopcError`` the test raises, with its location."""
    print(f"TEST: {test.__name__}")
    try:
        test()
    except HopcError as error:
        print(error.format())
    return test
