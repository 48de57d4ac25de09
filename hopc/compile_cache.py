"""The persistent compile cache: a frame's host-level module, kept on disk across processes.

``hopc.driver`` asks ``cache_slot`` for the slot of a captured module before
its stages run; ``torch.compile``'s backend first asks for the slot of Dynamo's
graph itself, which a second process finds without capturing the graph (Note
[graph keys] in ``hopc.frontend.dynamo_graph_key``). A slot whose entry is on
disk (``CacheSlot.load``) gives the module the ``functional`` and
``differentiated`` stages (``functional`` alone under ``freeze=True``) made of
that captured module the last time, parsed from its text, and the driver skips
those stages: they hold the derivative traces, the most expensive part of a
compile. Otherwise the driver runs them and stores the result
(``CacheSlot.store``). The kernel stages run on either
(parsing their larger text takes longer than running them: ``block``, training,
0.16 s CPU to parse the planned module against 0.08 to 0.11 s for the kernel
and planned stages); a slot of Dynamo's graph keeps the compiled call itself
too (Note [executable entries]). As Inductor's FX graph cache and
AOTAutograd's cache, it is on by default:

- ``HOPC_CACHE=0`` turns it off (``1``, or unset, keeps it on);
- ``HOPC_CACHE_DIR`` chooses the directory, ``$XDG_CACHE_HOME/hopc/compile``
  (``~/.cache/hopc/compile``) where it is unset.

Both are read each time a frame compiles. ``COUNTS`` counts the hits and
misses of the process, and each frame's compile report says which it was.

Note [compile cache key]
~~~~~~~~~~~~~~~~~~~~~~~~
An entry is found by the SHA-256 of everything the cached stages read:

- the captured module's text, locations and resource blobs included
  (``hopc.to_text(module, debuginfo=True)``): a program differing in a line
  number misses, so that a diagnostic never names another program's line;
  or, for a slot of Dynamo's graph, everything the capture reads of the graph
  (Note [graph keys] in ``hopc.frontend.dynamo_graph_key``);
- the compile options the stages may read (all but ``report_dir`` and
  ``print_ir_after_all``, which only show them), the executor's lowering
  options, and the device;
- the versions of Python, torch, xDSL and Triton, and a digest of hopc's own
  sources (``hopc_source_digest``), so that a changed pass never serves the
  result of the old one (PyTorch keys its caches by its sources the same way);
- the frame's shape facts (Note [frame facts in the key] in ``hopc.compile_cache_key``).

Note [executable entries]
~~~~~~~~~~~~~~~~~~~~~~~~~
A second process's first call of a graph it finds in the cache would still
import xDSL and hopc's dialects to parse the module, and run the kernel
stages and host code generation: together several times what the call may
cost (issue 25: a tenth of AOTAutograd's compile). So the slot of a Dynamo
graph (Note [graph keys] in ``hopc.frontend.dynamo_graph_key``) also keeps,
beside the module, the call compiled from it (``store_call``): the
``TrainingCall`` or ``ModuleCall``'s plan and each entry's generated host code
with the recipes of the values it closes over (``hopc.backend.runtime.stored_call``,
Note [namespace recipes] in ``hopc.backend.host.recipes``). ``load_call`` makes
that call again importing no IR. It is stored where the module entry is
(Note [frame facts in the key]) and every value has a recipe; anything else
(a tensor constant, Triton launchers, aliased outputs, a frozen call) keeps
the module entry alone, which hits as before. Since the key holds hopc's own
sources, the code stored is the code this hopc would generate for the module;
the same header and checksum guard it as a module entry (Note [safe cache
entries]), and one that does not load is a miss, warned about, after which
the module entry is tried. The guards the stages added to the frame are
replayed on either hit (Note [replayed guards] in ``hopc.compile_cache_key``).

Note [safe cache entries]
~~~~~~~~~~~~~~~~~~~~~~~~~
An entry is code hopc runs, so it is kept as hopc's generated Triton sources
are (Note [private directories] in ``hopc.backend.private_directory``): the
directory is created with mode 0700 and used only while it is the user's, no
symbolic link, writable by no one else; entries are read and written without
following a link, and written atomically (a temporary file renamed over the
entry), so two processes storing one entry at once leave one whole entry.
An entry is a header, ``hopc-compile-cache 2``, the key, the guards the
stages added to the frame (Note [replayed guards] in ``hopc.compile_cache_key``),
the SHA-256 of its body, and the body, the module's text. What does not load as an entry of its
key (missing, a symbolic link, truncated, corrupt, not parsing, verifying or
reading back) is a miss; all but a missing entry or a link (which the store
replaces) is also a ``CompileCacheWarning`` located at the user's line, as is
a directory hopc will not use or cannot write: a located warning, never a
failed compile, for the cache only saves time.

A store writes the printer's text as it is, and the load checks that the
module it parsed prints back to that text, so that a hit runs the module the
miss ran, not one the printer and parser disagree on: an entry that does not
read back is a miss like a corrupt one. The check costs a print on a hit
rather than a parse and a print on every miss, which is the first call of
every program (``block``, training: 0.014 s CPU to print on a hit against
0.15 s to parse on a miss). An op without a location keeps none (the parser stamps it with
``CACHED_TEXT_FILENAME``, which ``parse_cached`` takes off again), so a
diagnostic never points into an entry.
"""

from __future__ import annotations

import hashlib
import json
import os
import pathlib
import time
import traceback
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from hopc.backend.private_directory import private_directory, read_private_file, user_cache_root, write_private_file
from hopc.compile_cache_key import added_guards, cache_key, frame_facts, module_text, replay_guards
from hopc.ir.diagnostics import HopcError, user_location

if TYPE_CHECKING:
    from xdsl.dialects.builtin import ModuleOp

    from hopc.compile_options import CompileOptions

ENABLE_ENVIRONMENT = "HOPC_CACHE"
DIRECTORY_ENVIRONMENT = "HOPC_CACHE_DIR"
ENTRY_HEADER = "hopc-compile-cache 2"
ENTRY_SUFFIX = ".hopc"
CALL_HEADER = "hopc-compile-cache call 2"
CALL_SUFFIX = ".hopc-call"
CACHED_TEXT_FILENAME = "<hopc compile cache>"
"""The file name the parser gives a cached op that had no location (Note [safe cache entries])."""


class CompileCacheWarning(UserWarning):
    """The compile cache could not be used for a frame, which compiles without it."""


@dataclass
class CacheCounts:
    """The hits and misses of the compile cache in this process."""

    hits: int = 0
    misses: int = 0

    def __str__(self) -> str:
        return f"{self.hits} {'hit' if self.hits == 1 else 'hits'}, " \
               f"{self.misses} {'miss' if self.misses == 1 else 'misses'} in this process"


COUNTS = CacheCounts()


@dataclass
class CacheSlot:
    """Where the host-level module of one captured module is kept, or None where the cache is off."""

    path: pathlib.Path | None
    key: str = ""
    facts: str = ""
    """The frame's shape facts before the stages ran (Note [frame facts in the key])."""
    outcome: str = "off (HOPC_CACHE=0)"
    """What the cache did for this frame, as the compile report says it."""

    def load(self) -> ModuleOp | None:
        """The cached module, parsed, verified and printing back to the entry's text; None (a miss,
        counted) where there is none or it does not load (Note [safe cache entries])."""
        module = self.find()
        if module is None and self.path is not None:
            COUNTS.misses += 1
        return module

    def find(self) -> ModuleOp | None:
        """``load``'s module, a hit counted; None, not counted, where there is none: a frame
        that looks for a second entry after this one counts one miss, not two."""
        if self.path is None:
            return None
        start = time.perf_counter()
        module = self._read()
        if module is None:
            return None
        COUNTS.hits += 1
        self.outcome = f"hit: {self.path.name}, loaded in {time.perf_counter() - start:.3f} s"
        return module

    def store(self, module: ModuleOp) -> None:
        """Keeps ``module``'s text as the entry (``store_text``)."""
        if self.path is not None:
            self.store_text(module_text(module))

    def store_text(self, text: str) -> None:
        """Keeps ``text``, a module's ``module_text``, as the entry, unless the stages changed the
        frame's facts (Note [frame facts in the key]); the load checks that it reads back (Note
        [safe cache entries])."""
        if self.path is None:
            return
        guards = added_guards(self.facts)
        if guards is None:
            self.outcome += "; not stored: the stages changed the frame's shape facts beyond guards"
            return
        try:
            write_private_file(self.path, _entry_text(ENTRY_HEADER, self.key, guards, text))
        except OSError as error:
            warn(f"hopc cannot store the compile cache entry {self.path}: {error.strerror or error}")
            self.outcome += "; not stored: the directory cannot be written"
            return
        self.outcome += "; stored"

    def store_call(self, call: object, device: str) -> None:
        """Keeps ``call``, compiled for ``device`` from this slot's module, as the slot's
        executable entry where it can be (Note [executable entries])."""
        guards = None if self.path is None else added_guards(self.facts)
        if guards is None:
            return
        from hopc.backend.host.recipes import Unstorable
        from hopc.backend.runtime.stored_call import call_record

        try:
            body = json.dumps(call_record(call, device), allow_nan=False)
        except Unstorable as reason:
            self.outcome += f"; call not stored ({reason})"
            return
        try:
            write_private_file(self.call_path, _entry_text(CALL_HEADER, self.key, guards, body))
        except OSError as error:
            warn(f"hopc cannot store the compile cache entry {self.call_path}: {error.strerror or error}")
            return
        self.outcome += "; call stored"

    def load_call(self, trailing: Sequence[object]) -> object | None:
        """The call the slot's executable entry holds, taking ``trailing`` after its arguments, a
        hit counted; None, not counted, where there is none or it does not load (warned about)."""
        if self.path is None:
            return None
        start = time.perf_counter()
        read = self._read_body(self.call_path, CALL_HEADER)
        if read is None:
            return None
        from hopc.backend.runtime.stored_call import call_from_record

        guards, body = read
        try:
            call = call_from_record(json.loads(body), trailing)
        except (ValueError, KeyError, TypeError, AttributeError, SyntaxError) as error:
            self._unusable(self.call_path, f"it does not make a call ({type(error).__name__}: {error})")
            return None
        if not self._replayed(self.call_path, guards):
            return None
        COUNTS.hits += 1
        self.outcome = f"hit: {self.call_path.name}, loaded in {time.perf_counter() - start:.3f} s"
        return call

    @property
    def call_path(self) -> pathlib.Path:
        """Where the slot's executable entry is (Note [executable entries])."""
        return self.path.with_suffix(CALL_SUFFIX)

    def _read_body(self, path: pathlib.Path, header: str) -> tuple[list[str], str] | None:
        """The guards and the body of the entry at ``path`` after its ``header``, key and checksum;
        None where there is none and, warned about, where it is not one of this key."""
        try:
            text = read_private_file(path)
        except (OSError, UnicodeDecodeError) as error:
            return self._unusable(path, f"it cannot be read ({error})")
        if text is None:
            self.outcome = f"miss: no entry {path.name}"
            return None
        head, _, body = text.partition("\n\n")
        lines = head.split("\n")
        try:
            guards = json.loads(lines[2].removeprefix("guards "))
        except (IndexError, ValueError):
            guards = None
        if not isinstance(guards, list) or head != _entry_text(header, self.key, guards, body).partition("\n\n")[0]:
            return self._unusable(path, "its header or checksum does not match (a truncated or corrupt entry)")
        return guards, body

    def _replayed(self, path: pathlib.Path, guards: list[str]) -> bool:
        """Whether the entry's ``guards`` were added to the frame (Note [replayed guards] in
        ``hopc.compile_cache_key``), once the entry is otherwise usable; warned about where not."""
        problem = replay_guards(guards)
        if problem is not None:
            self._unusable(path, f"its guards cannot be added to the frame ({problem})")
        return problem is None

    def _read(self) -> ModuleOp | None:
        """The module of the entry at ``path``; None where there is none, and, warned about, where
        it is not one of this key."""
        read = self._read_body(self.path, ENTRY_HEADER)
        if read is None:
            return None
        from hopc.dialects.verify import verify_module

        guards, body = read
        try:
            module = parse_cached(body)
            verify_module(module)
        except HopcError as error:
            return self._unusable(self.path, f"it does not parse or verify ({error.message})")
        if module_text(module) != body:
            return self._unusable(self.path, "the module it parses to prints otherwise (the printer and "
                                             "the parser disagree)")
        return module if self._replayed(self.path, guards) else None

    def _unusable(self, path: pathlib.Path, reason: str) -> None:
        """Warns that the entry at ``path`` is unusable for ``reason``; None, as no entry."""
        self.outcome = f"miss: entry {path.name} unusable ({reason})"
        warn(f"hopc ignores the compile cache entry {path}: {reason}; the frame compiles again")


def cache_slot(program: ModuleOp | str, options: CompileOptions, device: str) -> CacheSlot:
    """The slot of ``program`` (a captured module, or the text of a Dynamo graph: Note [graph
    keys] in ``hopc.frontend.dynamo_graph_key``) compiled with ``options`` for ``device``: its path
    in the cache directory (None where the cache is off or the directory unusable, warned about)."""
    directory = cache_directory()
    if directory is None:
        return CacheSlot(None)
    try:
        private_directory(directory, remedy=f"set {DIRECTORY_ENVIRONMENT} to another directory or "
                                             f"{ENABLE_ENVIRONMENT}=0")
    except HopcError as error:
        warn(f"{error.message}; the frame compiles without the compile cache")
        return CacheSlot(None, outcome=f"off: {error.message}")
    facts = frame_facts()
    key = cache_key(program, options, device, facts)
    return CacheSlot(directory / f"{key}{ENTRY_SUFFIX}", key, facts)


def cache_directory() -> pathlib.Path | None:
    """The directory ``HOPC_CACHE_DIR`` names, or the default; None under ``HOPC_CACHE=0``."""
    enabled = os.environ.get(ENABLE_ENVIRONMENT, "1")
    if enabled not in ("0", "1"):
        raise HopcError(f"{ENABLE_ENVIRONMENT} is 0 (no compile cache) or 1, not '{enabled}'")
    if enabled == "0":
        return None
    configured = os.environ.get(DIRECTORY_ENVIRONMENT)
    return pathlib.Path(os.path.abspath(configured)) if configured else user_cache_root() / "hopc" / "compile"


def parse_cached(text: str) -> ModuleOp:
    """The module of ``module_text``'s ``text``, each op without a location there without one here."""
    from xdsl.dialects.builtin import FileLineColLoc, UnknownLoc

    from hopc.dialects.parse import parse_module

    module = parse_module(text, filename=CACHED_TEXT_FILENAME)
    for op in module.walk():
        if isinstance(op.location, FileLineColLoc) and op.location.filename.data == CACHED_TEXT_FILENAME:
            op.location = UnknownLoc()
    return module


def _entry_text(header: str, key: str, guards: list[str], body: str) -> str:
    """An entry: its header line, key, guards and body checksum, a blank line, the body (Note
    [safe cache entries])."""
    return (f"{header}\nkey {key}\nguards {json.dumps(guards)}\nsha256 {hashlib.sha256(body.encode()).hexdigest()}"
            f"\n\n{body}")


def warn(message: str) -> None:
    """A ``CompileCacheWarning`` at the user's line (where the stack has one)."""
    location = user_location(traceback.extract_stack())
    if location is None:
        warnings.warn(message, CompileCacheWarning, stacklevel=3)
    else:
        warnings.warn_explicit(message, CompileCacheWarning, location.file, location.line)
