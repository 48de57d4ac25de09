"""``--view-op-graph``: writes the module's op graph as Graphviz DOT to stderr; changes nothing.

As MLIR's ``-view-op-graph`` (``mlir/lib/Transforms/ViewOpGraph.cpp``): one
node per op without regions, labelled with the op's name and its result
types; one DOT cluster (a subgraph drawn as a box) per op with regions, and
inside it, where the op has several regions, one cluster per region, named
by the op's region field (``then`` and ``else`` of a ``hop.cond``, ``cond``
and ``body`` of a ``hop.while``), so the HOP regions are visible; one node
per block argument (``arg0 : type``); and one solid edge per operand, from
the op (or block argument) that defines the value to the op that reads it,
labelled with the operand's position where the reader has several (and at
its tail with the result's, ``#1``, where the op defines several). An edge
to or from an op with regions is drawn to the border of its cluster
(``lhead``/``ltail``, through the cluster's invisible anchor node, as MLIR
does).

Type text longer than ``max-label-length`` characters (MLIR's
``max-label-len``, default 20) is cut there and ends in ``...``.

    hopc-opt --view-op-graph in.mlir 2>graph.dot >/dev/null
    dot -Tsvg graph.dot -o graph.svg

``op_graph_dot`` is the same text as a function (the compile report draws
it); ``render_svg`` runs Graphviz's ``dot`` where it is installed.

Note [escaping DOT labels]
~~~~~~~~~~~~~~~~~~~~~~~~~~
Every label is a plain quoted DOT string (``label = "..."``), never a record
or HTML label, so only two characters mean something inside it: ``"`` ends
it, and ``\\`` starts an escape (``\\n`` is a line break, ``\\N`` the node's
name). ``_quoted`` writes them as ``\\"`` and ``\\\\``, and a line break as
``\\n``; ``<``, ``>``, ``{`` and ``|`` need no escape outside record labels,
and ``dot -Tsvg`` writes them as XML entities.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block, Operation, OpResult, Region, SSAValue
from xdsl.irdl import IRDLOperation
from xdsl.passes import ModulePass

DEFAULT_MAX_LABEL_LENGTH = 20
"""MLIR's default ``max-label-len``."""

RENDER_TIMEOUT_SECONDS = 60
"""How long ``dot`` may take to lay a graph out before ``render_svg`` gives up."""


@dataclass(frozen=True)
class _Node:
    """A DOT node; ``cluster`` is the cluster it anchors, for an op with regions."""

    identifier: int
    cluster: int | None = None


@dataclass
class _GraphWriter:
    """Builds the DOT text of one module: nodes and clusters first, then the edges."""

    max_label_length: int
    lines: list[str] = field(default_factory=list)
    edges: list[str] = field(default_factory=list)
    value_nodes: dict[SSAValue, _Node] = field(default_factory=dict)
    reads: list[tuple[SSAValue, _Node, str]] = field(default_factory=list)
    colours: dict[str, str] = field(default_factory=dict)
    counter: int = 0
    depth: int = 1

    def graph(self, module: ModuleOp) -> str:
        self.colours = _colours_by_op_name(module)
        self.operation(module)
        for value, reader, position in self.reads:
            if value in self.value_nodes:
                self.edge(value, reader, position)
        body = "".join(f"{line}\n" for line in self.lines + self.edges)
        return f"digraph G {{\n  compound = true;\n{body}}}\n"

    def operation(self, op: Operation) -> _Node:
        if op.regions:
            node = self.cluster(self.cluster_label(op), lambda: self.regions(op))
        else:
            node = self.node(self.node_label(op), shape="box", colour=self.colours[op.name])
        for position, operand in enumerate(op.operands):
            self.reads.append((operand, node, str(position) if len(op.operands) > 1 else ""))
        for result in op.results:
            self.value_nodes[result] = node
        return node

    def regions(self, op: Operation) -> None:
        if len(op.regions) == 1:
            self.region(op.regions[0])
            return
        for name, region in zip(_region_names(op), op.regions):
            self.cluster(name, lambda region=region: self.region(region))

    def region(self, region: Region) -> None:
        for block in region.blocks:
            self.block(block)

    def block(self, block: Block) -> None:
        for argument in block.args:
            label = f"arg{argument.index} : {self.truncated(str(argument.type))}"
            self.value_nodes[argument] = self.node(label, shape="ellipse")
        for op in block.ops:
            self.operation(op)

    def cluster(self, label: str, body: Callable[[], None]) -> _Node:
        """A cluster around what ``body`` writes, with an invisible node that edges attach to."""
        self.counter += 1
        identifier = self.counter
        self.lines.append(f"{self.indent}subgraph cluster_{identifier} {{")
        self.depth += 1
        anchor = self.node(" ", shape="plain")
        self.lines.append(f"{self.indent}label = {_quoted(label)};")
        body()
        self.depth -= 1
        self.lines.append(f"{self.indent}}}")
        return _Node(anchor.identifier, identifier)

    def node(self, label: str, *, shape: str, colour: str = "") -> _Node:
        self.counter += 1
        style = f', style = filled, fillcolor = "{colour}"' if colour else ""
        self.lines.append(f"{self.indent}v{self.counter} [label = {_quoted(label)}, shape = {shape}{style}];")
        return _Node(self.counter)

    def edge(self, value: SSAValue, target: _Node, position: str) -> None:
        """An edge from ``value``'s node to the node of an op that reads it at ``position``."""
        source = self.value_nodes[value]
        attributes = ["style = solid"]
        if position:
            attributes.append(f"label = {_quoted(position)}")
        if isinstance(value, OpResult) and len(value.op.results) > 1:
            attributes.append(f"taillabel = {_quoted(f'#{value.index}')}")
        if source.cluster is not None:
            attributes.append(f"ltail = cluster_{source.cluster}")
        if target.cluster is not None:
            attributes.append(f"lhead = cluster_{target.cluster}")
        self.edges.append(f"  v{source.identifier} -> v{target.identifier} [{', '.join(attributes)}];")

    def node_label(self, op: Operation) -> str:
        types = ", ".join(str(result.type) for result in op.results)
        return f"{op.name}\n{self.truncated(types)}" if types else op.name

    def cluster_label(self, op: Operation) -> str:
        symbol = op.properties.get("sym_name") or op.attributes.get("sym_name")
        name = f"{op.name} @{symbol.data}" if symbol is not None and hasattr(symbol, "data") else op.name
        types = ", ".join(str(result.type) for result in op.results)
        return f"{name} : ({self.truncated(types)})" if types else name

    def truncated(self, text: str) -> str:
        return text if len(text) <= self.max_label_length else text[: self.max_label_length] + "..."

    @property
    def indent(self) -> str:
        return "  " * self.depth


def op_graph_dot(module: ModuleOp, max_label_length: int = DEFAULT_MAX_LABEL_LENGTH) -> str:
    """The Graphviz DOT text of ``module``'s op graph (module docstring); ``module`` is unchanged.

    Every label is escaped for DOT (Note [escaping DOT labels]). An operand
    whose defining op is not inside ``module`` (a detached value) has no edge.
    """
    return _GraphWriter(max(0, max_label_length)).graph(module)


def render_svg(dot_text: str) -> str | None:
    """The SVG that Graphviz's ``dot -Tsvg`` draws of ``dot_text``, or None.

    None where ``dot`` is not on ``PATH``, fails, or takes longer than
    ``RENDER_TIMEOUT_SECONDS``; ``shutil.which("dot")`` tells the first apart.
    """
    executable = shutil.which("dot")
    if executable is None:
        return None
    try:
        run = subprocess.run([executable, "-Tsvg"], input=dot_text, capture_output=True, text=True,
                             timeout=RENDER_TIMEOUT_SECONDS, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return run.stdout if run.returncode == 0 and run.stdout else None


@dataclass(frozen=True)
class ViewOpGraphPass(ModulePass):
    """Writes the module's op graph, as Graphviz DOT, to stderr (as MLIR's -view-op-graph)."""

    name = "view-op-graph"

    max_label_length: int = DEFAULT_MAX_LABEL_LENGTH
    """Type text longer than this is cut (``view-op-graph{max-label-length=60}``)."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        sys.stderr.write(op_graph_dot(op, self.max_label_length))


def _quoted(text: str) -> str:
    """``text`` as a quoted DOT string (Note [escaping DOT labels])."""
    escaped = text.replace("\\", "\\\\").replace('"', '\\"')
    escaped = escaped.replace("\r\n", "\n").replace("\r", "\n").replace("\n", "\\n")
    return f'"{escaped}"'


def _region_names(op: Operation) -> list[str]:
    """Each region's name: its field in the op's definition (``then_region`` -> ``then``), else its position."""
    names = [f"region {index}" for index in range(len(op.regions))]
    if isinstance(op, IRDLOperation):
        fields = [name for name, _ in type(op).get_irdl_definition().regions]
        if len(fields) == len(op.regions):
            names = [name.removesuffix("_region") for name in fields]
    return names


def _colours_by_op_name(module: ModuleOp) -> dict[str, str]:
    """One pale fill colour per op name, the hues spread evenly in order of first appearance (as MLIR)."""
    names = list(dict.fromkeys(op.name for op in module.walk()))
    return {name: f"{index / len(names):.3f} 0.3 1.0" for index, name in enumerate(names)}
