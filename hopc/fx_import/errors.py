"""Errors about an FX node hopc cannot import, located at the user's line that produced it.

``first_paragraph`` serves every frontend error, a compile that the compile cache serves
included, so this module imports no xDSL (Note [imports of a cache hit] in
``hopc.frontend.dynamo_backend``): a node's location is read where an error is made.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from hopc.ir.diagnostics import HopcError

if TYPE_CHECKING:
    import torch.fx


def unsupported(node: torch.fx.Node, construct: str) -> HopcError:
    """``construct`` is not supported, at the line that produced ``node``.

    A node without a recorded line (PyTorch's own, such as an autocast switch)
    is located at the nearest node after it, else before it, that has one.
    """
    from hopc.fx_import.locations import node_location

    location = node_location(node)
    for neighbour in (*_following(node), *_preceding(node)):
        if location is not None:
            break
        location = node_location(neighbour)
    return HopcError(f"unsupported: {construct}", location)


def _following(node: torch.fx.Node) -> Iterator[torch.fx.Node]:
    while node.next.op != "root":
        node = node.next
        yield node


def _preceding(node: torch.fx.Node) -> Iterator[torch.fx.Node]:
    while node.prev.op != "root":
        node = node.prev
        yield node


def first_paragraph(error: BaseException) -> str:
    """The head of a (often very long) PyTorch error message.

    Dynamo's messages are paragraphs: a headline that may end in a colon and
    introduce the next one, then indented details of which the
    ``Explanation:`` line is the useful one; the rest (hints, debug context,
    links, the user's stack, which the location already gives) is dropped.
    """
    text = str(error).strip() or type(error).__name__
    summary = []
    for paragraph in (p for p in text.split("\n\n") if p.strip()):
        lines = [line.strip() for line in paragraph.strip().splitlines()]
        summary.append(lines[0])
        summary += [line for line in lines[1:] if line.startswith("Explanation:")]
        if not lines[0].endswith(":"):
            break
    return " ".join(summary)
