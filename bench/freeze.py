"""What ``--freeze`` folds, and the steady-state inference call with and without it, against eager.

    python bench/freeze.py [--calls 500] [--rounds 5]

Programs: an MLP (256-1024-256, batch 32), a transformer block (width 128,
4 heads, batch 2, length 64; tests/frontend/frontend_models.py) and a
``torch.cond`` model whose branches prepare their weights (a transpose, a
gate ``sigmoid`` of a parameter, a scaled weight) before a matmul. For each,
in one run: the ATen and HOP ops of the functional module (captured,
through the pipeline, every region counted) before and after
``freeze(module, parameters and buffers)``, the bytes of its constants
after, and the mean call time of eager, ``hopc.compile(program)`` and
``hopc.compile(program, freeze=True)`` under ``torch.no_grad()`` on one
thread, interleaved round by round after warm-up calls (median over
``--rounds`` of the mean over ``--calls``), with each one's ratio to eager.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
from collections.abc import Callable

import torch

import hopc
from hopc.dialects.aten import AtenOp
from hopc.dialects.hop import ConstantOp, SubgraphOp
from hopc.dialects.hop_interface import hop_interface
from hopc.passes.freeze import freeze
from hopc.passes.pipeline import run_pipeline
from hopc.torch_bridge.tensor_constants import constant_bytes

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests", "frontend"))
from call_overhead import mean_call_us  # bench/ is the script's own directory
from frontend_models import Mlp, TransformerBlock


class CondModel(torch.nn.Module):
    """Branches that prepare their parameters before using them: what freezing folds."""

    def __init__(self, width: int = 256):
        super().__init__()
        torch.manual_seed(0)
        self.first = torch.nn.Parameter(torch.randn(width, width) / width ** 0.5)
        self.gate = torch.nn.Parameter(torch.randn(width))
        self.second = torch.nn.Parameter(torch.randn(width, width) / width ** 0.5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        def scaled(x: torch.Tensor) -> torch.Tensor:
            return (x @ self.first.t()) * self.gate.sigmoid()

        def doubled(x: torch.Tensor) -> torch.Tensor:
            return x @ (self.second * 2).t()

        return torch.cond(x.sum() > 0, scaled, doubled, (x,))


PROGRAMS: dict[str, tuple[Callable[[], torch.nn.Module], tuple[int, ...]]] = {
    "mlp": (lambda: Mlp(256), (32, 256)),
    "transformer": (lambda: TransformerBlock(128, 4), (2, 64, 128)),
    "cond": (CondModel, (32, 256)),
}


def _ops(module) -> int:
    """ATen ops and HOPs (not subgraph definitions), in every region."""
    return sum(1 for op in module.walk() if isinstance(op, AtenOp)
               or (hop_interface(op) is not None and not isinstance(op, SubgraphOp)))


def _fold_counts(model: torch.nn.Module, example: torch.Tensor) -> tuple[int, int, int]:
    module = run_pipeline(hopc.capture(model, (example,)))
    before = _ops(module)
    values = {**dict(model.named_parameters()), **dict(model.named_buffers())}
    freeze(module, {name: value.detach() for name, value in values.items()})
    constants = sum(constant_bytes(op) for op in module.ops if isinstance(op, ConstantOp))
    return before, _ops(module), constants


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=500)
    parser.add_argument("--rounds", type=int, default=5)
    options = parser.parse_args()
    torch.set_num_threads(1)
    print(f"{'program':<12} {'ops':>4} {'frozen':>6} {'const KiB':>9} {'eager us':>9} {'hopc us':>9} "
          f"{'frozen us':>9} {'hopc/eager':>10} {'frozen/eager':>12}")
    with torch.no_grad():
        for name, (make, shape) in PROGRAMS.items():
            model, example = make().eval(), torch.randn(*shape, generator=torch.Generator().manual_seed(0))
            before, after, constants = _fold_counts(model, example)
            sides = {"eager": model, "hopc": hopc.compile(make().eval()),
                     "frozen": hopc.compile(make().eval(), freeze=True)}
            for side in sides.values():
                for _ in range(3):
                    side(example)  # compile, then settle
            times: dict[str, list[float]] = {side: [] for side in sides}
            for _ in range(options.rounds):
                for side, function in sides.items():
                    times[side].append(mean_call_us(function, (example,), options.calls))
            eager, compiled, frozen = (statistics.median(times[s]) for s in ("eager", "hopc", "frozen"))
            print(f"{name:<12} {before:>4} {after:>6} {constants / 1024:>9.1f} {eager:>9.1f} {compiled:>9.1f} "
                  f"{frozen:>9.1f} {compiled / eager:>10.2f} {frozen / eager:>12.2f}")


if __name__ == "__main__":
    main()
