"""Functionalize every HOP whose bodies are functional (Note [functional bodies] in
``hopc.dialects.hop_interface``: ``hop.associative_scan``'s combine, ``hop.flex_attention``'s
score and mask): bodies that may change nothing, results that are new tensors."""

from __future__ import annotations

from hopc.dialects.hop_interface import FunctionalBodies
from hopc.passes.functionalize.functionalize import FUNCTIONALIZE_RULES
from hopc.passes.functionalize.hops.common import functionalize_pure_bodies

FUNCTIONALIZE_RULES.register(FunctionalBodies)(functionalize_pure_bodies)
