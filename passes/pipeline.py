"""hopc's pass pipeline: the passes of the driver's ``functional`` stage, in order, verified between them.

    captured -> functionalize -> lift-symbols -> canonicalize -> cse -> dce

What ``hopc.compile`` runs before and after them is the driver's to say
(``hopc.driver``, Note [compile stages]).

After it the module is functional (no op in any region mutates or aliases;
mutated entry inputs and buffers are ``{hop.copy_back_to = i}`` results) and
symbol-closed (every region binds the shape symbols it uses); every HOP
region is isolated throughout (Note [isolated regions], part of
``verify_module``). By default each pass is followed by
``verify_module``, so a pass that breaks the IR is caught
at once (as ``mlir-opt``'s ``-verify-each``); ``hopc.compile`` verifies only
the pipeline's result (unless ``CompileOptions(verify_each=True)``), since
verifying costs as much as the passes themselves and every pass is verified
by the tests.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp

from hopc.dialects.verify import verify_module
from hopc.passes import pass_class

STAGES: tuple[str, ...] = ("functionalize", "lift-symbols", "canonicalize", "cse", "dce")


def run_pipeline(module: ModuleOp, stages: Sequence[str] = STAGES,
                 context: Context | None = None, *, verify_each: bool = True) -> ModuleOp:
    """Runs ``stages`` on ``module`` in place and returns it, verified.

    With ``verify_each`` the module is verified after every stage, otherwise
    once after the last.
    """
    if context is None:
        from hopc.dialects.context import make_context

        context = make_context()
    for name in stages:
        pass_class(name)().apply(context, module)
        if verify_each:
            verify_module(module)
    if not verify_each:
        verify_module(module)
    return module
