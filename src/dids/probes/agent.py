"""The agent-model family: where the agent loop runs and where it hands the model's action on.

These are facts of the session model (not patterns in the text): `agent.loop` is each agent
loop or step the session found; `agent.dispatch` is the call in a loop (or a step it calls) on
the path from the model's output to an executor or a tool: the line a reviewer reads to see what
the model's choice runs. Assessors cite them next to the mechanisms they judge.
"""

from __future__ import annotations

from ..index.repo import RepoIndex
from .base import finding, probe


@probe("agent.loop", ("C9", "C10"), "Bound and record every turn of the agent loop.")
def loops(index: RepoIndex):
    """The agent loops (a loop whose body asks the model), framework runs and per-event steps."""
    model = index.agent
    if model is None:
        return
    # `order`: the session's own ranking (the loop that drives the turns first), which a
    # start-up check nearer the entry point (`for provider in ...: llm(...)`) must not outrank
    for order, lp in enumerate(model.session.loops):
        func = lp.node.split("::", 1)[1]
        what = {"loop": "The agent loop", "framework": "The agent framework's run (its loop)",
                "step": "One agent step per event"}[lp.kind]
        yield finding("agent.loop", f"{what} in {func}: each turn asks the model "
                      + ("here." if lp.depth == 0 else f"through {lp.depth} call(s)."),
                      lp.path, lp.line, lp.end_line if lp.kind == "loop" else lp.line,
                      loop=lp.kind, func=func, order=order)


@probe("agent.dispatch", ("C2", "C3", "C4"), "Gate the call that runs what the model chose.")
def dispatch(index: RepoIndex):
    """Calls on the path from an agent loop to a model-driven exec sink: the first hops, where the
    model's action is handed to the code that runs it."""
    model = index.agent
    if model is None or not model.session.loops:
        return
    s, g = model.session, model.graph
    seen = set()
    for sink in s.sinks:
        if sink.kind != "exec" or not sink.driven:
            continue
        path = s.path_to(g.node_at(sink.path, sink.line))
        for src, line in path[:3]:
            node = g.nodes.get(src)
            if node is None or (node.path, line) in seen:
                continue
            seen.add((node.path, line))
            yield finding("agent.dispatch", f"{node.qualname} hands the model's action on here, "
                          f"on the way to {sink.callee} ({sink.cls}).", node.path, line,
                          sink=f"{sink.path}:{sink.line}", cls=sink.cls)


@probe("agent.guard", ("C2", "C4", "C5", "C9"), "Make the safer branch the shipped default.")
def guards(index: RepoIndex):
    """Branches the shipped defaults do not enter, with the setting that would enter them: the
    code behind each is an opt-in configuration (another backend, a mode, a flag)."""
    model = index.agent
    if model is None:
        return
    seen = set()
    for g in list(model.reach.opt_guard.values()) + [v for v in model.reach._guards.values() if v]:
        if g is None or (g.path, g.line) in seen or g.setting == "__main__":
            continue
        seen.add((g.path, g.line))
        yield finding("agent.guard", f"Under the shipped defaults the branch `{' '.join(g.condition.split())[:80]}` "
                      f"is not taken: what it runs is opt-in ({g.setting}).", g.path, g.line,
                      setting=g.setting)


@probe("agent.executor", ("C4", "C1", "C8"), "Sandbox the executor the model's actions run in.")
def executors(index: RepoIndex):
    """The classes that run the model's actions: the class holding each model-driven exec path
    (an interpreter, a runtime, a shell session)."""
    model = index.agent
    if model is None:
        return
    g = model.graph
    seen = set()
    for sink in model.session.sinks:
        if sink.kind != "exec":
            continue
        node = g.nodes.get(g.node_at(sink.path, sink.line))
        if node is None or not node.cls:
            continue
        cid = f"{node.path}::{node.cls}"
        cnode = g.nodes.get(cid)
        if cnode is None or cid in seen:
            continue
        seen.add(cid)
        yield finding("agent.executor", f"{node.cls} runs commands or code ({sink.cls}).",
                      cnode.path, cnode.line, min(cnode.end_line, cnode.line + 6), cls=sink.cls)
