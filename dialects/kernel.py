"""The ``kernel`` dialect: fused kernels, their launches, and the buffers they write.

The kernel level is what ``convert-hop-to-kernel`` makes of a functional,
symbol-closed module and what the compiled executors run (Note [kernel
level]). Ops:

- ``kernel.kernel @k``: a module-level symbol holding one fused computation,
  its body ATen ops on tensors ending in ``kernel.yield``;
- ``kernel.launch @k(...)``: runs a kernel on tensors and on the shape
  symbols its iteration space needs, as SSA ``!hop.symint`` values;
- ``kernel.alloc``: a buffer of a given shape, strides and device, which a
  launch writes its result into (``into(...)``), after ``plan-memory``; its
  type, ``!kernel.buffer``, lives in ``hopc.dialects.kernel_buffer``;
- ``kernel.graph``: launches and allocations that one CUDA graph captures,
  after ``form-cuda-graphs`` (Note [cuda graph segments] in
  ``hopc.passes.form_cuda_graphs``).

Note [kernel level]
~~~~~~~~~~~~~~~~~~~
A kernel-level module keeps the functional level's host structure: entry
functions, ``hop.cond``/``hop.while`` and whatever HOPs remain after
autograd, as host control flow, and the shape-symbol ops. Every tensor
computation at host level is a ``kernel.launch`` of a ``kernel.kernel``,
which has a ``kind``:

- ``"pointwise"``: pointwise ops and broadcasts over one iteration space,
  the shape of its results (all of one shape);
- ``"reduction"``: a reduction over the innermost dimension(s) of its
  input, with pointwise prologue ops before it and epilogue ops after it,
  and possibly several reductions of the same input (horizontal fusion);
- ``"extern"``: exactly one ATen op that a library does best (matmul,
  convolution, attention, and any op no generated kernel covers), run by its
  library: ATen on the CPU, cuBLAS/cuDNN/SDPA on CUDA.

A kernel is parametric in the shape symbols its tensor arguments bind (as a
``hop.subgraph``: Note [subgraph symbols] in ``hopc.dialects.hops.subgraph``) and takes
the others, and any symbol its grid needs, as trailing ``!hop.symint``
arguments; one kernel serves every size of a dynamic dimension. Values are
tensors with value semantics until memory planning; after ``plan-memory``
each launch of a generated kernel writes its results into ``kernel.alloc``
buffers named by ``into(...)``, and a buffer's storage is that of every
launch result written into it (a later launch reuses a buffer only after the
last reader of the earlier result; Note [memory plan] in
``hopc.passes.plan_memory``). The module's target device is the module
attribute ``kernel.device`` (``"cpu"`` or ``"cuda"``), which every buffer's
device matches.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import DenseArrayBase, ModuleOp, StringAttr, SymbolNameConstraint, SymbolRefAttr, i64
from xdsl.ir import Attribute, Dialect, Operation, Region, SSAValue
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    ParsePropInAttrDict,
    irdl_op_definition,
    lazy_traits_def,
    opt_prop_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.traits import (
    EffectInstance,
    HasParent,
    IsolatedFromAbove,
    IsTerminator,
    MemoryEffect,
    MemoryEffectKind,
    Pure,
    RecursiveMemoryEffect,
    SymbolOpInterface,
)
from xdsl.utils.exceptions import VerifyException

from hopc.dialects.hop_common import describe
from hopc.dialects.kernel_buffer import BufferType  # registered below, and re-exported
from hopc.ir.substitution import InconsistentBinding, bind, substitute
from hopc.ir.symbol_table import lookup_symbol
from hopc.ir.types import SymFloatType, SymIntType, TensorType

KERNEL_KINDS = ("pointwise", "reduction", "extern")
"""What a ``kernel.kernel`` holds (Note [kernel level])."""

DEVICE_ATTRIBUTE = "kernel.device"
"""The module attribute naming the kernel-level module's target device (one of ``DEVICES``)."""


# --------------------------------------------------------------------------- kernels


@irdl_op_definition
class YieldOp(IRDLOperation):
    """Returns a kernel's or a graph's results: ``kernel.yield %a : T``. Only in a
    ``kernel.kernel`` or a ``kernel.graph``."""

    name = "kernel.yield"
    values = var_operand_def()
    traits = lazy_traits_def(lambda: (IsTerminator(), Pure(), HasParent(KernelOp, GraphOp)))
    assembly_format = "attr-dict ($values^ `:` type($values))?"

    def __init__(self, *values: SSAValue):
        super().__init__(operands=[values])


@irdl_op_definition
class KernelOp(IRDLOperation):
    """One fused computation, launched by symbol (Note [kernel level]).

        def kernel(*tensors, *sizes):
            return body(*tensors)         # the ATen ops of its body, in order

    Example::

        kernel.kernel @fused_sin_mul "pointwise" {
        ^bb0(%a: !hop.tensor<[4, 8], f32>, %b: !hop.tensor<[8], f32>):
          %m = aten.mul.Tensor(%a, %b) : (!hop.tensor<[4, 8], f32>, !hop.tensor<[8], f32>) -> !hop.tensor<[4, 8], f32>
          %s = aten.sin(%m) : (!hop.tensor<[4, 8], f32>) -> !hop.tensor<[4, 8], f32>
          kernel.yield %s : !hop.tensor<[4, 8], f32>
        }

    Restrictions: a body is one block of ATen ops (and shape-symbol ops)
    ending in ``kernel.yield``; its arguments are tensors, then
    ``!hop.symint`` sizes (``!hop.symfloat`` for a float symbol an attribute
    reads); an ``extern`` kernel holds exactly one ATen op.
    """

    name = "kernel.kernel"
    sym_name = prop_def(SymbolNameConstraint())
    kind = prop_def(StringAttr)
    body = region_def("single_block")
    traits = traits_def(SymbolOpInterface(), IsolatedFromAbove(), HasParent(ModuleOp))
    assembly_format = "$sym_name $kind attr-dict-with-keyword $body"

    def __init__(self, name: str, kind: str, body: Region):
        super().__init__(properties={"sym_name": StringAttr(name), "kind": StringAttr(kind)},
                         regions=[body])

    @property
    def input_types(self) -> list[Attribute]:
        return [a.type for a in self.body.block.args]

    @property
    def output_types(self) -> list[Attribute]:
        return [v.type for v in self.yield_op.values]

    @property
    def yield_op(self) -> YieldOp:
        terminator = self.body.block.last_op
        if not isinstance(terminator, YieldOp):
            raise VerifyException(f"'kernel.kernel' @{self.sym_name.data} must end with kernel.yield")
        return terminator

    @property
    def computation(self) -> list[Operation]:
        """The body's ops before its ``kernel.yield``, in order."""
        return [op for op in self.body.block.ops if not isinstance(op, YieldOp)]

    def verify_(self) -> None:
        kind = self.kind.data
        where = f"'kernel.kernel' @{self.sym_name.data}"
        if kind not in KERNEL_KINDS:
            raise VerifyException(f"{where} has unknown kind '{kind}' (expected one of "
                                  f"{', '.join(KERNEL_KINDS)})")
        seen_size = False
        for argument in self.body.block.args:
            if isinstance(argument.type, SymIntType | SymFloatType):
                seen_size = True
            elif not isinstance(argument.type, TensorType) or seen_size:
                raise VerifyException(f"{where}: argument {describe(argument)} has type {argument.type}, "
                                      "expected tensors first, then !hop.symint (or !hop.symfloat) sizes")
        self.yield_op  # noqa: B018  (raises where the body does not end in kernel.yield)
        if kind == "extern" and len(self.computation) != 1:
            raise VerifyException(f"{where}: an extern kernel holds exactly one op, "
                                  f"found {len(self.computation)}")


class LaunchEffect(MemoryEffect):
    """A launch reads its operands and writes its ``into`` buffers; a kernel's body computes
    on values only (functional ATen ops), so it has no effect of its own. Cse must not merge
    two launches into buffers, and dce may drop an unused launch that writes none."""

    _READS = frozenset({EffectInstance(MemoryEffectKind.READ)})
    _READS_AND_WRITES = _READS | {EffectInstance(MemoryEffectKind.WRITE)}

    @classmethod
    def get_effects(cls, op: Operation) -> frozenset[EffectInstance]:
        return cls._READS_AND_WRITES if isinstance(op, LaunchOp) and op.into else cls._READS


@irdl_op_definition
class LaunchOp(IRDLOperation):
    """Runs a kernel: ``kernel.launch @k(%x, %n) into(%b) : (T, !hop.symint<s0>) -> R``.

        def launch(kernel, *arguments, into=()):
            results = kernel(*arguments)
            for buffer, result in zip(into, results):
                buffer[...] = result          # the result *is* the buffer's storage
            return results

    The operands mirror the kernel's arguments: tensors, then the sizes its
    grid and shapes need as SSA symints of the lifted shape symbols. ``into``
    is empty before memory planning and names one buffer per result after it.
    Restrictions: the operands bind the kernel's symbols consistently and the
    types are the kernel's under that substitution; each buffer holds its
    result's type.
    """

    name = "kernel.launch"
    callee = prop_def(SymbolRefAttr)
    arguments = var_operand_def()
    into = var_operand_def(BufferType)
    outputs = var_result_def()
    traits = traits_def(LaunchEffect())
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    assembly_format = ("$callee `(` $arguments `)` (`into` `(` $into^ `:` type($into) `)`)? attr-dict "
                       "`:` functional-type($arguments, $outputs)")

    def __init__(self, callee: str, arguments: Sequence[SSAValue], result_types: Sequence[Attribute],
                 into: Sequence[SSAValue] = ()):
        super().__init__(operands=[arguments, into], result_types=[result_types],
                         properties={"callee": SymbolRefAttr(callee)})

    def kernel(self) -> KernelOp | None:
        found = lookup_symbol(self, self.callee)  # xDSL's lookup, by a table (Note [symbol lookup table])
        return found if isinstance(found, KernelOp) else None

    def verify_(self) -> None:
        kernel = self.kernel()
        if kernel is None:
            raise VerifyException(f"'kernel.launch' launches unknown kernel {self.callee}")
        try:
            substitution = bind(kernel.input_types, [v.type for v in self.arguments])
        except InconsistentBinding as conflict:
            raise VerifyException(f"'kernel.launch' operands bind symbol {conflict.symbol} of "
                                  f"{self.callee} inconsistently") from None
        renamed = {name: dim for name, dim in substitution.items() if name != dim}
        _check_types(f"'kernel.launch' operands of {self.callee}", self.arguments,
                     [substitute(t, renamed) for t in kernel.input_types], "operand")
        _check_types(f"'kernel.launch' results of {self.callee}", self.outputs,
                     [substitute(t, renamed) for t in kernel.output_types], "result")
        if self.into and len(self.into) != len(self.outputs):
            raise VerifyException(f"'kernel.launch' of {self.callee} writes {len(self.outputs)} results "
                                  f"into {len(self.into)} buffers")
        for index, (buffer, result) in enumerate(zip(self.into, self.outputs)):
            if buffer.type.tensor_type() != result.type:
                raise VerifyException(f"'kernel.launch' of {self.callee}: buffer #{index} "
                                      f"{describe(buffer)} has type {buffer.type}, which cannot hold "
                                      f"result #{index} of type {result.type}")


@irdl_op_definition
class AllocOp(IRDLOperation):
    """A buffer: ``%b = kernel.alloc(%n) : (!hop.symint<s0>) -> !kernel.buffer<[s0, 16], f32, [16, 1], cpu>``.

        def alloc(*sizes):
            return torch.empty_strided(shape, strides, dtype=dtype, device=device)

    Each run of the enclosing block allocates anew. The operands are the
    symints of the shape symbols its type mentions, one per symbol (a symfloat
    for a float symbol under a rounding, Note [rounding expressions]).
    Restrictions: the buffer's symbols are exactly those of its operands' types.
    """

    name = "kernel.alloc"
    sizes = var_operand_def(SymIntType | SymFloatType)
    buffer = result_def(BufferType)
    traits = traits_def(Pure())
    assembly_format = "`(` $sizes `)` attr-dict `:` functional-type($sizes, $buffer)"

    def __init__(self, buffer_type: BufferType, sizes: Sequence[SSAValue] = ()):
        super().__init__(operands=[sizes], result_types=[buffer_type])

    def verify_(self) -> None:
        given = {s.type.value for s in self.sizes}
        missing = self.buffer.type.free_symbols() - given
        if missing:
            raise VerifyException(f"'kernel.alloc' of {self.buffer.type} needs the sizes "
                                  f"{', '.join(sorted(missing))} as operands")


# --------------------------------------------------------------------------- CUDA graphs

CONDITIONAL_NODE = "kernel.conditional_node"
"""The attribute of a ``hop.cond`` (``"if"``) or ``hop.while`` (``"while"``) inside a
``kernel.graph`` that its graph captures as a conditional node (Note [conditional nodes] in
``hopc.passes.form_cuda_graphs``)."""


@irdl_op_definition
class GraphOp(IRDLOperation):
    """Launches that one CUDA graph captures, recorded once per size (Note [cuda graph segments]
    in ``hopc.passes.form_cuda_graphs``).

        def graph(*operands):
            key = the operands' shapes and symbol values
            if key not in recordings:
                results = body(*operands)    # warm-up: compiles, autotunes; conds read on the host
                if every cond and while body has run for key:
                    recordings[key] = capture(body)    # on a side stream, into the device's pool
                return results
            copy the operands into the recording's inputs (``in_place`` ones: used as they are)
            replay the recording
            return [clone(r) for r in the recording's results]

    Example::

        hop.symbol @s0 backed [2, oo]
        kernel.kernel @sin "pointwise" {
        ^bb0(%a: !hop.tensor<[s0], f32>):
          %s = aten.sin(%a) : (!hop.tensor<[s0], f32>) -> !hop.tensor<[s0], f32>
          kernel.yield %s : !hop.tensor<[s0], f32>
        }
        %r = kernel.graph(%x, %n) : (!hop.tensor<[s0], f32>, !hop.symint<s0>) -> !hop.tensor<[s0], f32> {
        ^bb0(%a: !hop.tensor<[s0], f32>, %m: !hop.symint<s0>):
          %b = kernel.alloc(%m) : (!hop.symint<s0>) -> !kernel.buffer<[s0], f32, [1], cuda>
          %s = kernel.launch @sin(%a) into(%b : !kernel.buffer<[s0], f32, [1], cuda>)
              : (!hop.tensor<[s0], f32>) -> !hop.tensor<[s0], f32>
          kernel.yield %s : !hop.tensor<[s0], f32>
        }

    Restrictions: the body takes the operands' types and yields the result
    types; every op in it may be captured (``capture_obstacle``), and a
    ``hop.cond`` or ``hop.while`` in it carries ``kernel.conditional_node``;
    ``in_place`` names tensor operands.
    """

    name = "kernel.graph"
    inputs = var_operand_def()
    outputs = var_result_def()
    in_place = opt_prop_def(DenseArrayBase)
    """The operands a recording reads where they are (parameters and buffers), by index; every
    other tensor operand is copied into the recording's own input before a replay."""
    body = region_def("single_block")
    traits = traits_def(RecursiveMemoryEffect(), IsolatedFromAbove())
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "`(` $inputs `)` attr-dict `:` functional-type($inputs, $outputs) $body"

    def __init__(self, inputs: Sequence[SSAValue], result_types: Sequence[Attribute], body: Region,
                 in_place: Sequence[int] = ()):
        properties = {"in_place": DenseArrayBase.from_list(i64, list(in_place))} if in_place else {}
        super().__init__(operands=[inputs], result_types=[result_types], regions=[body], properties=properties)

    @property
    def in_place_operands(self) -> tuple[int, ...]:
        return tuple(self.in_place.get_values()) if self.in_place is not None else ()

    def verify_(self) -> None:
        block = self.body.block
        _check_types("'kernel.graph' block arguments", block.args, [v.type for v in self.inputs], "argument")
        terminator = block.last_op
        if not isinstance(terminator, YieldOp):
            raise VerifyException("'kernel.graph' body must end with kernel.yield")
        _check_types("'kernel.graph' yields", terminator.values, [v.type for v in self.outputs], "yield")
        for index in self.in_place_operands:
            if not 0 <= index < len(self.inputs) or not isinstance(self.inputs[index].type, TensorType):
                raise VerifyException(f"'kernel.graph' in_place names operand #{index}, which is no tensor operand")
        from hopc.dialects.kernel_capture import check_capturable  # the rules read this module's ops

        for op in block.ops:
            if op is not terminator:
                check_capturable(op)


def _check_types(what: str, values: Sequence[SSAValue], expected: Sequence[Attribute], role: str) -> None:
    if len(values) != len(expected):
        raise VerifyException(f"{what}: expected {len(expected)} values, got {len(values)}")
    for index, (value, want) in enumerate(zip(values, expected)):
        if value.type != want:
            raise VerifyException(f"{what}: {role} #{index} {describe(value)} has type {value.type}, "
                                  f"expected {want}")


def module_device(module: ModuleOp) -> str:
    """The target device of a kernel-level module (``kernel.device``, ``"cpu"`` by default)."""
    attribute = module.attributes.get(DEVICE_ATTRIBUTE)
    return attribute.data if isinstance(attribute, StringAttr) else "cpu"


Kernel = Dialect("kernel", [KernelOp, YieldOp, LaunchOp, AllocOp, GraphOp], [BufferType])
