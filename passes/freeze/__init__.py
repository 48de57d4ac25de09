"""``--freeze``: parameters and buffers become constants, folded into every HOP region.

``freeze(module, values)`` freezes a functional module in place; see
``hopc.passes.freeze.freeze`` for the contract.
"""

from hopc.passes.freeze.freeze import DEFAULT_MAX_CONSTANT_BYTES, FreezePass, FreezeReport, freeze

__all__ = ["DEFAULT_MAX_CONSTANT_BYTES", "FreezePass", "FreezeReport", "freeze"]
