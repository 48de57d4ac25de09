"""A generated function and its call: what a compiled executor prepares, importing no IR.

``GeneratedCall`` runs a generated function (Note [generated host code] in
``hopc.backend.host.codegen``) for the device of its first call's tensors;
it imports neither xDSL nor hopc's dialects, so that a compiled call loaded
from the compile cache runs without them (Note [executable entries] in
``hopc.compile_cache``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import torch

Generated = Callable[..., list[object]]
"""A generated function (``GeneratedFunction.compile``'s): ``*args -> results``."""


def compile_entry(source: str, filename: str, outer: str, namespace: dict[str, object]) -> Generated:
    """Compiles ``source`` as ``filename`` and runs its outer function ``outer`` on ``namespace``:
    the entry function, ``*args -> results``, its ``source`` attached (Note [generated host code])."""
    code_globals: dict[str, object] = {}
    exec(compile(source, filename, "exec"), code_globals)
    entry = code_globals.pop(outer)(**namespace)
    entry.source = source
    return entry


class GeneratedCall:
    """A generated function, run with grad mode off: generated code writes ``out=`` buffers,
    which autograd refuses for inputs that require grad. No gradient flows through an
    executor (a training call differentiates the forward and backward functions itself), so
    nothing is lost. ``for_device`` gives the function for a device; unless ``run`` is given,
    the first call picks it by its arguments (Note [compiled executors]), and every later call
    runs ``run``."""

    def __init__(self, for_device: Callable[[str], Generated], run: Generated | None = None):
        self.for_device = for_device
        self.run = run

    @property
    def source(self) -> str:
        """The generated source of the function chosen (``GeneratedFunction.compile``'s)."""
        return self.run.source  # type: ignore[union-attr]

    def __call__(self, args: Sequence[object]) -> list[object]:
        run = self.run
        if run is None:
            run = self.run = self.for_device(device_of(args))
        if not torch.is_grad_enabled():
            return run(*args)
        with torch.no_grad():
            return run(*args)


def device_of(args: Sequence[object]) -> str:
    """The device type of the first tensor in ``args``; the CPU where there is none."""
    for arg in args:
        if isinstance(arg, torch.Tensor):
            return arg.device.type
    return "cpu"
