"""The default session's TypeScript/JavaScript part, added to the Python one (one session).

The session builder of session.py runs over the TypeScript view of the index (ts_view): agent
loops are `for`/`while`/`do` loops whose body asks a model (the Node llm models: Anthropic and
OpenAI SDK calls and streams, the AI SDK's streamText; or a method of a model-like object,
`this.config.model.stream(...)`, `handler.createMessage(...)`); what they reach is model-driven;
the Node exec models give the executors. The result is merged into the session: loops appended,
reach from the loops joined (the nearest distance kept), sinks appended.
"""

from __future__ import annotations

from . import session as session_mod
from .ts_view import ts_view


def extend(index, graph, reach, session, info) -> None:
    view = ts_view(index)
    ts = session_mod.build(view, graph, reach)
    info.session = ts
    session.loops.extend(ts.loops)
    for mine, theirs in ((session.driven, ts.driven), (session.inner, ts.inner)):
        for nid, d in theirs.items():
            if nid not in mine or d < mine[nid]:
                mine[nid] = d
    for nid, via in ts.parent.items():
        session.parent.setdefault(nid, via)
    session.sinks.extend(ts.sinks)
