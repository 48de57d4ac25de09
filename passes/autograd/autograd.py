"""``--autograd``: the forward and backward functions of a module's forward entry.

Input: a functional, symbol-closed, isolated module whose forward entry marks
with ``{hop.requires_grad}`` the user inputs and parameters to differentiate
(Note [entry signature] in ``hopc.dialects.hop_module``).

Output: the same module with ``hop.entry forward @forward`` and
``hop.entry backward @backward`` (and, with ``joint=true``, ``hop.entry joint
@joint``), ordinary IR at the same level:

- ``@forward`` takes the original arguments and returns the original results
  (user outputs, copy-backs), then the saved values ``{hop.saved = k}``; its
  attribute ``hop.saved_bytes`` reports their size (``#hop.expr<16*s0 + 8>``);
- ``@backward`` takes the saved values, then one cotangent
  ``{hop.cotangent_of = i}`` per result ``i`` that depends on a
  differentiated argument and is a user output or the copy-back of a
  differentiated argument (an input changed in place, which the caller
  copies back under autograd: Note [training call]), and returns ``{hop.gradient_of = j}`` for each
  differentiated argument ``j`` whose gradient is not structurally zero (the
  caller takes a missing one as zero);
- ``@joint`` takes the arguments and the cotangents and returns the results
  and the gradients.

Each forward op with a derivative and the backward ops made from it share a
``{hop.seq_nr = N}``, N unique in the module and in forward program order
(Note [sequence numbers] in ``hopc.passes.autograd.provenance``).

How: the joint of the forward body (``hopc.passes.autograd.joint``), split by
a min-cut (``hopc.passes.autograd.partition``), then canonicalize, cse, dce
and lift-symbols on the new functions. A module whose forward has no
differentiated argument, or no user output depending on one, is left alone.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, FunctionType, IntegerAttr, ModuleOp, i64
from xdsl.dialects.func import FuncOp, ReturnOp
from xdsl.ir import Attribute, Block, Region, SSAValue
from xdsl.passes import ModulePass

from hopc.dialects.hop_function_signature import function_signature
from hopc.dialects.hop_module import COTANGENT_OF, GRADIENT_OF, SAVED, EntryOp
from hopc.dialects.hop_module_structure import differentiable_results, entry_functions
from hopc.ir.diagnostics import op_error
from hopc.ir.types import dim_attribute
from hopc.passes.autograd.joint import JointBuilder
from hopc.passes.autograd.partition import saved_bytes, split
from hopc.passes.autograd.provenance import settle_sequence_numbers
from hopc.passes.autograd.regions import cloned_block
from hopc.torch_bridge.aten_builders import symbols_of

SAVED_BYTES = "hop.saved_bytes"
"""The forward's attribute: the bytes of the values it saves, an expression of the symbols."""


@dataclass(frozen=True)
class AutogradPass(ModulePass):
    """Differentiates the forward entry: forward (saving values) and backward entry functions."""

    name = "autograd"

    joint: bool = False
    """Also emit the joint function (``hop.entry joint @joint``)."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        differentiate(op, joint=self.joint, context=ctx)


def differentiate(module: ModuleOp, *, joint: bool = False, context: Context | None = None) -> ModuleOp:
    """Runs ``--autograd`` on ``module`` in place (see the module docstring) and returns it."""
    with symbols_of(module):
        return _differentiate(module, joint, context)


def _differentiate(module: ModuleOp, joint: bool, context: Context | None) -> ModuleOp:
    entries = entry_functions(module)
    if "backward" in entries:
        raise op_error(entries["backward"], "autograd: the module is differentiated already (it has a "
                                            "'hop.entry backward'); differentiate its functional forward")
    forward = entries["forward"]
    signature = function_signature(forward)
    if not signature.requires_grad:
        return module
    joint_block = cloned_block(forward.body.block)
    returned = joint_block.last_op
    assert isinstance(returned, ReturnOp)
    results = list(returned.operands)
    returned.detach()
    returned.erase()
    builder = JointBuilder(joint_block, [joint_block.args[i] for i in sorted(signature.requires_grad)],
                           module=module)
    differentiated_outputs = [i for i in differentiable_results(signature) if builder.is_active(results[i])]
    if not differentiated_outputs:
        return module
    cotangents = [joint_block.insert_arg(results[i].type, len(joint_block.args))
                  for i in differentiated_outputs]
    for cotangent in cotangents:
        cotangent.name_hint = "tangent"
    builder.build([results[i] for i in differentiated_outputs], cotangents)
    results = [builder.resolve(v) for v in results]
    gradient_of = {j: builder.gradient(joint_block.args[j]) for j in sorted(signature.requires_grad)}
    gradient_of = {j: g for j, g in gradient_of.items() if g is not None}

    name = forward.sym_name.data
    arg_attrs = list(forward.arg_attrs.data) if forward.arg_attrs else \
        [DictionaryAttr({}) for _ in forward.args]
    res_attrs = list(forward.res_attrs.data) if forward.res_attrs else \
        [DictionaryAttr({}) for _ in results]
    cotangent_attrs = [_role(COTANGENT_OF, i) for i in differentiated_outputs]
    gradient_attrs = [_role(GRADIENT_OF, j) for j in gradient_of]
    new_functions = []
    if joint:
        joint_copy = Region(Block(arg_types=[a.type for a in joint_block.args]))
        mapping = dict(zip(joint_block.args, joint_copy.block.args))
        for op in joint_block.ops:
            joint_copy.block.add_op(op.clone(value_mapper=mapping))
        _finish(joint_copy.block, [mapping.get(v, v) for v in [*results, *gradient_of.values()]])
        new_functions.append(("joint", _function(_derived_name(name, "joint"), joint_copy,
                                                 [*arg_attrs, *cotangent_attrs],
                                                 [*res_attrs, *gradient_attrs])))
    parts = split(joint_block, len(forward.args), builder.backward_ops, results,
                  list(gradient_of.values()))
    saved_range = range(parts.saved_count)
    _finish(parts.forward, parts.forward_results)
    _finish(parts.backward, parts.backward_results)
    forward_function = _function(name, Region(parts.forward), arg_attrs,
                                 [*res_attrs, *(_role(SAVED, k) for k in saved_range)])
    saved_types = [v.type for v in parts.forward_results[len(results):]]
    forward_function.attributes[SAVED_BYTES] = dim_attribute(saved_bytes(saved_types))
    new_functions.insert(0, ("forward", forward_function))
    new_functions.insert(1, ("backward", _function(_derived_name(name, "backward"), Region(parts.backward),
                                                   [*(_role(SAVED, k) for k in saved_range),
                                                    *cotangent_attrs], gradient_attrs)))
    _replace_entry(module, forward, new_functions)
    _clean_up(module, context)
    settle_sequence_numbers(module, builder.numbers)
    return module


def _derived_name(forward: str, kind: str) -> str:
    """``backward`` for a forward named ``forward``, else ``<forward>_backward``."""
    return kind if forward == "forward" else f"{forward}_{kind}"


def _finish(block: Block, results: Sequence[SSAValue]) -> None:
    block.add_op(ReturnOp(*results))


def _role(kind: str, index: int) -> DictionaryAttr:
    return DictionaryAttr({kind: IntegerAttr(index, i64)})


def _function(name: str, body: Region, arg_attrs: Sequence[Attribute],
              res_attrs: Sequence[Attribute]) -> FuncOp:
    """A function of ``body``; attributes that are all empty are left out, as the parser reads
    them (xDSL prints ``-> (T)`` for one result with an empty dictionary, which parses back
    without one: the compile cache's read-back check, Note [safe cache entries], sees the two)."""
    block = body.block
    returned = block.last_op
    assert isinstance(returned, ReturnOp)
    function_type = FunctionType.from_lists([a.type for a in block.args], [v.type for v in returned.operands])
    return FuncOp(name, function_type, body, arg_attrs=_unless_all_empty(arg_attrs),
                  res_attrs=_unless_all_empty(res_attrs))


def _unless_all_empty(attributes: Sequence[Attribute]) -> ArrayAttr | None:
    return ArrayAttr(list(attributes)) if any(a != DictionaryAttr({}) for a in attributes) else None


def _replace_entry(module: ModuleOp, forward: FuncOp, functions: list[tuple[str, FuncOp]]) -> None:
    """Puts ``functions`` where ``forward`` was, named by ``hop.entry`` ops (replacing any before)."""
    for op in list(module.ops):
        if isinstance(op, EntryOp):
            op.detach()
            op.erase()
    anchor = forward
    for _kind, function in functions:
        module.body.block.insert_op_after(function, anchor)
        anchor = function
    forward.detach()
    forward.erase()
    first = module.body.block.first_op
    for kind, function in functions:
        entry = EntryOp(kind, function.sym_name.data)
        if first is None:
            module.body.block.add_op(entry)
        else:
            module.body.block.insert_op_before(entry, first)


def _clean_up(module: ModuleOp, context: Context | None) -> None:
    from hopc.passes.pipeline import run_pipeline

    run_pipeline(module, ("lift-symbols", "canonicalize", "cse", "dce"), context, verify_each=False)
