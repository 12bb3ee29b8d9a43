"""Library-model probes: every live call a row of `data/models/python/*.yaml` gives a meaning to.

One probe per kind (`sem.exec`, `sem.llm`, `sem.network`, `sem.prompt`, `sem.persist`,
`sem.telemetry`, `sem.credential`, `sem.mcp`, `sem.loader`); each finding carries the row's id
and attributes (isolation class, sender, transport, ...) so assessors and the session model read
meanings, not names. Which calls a kind covers is data; this module only applies it.
"""

from __future__ import annotations

from ..agent.semantics import matches
from ..index.repo import RepoIndex
from .base import finding, probe
from .exec_paths import handed_in


def _scan(index: RepoIndex, kind: str):
    for facts, call, row in matches(index).get(kind, ()):
        where = call.func or "module scope"
        data = {k: v for k, v in row.attrs if isinstance(v, (str, int, bool))}
        if kind == "exec":  # a command or code its caller hands in: what a model's action reaches
            data["handed_in"] = handed_in(facts, call)
        yield finding(f"sem.{kind}", f"{call.raw}(...) in {where}: {row.why}", facts.path,
                      call.line, call.end_line, row=row.id, func=call.func or "",
                      callee=call.callee, **data)


def _register(kind: str, criteria: tuple[str, ...], remediation: str, doc: str):
    def run(index: RepoIndex):
        yield from _scan(index, kind)

    run.__doc__ = doc
    run.__name__ = f"sem_{kind}"
    probe(f"sem.{kind}", criteria, remediation)(run)


_register("exec", ("C4", "C1", "C8"), "Run model-driven code in a sandbox with a scrubbed environment.",
          "Calls that run code or commands, with the isolation class of each (host, in-process, "
          "kernel, container, remote sandbox, browser).")
_register("llm", ("C10",), "Bound the loop that calls the model.",
          "Calls to a language model (the loop around them is the agent loop).")
_register("agent_loop", ("C9", "C10"), "Bound the framework's agent loop.",
          "Calls into an agent framework whose run is the agent loop (pydantic-ai, Claude Code SDK, "
          "OpenAI Agents, LangGraph, CrewAI, AutoGen).")
_register("network", ("C3", "C5"), "Restrict where tools may connect.", "Network egress calls.")
_register("prompt", ("C2", "C8"), "Ask a human, showing the exact action, before it runs.",
          "Calls that wait for a person's answer (masked ones read secrets).")
_register("persist", ("C6", "C9"), "Persist only what is needed, where the model cannot edit it.",
          "Writes that outlive the process: files, databases, caches.")
_register("telemetry", ("C8", "C9"), "Keep telemetry off by default and free of content.",
          "Telemetry, analytics and tracing senders.")
_register("credential", ("C1", "C8"), "Give the agent scoped credentials of its own.",
          "Where credentials come from: ambient chains, .env files, keychains, encryption.")
_register("mcp", ("C7",), "Pin MCP servers and pass them only their own configuration.",
          "MCP clients and their transports.")
_register("loader", ("C7",), "Pin and verify what is loaded at run time.",
          "Code or artefacts fetched and loaded at run time.")
