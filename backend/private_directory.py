"""Directories only the current user can write, for the files hopc writes and then runs.

``private_directory(path)`` creates ``path`` with mode 0700 where it is
missing and returns it; an existing one is used only when it is trustworthy
(Note [private directories]). ``write_private_file`` and ``read_private_file``
never follow a symbolic link in the place of a file. Every refusal is a
``HopcError`` naming the directory and the reason.

Note [private directories]
~~~~~~~~~~~~~~~~~~~~~~~~~~
hopc imports the Triton sources it generates from files (``triton.jit`` reads
its function's source with ``inspect``), and Python writes their bytecode
next to them (``__pycache__``). Whoever can write to that directory can make
hopc execute their code: by planting a bytecode file, or a symbolic link
through which hopc's next write overwrites one of the user's files. So a
directory is used only when ``lstat`` (which does not follow a link) says it

- is a directory, not a symbolic link to one;
- belongs to the current user;
- is not writable by group or others.

The check looks at the last component only: the directories above it are the
user's own choice (a cache under ``$XDG_CACHE_HOME``, or a path the user
configured). Inside a directory that passes, only the user can plant a file,
and the file functions below do not follow a link even so.
"""

from __future__ import annotations

import contextlib
import os
import pathlib
import stat
import traceback

from hopc.ir.diagnostics import HopcError, user_location

_NOT_FOLLOWED = getattr(os, "O_NOFOLLOW", 0)


def user_cache_root() -> pathlib.Path:
    """``$XDG_CACHE_HOME``, or ``~/.cache`` where it is unset, as the XDG base directory spec says."""
    configured = os.environ.get("XDG_CACHE_HOME")
    if configured and os.path.isabs(configured):
        return pathlib.Path(configured)
    return pathlib.Path.home() / ".cache"


def private_directory(path: pathlib.Path, remedy: str = "") -> pathlib.Path:
    """``path``, created with mode 0700 if missing (its parents with the default mode).

    Raises a located ``HopcError`` naming ``path`` where it cannot be created or
    is not private to the user (Note [private directories]); ``remedy`` ends
    that message (e.g. the environment variable that chooses another path).
    """
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with contextlib.suppress(FileExistsError):  # checked below, as one found
            os.mkdir(path, 0o700)
        status = os.lstat(path)
    except OSError as error:
        raise _refusal(path, f"it cannot be created ({error.strerror or error})", remedy) from None
    reason = unsafe_reason(status)
    if reason is not None:
        raise _refusal(path, reason, remedy)
    return path


def unsafe_reason(status: os.stat_result) -> str | None:
    """Why a directory with ``lstat`` result ``status`` is not private to the user, or None."""
    if stat.S_ISLNK(status.st_mode):
        return "it is a symbolic link"
    if not stat.S_ISDIR(status.st_mode):
        return "it is not a directory"
    if status.st_uid != os.getuid():
        return f"it belongs to user id {status.st_uid}, not to this user ({os.getuid()})"
    if status.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        return f"group or others may write to it (mode {stat.S_IMODE(status.st_mode):04o})"
    return None


def read_private_file(path: pathlib.Path) -> str | None:
    """The text of the regular file ``path``; None where it is missing or is a link."""
    try:
        descriptor = os.open(path, os.O_RDONLY | _NOT_FOLLOWED)
    except OSError:  # missing, or ELOOP: a symbolic link, which the caller then replaces
        return None
    with os.fdopen(descriptor, encoding="utf-8") as file:
        return file.read()


def write_private_file(path: pathlib.Path, text: str) -> None:
    """Replaces ``path`` with a new file (mode 0600) holding ``text``, atomically.

    The text goes to a fresh temporary file (created exclusively, never through
    a link) that is then renamed over ``path``; renaming replaces a link at
    ``path`` rather than writing through it.
    """
    partial = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    partial.unlink(missing_ok=True)  # left by a process that died (a link is removed, not followed)
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOT_FOLLOWED
    with os.fdopen(os.open(partial, flags, 0o600), "w", encoding="utf-8") as file:
        file.write(text)
    os.replace(partial, path)


def _refusal(path: pathlib.Path, reason: str, remedy: str) -> HopcError:
    message = f"hopc will not use the directory {path}: {reason}"
    return HopcError(f"{message}; {remedy}" if remedy else message, user_location(traceback.extract_stack()))
