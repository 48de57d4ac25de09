"""The capture rules of each HOP kind (``hopc.fx_import.capture_rules``, filled by the modules
of ``hopc.fx_import.hops``): the tables agree on the kinds, name what the installed PyTorch
has, and the stages apply them."""

from __future__ import annotations

import warnings

import pytest
import torch
import torch.fx
from torch.nn.attention.flex_attention import flex_attention
from xdsl.ir import Block

from hopc.frontend.autograd_functions import hopc_autograd_function
from hopc.frontend.direct_capture import NeedsDynamo, _hop_entry_points
from hopc.frontend.kept_regions import hopc_checkpoint, hopc_wrap
from hopc.fx_import.capture_rules import EAGER_ENTRY_POINTS, HOP_IMPORTS, TRAILING_ARGUMENTS
from hopc.fx_import.importer import GraphImporter, ModuleImports
from hopc.fx_import.shape_symbols import ShapeSymbols
from hopc.ir.diagnostics import HopcError

KINDS = sorted(HOP_IMPORTS)


def test_every_imported_kind_is_a_higher_order_operator():
    """A key is what ``HigherOrderOperator.name()`` says, hopc's own HOPs included."""
    hopc_operators = {hopc_wrap.name(), hopc_checkpoint.name(), hopc_autograd_function.name()}
    assert hopc_operators <= set(KINDS)
    for kind in KINDS:
        assert isinstance(torch._ops._higher_order_ops.get(kind), torch._ops.HigherOrderOperator), kind


def test_every_imported_kind_says_where_a_program_enters_it_outside_dynamo():
    assert sorted(EAGER_ENTRY_POINTS) == KINDS


def test_hoisted_constants_have_an_argument_in_every_kind_but_autograd_functions():
    """A custom ``autograd.Function``'s backward takes cotangents, then saved values: its
    bodies' constants are refused (Note [hoisted constants])."""
    assert sorted(TRAILING_ARGUMENTS) == [kind for kind in KINDS if kind != "hopc_autograd_function"]


@pytest.mark.parametrize("kind", KINDS)
def test_each_eager_entry_point_is_in_the_installed_torch(kind: str):
    """A missing one would make every direct capture give up (Note [direct capture])."""
    for owner, name in EAGER_ENTRY_POINTS.get(kind)():
        assert hasattr(owner, name), f"{kind}: {owner} has no {name}"


def test_direct_capture_gives_up_where_flex_attention_compiles_its_call():
    """``flex_attention`` holds its own name for ``setup_compilation_env``."""
    query = torch.randn(1, 2, 8, 4)
    with warnings.catch_warnings(), _hop_entry_points():
        warnings.simplefilter("ignore")
        with pytest.raises(NeedsDynamo):
            flex_attention(query, query, query)
    assert flex_attention(query, query, query).shape == query.shape


def test_a_hop_of_no_registered_kind_is_refused():
    graph = torch.fx.Graph()
    graph.call_function(torch.ops.higher_order.print, ("{}", ))
    graph.output(())
    importer = GraphImporter(ModuleImports(ShapeSymbols(None)), torch.fx.GraphModule({}, graph), Block())
    with pytest.raises(HopcError, match="unsupported: the higher-order op print"):
        importer.import_graph()
