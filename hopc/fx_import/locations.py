"""Where in the user's Python an FX node came from.

Dynamo records on each node the Python stack that produced it
(``node.meta["stack_trace"]``, in traceback format). The location of the node
is the innermost frame outside PyTorch's and hopc's own sources (the user's
line that called into ``torch.nn`` rather than the line inside ``torch.nn``, or
into a function that hopc has Dynamo trace in PyTorch's stead), or the
innermost frame when every frame is PyTorch's. The column is where the
traceback's carets start, else where the statement starts; lines and columns
are 1-based.
"""

from __future__ import annotations

import linecache
import re
from dataclasses import dataclass

import torch.fx
from xdsl.dialects.builtin import LocationAttr, UnknownLoc

from hopc.ir.diagnostics import Location, is_hopc_source, is_torch_source

_FRAME = re.compile(r'^\s*File "(?P<file>[^"]+)", line (?P<line>\d+), in (?P<function>.*)$')


@dataclass(frozen=True)
class _Frame:
    file: str
    line: int
    shown_code: str | None
    """The code line as the traceback shows it (indented by four spaces), if shown."""
    marker: str | None
    """The line of carets under ``shown_code``, if any."""

    def column(self) -> int:
        source = linecache.getline(self.file, self.line)
        indentation = len(source) - len(source.lstrip())
        if self.shown_code is None or self.marker is None:
            return indentation + 1
        shown_indentation = len(self.shown_code) - len(self.shown_code.lstrip())
        carets = len(self.marker) - len(self.marker.lstrip())
        return indentation + carets - shown_indentation + 1


def _frames(stack_trace: str) -> list[_Frame]:
    lines = stack_trace.splitlines()
    frames = []
    for index, text in enumerate(lines):
        match = _FRAME.match(text)
        if match is None:
            continue
        following = lines[index + 1 : index + 3]
        code = following[0] if following and not _FRAME.match(following[0]) else None
        marker = following[1] if code is not None and len(following) > 1 else None
        if marker is not None and not set(marker.strip()) <= set("^~"):
            marker = None
        frames.append(_Frame(match["file"], int(match["line"]), code, marker))
    return frames


def node_location(node: torch.fx.Node) -> Location | None:
    """The user's source location of ``node``, or None when Dynamo recorded none."""
    stack_trace = node.meta.get("stack_trace")
    if not stack_trace:
        return None
    frames = _frames(stack_trace)
    if not frames:
        return None
    user_frames = [f for f in frames if not is_torch_source(f.file) and not is_hopc_source(f.file)]
    frame = (user_frames or frames)[-1]
    return Location(frame.file, frame.line, frame.column())


def location_attribute(node: torch.fx.Node) -> LocationAttr:
    """``node_location`` as an MLIR location attribute (``loc(unknown)`` if none)."""
    location = node_location(node)
    if location is None:
        return UnknownLoc()
    return location.attribute()
