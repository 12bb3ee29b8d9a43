"""The TypeScript/JavaScript floor of the agent model: the hooks build_model calls.

When a Node package is the scored path (ts_entries.choose: the README's leading npm install, a
package bin, a VS Code extension), its sources join the call graph (ts_graph), their entry
points join the entry points (ts_entries), reach follows both languages (ts_reach) and the
default session gains the TypeScript loops, model calls and executors (ts_session). A Python
repository whose scored path is Python (a frontend beside a Python backend) is left as it was.
"""

from __future__ import annotations

import time

from ..acquire import budget
from . import ts_entries, ts_graph, ts_reach, ts_session


def attach(index, graph, entries):
    """Add the scored Node package's side to GRAPH and ENTRIES; the TsInfo, or None."""
    choice = ts_entries.choose(index, entries)
    if choice is None:
        return None
    t0 = time.perf_counter()
    ts = {p: f for p, f in index.ts.items() if index.role(p) == "source"}
    tsconfigs = [(p, index.text(p)) for p in sorted(index.files)
                 if p.rsplit("/", 1)[-1].startswith("tsconfig") and p.endswith(".json")
                 and index.role(p) == "config"]
    product = ts_reach.product_dirs(index, None, choice.pkg)
    info = ts_graph.extend(graph, ts, index.node_packages, index.line, tsconfigs, product)
    info.choice = choice
    ts_entries.find(index, graph, info, entries, choice)
    index.stats["ts_graph_s"] = round(time.perf_counter() - t0, 3)
    budget.check()
    return info


def reach(index, graph, entries, info):
    return ts_reach.compute(graph, entries, index, info, info.choice)


def extend_session(index, graph, reach_, session, info) -> None:
    ts_session.extend(index, graph, reach_, session, info)
