"""The agent model: entry points, call graph, reach of every place, library semantics and the
default session. Built once per index, between the index and the probes; probes, assessors and
renderers read it, none re-derives it."""

from __future__ import annotations

from dataclasses import dataclass

from .callgraph import CallGraph, build as build_graph
from .entrypoints import EntryPoints, find as find_entries
from .reach import Reach, compute as compute_reach
from .session import Session, build as build_session


@dataclass
class AgentModel:
    graph: CallGraph
    entries: EntryPoints
    reach: Reach
    session: Session


def build_model(index) -> AgentModel:
    py = {p: f for p, f in index.py.items() if index.role(p) == "source"}
    graph = build_graph(py)
    entries = find_entries(index, graph)
    reach = compute_reach(graph, entries, index)
    session = build_session(index, graph, reach)
    return AgentModel(graph=graph, entries=entries, reach=reach, session=session)


__all__ = ["AgentModel", "build_model"]
