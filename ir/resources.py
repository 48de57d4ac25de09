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
(``hopc.ir.constants.constant_tensor``, ``hopc.to_text``, the interpreter)
must find the blob from the handle alone, with no context in hand: the store
is one per process, as xDSL's own builtin store is. Its invariant: a handle,
once bound, names the same bytes for the life of the process. ``intern``
binds a new handle to fresh bytes, reuses one already bound to equal bytes,
and otherwise picks ``w_1``, ``w_2``, ...; it never rebinds. Parsing text
whose handle ``w`` is bound to other bytes (two files that both name a blob
``w``) binds the new bytes to a fresh handle and ``rename_resources``
rewrites the parsed module to it (``hopc.ir.parse`` does both), so a module's
text parses back to the same text, and to the same bytes, however many
modules the process holds. Blobs are never freed: as in an MLIR context,
they live as long as the store.
"""

from __future__ import annotations

import re
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


class ResourceBlobs(OpAsmDialectInterface):
    """The process's resource blobs: handle -> blob (Note [one blob store]).

    Invariant: a bound handle is never rebound, and every handle is a ``HANDLE``, so the
    resource section prints it bare. xDSL's parser calls
    ``declare_resource`` and ``parse_resource``; hopc's parser calls
    ``intern`` itself, to rename instead of failing on a clash.
    """

    def __init__(self) -> None:
        super().__init__()
        self._blobs: dict[str, bytes] = {}

    def intern(self, handle: str, blob: bytes) -> str:
        """The handle that names ``blob``: ``handle`` when it is free or names equal bytes,
        else the first free (or equal) ``handle_1``, ``handle_2``, ... ValueError where
        ``handle`` is not a ``HANDLE``."""
        if not HANDLE.fullmatch(handle):
            raise ValueError(f"resource handle {handle!r} is not an identifier ({HANDLE.pattern})")
        candidate, counter = handle, 0
        while (bound := self._blobs.get(candidate)) is not None and bound != blob:
            counter += 1
            candidate = f"{handle}_{counter}"
        self._blobs[candidate] = blob
        return candidate

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
