"""The compile driver (``hopc.driver``): options, stage order, printing, reports, hopc-opt's pipeline."""

from __future__ import annotations

import ast
import copy
import pathlib
import re
import subprocess
import sys

import pytest
import torch
from xdsl.context import Context

import hopc
from hopc.backend.runtime.executors import LoweringOptions, lowered
from hopc.driver import CompileOptions, Stage
from hopc.driver_log import SHAPE_GUARDS_ONLY
from hopc.ir.diagnostics import HopcError
from hopc.pipeline_pass import HopcPipelinePass, run_stages

ROOT = pathlib.Path(__file__).resolve().parent.parent
COND = (ROOT / "examples" / "cond.mlir").read_text()
HEADING = re.compile(r"^// -----// IR Dump After (\w+) //----- //$", re.MULTILINE)
INFERENCE_STAGES = ["captured", "functional", "differentiated", "kernel", "planned"]


@pytest.fixture(autouse=True)
def fresh_dynamo():
    torch._dynamo.reset()
    yield
    torch._dynamo.reset()


def _cond(x: torch.Tensor) -> torch.Tensor:
    return torch.cond(x.sum() > 0, lambda x: x.sin(), lambda x: x.cos(), (x,)) * 2


def _functional(text: str = COND):
    module = hopc.parse(text)
    return run_stages(module, CompileOptions(), Stage.DIFFERENTIATED)


# ---------------------------------------------------------------- options


@pytest.mark.parametrize(("options", "message"), [
    ({"executor": "fastest"}, "unknown executor 'fastest'; hopc has aten, auto, cuda, interpreter, planned, triton"),
    ({"drop_parameters": True}, "drop_parameters=True releases what freeze=True froze; pass freeze=True too"),
    ({"freeze": "yes"}, "compile option freeze is True or False, not 'yes'"),
    ({"max_constant_bytes": -1}, "max_constant_bytes is a number of bytes, not -1"),
    ({"executor": "interpreter", "lowering": LoweringOptions()}, "executor 'interpreter' runs the functional level"),
], ids=["executor", "drop-without-freeze", "flag", "bytes", "lowering-of-interpreter"])
def test_invalid_options_are_refused_with_the_problem_named(options, message):
    with pytest.raises(HopcError, match=re.escape(message)):
        CompileOptions(**options)


def test_invalid_lowering_option_is_refused():
    with pytest.raises(HopcError, match="conds_as_selects is one of auto, always, never, not 'sometimes'"):
        LoweringOptions(conds_as_selects="sometimes")


def test_compile_locates_a_bad_option_at_the_users_line():
    with pytest.raises(HopcError, match="unknown compile option 'fullgrpah'") as failure:
        hopc.compile(_cond, fullgrpah=True)
    assert failure.value.location.file == __file__


def test_keywords_replace_fields_of_the_options_given():
    compiled = hopc.compile(hopc.parse(COND), options=CompileOptions(executor="aten"), executor="planned")
    x = torch.randn(3, 4)
    torch.testing.assert_close(compiled(x)[0], _cond(x))


def test_options_and_keywords_compile_the_same_program():
    x = torch.randn(5, 4)
    by_options = hopc.compile(_cond, options=CompileOptions(executor="aten", dynamic=False))
    by_keywords = hopc.compile(_cond, executor="aten", dynamic=False)
    for sign in (1, -1):
        torch.testing.assert_close(by_options(sign * x), _cond(sign * x))
        torch.testing.assert_close(by_keywords(sign * x), by_options(sign * x))


def test_stages_are_in_the_order_they_run():
    assert [stage.value for stage in Stage] == [
        "captured", "functional", "differentiated", "frozen", "kernel", "planned", "executable"]


def test_import_hopc_loads_no_torch_and_resolves_compile_options():
    check = "import sys, hopc; assert 'torch' not in sys.modules; print(hopc.CompileOptions().executor)"
    run = subprocess.run([sys.executable, "-c", check], capture_output=True, text=True, check=True)
    assert run.stdout.strip() == "auto"


def _imported_modules(path: pathlib.Path) -> set[str]:
    imported = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            imported |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            imported |= {node.module, *(f"{node.module}.{alias.name}" for alias in node.names)}
    return imported


def test_lower_layers_do_not_import_the_driver():
    for folder in ("backend", "passes"):
        for path in (ROOT / folder).rglob("*.py"):
            assert not {"hopc.driver", "hopc.driver_log"} & _imported_modules(path), path


# ---------------------------------------------------------------- printing


def test_print_ir_after_all_heads_every_stage_in_order(capfd):
    x = torch.randn(4, 4)
    torch.testing.assert_close(hopc.compile(_cond, print_ir_after_all=True)(x), _cond(x))
    printed = capfd.readouterr().err
    assert HEADING.findall(printed) == INFERENCE_STAGES
    assert re.search(r"^// _cond of test_driver\.py:\d+ \(graph 0/0\): planned took [\d.]+ ms$", printed, re.MULTILINE)


def test_hopc_logs_ir_prints_the_stages_of_a_training_step(capfd, monkeypatch):
    monkeypatch.setenv("HOPC_LOGS", "ir")
    x = torch.randn(3, 4, requires_grad=True)
    hopc.compile(hopc.parse(COND.replace("%x: !hop.tensor<[s0, 4], f32>)", "%x: !hop.tensor<[s0, 4], f32> "
                                         "{hop.requires_grad})")))(x)
    printed = capfd.readouterr().err
    assert HEADING.findall(printed) == INFERENCE_STAGES
    assert "func.func @backward" in printed.split("IR Dump After differentiated")[1]


def test_hopc_logs_stages_prints_one_timed_line_per_stage(capfd, monkeypatch):
    monkeypatch.setenv("HOPC_LOGS", "stages")
    hopc.compile(hopc.parse(COND), executor="interpreter")
    lines = capfd.readouterr().err.splitlines()
    assert [line.split()[1] for line in lines] == ["captured", "functional", "differentiated", "executable"]
    assert all(re.fullmatch(r"hopc: \w+ [\d.]+ ms \(a hop-level module\)", line) for line in lines)


def test_an_unknown_hopc_log_is_refused(monkeypatch):
    monkeypatch.setenv("HOPC_LOGS", "ir,passes")
    with pytest.raises(HopcError, match="HOPC_LOGS: unknown log 'passes'; hopc logs stages, ir, \\+stages"):
        hopc.compile(hopc.parse(COND))


# ---------------------------------------------------------------- lowering options


def _not_lowered_again(*_: object) -> None:
    raise AssertionError("the module was lowered again for options it was lowered for")


def test_the_lowering_cache_is_keyed_by_device_and_lowering_options():
    module = _functional()
    selects = lowered(module, "cpu", LoweringOptions(conds_as_selects="always"))
    branches = lowered(module, "cpu", LoweringOptions(conds_as_selects="never"))
    assert "hop.cond" not in str(selects) and "hop.cond" in str(branches)
    assert lowered(module, "cpu", LoweringOptions(conds_as_selects="always"), _not_lowered_again) is selects


def test_compile_options_lowering_reaches_the_executor():
    x = torch.randn(3, 4)
    compiled = hopc.compile(hopc.parse(COND), lowering=LoweringOptions(conds_as_selects="always"), executor="aten")
    torch.testing.assert_close(compiled(x)[0], _cond(x))
    torch.testing.assert_close(compiled(-x)[0], _cond(-x))
    cached = lowered(compiled.module, "cpu", LoweringOptions(conds_as_selects="always"), _not_lowered_again)
    assert "hop.cond" not in str(cached)


# ---------------------------------------------------------------- hopc-opt's pipeline


@pytest.mark.parametrize(("to", "present", "absent"), [
    ("captured", "%unused = aten.exp", "hop.sym_size"),
    ("functional", "hop.sym_size", "aten.exp"),
    ("differentiated", "hop.sym_size", "kernel."),
    ("frozen", "hop.sym_size", "kernel."),
    ("kernel", "kernel.launch", "kernel.alloc"),
    ("planned", "kernel.alloc", "aten.exp"),
])
def test_hopc_pipeline_runs_the_stages_up_to_the_one_named(to, present, absent):
    module = hopc.parse(COND)
    HopcPipelinePass(to=to).apply(Context(), module)
    assert present in str(module) and absent not in str(module)


def test_hopc_pipeline_to_planned_is_what_hopc_compile_runs(capfd):
    hopc.compile(hopc.parse(COND), print_ir_after_all=True)
    compiled_planned = capfd.readouterr().err.split("IR Dump After planned //----- //\n")[1].split("\n", 1)[1]
    module = hopc.parse(COND)
    HopcPipelinePass(to="planned").apply(Context(), module)
    assert compiled_planned.strip() == str(module).strip()


def test_hopc_pipeline_refuses_freezing_to_the_differentiated_stage():
    with pytest.raises(HopcError, match="freeze=true freezes in place of differentiating; use to=frozen"):
        HopcPipelinePass(to="differentiated", freeze=True).apply(Context(), hopc.parse(COND))


# ---------------------------------------------------------------- programs through the driver


def test_a_training_step_matches_eager():
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.Tanh(), torch.nn.Linear(8, 2))
    reference = copy.deepcopy(model)
    compiled = hopc.compile(model, options=CompileOptions(executor="aten"))
    optimizers = [torch.optim.SGD(m.parameters(), lr=0.1) for m in (model, reference)]
    for batch in (3, 5):
        x = torch.randn(batch, 4)
        for run, optimizer in zip((compiled, reference), optimizers):
            run(x).square().mean().backward()
            optimizer.step()
            optimizer.zero_grad()
        for mine, theirs in zip(model.parameters(), reference.parameters()):
            torch.testing.assert_close(mine, theirs)


# ---------------------------------------------------------------- reports


@pytest.fixture
def reports(monkeypatch):
    """The ``FrameReport``s the driver writes, each also written by the real ``write_report``."""
    compile_report = pytest.importorskip("hopc.compile_report")
    written = []
    original = compile_report.write_report

    def recording(report, directory):
        written.append(report)
        return original(report, directory)

    monkeypatch.setattr(compile_report, "write_report", recording)
    return written


def test_a_training_frame_is_reported_with_its_guards_saved_values_and_plan(reports, tmp_path):
    model = torch.nn.Linear(4, 3)
    hopc.compile(model, report_dir=tmp_path)(torch.randn(2, 4, requires_grad=True)).sum().backward()
    (report,) = reports
    assert [stage.name for stage in report.stages] == INFERENCE_STAGES
    assert re.fullmatch(r"forward of linear\.py:\d+ \(graph 0/0\)", report.title)
    assert any("TENSOR_MATCH" in guard for guard in report.guards)
    assert SHAPE_GUARDS_ONLY not in report.guards
    assert report.saved and report.saved_bytes
    assert any(row[0] == "@forward peak" for row in report.memory_plan)
    assert any(forward and backward for _, forward, backward in report.seq_pairs)
    assert "kernel.device" in str(report.module_for_graph.attributes)
    assert list(tmp_path.glob("*.html"))


def test_torch_compile_reports_shape_guards_only_and_says_so(reports, tmp_path):
    compiled = torch.compile(_cond, backend="hopc", options={"report_dir": str(tmp_path)})
    x = torch.randn(4, 4)
    torch.testing.assert_close(compiled(x), _cond(x))
    (report,) = reports
    assert report.guards[0] == SHAPE_GUARDS_ONLY and report.saved == ()


def test_a_frozen_frame_is_reported_after_its_first_call(reports, tmp_path):
    model = torch.nn.Linear(4, 3)
    compiled = hopc.compile(model, freeze=True, report_dir=tmp_path)
    with torch.no_grad():
        x = torch.randn(2, 4)
        torch.testing.assert_close(compiled(x), model(x))
    (report,) = reports
    assert [stage.name for stage in report.stages] == ["captured", "functional", "frozen", "kernel", "planned"]
