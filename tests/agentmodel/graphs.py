"""Call graphs of in-memory sources: parse facts straight from text, no git repository."""

from __future__ import annotations

from textwrap import dedent

from dids.agent.callgraph import build
from dids.index.pyfacts import extract


def graph_of(files: dict[str, str]):
    """The call graph of FILES (path -> Python source; dedented)."""
    return build({p: extract(p, dedent(src).lstrip("\n").encode()) for p, src in files.items()})


def edges(g, src: str) -> set[tuple[str, str]]:
    """(destination, how) of every edge leaving SRC."""
    return {(dst, how) for dst, _line, how in g.edges.get(src, ())}


def edge_lines(g, src: str, dst: str) -> list[int]:
    return sorted(line for d, line, _how in g.edges.get(src, ()) if d == dst)
