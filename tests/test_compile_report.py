"""The compile report's pages and index (``hopc.compile_report``) and the op graph they draw
(``hopc.passes.view_op_graph``).

Note [report pages embed only escaped text] and Note [report file names] in
``hopc.compile_report``; Note [escaping DOT labels] in
``hopc.passes.view_op_graph``. The checks that need Graphviz's ``dot`` are
skipped where it is not installed; the page then shows the DOT text.
"""

from __future__ import annotations

import html
import pathlib
import re
import shutil
import subprocess
import sys
from xml.etree import ElementTree

import pytest

import hopc
from hopc.compile_report import FrameReport, StageRecord, _checked_svg, write_report
from hopc.ir.diagnostics import HopcError
from hopc.passes.view_op_graph import op_graph_dot, render_svg

COND_TEXT = (pathlib.Path(__file__).parent.parent / "examples" / "cond.mlir").read_text()
NEEDS_DOT = pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz's dot is not installed")


def _report(title: str = "forward of model.py:12 (graph 0)", ir: str = COND_TEXT, **fields) -> FrameReport:
    defaults = dict(
        stages=(StageRecord("capture", ir, 0.25), StageRecord("functionalize", ir, 0.125)),
        guards=("L['x'].size()[0] >= 2", "check_tensor(L['x'], torch.float32)"),
        saved=(("%sum", "!hop.tensor<[], f32>"), ("%x", "!hop.tensor<[s0, 4], f32>")),
        saved_bytes="16*s0 + 4",
        memory_plan=(("buffer0", "16*s0 bytes, live from op 1 to op 3"),),
        seq_pairs=((7, ("aten.sin",), ("aten.cos", "aten.mul.Tensor")),),
        module_for_graph=hopc.parse(COND_TEXT),
    )
    return FrameReport(title=title, **{**defaults, **fields})


def _dot_statements(dot: str) -> list[str]:
    return [line.strip() for line in dot.splitlines()]


# --------------------------------------------------------------------------- pages


def test_page_shows_stages_guards_saved_values_memory_plan_and_seq_pairs(tmp_path):
    page = write_report(_report(), tmp_path / "report")
    text = page.read_text()
    assert page.parent == tmp_path / "report" and page.name.endswith(".html")
    for stage in ("capture", "functionalize"):
        assert f"<b>{stage}</b>" in text
    assert f"<pre>{html.escape(COND_TEXT)}</pre>" in text
    assert "0.250" in text and "0.375" in text  # a stage's seconds, and the total
    assert "<code>L[&#x27;x&#x27;].size()[0] &gt;= 2</code>" in text
    assert "<code>!hop.tensor&lt;[s0, 4], f32&gt;</code>" in text and "<code>16*s0 + 4</code> bytes" in text
    assert "<td><code>buffer0</code></td><td>16*s0 bytes, live from op 1 to op 3</td>" in text
    assert ('<td class="number">7</td><td><code>aten.sin</code></td>'
            "<td><code>aten.cos</code>, <code>aten.mul.Tensor</code></td>") in text


def test_empty_sections_say_so(tmp_path):
    report = _report(guards=(), saved=(), saved_bytes="", memory_plan=(), seq_pairs=(), module_for_graph=None)
    text = write_report(report, tmp_path).read_text()
    for note in ("No guards were recorded", "saves nothing", "No memory plan", "No op carries",
                 "No module was given"):
        assert note in text


def test_hostile_title_guard_and_ir_are_escaped_and_the_file_name_sanitized(tmp_path):
    title = "../../x <script>alert(1)</script>" + "y" * 500
    report = _report(title=title, ir="</pre><script>alert(2)</script>", guards=("<img src=x onerror=alert(3)>",))
    page = write_report(report, tmp_path / "report")
    text = page.read_text()
    assert "<script" not in text and "<img" not in text
    assert "&lt;/pre&gt;&lt;script&gt;alert(2)&lt;/script&gt;" in text
    assert "&lt;img src=x onerror=alert(3)&gt;" in text
    assert html.escape(title) in text
    assert page.parent == tmp_path / "report"
    assert re.fullmatch(r"001-x-script-alert-1-script-y+\.html", page.name) and len(page.name) <= 70
    assert {path.parent for path in tmp_path.rglob("*") if path.is_file()} == {tmp_path / "report"}


def test_a_title_of_only_unsafe_characters_names_the_page_frame(tmp_path):
    assert write_report(_report(title="../.."), tmp_path).name == "001-frame.html"


def test_index_lists_every_page_in_order_with_its_escaped_title(tmp_path):
    first = write_report(_report(title="forward <graph 0>"), tmp_path)
    second = write_report(_report(title="forward <graph 0>"), tmp_path)
    third = write_report(_report(title="backward"), tmp_path)
    assert [first.name[:4], second.name[:4], third.name[:4]] == ["001-", "002-", "003-"]
    index = (tmp_path / "index.html").read_text()
    links = re.findall(r'<li><a href="([^"]+)">([^<]*)</a></li>', index)
    assert links == [(first.name, "forward &lt;graph 0&gt;"), (second.name, "forward &lt;graph 0&gt;"),
                     (third.name, "backward")]


def test_a_symlinked_report_directory_is_refused(tmp_path):
    target = tmp_path / "elsewhere"
    target.mkdir()
    (tmp_path / "report").symlink_to(target)
    with pytest.raises(HopcError, match="it is a symbolic link"):
        write_report(_report(), tmp_path / "report")
    assert list(target.iterdir()) == []


def test_a_report_directory_others_may_write_is_refused(tmp_path):
    shared = tmp_path / "shared"
    shared.mkdir(mode=0o777)
    shared.chmod(0o777)
    with pytest.raises(HopcError, match="group or others may write to it"):
        write_report(_report(), shared)


def test_without_dot_the_page_shows_the_dot_text(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path / "no-tools"))
    page = write_report(_report(), tmp_path / "report")
    text = page.read_text()
    dot = page.with_suffix(".dot").read_text()
    assert "was not found on PATH" in text and f"<pre>{html.escape(dot)}</pre>" in text
    assert "<svg" not in text and not page.with_suffix(".svg").exists()


@NEEDS_DOT
def test_with_dot_the_page_inlines_the_drawn_graph(tmp_path):
    page = write_report(_report(), tmp_path)
    text = page.read_text()
    svg = text[text.index("<svg"): text.index("</svg>") + len("</svg>")]
    labels = {"".join(element.itertext()) for element in ElementTree.fromstring(svg).iter("text")}
    assert {"hop.cond : (!hop.tensor<[s0, 4], f32>)", "then", "else", "aten.sin"} <= labels
    assert page.with_suffix(".svg").read_text().count("<svg") == 1


def test_an_svg_with_a_script_or_event_handler_is_not_embedded():
    assert _checked_svg('<svg><g><text x="1">a &lt; b</text></g></svg>') == "<svg><g><text x=\"1\">a &lt; b</text></g></svg>"
    assert _checked_svg("<svg><script>alert(1)</script></svg>") is None
    assert _checked_svg('<svg onload="alert(1)"><g/></svg>') is None
    assert _checked_svg('<svg xmlns:xlink="http://www.w3.org/1999/xlink"><g xlink:href="x"/></svg>') is None
    assert _checked_svg("<svg><g>") is None


# --------------------------------------------------------------------------- the op graph


def test_op_graph_has_a_node_per_op_and_an_edge_per_operand():
    module = hopc.parse(COND_TEXT)
    statements = _dot_statements(op_graph_dot(module))
    ops = [op for op in module.walk() if not op.regions]
    nodes = [line for line in statements if re.match(r"v\d+ \[label = \"(?! \")", line) and "shape = box" in line]
    assert [line.split('"')[1].split("\\n")[0] for line in nodes] == [op.name for op in ops]
    edges = [line for line in statements if " -> " in line]
    assert len(edges) == sum(len(op.operands) for op in module.walk())
    assert len([line for line in statements if "shape = ellipse" in line]) == 3  # %x, and %a in each branch


def test_op_graph_draws_each_region_of_a_hop_as_a_cluster_inside_its_op():
    statements = _dot_statements(op_graph_dot(hopc.parse(COND_TEXT), max_label_length=100))
    labels = [line for line in statements if line.startswith("label = ")]
    assert labels == ['label = "builtin.module";', 'label = "func.func @forward";',
                      'label = "hop.cond : (!hop.tensor<[s0, 4], f32>)";', 'label = "then";', 'label = "else";']
    then_cluster = statements.index('label = "then";')
    sin = next(index for index, line in enumerate(statements) if 'label = "aten.sin' in line)
    assert then_cluster < sin < statements.index('label = "else";')


def test_op_graph_cuts_long_type_labels():
    dot = op_graph_dot(hopc.parse(COND_TEXT), max_label_length=5)
    assert '[label = "aten.sin\\n!hop....", shape = box' in dot


def test_op_graph_escapes_quotes_and_backslashes_in_labels():
    module = hopc.parse('func.func @"a\\"b\\\\c<d>"(%x: !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32> {\n'
                        "  func.return %x : !hop.tensor<[4], f32>\n}\n")
    assert 'label = "func.func @a\\"b\\\\c<d>";' in op_graph_dot(module)


def test_op_graph_leaves_the_module_unchanged():
    module = hopc.parse(COND_TEXT)
    before = str(module)
    op_graph_dot(module)
    assert str(module) == before


@NEEDS_DOT
def test_dot_draws_escaped_labels_as_written():
    module = hopc.parse('func.func @"a\\"b\\\\c<d>"(%x: !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32> {\n'
                        "  func.return %x : !hop.tensor<[4], f32>\n}\n")
    svg = render_svg(op_graph_dot(module))
    assert svg is not None
    labels = {"".join(element.itertext()) for element in ElementTree.fromstring(svg).iterfind(".//{*}text")}
    assert 'func.func @a"b\\c<d>' in labels


def test_hopc_opt_view_op_graph_imports_neither_torch_nor_sympy(tmp_path):
    path = tmp_path / "input.mlir"
    path.write_text(COND_TEXT)
    program = ("import sys\nfrom hopc.tools.opt import main\nmain(sys.argv[1:])\n"
               "print('imported:', *sorted(name for name in ('sympy', 'torch') if name in sys.modules))")
    run = subprocess.run([sys.executable, "-c", program, "--view-op-graph", str(path)],
                         capture_output=True, text=True, check=True)
    assert run.stdout.splitlines()[-1] == "imported:"
    assert run.stderr.startswith("digraph G {")


def test_render_svg_without_dot_is_none(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))
    assert render_svg("digraph G { a -> b; }") is None
