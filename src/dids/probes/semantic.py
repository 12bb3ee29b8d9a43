"""Library-model probes: every live call a row of `models/python/*.yaml` gives a meaning to.

One probe per kind (`sem.exec`, `sem.llm`, `sem.network`, `sem.prompt`, `sem.persist`,
`sem.telemetry`, `sem.credential`, `sem.mcp`, `sem.loader`); each finding carries the row's id
and attributes (isolation class, sender, transport, ...) so assessors and the session model read
meanings, not names. Which calls a kind covers is data; this module only applies it.
"""

from __future__ import annotations

import re
from dataclasses import replace

from ..agent.semantics import load
from ..index.pyfacts import resolve
from ..index.repo import RepoIndex
from .base import finding, probe

_LITERAL = re.compile(r"""^[rbfuRBFU]{0,2}["']""")


_REF = re.compile(r"^[A-Za-z_][\w]*(\.[A-Za-z_]\w*)+$")


def _matches(index: RepoIndex) -> dict[str, list]:
    """(facts, call, row) per kind, for every live call a row matches, in source order; computed
    once per index. A callable passed as an argument counts as called there
    (`retry(self.client.chat.completions.create, ...)`, `pool.submit(subprocess.run, ...)`)."""
    key = ("_semantic_matches",)
    got = index._search_cache.get(key)
    if got is not None:
        return got  # type: ignore[return-value]
    sem = load()
    names = sem.names()
    out: dict[str, list] = {}
    for facts, call in index.calls_where(lambda n: True):
        candidates = [call] if call.short in names else []
        for a in call.args[:2]:
            if _REF.match(a) and a.rsplit(".", 1)[-1] in names:
                candidates.append(replace(call, callee=resolve(a, facts.imports), raw=a,
                                          args=(), kwargs=()))
        for c in candidates:
            for row in sem.match(facts, c):
                code_arg = row.get("code_arg")
                if code_arg is not None and (len(c.args) <= code_arg or
                                             _LITERAL.match(c.args[code_arg])):
                    continue  # exec("literal") runs no model-written code
                out.setdefault(row.kind, []).append((facts, c, row))
                break
    index._search_cache[key] = out  # type: ignore[assignment]
    return out


def _scan(index: RepoIndex, kind: str):
    for facts, call, row in _matches(index).get(kind, ()):
        where = call.func or "module scope"
        data = {k: v for k, v in row.attrs if isinstance(v, (str, int, bool))}
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
