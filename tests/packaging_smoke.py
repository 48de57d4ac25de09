"""The installed wheel's smoke test, run by ``tests/test_packaging.py`` with a clean venv's interpreter.

    python -I packaging_smoke.py SITE_PACKAGES WORK_DIRECTORY

It is a script, not a test module: it runs under the interpreter of the
virtual environment the wheel was installed into, from ``WORK_DIRECTORY``
(outside the source tree), and checks, in order:

- ``hopc`` is the installed copy (its files lie under ``SITE_PACKAGES``, and
  no finder of an editable install is active), and every module of it imports;
- the ``hopc-opt`` console script: ``--help`` lists every pass of
  ``hopc.passes.PASS_CLASSES``, and it runs the pipeline on a captured module;
- every pass of ``PASS_CLASSES``, run by ``hopc-opt``'s entry point on the
  level it takes (``input_passes``); its output parses and verifies;
- a cond program compiled by ``hopc.compile`` with each executor of
  ``EXECUTORS``: a training step through both branches, output and
  gradients against eager.

It prints ``smoke: ok`` when all passed. Passes and executors are read from
their registries, so one added there is checked here without a list to keep.
The passes run in this process, by the function the console script calls:
one process per pass would import torch a dozen times over.
"""

from __future__ import annotations

import contextlib
import importlib
import io
import pathlib
import pkgutil
import subprocess
import sys

CAPTURED = """\
// A captured module: y = cond(x.sum() > 0, sin(x * w), cos(x))(x, w) * 2, with a dynamic
// batch size s0, a parameter w with its value (for --freeze), and x marked for --autograd.
hop.symbol @s0 backed [2, oo]
hop.parameter @w = dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32> : !hop.tensor<[4], f32>
func.func @forward(%x: !hop.tensor<[s0, 4], f32> {hop.requires_grad}, %w: !hop.tensor<[4], f32> {hop.parameter = @w}) -> !hop.tensor<[s0, 4], f32> {
  %sum = aten.sum(%x) : (!hop.tensor<[s0, 4], f32>) -> !hop.tensor<[], f32>
  %positive = aten.gt.Scalar(%sum) {other = 0 : i64} : (!hop.tensor<[], f32>) -> !hop.tensor<[], i1>
  %y = hop.cond %positive(%x, %w) : !hop.tensor<[], i1>, (!hop.tensor<[s0, 4], f32>, !hop.tensor<[4], f32>) -> !hop.tensor<[s0, 4], f32> then {
  ^bb0(%a: !hop.tensor<[s0, 4], f32>, %b: !hop.tensor<[4], f32>):
    %m = aten.mul.Tensor(%a, %b) : (!hop.tensor<[s0, 4], f32>, !hop.tensor<[4], f32>) -> !hop.tensor<[s0, 4], f32>
    %s = aten.sin(%m) : (!hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32>
    hop.yield %s : !hop.tensor<[s0, 4], f32>
  } else {
  ^bb0(%a: !hop.tensor<[s0, 4], f32>, %b: !hop.tensor<[4], f32>):
    %c = aten.cos(%a) : (!hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32>
    %unused = aten.exp(%a) : (!hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32>
    hop.yield %c : !hop.tensor<[s0, 4], f32>
  }
  %r = aten.mul.Scalar(%y) {other = 2 : i64} : (!hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32>
  func.return %r : !hop.tensor<[s0, 4], f32>
}
"""

KERNEL_LEVEL_PASSES = ("convert-hop-to-kernel",)
"""What lowers the pipeline's functional module to the kernel level."""

KERNEL_LEVEL_INPUT = frozenset({"plan-memory", "form-cuda-graphs"})
"""The passes that take a kernel-level module (``lit_tests/passes/plan-memory``, ``form-cuda-graphs``)."""


def input_passes(name: str) -> tuple[str, ...]:
    """The passes that bring ``CAPTURED`` to the level pass ``name`` takes.

    A stage of the pipeline takes the output of the stages before it, as
    ``hopc.compile`` runs them; any other pass takes the pipeline's functional
    module (``--freeze`` and ``--autograd`` are for it), except those of
    ``KERNEL_LEVEL_INPUT``, which take it lowered to the kernel level.
    """
    from hopc.passes.pipeline import STAGES

    if name in STAGES:
        return STAGES[:STAGES.index(name)]
    return STAGES + (KERNEL_LEVEL_PASSES if name in KERNEL_LEVEL_INPUT else ())


def check_installed_copy(site_packages: pathlib.Path) -> None:
    import hopc

    assert pathlib.Path(hopc.__file__).resolve().is_relative_to(site_packages), hopc.__file__
    editable = [finder for finder in sys.meta_path if getattr(finder, "__module__", "").startswith("__editable__")]
    assert not editable, f"the checkout's editable install is on sys.meta_path: {editable}"
    for module in pkgutil.walk_packages(hopc.__path__, "hopc."):
        importlib.import_module(module.name)


def check_console_script(work: pathlib.Path) -> None:
    from hopc.passes import PASS_CLASSES
    from hopc.passes.pipeline import STAGES

    script = pathlib.Path(sys.executable).with_name("hopc-opt")
    help_text = subprocess.run([script, "--help"], capture_output=True, text=True, check=True).stdout
    missing = [name for name in PASS_CLASSES if f"--{name}" not in help_text]
    assert not missing, f"hopc-opt --help lacks {missing}"
    captured = work / "captured.mlir"
    captured.write_text(CAPTURED)
    cleaned = subprocess.run([script, captured, *(f"--{name}" for name in STAGES)], capture_output=True, text=True)
    assert cleaned.returncode == 0, cleaned.stderr
    assert "hop.cond" in cleaned.stdout and "aten.exp" not in cleaned.stdout, cleaned.stdout  # --dce dropped %unused


def check_every_pass(work: pathlib.Path) -> None:
    import hopc
    from hopc.dialects.verify import verify_module
    from hopc.passes import PASS_CLASSES
    from hopc.tools.opt import main as hopc_opt

    captured = work / "captured.mlir"
    captured.write_text(CAPTURED)
    for name in PASS_CLASSES:
        output = work / f"{name}.mlir"
        flags = [f"--{flag}" for flag in (*input_passes(name), name)]
        diagnostics = io.StringIO()
        try:
            with contextlib.redirect_stderr(diagnostics):
                hopc_opt([str(captured), *flags, "-o", str(output)])
        except SystemExit as exit_:
            assert not exit_.code, f"hopc-opt {' '.join(flags)}: {diagnostics.getvalue()}"
        verify_module(hopc.parse(output.read_text()))


def training_step(model, program, x) -> list:
    """``program``'s output on ``x``, then the gradients of ``x`` and of ``model``'s parameters."""
    model.zero_grad()
    x = x.clone().requires_grad_()
    output = program(x)
    output.square().sum().backward()
    return [output.detach(), x.grad, *(parameter.grad for parameter in model.parameters())]


def check_every_executor() -> None:
    import torch

    import hopc
    from hopc.backend.runtime.executors import CPU_EXECUTORS

    class Model(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.linear = torch.nn.Linear(4, 3)

        def forward(self, x):
            return torch.cond(x.sum() > 0, lambda y: y.sin(), lambda y: y.cos(), (self.linear(x),))

    torch.manual_seed(0)
    model = Model()
    inputs = torch.randn(5, 4)
    for name in CPU_EXECUTORS:
        compiled = hopc.compile(model, executor=name, fullgraph=True)  # no eager fallback to pass for hopc
        for branch, x in (("then", inputs.abs()), ("else", -inputs.abs())):
            expected = training_step(model, model, x)
            actual = training_step(model, compiled, x)
            for value, eager in zip(actual, expected, strict=True):
                torch.testing.assert_close(value, eager, msg=f"executor {name}, {branch} branch")
        torch.compiler.reset()


def main() -> None:
    site_packages, work = (pathlib.Path(argument).resolve() for argument in sys.argv[1:3])
    check_installed_copy(site_packages)
    check_console_script(work)
    # Executors before passes: torch 2.11 crashes in ``torch.cond`` once a ``FakeTensorMode`` has
    # been used in another thread, as ``hopc-opt --autograd`` does on its driver thread (torch's
    # bug, fixed by 2.13: ``scripts/test_torch_compat.sh`` shows the reproduction).
    check_every_executor()
    check_every_pass(work)
    print("smoke: ok")


if __name__ == "__main__":
    main()
