"""The builtin dialect's resource blobs: the bytes behind ``dense_resource<handle>``.

A large constant's value is the attribute ``dense_resource<w> : tensor<...>``;
its bytes sit at the end of the file, in the section MLIR writes::

    {-#
      dialect_resources: {
        builtin: {
          w: "0x04000000CDCCCC3D..."
        }
      }
    #-}

Each blob is the hex of a little-endian ``uint32`` alignment followed by the
raw little-endian element data. ``Builtin`` is xDSL's builtin dialect with
``BLOBS``, the store that holds them, as its ``OpAsmDialectInterface``;
``hopc.registry`` registers it under ``builtin``, so hopc's parser fills the
store and ``resource_section`` prints what a module references.

Note [one blob store]
~~~~~~~~~~~~~~~~~~~~~
``dense_resource<w>`` holds only a handle, so whoever reads or prints a value
(``hopc.torch_bridge.tensor_constants.constant_tensor``, ``hopc.to_text``, the interpreter)
must find the blob from the handle alone, with no context in hand: the store
is one per process, as xDSL's own builtin store is. Its invariant: a handle,
once bound, names the same bytes for the life of the process. ``intern``
binds a new handle to fresh bytes, reuses one already bound to equal bytes,
and otherwise picks ``w_1``, ``w_2``, ...; it never rebinds. Parsing text
whose handle ``w`` is bound to other bytes (two files that both name a blob
``w``) binds the new bytes to a fresh handle and ``rename_resources``
rewrites the parsed module to it (``hopc.dialects.parse`` does both), so a module's
text parses back to the same text, and to the same bytes, however many
modules the process holds. A blob bound so lives as long as the store, as
in an MLIR context; one bound for an owner lives as long as its owners
(Note [owned blobs]).

Note [owned blobs]
~~~~~~~~~~~~~~~~~~
A compiled artifact makes constants of its own at run time: each (re)freeze
of a frozen call (``hopc.frontend.freezing``) folds the current weights into
new blobs, and blobs that lived as long as the process would pile up with
every refreeze (50 refreezes of a 2 MiB model held 140 MB more, after the
compiled program was gone). So ``intern`` takes an ``owner``, a
``BlobOwner`` standing for the artifact whose module references the blob,
and the owner's blobs are released with it: ``owner.release_with(artifact)``
releases them when the artifact is collected. The store counts the owners
of each owned handle; a blob is unbound when its last owner is released,
and stays bound for good once interned without an owner (parsed text
referencing it, a pass run from ``hopc-opt``). A released handle is retired,
never bound again: a module that outlived its owner (a copy taken from the
artifact) finds no blob there (``KeyError``, a verifier error), never other
bytes. The artifact must keep every module that reads the blobs; the
runtime does (a ``ModuleCall`` holds its module, and what an executor
prepares from it: Note [compiled executors] in
``hopc.backend.runtime.executors``). An owner is released from a finalizer,
which may run in the middle of the store's own work (a collection there):
it is released at once where the store is free, else by the store's next
``intern`` or ``release``. The blobs go when the artifact does, and so do
the tensors the executors converted from them, by reference counting alone:
the code an executor prepared owns them, in no reference cycle, and the
process's cache of conversions holds them weakly (Note [converted
constants] in ``hopc.backend.interpreters.hop``). The artifact's IR modules
themselves are reference cycles (xDSL's parent and neighbour links), freed
when Python's cycle collector runs; they hold handles, not bytes.
"""

from __future__ import annotations

import re
import threading
import weakref
from collections.abc import Iterable, Iterator

from xdsl.dialect_interfaces.op_asm import OpAsmDialectInterface
from xdsl.dialects import builtin
from xdsl.dialects.builtin import ArrayAttr, DenseResourceAttr, DictionaryAttr, ModuleOp
from xdsl.ir import Attribute, Dialect

BLOB_PREFIX_BYTES = 4
"""The ``uint32`` alignment that starts every blob."""

HANDLE = re.compile(r"[A-Za-z_][A-Za-z0-9_$.]*")
"""A resource handle: an MLIR bare identifier, as the resource section spells its keys."""


def handle_for(name: str) -> str:
    """A handle made from any name: each character a handle may not hold becomes ``_``,
    and ``_`` goes first where the name does not start as an identifier does."""
    handle = re.sub(r"[^A-Za-z0-9_$.]", "_", name)
    return handle if HANDLE.fullmatch(handle) else f"_{handle}"


def encode_blob(data: bytes, alignment: int) -> bytes:
    """A blob as MLIR stores it: ``alignment`` (little-endian ``uint32``), then ``data``."""
    return alignment.to_bytes(BLOB_PREFIX_BYTES, "little") + data


def blob_data(blob: bytes) -> bytes:
    """The element data of a blob: its bytes after the alignment."""
    return blob[BLOB_PREFIX_BYTES:]


def blob_text(blob: bytes) -> str:
    """The text of a blob in the resource section: ``0x`` and upper-case hex, as MLIR prints it."""
    return "0x" + blob.hex().upper()


def parse_blob_text(text: str) -> bytes:
    """The blob that resource-section text denotes; ValueError unless it is ``0x`` and hex of at
    least the alignment."""
    if not text.startswith("0x"):
        raise ValueError(f"a blob is a hex string starting with 0x, got {text[:16]!r}")
    blob = bytes.fromhex(text[2:])
    if len(blob) < BLOB_PREFIX_BYTES:
        raise ValueError("a blob starts with a 4-byte alignment, this one is shorter")
    return blob


class BlobOwner:
    """The blobs interned for one artifact, released together (Note [owned blobs])."""

    def __init__(self) -> None:
        self.handles: set[str] = set()
        """The handles this owner holds, each counted once in the store."""

    def release_with(self, artifact: object) -> None:
        """Releases this owner's blobs when ``artifact`` is collected."""
        weakref.finalize(artifact, BLOBS.release, self)


class ResourceBlobs(OpAsmDialectInterface):
    """The process's resource blobs: handle -> blob (Note [one blob store]).

    Invariant: a handle is bound to one blob at most once (a released one is retired), and
    every handle is a ``HANDLE``, so the resource section prints it bare; a handle in
    ``_owner_counts`` is held by that many live owners, any other bound handle for good (Note
    [owned blobs]). xDSL's parser calls ``declare_resource`` and ``parse_resource``; hopc's
    parser calls ``intern`` itself, to rename instead of failing on a clash.
    """

    def __init__(self) -> None:
        super().__init__()
        self._blobs: dict[str, bytes] = {}
        self._owner_counts: dict[str, int] = {}
        self._retired: set[str] = set()
        self._lock = threading.Lock()
        self._to_release: list[BlobOwner] = []
        """Owners released while the store was busy (Note [owned blobs])."""

    @property
    def bound_count(self) -> int:
        """The number of blobs bound (no ``__len__``: xDSL tests the interface for truth)."""
        return len(self._blobs)

    def intern(self, handle: str, blob: bytes, owner: BlobOwner | None = None) -> str:
        """The handle that names ``blob``: ``handle`` when it is free or names equal bytes,
        else the first free (or equal) ``handle_1``, ``handle_2``, ...; held by ``owner``
        where one is given, for good otherwise (Note [owned blobs]). ValueError where
        ``handle`` is not a ``HANDLE``."""
        if not HANDLE.fullmatch(handle):
            raise ValueError(f"resource handle {handle!r} is not an identifier ({HANDLE.pattern})")
        with self._lock:
            candidate, counter = handle, 0
            while candidate in self._retired or self._blobs.get(candidate, blob) != blob:
                counter += 1
                candidate = f"{handle}_{counter}"
            if candidate not in self._blobs:
                self._blobs[candidate] = blob
                if owner is not None:
                    self._owner_counts[candidate] = 0
            elif owner is None:
                self._owner_counts.pop(candidate, None)
            if owner is not None and candidate in self._owner_counts and candidate not in owner.handles:
                owner.handles.add(candidate)
                self._owner_counts[candidate] += 1
        self._release_pending()
        return candidate

    def release(self, owner: BlobOwner) -> None:
        """Unbinds each blob that no owner but ``owner`` holds (Note [owned blobs])."""
        self._to_release.append(owner)
        self._release_pending()

    def _release_pending(self) -> None:
        if not self._lock.acquire(blocking=False):
            return  # the store is busy; its next intern or release does it
        try:
            while self._to_release:
                owner = self._to_release.pop()
                for handle in owner.handles:
                    count = self._owner_counts.get(handle)
                    if count is None:
                        continue  # interned for good since
                    if count > 1:
                        self._owner_counts[handle] = count - 1
                        continue
                    del self._owner_counts[handle]
                    del self._blobs[handle]
                    self._retired.add(handle)
                owner.handles.clear()
        finally:
            self._lock.release()

    def blob(self, handle: str) -> bytes | None:
        """The blob ``handle`` names, or None when nothing is bound to it."""
        return self._blobs.get(handle)

    def declare_resource(self, key: str) -> str:
        """A handle met in text keeps its name: its blob, read later, decides (Note [one blob store])."""
        return key

    def parse_resource(self, key: str, val: str) -> None:
        if self.intern(key, parse_blob_text(val)) != key:
            raise ValueError(f"resource '{key}' already names other bytes in this process "
                             "(hopc.parse renames such a blob)")

    def lookup(self, key: str) -> str | None:
        blob = self._blobs.get(key)
        return None if blob is None else blob_text(blob)

    def build_resources(self, keys: Iterable[str]) -> dict[str, str]:
        return {key: blob_text(self._blobs[key]) for key in keys if key in self._blobs}


BLOBS = ResourceBlobs()
"""The one blob store (Note [one blob store])."""

Builtin = Dialect("builtin", list(builtin.Builtin.operations), list(builtin.Builtin.attributes), [BLOBS])
"""xDSL's builtin dialect, with ``BLOBS`` holding its resources."""


def _resources_in(attribute: Attribute) -> Iterator[DenseResourceAttr]:
    if isinstance(attribute, DenseResourceAttr):
        yield attribute
    elif isinstance(attribute, ArrayAttr):
        for element in attribute.data:
            yield from _resources_in(element)
    elif isinstance(attribute, DictionaryAttr):
        for element in attribute.data.values():
            yield from _resources_in(element)


def resource_handles(module: ModuleOp) -> list[str]:
    """The handles of the ``dense_resource`` attributes of ``module``'s ops (properties and
    attributes, in arrays and dictionaries too), each once, in the order the text shows them."""
    handles: dict[str, None] = {}
    for op in module.walk():
        for attribute in (*op.properties.values(), *op.attributes.values()):
            for resource in _resources_in(attribute):
                handles.setdefault(resource.resource_handle.data)
    return list(handles)


def resource_section(module: ModuleOp) -> str:
    """The file-level ``{-# dialect_resources ... #-}`` section holding the blobs ``module``
    references, laid out as MLIR prints it, starting on a new paragraph; empty when it
    references none. Handles without a blob are left out (the verifier reports them)."""
    blobs = [(handle, BLOBS.blob(handle)) for handle in resource_handles(module)]
    lines = [f'      {handle}: "{blob_text(blob)}"' for handle, blob in blobs if blob is not None]
    if not lines:
        return ""
    return ("\n\n{-#\n  dialect_resources: {\n    builtin: {\n" + ",\n".join(lines)
            + "\n    }\n  }\n#-}")


def _renamed(attribute: Attribute, renamed: dict[str, str]) -> Attribute:
    if isinstance(attribute, DenseResourceAttr) and attribute.resource_handle.data in renamed:
        return DenseResourceAttr.from_params(renamed[attribute.resource_handle.data], attribute.type)
    if isinstance(attribute, ArrayAttr):
        return ArrayAttr([_renamed(element, renamed) for element in attribute.data])
    if isinstance(attribute, DictionaryAttr):
        return DictionaryAttr({name: _renamed(element, renamed) for name, element in attribute.data.items()})
    return attribute


def rename_resources(module: ModuleOp, renamed: dict[str, str]) -> None:
    """Points every ``dense_resource`` attribute of ``module``'s ops (where
    ``resource_handles`` finds them) whose handle ``renamed`` maps to the new handle."""
    if not renamed:
        return
    for op in module.walk():
        for table in (op.properties, op.attributes):
            for name, attribute in table.items():
                if any(True for _ in _resources_in(attribute)):
                    table[name] = _renamed(attribute, renamed)
