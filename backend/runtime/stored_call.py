"""A compiled call as data: what an executable entry of the compile cache holds, made again without the IR.

``call_record`` writes a ``TrainingCall`` or ``ModuleCall`` whose entries run
generated host code as JSON-able data: the call's plan (``TrainingPlan``,
``ModulePlan``) and, per entry function, its generated source, the recipe of
each namespace value (Note [namespace recipes] in
``hopc.backend.host.recipes``), its outputs' restrides (``OutputAliases`` without
views), and the op prefix and location of each line
(``relocate_at_lines``'s table). ``call_from_record`` makes the call again:
it compiles each source under a file name of its own and runs the outer
function on the values the recipes make. It imports neither xDSL nor hopc's
dialects, so that a hit on an executable entry loads none of them (Note
[executable entries] in ``hopc.compile_cache``).
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
from collections.abc import Sequence
from typing import TYPE_CHECKING

import torch

from hopc.backend.host.recipes import RELOCATION, Unstorable, recipe_of, value_of
from hopc.backend.runtime.generated_call import GeneratedCall, compile_entry
from hopc.backend.runtime.located_failures import relocate_at_lines
from hopc.backend.runtime.module_call import ModuleCall, ModulePlan
from hopc.backend.runtime.output_aliases import OutputAliases, SymbolSource
from hopc.backend.runtime.training_call import TrainingCall, TrainingPlan
from hopc.ir.diagnostics import Location

if TYPE_CHECKING:
    from hopc.backend.host.generated_function import GeneratedFunction

RECORD_VERSION = 1
_loaded_count = itertools.count()


def call_record(call: object, device: str) -> dict:
    """``call``'s record for ``device``; ``Unstorable`` for a call that is not a ``TrainingCall`` or
    ``ModuleCall`` of generated code, checks its arguments, restores outputs as views or closes
    over a value without a recipe."""
    if getattr(call, "_check_arguments", None) is not None:
        raise Unstorable("the call checks its arguments")
    if isinstance(call, TrainingCall):
        record = {"call": "training", "forward": _function_record(call._run_forward, device),
                  "backward": _function_record(call._run_backward, device)}
    elif isinstance(call, ModuleCall):
        record = {"call": "module", "entry": _function_record(call._run, device)}
    else:
        raise Unstorable(f"a {type(call).__name__} is not stored")
    return {"version": RECORD_VERSION, "plan": dataclasses.asdict(call.plan),
            "aliases": _aliases_record(call.aliases), **record}


def call_from_record(record: dict, trailing: Sequence[torch.Tensor]) -> TrainingCall | ModuleCall:
    """The call ``record`` describes, taking ``trailing`` after its arguments; ``ValueError``
    (or ``KeyError``, ``TypeError``) for a record this version of hopc did not write."""
    if record.get("version") != RECORD_VERSION:
        raise ValueError(f"record version {record.get('version')!r}, not {RECORD_VERSION}")
    aliases = _aliases_from_record(record["aliases"])
    if record["call"] == "training":
        plan = _plan(TrainingPlan, record["plan"])
        return TrainingCall.from_plan(plan, _loaded_call(record["forward"]), _loaded_call(record["backward"]),
                                      trailing, aliases)
    if record["call"] == "module":
        return ModuleCall.from_plan(_plan(ModulePlan, record["plan"]), _loaded_call(record["entry"]), trailing,
                                    aliases)
    raise ValueError(f"unknown call kind {record['call']!r}")


def _function_record(run: object, device: str) -> dict:
    """The record of the generated function ``run`` runs on ``device``."""
    if not isinstance(run, GeneratedCall):
        raise Unstorable(f"the executor's {type(run).__name__} runs no generated code")
    generated: GeneratedFunction | None = getattr(run.for_device(device), "generated", None)
    if generated is None:
        raise Unstorable("the generated function keeps no source")
    namespace = {name: recipe_of(value, generated.recipes.get(name)) for name, value in generated.namespace.items()}
    lines = [[line, prefix, *((location.file, location.line, location.column) if location else (None, 0, 0))]
             for line, (prefix, location) in generated.line_failures().items()]
    return {"source": generated.source, "outer": generated.outer, "namespace": namespace, "lines": lines}


def _loaded_call(record: dict) -> GeneratedCall:
    """The generated function of ``record``, compiled under a file name of its own, as a call."""
    filename = f"<hopc cached {next(_loaded_count)}>"
    lines = {line: (prefix, Location(file, line_number, column) if file is not None else None)
             for line, prefix, file, line_number, column in record["lines"]}
    relocate = functools.partial(relocate_at_lines, filename, lines)
    namespace = {name: relocate if recipe == RELOCATION else value_of(recipe)
                 for name, recipe in record["namespace"].items()}
    entry = compile_entry(record["source"], filename, record["outer"], namespace)
    return GeneratedCall(lambda device: entry, entry)


def _aliases_record(aliases: OutputAliases | None) -> dict | None:
    """The record of output restrides; ``Unstorable`` for outputs restored as views of others,
    whose steps call ops (Note [aliased outputs] in ``hopc.frontend.output_views``)."""
    if aliases is None:
        return None
    if aliases._aliases:
        raise Unstorable("the call restores outputs as views")
    return {"strided": [[index, [recipe_of(step) for step in layout]] for index, layout in aliases._strided],
            "sources": [[recipe_of(source.symbol), source.of_input, source.index, source.read, source.dim]
                        for source in aliases._sources],
            "output_count": aliases._output_count, "extra": aliases._extra}


def _aliases_from_record(record: dict | None) -> OutputAliases | None:
    if record is None:
        return None
    strides = [(index, tuple(value_of(step) for step in layout)) for index, layout in record["strided"]]
    sources = [SymbolSource(value_of(symbol), of_input, index, read, dim)
               for symbol, of_input, index, read, dim in record["sources"]]
    output_count = record["output_count"]
    return OutputAliases((), strides, sources, output_count, output_count + bool(record["extra"]))


def _plan(plan_class: type, fields: dict) -> object:
    """A plan dataclass from its ``asdict`` form read back from JSON: lists made tuples again."""
    return plan_class(**{name: _tuples(value) for name, value in fields.items()})


def _tuples(value: object) -> object:
    return tuple(_tuples(item) for item in value) if isinstance(value, list) else value
