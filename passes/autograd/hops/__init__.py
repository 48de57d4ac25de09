"""Backward rules of the HOPs, one module per kind; each registers itself on import.

Importing this package imports every module in it (so a new HOP's rule is a
new file here, with ``@backward_rule_for(ItsOp)``, and nothing else).
"""

from importlib import import_module
from pkgutil import iter_modules

for _module in iter_modules(__path__):
    import_module(f"{__name__}.{_module.name}")
