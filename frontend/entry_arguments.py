"""The entry arguments of a captured module: what the frontend knows of each before importing.

Apart from the importer (``hopc.frontend.module_import``, which re-exports them) so that
a frame that the compile cache serves names its arguments without importing the IR.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import torch

PARAMETER, BUFFER, CONSTANT = "hop.parameter", "hop.buffer", "hop.constant"


@dataclass(frozen=True)
class EntryArgument:
    """One argument of the entry function."""

    role: str | None
    """None for a user input, else ``PARAMETER``, ``BUFFER`` or ``CONSTANT``."""
    name: str
    """The argument's name; for a module-level tensor, the symbol it is declared as."""
    example: object
    """The fake tensor (or ``SymInt``) the program was traced with."""
    value: torch.Tensor | None = None
    """The real tensor, for one the program read as an attribute rather than received."""
    requires_grad: bool = False
    """Whether the module is differentiated for it (a user input or parameter): ``{hop.requires_grad}``."""
