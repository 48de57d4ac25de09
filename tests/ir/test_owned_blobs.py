"""Blobs interned for an owner are released with it (Note [owned blobs] in ``hopc.ir.resources``)."""

from __future__ import annotations

import gc

from hopc.ir.resources import BLOBS, BlobOwner

BLOB = (4).to_bytes(4, "little") + b"\x01\x02\x03\x04"
OTHER = (4).to_bytes(4, "little") + b"\x05\x06\x07\x08"


class Artifact:
    """Stands for a compiled call that owns blobs."""


def test_an_owned_blob_is_released_with_its_artifact():
    owner, artifact = BlobOwner(), Artifact()
    handle = BLOBS.intern("owned_blob", BLOB, owner)
    owner.release_with(artifact)
    assert BLOBS.blob(handle) == BLOB
    del artifact
    gc.collect()
    assert BLOBS.blob(handle) is None


def test_a_blob_two_owners_hold_lives_until_both_are_released():
    first, second = BlobOwner(), BlobOwner()
    handle = BLOBS.intern("shared_blob", BLOB, first)
    assert BLOBS.intern("shared_blob", BLOB, second) == handle
    BLOBS.release(first)
    assert BLOBS.blob(handle) == BLOB
    BLOBS.release(second)
    assert BLOBS.blob(handle) is None


def test_a_blob_also_interned_without_owner_stays_for_good():
    owner = BlobOwner()
    handle = BLOBS.intern("pinned_blob", BLOB, owner)
    assert BLOBS.intern("pinned_blob", BLOB) == handle  # parsed text referencing it, say
    BLOBS.release(owner)
    assert BLOBS.blob(handle) == BLOB


def test_a_released_handle_is_never_bound_again():
    """A module that outlived its owner finds no blob, never other bytes."""
    owner = BlobOwner()
    handle = BLOBS.intern("retired_blob", BLOB, owner)
    BLOBS.release(owner)
    assert BLOBS.intern("retired_blob", OTHER) != handle
    assert BLOBS.intern("retired_blob", BLOB) != handle
    assert BLOBS.blob(handle) is None
