"""Which results may share an operand's storage (Note [result storage] in hopc.dialects.aten_storage)."""

import itertools
import json
import sys

import pytest
import torch

from hopc.backend.triton.ops import POINTWISE, REDUCTIONS
from hopc.dialects import aten_schema
from hopc.dialects.aten_schema import COMPOSITE_IMPLICIT_TAG, RETURNS_INPUT_STORAGE_TAG, lookup
from hopc.dialects.aten_storage import FRESH_COMPOSITES, results_may_share_storage


@pytest.mark.parametrize("op_name", ["aten._unsafe_view", "aten.dropout", "aten.view", "aten.reshape",
                                     "aten.lift_fresh_copy", "aten.softmax.int"])
def test_may_share_storage(op_name):
    assert results_may_share_storage(lookup(op_name))


@pytest.mark.parametrize("op_name", ["aten.mm", "aten.add.Tensor", "aten.linear", "aten.matmul",
                                     "aten.native_dropout", "aten.embedding"])
def test_owns_storage(op_name):
    assert not results_may_share_storage(lookup(op_name))


def test_dropout_of_zero_returns_its_input():
    """Why a composite op is taken to share: ATen's own dropout returns its input at p = 0."""
    x = torch.randn(3)
    assert torch.ops.aten.dropout(x, 0.0, True) is x
    assert torch.ops.aten._unsafe_view(x, [3, 1]).untyped_storage().data_ptr() == x.untyped_storage().data_ptr()


def _torchgen_storage_sharing() -> set[str]:
    from torchgen.packaged.autograd.gen_inplace_or_view_type import ALL_VIEW_FUNCTIONS, RETURNS_VIEWS_OF_INPUT
    from torchgen.packaged.autograd.gen_variable_type import DONT_ENFORCE_STORAGE_IMPL_USE_COUNT

    return set(ALL_VIEW_FUNCTIONS) | RETURNS_VIEWS_OF_INPUT | DONT_ENFORCE_STORAGE_IMPL_USE_COUNT


def test_table_tags_are_torchgens_and_the_dispatchers():
    """The derived tags are current: recomputed from this torch, they are the table's."""
    if not torch.__version__.startswith(aten_schema.torch_version().rsplit(".", 1)[0]):
        pytest.skip(f"table from torch {aten_schema.torch_version()}, running {torch.__version__}")
    sys.path.insert(0, str(aten_schema.TABLE_PATH.parents[1] / "scripts"))
    from generate_aten_table import schema_records

    records = schema_records()
    names = json.loads(aten_schema.TABLE_PATH.read_text())["ops"]
    derived = {RETURNS_INPUT_STORAGE_TAG, COMPOSITE_IMPLICIT_TAG}
    stale = [name for name in names if set(records[name].get("tags", ())) & derived != lookup(name).tags & derived]
    assert not stale
    assert {lookup(name).base_name for name in names if RETURNS_INPUT_STORAGE_TAG in lookup(name).tags} \
        <= _torchgen_storage_sharing()


def test_generated_kernels_never_share_storage():
    """The ops a fused (pointwise or reduction) kernel holds own their results' storage, so a
    kernel's first write may become its buffer (Note [first write allocates])."""
    sharing = [name for name in (*POINTWISE, *REDUCTIONS) if results_may_share_storage(lookup(name))]
    assert not sharing


def _operands(rank: int, size: int) -> torch.Tensor:
    return torch.randn((size,) * rank) if rank else torch.randn(())


@pytest.mark.parametrize("base_name", sorted(FRESH_COMPOSITES))
def test_fresh_composites_own_their_results(base_name):
    """Each decomposition hopc trusts to compute into new storage does so on every pairing of
    ranks 1-4, empty tensors and a bias or none included."""
    assert COMPOSITE_IMPLICIT_TAG in lookup(f"aten.{base_name}").tags
    checked = 0
    for rank_a, rank_b, size in itertools.product(range(1, 5), range(1, 5), (0, 1, 3)):
        a, b = _operands(rank_a, size), _operands(rank_b, size)
        if base_name == "matmul":
            argument_lists = [(a, b)]
        else:
            argument_lists = [(a, b), (a, b, torch.randn(b.shape[0]))] if rank_b == 2 else [(a, b)] * (rank_b == 1)
        for arguments in argument_lists:
            try:
                result = getattr(torch.ops.aten, base_name)(*arguments)
            except RuntimeError:
                continue  # shapes the op refuses
            shared = {t.untyped_storage().data_ptr() for t in arguments if t.numel()}
            assert result.numel() == 0 or result.untyped_storage().data_ptr() not in shared
            assert all(result is not t for t in arguments)
            checked += 1
    assert checked > 10
