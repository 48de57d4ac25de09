"""Reverse-mode autograd of hop modules through every HOP (``--autograd``).

``differentiate(module)`` gives a module's forward entry a backward; see
``hopc.passes.autograd.autograd`` for the contract.
"""

from hopc.passes.autograd.autograd import AutogradPass, differentiate

__all__ = ["AutogradPass", "differentiate"]
