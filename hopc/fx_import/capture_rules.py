"""What capture does per kind of PyTorch HOP: four rule tables that ``hopc.fx_import.hops`` fills
(``hopc.fx_import.stand_ins`` the last).

Each kind's rules live in one module of ``hopc.fx_import.hops``, named after
the kind, which registers them here (Note [rule tables] in
``hopc.ir.rule_table``); the stages below look a HOP up and name no kind, so
a new HOP is captured by a new module there and by nothing else. A kind's
Dynamo stand-in is the exception: it lives in ``hopc.fx_import.stand_ins``,
under the kind's name, which imports torch alone, since every compile
installs the stand-ins before Dynamo traces, one that the compile cache
serves without importing any IR too (Note [imports of a cache hit] in
``hopc.frontend.dynamo_backend``):

    HOP_IMPORTS         the importer (``GraphImporter``): a HOP call -> its region op
    TRAILING_ARGUMENTS  constant hoisting (``hopc.frontend.constant_hoisting``):
                        the argument whose values the HOP's subgraphs take last
    EAGER_ENTRY_POINTS  direct capture (``hopc.frontend.direct_capture``): where a
                        program enters the HOP outside Dynamo, so as to give up there
    DYNAMO_STAND_INS    Dynamo capture (``hopc.frontend.dynamo_capture``): what Dynamo
                        traces in a PyTorch function's stead, so that the HOP is kept

The first three are keyed by the HOP's ``HigherOrderOperator.name()`` (as the
trace records the call), the last by the PyTorch function the stand-in replaces.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from hopc.ir.rule_table import RuleTable

if TYPE_CHECKING:
    import torch.fx

    from hopc.fx_import.importer import GraphImporter

_KINDS = ("hopc.fx_import.hops",)

ImportRule = Callable[["GraphImporter", "torch.fx.Node"], None]
"""Defines the call node's value(s) in the importer's block as the HOP's region op."""

EntryPoint = tuple[object, str]
"""An attribute of a PyTorch module or class, as ``(owner, name)``, that direct capture replaces."""

HOP_IMPORTS: RuleTable[ImportRule] = RuleTable("import", packages=_KINDS)
"""HOP name -> the function that imports its call (the region op its module names)."""

TRAILING_ARGUMENTS: RuleTable[Callable[[], int | None]] = RuleTable("constant hoisting", packages=_KINDS)
"""HOP name -> a function giving the argument whose values its subgraphs take last (None: the
variadic rest), where hoisted constants go (Note [hoisted constants]); a HOP without one refuses
a tensor constant made in its bodies."""

EAGER_ENTRY_POINTS: RuleTable[Callable[[], Sequence[EntryPoint]]] = RuleTable("direct capture", packages=_KINDS)
"""HOP name -> a function giving every entry point through which a program enters the HOP outside
Dynamo (Note [direct capture])."""

DYNAMO_STAND_INS: RuleTable[Callable] = RuleTable("dynamo capture", packages=("hopc.fx_import.stand_ins",))
"""PyTorch function -> what Dynamo traces in its stead in hopc's programs, with its signature
(Note [Dynamo stand-ins are hopc's] in ``hopc.frontend.dynamo_capture``)."""
