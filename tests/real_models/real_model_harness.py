"""Tiny transformers models and the runs that compare them under a compiler with eager.

Every model is built from a config with random weights (nothing is
downloaded): hidden size 32, one or two layers, vocabulary 64, dropout off
(eager's dropout draws from the RNG; the comparison is of the compiled
program, not of random masks). ``Architecture`` names a model and how to make
its inputs at a batch size and sequence length; the runs train copies of one
model under eager and under a compiler side by side and return what each
computed, for the tests to compare.
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Callable

import torch

VOCABULARY = 64
SEQUENCE = 8
BATCH = 2


@dataclasses.dataclass(frozen=True)
class Architecture:
    """A transformers model family at a tiny size.

    ``make()`` builds the model (seeded by the caller); ``inputs(batch,
    sequence)`` the keyword arguments of one training call, ``labels``
    included, so that the output's ``.loss`` is the training loss.
    ``tolerance`` is the (rtol, atol) within which losses and parameters must
    equal eager's, (0, 0) where they are bit-identical;
    ``checkpointing_tolerance`` the same with gradient checkpointing on
    (Note [rounding through AdamW]). ``generates``: a model with
    ``generate()`` (decoders and encoder-decoders).
    """

    name: str
    make: Callable[[], torch.nn.Module]
    inputs: Callable[[int, int], dict[str, torch.Tensor]]
    tolerance: tuple[float, float] = (0, 0)
    checkpointing_tolerance: tuple[float, float] = (0, 0)
    generates: bool = True
    changing: str = "sequence"
    """Which size ``changing_sizes`` changes: "sequence", or "batch" where the model has no sequence input."""

    def changing_sizes(self) -> list[tuple[int, int]]:
        """Three (batch, sequence) sizes, each new: the second recompiles with the size symbolic."""
        if self.changing == "batch":
            return [(BATCH + step, SEQUENCE) for step in range(3)]
        return [(BATCH, SEQUENCE - 2 + 2 * step) for step in range(3)]

    def __str__(self) -> str:
        return self.name


def token_inputs(batch: int, sequence: int) -> dict[str, torch.Tensor]:
    """A causal language model's inputs: tokens that are their own labels."""
    ids = torch.randint(0, VOCABULARY, (batch, sequence))
    return {"input_ids": ids, "labels": ids}


def seq2seq_inputs(batch: int, sequence: int) -> dict[str, torch.Tensor]:
    """An encoder-decoder's inputs: source tokens, and target tokens half as long as labels."""
    return {"input_ids": torch.randint(0, VOCABULARY, (batch, sequence)),
            "labels": torch.randint(0, VOCABULARY, (batch, max(2, sequence // 2)))}


def eager_and_compiled(model: torch.nn.Module, compile: Callable) -> tuple[torch.nn.Module, torch.nn.Module,
                                                                            Callable]:
    """Two copies of ``model`` (same weights), the second compiled: (eager, compiled's module, compiled)."""
    eager, mine = copy.deepcopy(model), copy.deepcopy(model)
    return eager, mine, compile(mine)


def train_side_by_side(architecture: Architecture, compile: Callable, input_sets: list[dict[str, torch.Tensor]],
                       checkpointing: bool = False) -> tuple[list[torch.Tensor], list[torch.Tensor],
                                                             torch.nn.Module, torch.nn.Module]:
    """One AdamW step per input set of an eager and a compiled copy of a fresh model.

    Returns (eager losses, compiled losses, eager model, compiled model) with
    the models' parameters after the last step. ``checkpointing`` turns on
    the model's gradient checkpointing first (non-reentrant, without a cache).
    """
    torch.manual_seed(0)
    model = architecture.make()
    if checkpointing:
        model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
        # Else every call logs that it turns the cache off: a graph break in a loop, where Dynamo
        # gives the whole forward up to eager (an EagerFallbackWarning).
        model.config.use_cache = False
    model.train()
    eager, mine, compiled = eager_and_compiled(model, compile)
    optimizers = [torch.optim.AdamW(m.parameters(), lr=1e-2) for m in (eager, mine)]
    losses: tuple[list[torch.Tensor], list[torch.Tensor]] = ([], [])
    for inputs in input_sets:
        for run, optimizer, record in zip((eager, compiled), optimizers, losses):
            loss = run(**inputs).loss
            loss.backward()
            optimizer.step()
            optimizer.zero_grad()
            record.append(loss.detach())
    return losses[0], losses[1], eager, mine


ROUNDING_THROUGH_ADAMW = (1e-4, 1e-4)
"""(rtol, atol) where a compiled program rounds differently from eager.

Note [rounding through AdamW]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
Where hopc's program sums in another order than eager's (the recomputation
of a checkpointed region, the embedding's gradient), gradients differ from
eager's in the last bit (about 6e-8 in float32; run in float64 the same
programs differ by 3e-17, so the difference is rounding, not a wrong
formula). Losses then differ by at most a few 1e-7. AdamW divides each
gradient by the root of its running square, so an entry whose gradient is
itself rounding noise (the bias of a key projection, which softmax ignores)
moves by a good part of the learning rate in a direction the noise picks:
measured up to 1.9e-5 after three steps at lr 1e-2. 1e-4 bounds that with
room while a wrong formula (issue 22's T5 loss was 0.21 off) still fails.
"""


def assert_same_training(architecture: Architecture, eager_losses: list[torch.Tensor],
                         compiled_losses: list[torch.Tensor], eager: torch.nn.Module,
                         compiled: torch.nn.Module, tolerance: tuple[float, float]) -> None:
    """Every step's loss and every final parameter equal eager's within ``tolerance`` (rtol, atol)."""
    rtol, atol = tolerance
    for step, (mine, theirs) in enumerate(zip(compiled_losses, eager_losses)):
        torch.testing.assert_close(mine, theirs, rtol=rtol, atol=atol, msg=lambda text, step=step: (
            f"{architecture}: loss of step {step}: {text}"))
    for (name, mine), theirs in zip(compiled.named_parameters(), eager.parameters()):
        torch.testing.assert_close(mine, theirs, rtol=rtol, atol=atol, msg=lambda text, name=name: (
            f"{architecture}: parameter {name} after {len(eager_losses)} steps: {text}"))


def compiles(run: Callable[[], object]) -> int:
    """How many graphs Dynamo hands a backend (any backend) while ``run()`` runs."""
    from torch._dynamo.utils import counters

    counters.clear()
    run()
    return counters["stats"]["unique_graphs"]


def greedy_tokens(model: torch.nn.Module, input_ids: torch.Tensor) -> torch.Tensor:
    """Four greedily generated tokens (no sampling, no early stop)."""
    with torch.no_grad():
        return model.generate(input_ids, max_new_tokens=4, min_new_tokens=4, do_sample=False, pad_token_id=0)
