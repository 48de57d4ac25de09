"""The compile report: one HTML page per compiled frame, and an index of the pages.

``hopc.CompileOptions(report_dir=...)`` makes the driver (``hopc.driver``) fill
a ``FrameReport`` as it compiles a frame and call ``write_report``, which
writes ``<report_dir>/<number>-<title>.html``: the time of each stage, whether
the compile cache held the frame (with the process's hits and misses), Dynamo's
guards, the values the forward saves for the backward and their bytes, the
memory plan, the forward and backward ops of each ``hop.seq_nr``, the op
graph (``hopc.passes.view_op_graph``) drawn as SVG where Graphviz's ``dot``
is installed, and the IR after each stage. The graph's DOT text (and SVG)
are written beside the page; ``index.html`` lists every page in the directory.

A page is one self-contained file: inline CSS, no script, no external
resource, so it opens from disk in any browser.

Note [report pages embed only escaped text]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
Every string a page shows comes from the user's program or from the IR
(a frame's title, guards, op, value and type names, IR text) and may hold
``<script>``; each passes through ``html.escape`` where it is written (the
``_text`` helper), and no string is written unescaped. The one piece of
markup not written here is the SVG that ``dot`` draws: it is parsed as XML,
checked to hold only the drawing elements ``dot`` writes and no event
handler or link attribute, and written again from the parsed tree
(``_checked_svg``), so what the page holds is what was checked; an SVG that
fails the check is not shown, the DOT text is.

Note [report file names]
~~~~~~~~~~~~~~~~~~~~~~~~
The directory is private to the user (Note [private directories] in
``hopc.backend.private_directory``: no symbolic link, the user's, writable by
no one else), and made so where it is missing. A page is named
``<number>-<slug>.html``: the slug keeps the title's ASCII letters and
digits, ``.``, ``_`` and ``-`` (any other run becomes one ``-``), at most 60
characters, with no leading or trailing ``.`` or ``-``, so no name has a path
separator or means ``..``. The number is one more than the largest in the
directory, and the page is created exclusively (``O_EXCL``, which fails on a
link too; a name taken meanwhile moves on to the next number), so two
processes writing reports at once get two pages.
"""

from __future__ import annotations

import html
import math
import os
import pathlib
import re
import shutil
import traceback
from dataclasses import dataclass
from xml.etree import ElementTree

from hopc.backend.private_directory import private_directory, write_private_file
from hopc.ir.diagnostics import HopcError, user_location
from hopc.passes.view_op_graph import RENDER_TIMEOUT_SECONDS, op_graph_dot, render_svg


@dataclass(frozen=True)
class StageRecord:
    """One stage of the driver's pipeline, as the report shows it."""

    name: str
    """A driver stage's name."""
    ir: str
    """The module's text after the stage."""
    seconds: float
    """The time the stage took."""


@dataclass(frozen=True)
class FrameReport:
    """What ``write_report`` shows of one compiled frame."""

    title: str
    """The compiled frame, e.g. ``forward of model.py:12 (graph 0)``."""
    stages: tuple[StageRecord, ...]
    guards: tuple[str, ...]
    """Dynamo's guards for the frame, as text (may be empty)."""
    saved: tuple[tuple[str, str], ...]
    """(saved value's name, its type) of the forward/backward split."""
    saved_bytes: str
    """Total bytes saved for the backward (an expression where sizes are symbolic); "" if none."""
    memory_plan: tuple[tuple[str, str], ...]
    """(buffer, its size and lifetime) rows from plan-memory."""
    seq_pairs: tuple[tuple[int, tuple[str, ...], tuple[str, ...]], ...]
    """(``hop.seq_nr``, the forward ops' names, the backward ops' names)."""
    module_for_graph: object | None
    """An xDSL ``ModuleOp`` to draw as the op graph, or None."""
    cache: str = ""
    """What the compile cache did for the frame, with the process's hits and misses
    (``hopc.compile_cache``); "" where the frame was compiled without the driver's cache lookup."""


INDEX_NAME = "index.html"
MAX_SLUG_LENGTH = 60
PAGE_HEAD_BYTES = 64 << 10
"""What the index reads of a page to find its title (a page holds all the IR after it)."""
GRAPH_LABEL_LENGTH = 60
"""The op graph's ``max_label_length``: room for a tensor type of a few dims."""

_PAGE_NAME = re.compile(r"(\d+)-[A-Za-z0-9._-]*\.html")
_PAGE_TITLE = re.compile(r"<title>hopc: (.*?)</title>", re.DOTALL)
_UNSAFE_IN_NAME = re.compile(r"[^A-Za-z0-9._-]+")
_SVG_ELEMENTS = frozenset({"svg", "g", "title", "polygon", "polyline", "path", "ellipse", "text", "desc", "defs"})
"""The elements of the SVG ``dot -Tsvg`` writes for hopc's graphs (no links, images or scripts)."""


def write_report(report: FrameReport, directory: pathlib.Path) -> pathlib.Path:
    """Writes ``report``'s page in ``directory`` (module docstring) and updates its index.

    Returns the page's path. Raises a located ``HopcError`` where the
    directory is not private to the user (Note [report file names]) or a
    file cannot be written.
    """
    directory = private_directory(pathlib.Path(directory), remedy="choose another report_dir")
    graph = _draw(report.module_for_graph) if report.module_for_graph is not None else None
    try:
        page, descriptor = _new_page(directory, _slug(report.title))
        with os.fdopen(descriptor, "w", encoding="utf-8") as file:
            file.write(_page(report, _graph_section(graph, page)))
        write_private_file(directory / INDEX_NAME, _index(directory))
    except OSError as error:
        raise HopcError(f"cannot write the compile report in {directory}: {error.strerror or error}",
                        user_location(traceback.extract_stack())) from None
    return page


# --------------------------------------------------------------------------- files


def _slug(title: str) -> str:
    """The part of a page's name that comes from ``title`` (Note [report file names])."""
    slug = _UNSAFE_IN_NAME.sub("-", title)[:MAX_SLUG_LENGTH].strip(".-")
    return slug or "frame"


def _new_page(directory: pathlib.Path, slug: str) -> tuple[pathlib.Path, int]:
    """A new empty page ``<number>-<slug>.html`` in ``directory``, and its open descriptor."""
    number = 1 + max((int(found[1]) for found in _pages(directory)), default=0)
    while True:
        path = directory / f"{number:03d}-{slug}.html"
        try:
            return path, os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            number += 1


def _pages(directory: pathlib.Path) -> list[re.Match[str]]:
    """The names of the report pages in ``directory``, in order of their numbers."""
    found = (_PAGE_NAME.fullmatch(name) for name in os.listdir(directory))
    return sorted((match for match in found if match), key=lambda match: (int(match[1]), match[0]))


def _index(directory: pathlib.Path) -> str:
    """The index page: a link to every report page in ``directory``, with its frame's title."""
    rows = []
    for match in _pages(directory):
        title = _PAGE_TITLE.search(_head(directory / match[0]))
        shown = html.unescape(title[1]) if title else match[0]
        rows.append(f'<li><a href="{_text(match[0])}">{_text(shown)}</a></li>')
    body = f"<ol>{''.join(rows)}</ol>" if rows else '<p class="note">No frame was compiled.</p>'
    return _document("hopc: compile report", f"<h1>hopc compile report</h1>{body}")


def _head(page: pathlib.Path) -> str:
    """The first ``PAGE_HEAD_BYTES`` of ``page`` (its ``<title>``); "" where it is a link or missing."""
    try:
        descriptor = os.open(page, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return ""
    with os.fdopen(descriptor, "rb") as file:
        return file.read(PAGE_HEAD_BYTES).decode("utf-8", errors="replace")


# --------------------------------------------------------------------------- the page


def _page(report: FrameReport, graph_section: str) -> str:
    sections = [
        f'<h1>{_text(report.title)}</h1><p class="note"><a href="{INDEX_NAME}">all frames</a></p>',
        _stage_times(report.stages),
        _cache(report.cache),
        _guards(report.guards),
        _saved(report.saved, report.saved_bytes),
        _memory_plan(report.memory_plan),
        _seq_pairs(report.seq_pairs),
        graph_section,
        _stage_texts(report.stages),
    ]
    return _document(f"hopc: {report.title}", "\n".join(sections))


def _stage_times(stages: tuple[StageRecord, ...]) -> str:
    longest = max((stage.seconds for stage in stages if math.isfinite(stage.seconds)), default=0.0)
    rows = []
    for index, stage in enumerate(stages):
        share = 100 * stage.seconds / longest if longest > 0 and math.isfinite(stage.seconds) else 0.0
        rows.append(f'<tr><td><a href="#stage-{index}">{_text(stage.name)}</a></td>'
                    f'<td class="number">{_seconds(stage.seconds)}</td>'
                    f'<td class="bar-cell"><span class="bar" style="width: {share:.1f}%"></span></td></tr>')
    total = sum(stage.seconds for stage in stages)
    rows.append(f'<tr class="total"><td>total</td><td class="number">{_seconds(total)}</td><td></td></tr>')
    return _section("Stages", _table(("stage", "seconds", ""), rows))


def _cache(cache: str) -> str:
    if not cache:
        return _section("Compile cache", '<p class="note">The compile cache was not consulted.</p>')
    return _section("Compile cache", f"<p>{_text(cache)}</p>")


def _guards(guards: tuple[str, ...]) -> str:
    if not guards:
        return _section("Guards", '<p class="note">No guards were recorded for this frame.</p>')
    items = "".join(f"<li><code>{_text(guard)}</code></li>" for guard in guards)
    return _section("Guards", f'<ul class="guards">{items}</ul>')


def _saved(saved: tuple[tuple[str, str], ...], saved_bytes: str) -> str:
    if not saved:
        return _section("Saved for backward", '<p class="note">The forward saves nothing for a backward.</p>')
    rows = [f"<tr><td><code>{_text(name)}</code></td><td><code>{_text(type_)}</code></td></tr>"
            for name, type_ in saved]
    total = f"<p>Total: <code>{_text(saved_bytes)}</code> bytes</p>" if saved_bytes else ""
    return _section("Saved for backward", total + _table(("value", "type"), rows))


def _memory_plan(plan: tuple[tuple[str, str], ...]) -> str:
    if not plan:
        return _section("Memory plan", '<p class="note">No memory plan was recorded.</p>')
    rows = [f"<tr><td><code>{_text(buffer)}</code></td><td>{_text(description)}</td></tr>"
            for buffer, description in plan]
    return _section("Memory plan", _table(("buffer", "size and lifetime"), rows))


def _seq_pairs(pairs: tuple[tuple[int, tuple[str, ...], tuple[str, ...]], ...]) -> str:
    title = "Forward and backward ops by <code>hop.seq_nr</code>"
    if not pairs:
        return _section(title, '<p class="note">No op carries a <code>hop.seq_nr</code>.</p>')
    rows = [f'<tr><td class="number">{int(number)}</td><td>{_op_names(forward)}</td>'
            f"<td>{_op_names(backward)}</td></tr>" for number, forward, backward in pairs]
    return _section(title, _table(("seq_nr", "forward", "backward"), rows))


def _op_names(names: tuple[str, ...]) -> str:
    return ", ".join(f"<code>{_text(name)}</code>" for name in names) or '<span class="note">none</span>'


def _stage_texts(stages: tuple[StageRecord, ...]) -> str:
    blocks = [f'<details id="stage-{index}"><summary><b>{_text(stage.name)}</b> '
              f'<span class="note">{_seconds(stage.seconds)} s</span></summary>'
              f"<pre>{_text(stage.ir)}</pre></details>" for index, stage in enumerate(stages)]
    return _section("IR after each stage", "\n".join(blocks))


@dataclass(frozen=True)
class _Graph:
    """A module's op graph: its DOT text, the SVG ``dot`` drew of it, and that SVG as checked markup."""

    dot: str
    drawn: str | None
    inline: str | None


def _draw(module: object) -> _Graph:
    dot = op_graph_dot(module, GRAPH_LABEL_LENGTH)
    drawn = render_svg(dot)
    inline = _checked_svg(drawn) if drawn is not None else None
    return _Graph(dot, drawn, inline)


def _graph_section(graph: _Graph | None, page: pathlib.Path) -> str:
    """The op graph section; writes the graph's ``.dot`` (and ``.svg``) file beside ``page``."""
    title = "Op graph"
    if graph is None:
        return _section(title, '<p class="note">No module was given for the op graph.</p>')
    dot_path = page.with_suffix(".dot")
    write_private_file(dot_path, graph.dot)
    if graph.inline is None or graph.drawn is None:
        why = ("Graphviz (<code>dot</code>) was not found on PATH; install it to see the picture."
               if shutil.which("dot") is None else
               f"Graphviz's <code>dot</code> could not draw it (it failed, took over {RENDER_TIMEOUT_SECONDS} s, "
               "or wrote an SVG the report does not embed).")
        body = f'<p class="note">{why} Its DOT text ({_link(dot_path)}):</p><pre>{_text(graph.dot)}</pre>'
        return _section(title, body)
    svg_path = page.with_suffix(".svg")
    write_private_file(svg_path, graph.drawn)
    links = f'<p class="note">The picture alone: {_link(svg_path)}; its DOT text: {_link(dot_path)}.</p>'
    return _section(title, f'{links}<div class="graph">{graph.inline}</div>')


def _checked_svg(svg: str) -> str | None:
    """``svg`` (from ``dot``) as inline markup, written again from its parsed tree; None if it
    holds anything but drawing elements, or an event handler or link (Note [report pages
    embed only escaped text])."""
    start = svg.find("<svg")
    try:
        root = ElementTree.fromstring(svg[start:]) if start >= 0 else None
    except ElementTree.ParseError:
        return None
    if root is None:
        return None
    for element in root.iter():
        element.tag = str(element.tag).rsplit("}", 1)[-1]
        if element.tag not in _SVG_ELEMENTS:
            return None
        for attribute in element.attrib:
            if "}" in attribute or attribute.lower().startswith("on") or "href" in attribute.lower():
                return None
    return ElementTree.tostring(root, encoding="unicode")


# --------------------------------------------------------------------------- markup


def _text(text: str) -> str:
    """``text`` as HTML text or attribute value (Note [report pages embed only escaped text])."""
    return html.escape(str(text), quote=True)


def _seconds(seconds: float) -> str:
    return f"{seconds:.3f}" if math.isfinite(seconds) else _text(str(seconds))


def _link(path: pathlib.Path) -> str:
    return f'<a href="{_text(path.name)}"><code>{_text(path.name)}</code></a>'


def _section(title: str, body: str) -> str:
    return f"<section><h2>{title}</h2>\n{body}\n</section>"


def _table(headings: tuple[str, ...], rows: list[str]) -> str:
    head = "".join(f"<th>{heading}</th>" for heading in headings)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>"


def _document(title: str, body: str) -> str:
    return (f'<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
            f"<title>{_text(title)}</title>\n<style>{_STYLE}</style>\n</head>\n<body>\n{body}\n</body>\n</html>\n")


_STYLE = """
body { font: 14px/1.45 system-ui, sans-serif; color: #1d1d1f; max-width: 1200px; margin: 2em auto; padding: 0 1em; }
h1 { font-size: 1.5em; overflow-wrap: anywhere; margin-bottom: 0.2em; }
h2 { font-size: 1.15em; margin-top: 1.8em; border-bottom: 1px solid #ddd; padding-bottom: 0.2em; }
table { border-collapse: collapse; }
th, td { text-align: left; padding: 0.25em 0.8em; border-bottom: 1px solid #eee; vertical-align: top; }
th { background: #f3f4f6; }
td.number { text-align: right; font-variant-numeric: tabular-nums; }
tr.total td { font-weight: bold; border-top: 1px solid #ccc; }
td.bar-cell { width: 16em; }
.bar { display: inline-block; height: 0.7em; background: #4c8bf5; border-radius: 2px; }
code, pre { font: 12px/1.4 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
pre { background: #f6f8fa; border: 1px solid #e5e7eb; padding: 0.8em; overflow: auto; max-height: 40em; }
ul.guards code { overflow-wrap: anywhere; }
details { margin: 0.4em 0; }
summary { cursor: pointer; }
.note { color: #666; }
.graph { overflow: auto; border: 1px solid #ddd; max-height: 70em; }
.graph svg { max-width: 100%; height: auto; }
"""
