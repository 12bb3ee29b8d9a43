"""C9 audit family: per-action records, their durability, attribution and failure handling."""

from __future__ import annotations

import re

from ..index.repo import RepoIndex
from .base import Names, finding, line_findings, probe

_RECORD_FN = Names(r"(record|append|log|write|persist|emit)_?(tool|action|intent|audit|event|call)", re.I)


_NAME_PARAM = Names(r"tool|action|name")
_ARGS_PARAM = Names(r"arg|input|param|payload")
_DURABLE = Names(r"(start|execute)_?(child_)?workflow|_execute_\w*workflow|record|persist|append", re.I)


@probe("audit.record", ("C9",), "Write a structured record of every tool call, arguments included.")
def records(index: RepoIndex):
    """Functions that persist tool-call records (name + arguments) and their callers. A
    function named for recording that writes nothing that outlives the process (a loop
    detector's `record_action` keeping recent calls in memory) is no record."""
    from ..agent.semantics import matches

    writers = {(f.path, c.func) for f, c, _r in matches(index).get("persist", ()) if c.func}
    defs = {}
    for facts in index.source_py():
        for d in facts.defs:
            if _RECORD_FN.search(d.name) and any(_NAME_PARAM.search(p.name) for p in d.params) \
                    and any(_ARGS_PARAM.search(p.name) for p in d.params) \
                    and _writes(facts, d, writers):
                defs[d.name] = (facts.path, d.line)
    for facts, c in index.calls_named(lambda n: n in defs or _DURABLE.search(n)):
        if c.short in defs and (c.func or "").split(".")[-1] != c.short:
            yield finding("audit.record", f"{c.raw}(...) records a tool call with its "
                          "arguments.", facts.path, c.line, fn=c.short)
        elif _DURABLE.search(c.short) and any("tool_call_id" in v for _, v in c.kwargs):
            yield finding("audit.record", f"{c.raw}(...) runs the tool call as a durable, "
                          "recorded execution keyed by its tool-call id.", facts.path, c.line,
                          fn=c.short)


def _writes(facts, d, writers: set) -> bool:
    """Whether D writes to a file or a store: a write of its own (`self.fh.write(line)`), a
    function of its file it calls that writes, or a class whose methods open the file or
    store it writes to (a journal opened in `__init__`)."""
    if (facts.path, d.qualname) in writers:
        return True
    called = {c.short for c in facts.calls if c.func == d.qualname}
    if called & {"write", "writelines", "insert", "insert_one", "add", "commit", "xadd", "rpush"}:
        return True
    mine = [func for path, func in writers if path == facts.path]
    return any(func.split(".")[-1] in called for func in mine) or \
        bool(d.cls) and any(func.startswith(d.cls + ".") for func in mine)


@probe("audit.decorator", ("C9",), "Audit control-plane changes too.")
def decorator(index: RepoIndex):
    """Audit decorators applied to functions."""
    for facts in index.source_py():
        for d in facts.defs:
            if any(re.match(r"^(\w+\.)?audit(_log|ed|_event)?\b", dec) for dec in d.decorators):
                yield finding("audit.decorator", f"{d.name} is wrapped by an audit decorator.",
                              facts.path, d.line)


@probe("audit.fsync", ("C9",), "Flush the intent record before the action runs.")
def fsync(index: RepoIndex):
    """os.fsync in live code."""
    for facts, c in index.calls_where(lambda n: n == "os.fsync"):
        yield finding("audit.fsync", "Records are fsynced.", facts.path, c.line,
                      func=c.func or "")


_AUDIT_NAME = Names(r"audit|record|wal|journal|trail", re.I)


@probe("audit.swallow", ("C9",), "Surface audit-write failures instead of swallowing them.")
def swallow(index: RepoIndex):
    """Audit/record functions whose failures are logged at debug level or passed over."""
    for facts in index.source_py():
        for d in facts.defs:
            if not (_AUDIT_NAME.search(d.name) or d.cls and _AUDIT_NAME.search(d.cls)):
                continue
            lines = [index.line(facts.path, i) if facts.is_code_line(i) else ""
                     for i in range(d.line, min(d.end_line, d.line + 200) + 1)]
            for i, text in enumerate(lines):
                if re.match(r"\s*except\b", text):
                    nxt = " ".join(lines[i + 1:i + 3])
                    level = "debug" if re.search(r"\.debug\(|^\s*pass\b|\bpass$", nxt.strip()) \
                        else "warning" if re.search(r"\.(warning|warn|error|exception)\(", nxt) else None
                    if level:
                        yield finding("audit.swallow", f"A failure in {d.name} is caught and "
                                      + ("dropped silently." if level == "debug" else
                                         "logged, and the action goes on."),
                                      facts.path, d.line + i, level=level, fn=d.name)
                        break


@probe("audit.tamper", ("C9",), "Make the audit trail tamper-evident.")
def tamper(index: RepoIndex):
    """Hash chains, HMACs or append-only stores on audit records."""
    pat = r"\b(prev_hash|previous_hash|hash_chain|merkle|object_lock|append_only|WORM)\b"
    yield from line_findings(index, "audit.tamper", [pat],
                             "Audit records are chained or write-once here.", code_only=True)
