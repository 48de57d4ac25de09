"""Random PyTorch modules whose compiled code is full of views, aliases and reused buffers.

``view_program(choose)`` writes the source of a module ``Program`` with
parameters ``w``, ``v`` ([8, 8]) and ``b`` ([8]) whose ``forward(x)`` (``x``:
[2, 3, 8]) runs a few random statements, each making a new [2, 3, 8] value
from earlier ones, and returns some of them. The statements are the ones
whose kernel-level code shares storage between values: a linear of a 3-d
input (``mm`` then ``_unsafe_view`` in its training forward), a dropout of
zero probability (ATen returns its input itself), reshapes and transposes
that stay views, and pointwise chains that plan-memory writes in place.

``choose(n)`` returns an int in ``range(n)`` (hypothesis's draw, so examples
shrink). ``build(source)`` makes the module.
"""

from __future__ import annotations

import linecache
from collections.abc import Callable

import torch
import torch.nn.functional as F

STATEMENTS = (
    "F.linear({a}, self.w)",
    "F.linear({a}, self.v, self.b)",
    "{a} @ self.w",
    "F.dropout({a}, 0.0, True)",
    "F.dropout({a} * 1, 0.0, True)",
    "F.dropout({a}, 0.0, False)",
    "({a}.reshape(6, 8) @ self.v).view(2, 3, 8)",
    "{a}.reshape(6, 8).t().t().reshape(2, 3, 8)",
    "{a}.flatten(0, 1).view(2, 3, 8)",
    "{a}.permute(1, 0, 2).permute(1, 0, 2)",
    "{a}.transpose(0, 1).reshape(2, 3, 8)",
    "{a}.contiguous()",
    "{a}.sin()",
    "{a} * 2",
    "{a} + {b}",
    "torch.relu({a}) - {b}",
    "{a}.softmax(-1)",
    "torch.tanh({a}) @ self.v",
    "{a}[:, :, :4].repeat(1, 1, 2)",
    "torch.cat([{a}[:1], {b}[1:]])",
    "{a}.clone().add_({b})",
    "{a}.expand(2, 3, 8) * {b}",
)

Choose = Callable[[int], int]


def view_program(choose: Choose, statements: int = 8) -> str:
    """The source of a random ``Program`` module (see the module docstring): each statement
    reads one of the last three values (so that values die and their buffers are reused), and
    about half of the values are returned (the last always), alive to the end."""
    values = ["x"]
    lines = []
    for number in range(statements):
        template = STATEMENTS[choose(len(STATEMENTS))]
        recent = values[-3:]
        a, b = recent[choose(len(recent))], recent[choose(len(recent))]
        name = f"h{number}"
        lines.append(f"        {name} = {template.format(a=a, b=b)}")
        values.append(name)
    returned = [name for name in values[1:-1] if choose(2)] + [values[-1]]
    return "\n".join([
        "class Program(torch.nn.Module):",
        "    def __init__(self):",
        "        super().__init__()",
        "        self.w = torch.nn.Parameter(torch.randn(8, 8) / 3)",
        "        self.v = torch.nn.Parameter(torch.randn(8, 8) / 3)",
        "        self.b = torch.nn.Parameter(torch.randn(8))",
        "",
        "    def forward(self, x):",
        *lines,
        f"        return {', '.join(returned)},",
        "",
    ])


_built = 0


def build(source: str) -> torch.nn.Module:
    """A ``Program`` from ``source``, its lines known to ``linecache`` (as for a file) so that
    Dynamo and hopc's locations can read them."""
    global _built
    _built += 1
    filename = f"<view_program {_built}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(keepends=True), filename)
    namespace = {"torch": torch, "F": F}
    exec(compile(source, filename, "exec"), namespace)
    return namespace["Program"]()
