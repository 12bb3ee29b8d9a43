"""The agent model: entry points, call graph, reach of every place, library semantics and the
default session. Built once per index, between the index and the probes; probes, assessors and
renderers read it, none re-derives it."""

from __future__ import annotations

import gc
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
    ts: object = None  # ts_graph.TsInfo when the scored path starts in a Node package

    @property
    def languages(self) -> set[str]:
        """The languages the model reads (coverage: what is assessed, not only indexed)."""
        return {"python", "typescript"} if self.ts is not None else {"python"}


def build_model(index) -> AgentModel:
    # The model is hundreds of thousands of small long-lived objects (nodes, edges, memo
    # entries) and makes no reference cycles worth collecting: with the cyclic collector paused
    # it is built about a sixth faster (no repeated full scans of the growing graph).
    enabled = gc.isenabled()
    gc.disable()
    try:
        return _build_model(index)
    finally:
        if enabled:
            gc.enable()


def _build_model(index) -> AgentModel:
    from .semantics import MODULE_MAP_KEY

    py = {p: f for p, f in index.py.items() if index.role(p) == "source"}
    graph = build_graph(py)
    entries = find_entries(index, graph)
    from . import ts_agent  # TypeScript/JavaScript: only when a Node package is the scored path

    ts = ts_agent.attach(index, graph, entries)
    if ts is None and (entries.main or entries.roots):
        # the scored path is Python: a TypeScript/JavaScript side (a frontend) is off it, and
        # only its settings are read
        index.settings_only_ts()
    # the imports the library models resolve (after settings_only_ts, which empties the cache)
    index._search_cache[MODULE_MAP_KEY] = graph.modules
    reach = compute_reach(graph, entries, index) if ts is None else ts_agent.reach(index, graph,
                                                                                  entries, ts)
    if ts is None and entries.how == "console scripts" and _model_off_the_scripts(index, reach):
        # The console scripts are tools around the product (an operator CLI, a deploy tool):
        # the package asks a model, but none of them reaches that. The agent is the package a
        # user imports, so its code is scored as library code; what those scripts import is
        # neither the path nor off it.
        scripts = {e.target for e in entries.main}
        entries.others = [e for e in entries.others if e.target not in scripts]
        entries.main, entries.roots = [], []
        entries.how = "library (the console scripts reach no model call)"
        reach = compute_reach(graph, entries, index)
    session = build_session(index, graph, reach)
    if ts is not None:
        ts_agent.extend_session(index, graph, reach, session, ts)
    return AgentModel(graph=graph, entries=entries, reach=reach, session=session, ts=ts)


def _model_off_the_scripts(index, reach) -> bool:
    """Whether the package's source asks a model and no such call is on the default path."""
    from .semantics import matches

    sites = [(f.path, c.line) for f, c, _r in matches(index).get("llm", ())
             if index.role(f.path) == "source"]
    return bool(sites) and not any(reach.of(p, ln) == "default" for p, ln in sites)


__all__ = ["AgentModel", "build_model"]
