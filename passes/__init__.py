"""hopc's passes, by name. Each is a module pass usable from Python and as a ``hopc-opt`` flag.

A pass module ``passes/<name>.py`` declares a ``ModulePass`` subclass whose
``name`` is its flag; its docstring's first line is the one-line summary that
``hopc-opt --help`` shows. Modules are imported only when a pass is used.
"""

from __future__ import annotations

from collections.abc import Callable
from importlib import import_module

from xdsl.passes import ModulePass

PASS_CLASSES: dict[str, str] = {
    "functionalize": "hopc.passes.functionalize:FunctionalizePass",
    "lift-symbols": "hopc.passes.lift_symbols:LiftSymbolsPass",
    "canonicalize": "hopc.passes.canonicalize:CanonicalizePass",
    "cse": "hopc.passes.cse:CommonSubexpressionEliminationPass",
    "dce": "hopc.passes.dce:DeadCodeEliminationPass",
    "autograd": "hopc.passes.autograd:AutogradPass",
    "freeze": "hopc.passes.freeze:FreezePass",
    "convert-hop-to-kernel": "hopc.passes.convert_hop_to_kernel:ConvertHopToKernelPass",
    "plan-memory": "hopc.passes.plan_memory:PlanMemoryPass",
    "form-cuda-graphs": "hopc.passes.form_cuda_graphs:FormCudaGraphsPass",
    "verify-functional": "hopc.passes.verify_functional:VerifyFunctionalPass",
    "verify-symbol-closed": "hopc.passes.verify_symbol_closed:VerifySymbolClosedPass",
    "verify-isolated": "hopc.passes.verify_isolated:VerifyIsolatedPass",
    "view-op-graph": "hopc.passes.view_op_graph:ViewOpGraphPass",
}
"""Pass name -> ``module:class``, in pipeline order."""


def pass_class(name: str) -> type[ModulePass]:
    module_name, class_name = PASS_CLASSES[name].split(":")
    return getattr(import_module(module_name), class_name)


def pass_factories() -> dict[str, Callable[[], type[ModulePass]]]:
    """Name -> factory, as xDSL's ``PassPipeline.parse_spec`` takes them."""
    return {name: (lambda name=name: pass_class(name)) for name in PASS_CLASSES}


def summary(name: str) -> str:
    """The first line of the pass's docstring."""
    doc = pass_class(name).__doc__ or ""
    return doc.strip().splitlines()[0] if doc.strip() else ""
