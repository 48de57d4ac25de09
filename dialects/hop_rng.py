"""The random-number-state ops of the ``hop`` dialect: read and restore the generator's state.

Autograd recomputes regions (the recompute of a ``hop.checkpoint``, the
backward of a ``hop.while``); a random op in such a region must draw the same
numbers again. The forward reads the generator's state before the region and
the recompute sets it back first (Note [replaying random ops])::

    %state = hop.get_rng_state : !hop.rng_state
    %mask = aten.bernoulli.p(%x) {p = 0.5 : f64} : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
    hop.set_rng_state %state
    %again = aten.bernoulli.p(%x) {p = 0.5 : f64} : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>

``%again`` equals ``%mask``. The ``Hop`` dialect (``hopc.dialects.hop``)
registers these ops and the type, and re-exports them.

Note [replaying random ops]
~~~~~~~~~~~~~~~~~~~~~~~~~~~
A random ATen op (``Schema.is_random``: PyTorch's ``nondeterministic_seeded``
tag) reads and advances the default generator's state; the ``aten`` dialect
gives it a write effect (``hopc.dialects.aten``). The state is global memory
that no operand names, so the two ops here say what they do to it through
their effects: ``hop.get_rng_state`` reads (it is never merged with another
read across a write, by ``--cse``'s rule for reads, Note [when reads may be
merged] in ``hopc.passes.cse``, and an unused one is dead), and
``hop.set_rng_state`` writes (never removed, merged or moved across another
access of the state). A ``!hop.rng_state`` value itself is immutable: the
snapshot taken when it was read; it may be passed to regions, yielded,
returned and taken as an entry argument (the backward of a recomputed region
receives the forward's state as a saved value).

The generators are the default ones: at run time a state is a 1-d
``uint8`` tensor, the CPU generator's state (``torch.get_rng_state``: 5056
bytes, the Mersenne Twister state) followed, where CUDA is initialized, by
each CUDA device's (``torch.cuda.get_rng_state_all``: a Philox seed and
offset), so random ops that draw on either are replayed
(``hopc.backend.interpreters.rng``). These ops run on the host, never inside a
CUDA graph (Note [cuda graph segments] in ``hopc.passes.form_cuda_graphs``);
a graph's replay draws from the offset the generator has when it starts.
"""

from __future__ import annotations

from xdsl.ir import ParametrizedAttribute, SSAValue, TypeAttribute
from xdsl.irdl import (
    IRDLOperation,
    irdl_attr_definition,
    irdl_op_definition,
    operand_def,
    result_def,
    traits_def,
)
from xdsl.traits import MemoryReadEffect, MemoryWriteEffect


@irdl_attr_definition
class RngStateType(ParametrizedAttribute, TypeAttribute):
    """A snapshot of the default generator's state: ``!hop.rng_state`` (Note [replaying random ops])."""

    name = "hop.rng_state"


@irdl_op_definition
class GetRngStateOp(IRDLOperation):
    """Reads the default generator's state: ``torch.get_rng_state()``.

        state = torch.get_rng_state()   # a copy: later draws do not change it

    Example::

        %state = hop.get_rng_state : !hop.rng_state

    Effect: reads the generator's state (Note [replaying random ops]).
    """

    name = "hop.get_rng_state"
    state = result_def(RngStateType)
    traits = traits_def(MemoryReadEffect())
    assembly_format = "attr-dict `:` type($state)"

    def __init__(self) -> None:
        super().__init__(result_types=[RngStateType()])


@irdl_op_definition
class SetRngStateOp(IRDLOperation):
    """Sets the default generator's state to ``state``: ``torch.set_rng_state(state)``.

        torch.set_rng_state(state)   # the next random op draws what it drew after `state` was read

    Example::

        %state = hop.get_rng_state : !hop.rng_state
        hop.set_rng_state %state

    Effect: writes the generator's state (Note [replaying random ops]); no
    pass removes it.
    """

    name = "hop.set_rng_state"
    state = operand_def(RngStateType)
    traits = traits_def(MemoryWriteEffect())
    assembly_format = "$state attr-dict"

    def __init__(self, state: SSAValue) -> None:
        super().__init__(operands=[state])
