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

Note [skipped passes]
~~~~~~~~~~~~~~~~~~~~~
A pass whose input has nothing for it is not run (``UNCHANGED_BY``), so that a
first call does not import it (bench/compile_time.py): ``functionalize`` on a
module where no op mutates or aliases and no HOP has bodies to rewrite (a
multilayer perceptron). The predicate is a sufficient condition, checked
without the pass: on such a module the pass is the identity
(tests/test_skipped_passes.py runs it on every lit input the predicate
accepts). ``hopc-opt --functionalize`` always runs the pass.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.dialects.func import FuncOp

from hopc.dialects.aten import AtenOp
from hopc.dialects.hop_interface import hop_interface
from hopc.dialects.verify import verify_module
from hopc.passes import pass_class

STAGES: tuple[str, ...] = ("functionalize", "lift-symbols", "canonicalize", "cse", "dce")


def has_nothing_to_functionalize(module: ModuleOp) -> bool:
    """Whether ``functionalize`` leaves ``module`` as it is: every ATen op functional (no
    in-place op, ``out=`` op, view or undeclared write), no HOP and no region but functions'."""
    for op in module.walk():
        if hop_interface(op) is not None:
            return False
        if op.regions and not isinstance(op, ModuleOp | FuncOp):
            return False
        if isinstance(op, AtenOp) and (op.undeclared_writes() or not op.SCHEMA.is_functional):
            return False
    return True


UNCHANGED_BY: dict[str, Callable[[ModuleOp], bool]] = {"functionalize": has_nothing_to_functionalize}
"""Pass name -> whether a module is one the pass leaves unchanged (Note [skipped passes])."""


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
        if name in UNCHANGED_BY and UNCHANGED_BY[name](module):
            continue
        pass_class(name)().apply(context, module)
        if verify_each:
            verify_module(module)
    if not verify_each:
        verify_module(module)
    return module
