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
(``CacheSlot.store``). The kernel stages run on either:
parsing their larger text takes longer than running them (measured on
``bench/compile_time.py``'s ``block``, training: 0.16 s CPU to parse the
planned module against 0.08 to 0.11 s for the kernel and planned stages), and
the host code generated from them closes over Python objects, not text (Note
[generated host code] in ``hopc.backend.host.codegen``). As Inductor's FX graph
cache and AOTAutograd's cache, it is on by default:

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
- the frame's shape facts (Note [frame facts in the key]).

Note [frame facts in the key]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
The ``differentiated`` stage traces some derivatives in the ``ShapeEnv`` of
the Dynamo frame it compiles, and their guards join the frame's (Note
[derivatives in a frame] in ``hopc.passes.autograd.derivatives``); a hit skips
those traces. So the key holds what the traces read of the frame (its
guards, replacements, ranges, size hints and deferred runtime assertions, as
text: ``frame_facts``), and an entry is stored only where the stages left
those facts as they found them: a hit then adds no guard the stages would
have added, since the same traces from the same facts add the same guards,
here none. A frame whose stages guarded is compiled, never stored, every
time. An entry of Dynamo's graph holds the facts from before the capture,
whose retrace runs in the frame's ``ShapeEnv`` too: it is stored only where
the capture left the facts as it found them as well (Note [graph keys]).

Note [safe cache entries]
~~~~~~~~~~~~~~~~~~~~~~~~~
An entry is code hopc runs, so it is kept as hopc's generated Triton sources
are (Note [private directories] in ``hopc.backend.private_directory``): the
directory is created with mode 0700 and used only while it is the user's, no
symbolic link, writable by no one else; entries are read and written without
following a link, and written atomically (a temporary file renamed over the
entry), so two processes storing one entry at once leave one whole entry.
An entry is a header, ``hopc-compile-cache 1``, the key, the SHA-256 of its
body, and the body, the module's text. What does not load as an entry of its
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

import dataclasses
import functools
import hashlib
import importlib.metadata
import importlib.util
import os
import pathlib
import sys
import time
import traceback
import warnings
from dataclasses import dataclass
from typing import TYPE_CHECKING

from hopc.backend.private_directory import private_directory, read_private_file, user_cache_root, write_private_file
from hopc.ir.diagnostics import HOPC_PACKAGES, HopcError, user_location

if TYPE_CHECKING:
    from xdsl.dialects.builtin import ModuleOp

    from hopc.driver import CompileOptions

ENABLE_ENVIRONMENT = "HOPC_CACHE"
DIRECTORY_ENVIRONMENT = "HOPC_CACHE_DIR"
ENTRY_HEADER = "hopc-compile-cache 1"
ENTRY_SUFFIX = ".hopc"
CACHED_TEXT_FILENAME = "<hopc compile cache>"
"""The file name the parser gives a cached op that had no location (Note [safe cache entries])."""
SHOWN_ONLY = frozenset({"report_dir", "print_ir_after_all"})
"""The compile options that only show the stages, left out of the key (Note [compile cache key])."""
SOURCE_SUFFIXES = (".py", ".json")


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
        if frame_facts() != self.facts:
            self.outcome += "; not stored: the stages added guards to the frame"
            return
        body_digest = hashlib.sha256(text.encode()).hexdigest()
        try:
            write_private_file(self.path, f"{ENTRY_HEADER}\nkey {self.key}\nsha256 {body_digest}\n\n{text}")
        except OSError as error:
            warn(f"hopc cannot store the compile cache entry {self.path}: {error.strerror or error}")
            self.outcome += "; not stored: the directory cannot be written"
            return
        self.outcome += "; stored"

    def _read(self) -> ModuleOp | None:
        """The module of the entry at ``path``; None where there is none, and, warned about, where
        it is not one of this key."""
        try:
            text = read_private_file(self.path)
        except (OSError, UnicodeDecodeError) as error:
            return self._unusable(f"it cannot be read ({error})")
        if text is None:
            self.outcome = f"miss: no entry {self.path.name}"
            return None
        header, _, body = text.partition("\n\n")
        expected = [ENTRY_HEADER, f"key {self.key}", f"sha256 {hashlib.sha256(body.encode()).hexdigest()}"]
        if header.split("\n") != expected:
            return self._unusable("its header or checksum does not match (a truncated or corrupt entry)")
        from hopc.dialects.verify import verify_module

        try:
            module = parse_cached(body)
            verify_module(module)
        except HopcError as error:
            return self._unusable(f"it does not parse or verify ({error.message})")
        if module_text(module) != body:
            return self._unusable("the module it parses to prints otherwise (the printer and the "
                                  "parser disagree)")
        return module

    def _unusable(self, reason: str) -> None:
        """Warns that the entry is unusable for ``reason``; None, as no module."""
        self.outcome = f"miss: entry {self.path.name} unusable ({reason})"
        warn(f"hopc ignores the compile cache entry {self.path}: {reason}; the frame compiles again")


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


def cache_key(program: ModuleOp | str, options: CompileOptions, device: str, facts: str) -> str:
    """The key of the entry of ``program``, a captured module or a graph's text (Note [compile cache key])."""
    read = {field.name: getattr(options, field.name) for field in dataclasses.fields(options)
            if field.name not in SHOWN_ONLY}
    parts = [f"options {sorted(read.items())!r} lowering {options.lowering_options!r}",
             f"device {device} {_device_capability(device)}", f"versions {versions()}",
             f"facts {facts}", program if isinstance(program, str) else module_text(program)]
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()


def frame_facts() -> str:
    """What the derivative traces read of the Dynamo frame compiled now, as text: its
    ``ShapeEnv``'s guards, replacements, ranges, size hints and deferred runtime assertions; ""
    outside a frame (Note [frame facts in the key])."""
    import torch._guards

    context = torch._guards.TracingContext.try_get()
    shape_env = getattr(getattr(context, "fake_mode", None), "shape_env", None)
    if shape_env is None:
        return ""
    guards = [str(guard.expr) for guard in shape_env.guards]
    assertions = sorted(str(assertion.expr) for assertions in shape_env.deferred_runtime_asserts.values()
                        for assertion in assertions)
    tables = [shape_env.replacements, shape_env.var_to_range, shape_env.backed_var_to_val]
    return repr([guards, *(sorted((str(name), str(value)) for name, value in table.items()) for table in tables),
                 assertions])


@functools.cache
def versions() -> str:
    """Python's, torch's, xDSL's and Triton's versions, and the digest of hopc's sources."""
    import torch

    return (f"python {sys.version} torch {torch.__version__} {torch.version.git_version} "
            f"xdsl {_distribution_version('xdsl')} triton {_distribution_version('triton')} "
            f"hopc {_distribution_version('hopc')} {hopc_source_digest()}")


@functools.cache
def hopc_source_digest() -> str:
    """The SHA-256 of every source and data file of hopc's packages, with its path in its package."""
    digest = hashlib.sha256()
    for package in HOPC_PACKAGES:
        for folder in importlib.util.find_spec(package).submodule_search_locations:
            for path in sorted(pathlib.Path(folder).rglob("*")):
                if path.suffix in SOURCE_SUFFIXES and path.is_file():
                    digest.update(f"{package}/{path.relative_to(folder)}\n".encode())
                    digest.update(path.read_bytes())
    return digest.hexdigest()


def module_text(module: ModuleOp) -> str:
    """The text an entry keeps of ``module``: every op's location and the resource blobs included."""
    from hopc import to_text

    return to_text(module, debuginfo=True)


def parse_cached(text: str) -> ModuleOp:
    """The module of ``module_text``'s ``text``, each op without a location there without one here."""
    from xdsl.dialects.builtin import FileLineColLoc, UnknownLoc

    from hopc.dialects.parse import parse_module

    module = parse_module(text, filename=CACHED_TEXT_FILENAME)
    for op in module.walk():
        if isinstance(op.location, FileLineColLoc) and op.location.filename.data == CACHED_TEXT_FILENAME:
            op.location = UnknownLoc()
    return module


def warn(message: str) -> None:
    """A ``CompileCacheWarning`` at the user's line (where the stack has one)."""
    location = user_location(traceback.extract_stack())
    if location is None:
        warnings.warn(message, CompileCacheWarning, stacklevel=3)
    else:
        warnings.warn_explicit(message, CompileCacheWarning, location.file, location.line)


def _distribution_version(name: str) -> str:
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return "none"


def _device_capability(device: str) -> str:
    """The compute capability of a CUDA device (what Triton generates for); "" for any other."""
    import torch

    if device != "cuda" or not torch.cuda.is_available():
        return ""
    return repr(torch.cuda.get_device_capability())
