"""Where the default session takes the tool call the model wrote and runs it.

A reviewer judging tool scoping, approval or untrusted input reads the lines where the model's
choice becomes an action: the tool looked up by the name the model gave, the arguments parsed
from its output (and checked, or not), the branch on which tool it named, the chosen tool run
with the model's keyword arguments. This probe finds those lines in the functions the agent
loops reach (the session model's driven set), so a function with the same shapes that no agent
loop calls (a test helper, a CLI command, a build script) is not cited. Assessors never level
on it; it is context placed after a level's decisive evidence.
"""

from __future__ import annotations

import re

from ..index.pyfacts import short_name
from ..index.repo import RepoIndex
from ..models import Kind
from .base import finding, probe

# what a name says it holds: the model's tool call, or the tools/actions the model picks from
_CALL_NAME = r"\w*(?:tool_?calls?|tool_?name|function_?call)\w*"
_TOOLISH = re.compile(r"(?:^|_)(tools?|actions?|functions?|handlers?|commands?)(?:_|$)|tool", re.I)
# a branch on which tool the model named: `if tool_call.function.name == ...`,
# `elif tool_name in (...)`, `isinstance(action, CmdRunAction)` (not `if tool_calls:`)
_HEAD = re.compile(r"(?:\.function\.name|\btool_?name|\b\w*tool_?call\w*\.name)\s*(?:==|!=|\bin\b|\bnot in\b)|"
                   r"\bisinstance\(\s*\w*(?:action|tool_call)\w*\s*,|^\s*\w*tool_?name\w*\s*$", re.I)
# the arguments the model wrote, parsed: `json.loads(tool_call.function.arguments)`
_ARGS = re.compile(rf"\b{_CALL_NAME}\.(?:function\.)?arguments\b|\.function\.arguments\b", re.I)
# a tool looked up in a name-keyed mapping: `self.tools[name](...)`, `tool_map.get(name)`
# (not a handler registry keyed by an event's type: `self._handlers.get(type(event))`)
_LOOKUP = re.compile(r"\b\w*(?:tools?|actions?|handlers?)\w*\s*(?:\[(?!\s*(?:type\(|\w*event))"
                     r"[^\]]+\]|\.get\((?!\s*(?:type\(|\w*event)))", re.I)
# a name-keyed map of tools built for dispatch: `{tool.name: tool for tool in tools}`
_NAME_MAP = re.compile(r"^\{\s*(\w+)\.name\s*:\s*\1\s+for\s+\1\s+in\b")
# the tool name the model gave, read off its tool call: `name = tool_call.function.name`
_NAME_READ = re.compile(rf"^{_CALL_NAME}(?:\.function)?\.name$|^\w+\.function\.name$", re.I)
_RUN = frozenset({"run", "arun", "_run", "invoke", "ainvoke", "_invoke", "forward", "execute",
                  "aexecute", "call", "__call__", "run_tool", "execute_tool", "call_tool"})
_RUN_NAMED = re.compile(r"^_?(execute|call|run|invoke|dispatch|handle|process)_(tool|action|function)"
                        r"(_?calls?|_mcp)?s?$", re.I)
# what runs the model's code or command: `self.python_executor(code)`, `computer.run(lang, code)`,
# `runtime.run_action(action)`
_EXEC_NAMED = re.compile(r"^(\w+_)?(executor|interpreter)$|^_?(run|execute|exec)_(code|cell|action|command)s?$",
                         re.I)
_EXECUTORISH = re.compile(r"(executor|interpreter|computer|runtime|sandbox|terminal|kernel|shell)s?$", re.I)
_VALIDATE = re.compile(r"^_?validate\w*(tool|arg|param|action|input)", re.I)
# a loop over the tool calls of the model's reply: `for tc in last_ai.tool_calls:`
_ITER_CALLS = re.compile(r"(^|\.)tool_calls\s*$")
_BRANCH = "branches on the tool the model named"
_SPAN = 40  # a finding covers the lines of one function's dispatch, not a whole module
_GAP = 15
_MAX = 12


def _receiver_toolish(callee: str) -> bool:
    parts = callee.split(".")
    return len(parts) >= 2 and bool(_TOOLISH.search(parts[-2].split("[")[0]))


def _receiver_executor(callee: str) -> bool:
    parts = callee.split(".")
    return len(parts) >= 2 and bool(_EXECUTORISH.search(parts[-2].split("[")[0]))


def _call_signals(c) -> list[str]:
    out = []
    text = " ".join(c.args) + " " + " ".join(v for _k, v in c.kwargs)
    if _ARGS.search(text) or _ARGS.search(c.callee):
        out.append("parses the arguments the model wrote")
    if "[" in c.callee and _LOOKUP.search(c.callee):
        out.append("looks the tool up by the name the model gave")
    short = short_name(c.callee)
    splat = any(a.startswith("**") for a in c.args)
    if _RUN_NAMED.match(short) or (short in _RUN and _receiver_toolish(c.callee)):
        out.append(f"runs the chosen tool ({c.raw})")
    elif splat and _receiver_toolish(c.callee):
        out.append(f"runs the chosen tool with the model's arguments ({c.raw})")
    elif _EXEC_NAMED.match(short) or (short in _RUN and _receiver_executor(c.callee)):
        out.append(f"hands code or a command on to {c.raw}")
    if _VALIDATE.match(short):
        out.append(f"checks the tool call with {short}(...)")
    return out


def _clusters(lines: list[int]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for ln in sorted(set(lines)):
        if out and ln - out[-1][1] <= _GAP and ln - out[-1][0] <= _SPAN:
            out[-1] = (out[-1][0], ln)
        else:
            out.append((ln, ln))
    return out


@probe("agent.tool_call", ("C2", "C3", "C5"), "Check the model's tool call before the tool runs.")
def tool_calls(index: RepoIndex):
    """Lines in functions the agent loops reach where the model's tool call is parsed, looked
    up, branched on, checked or run."""
    model = index.agent
    if model is None or not model.session.loops:
        return
    # what the innermost agent loops reach: a REPL around the agent also runs the person's own
    # commands, whose lookups are not the model's choice
    driven = dict(model.session.inner or model.session.driven)
    # a function that loops over the model's tool calls is that hand-off wherever it is called
    # from (a graph node a framework runs, which the call graph cannot follow)
    for facts in index.source_py():
        for b in facts.blocks:
            if b.kind == "for" and b.func and _ITER_CALLS.search(b.head) and \
                    f"{facts.path}::{b.func}" not in driven and \
                    model.reach.of(facts.path, b.line) == "default":
                driven[f"{facts.path}::{b.func}"] = 99
    found = []
    for facts in index.source_py():
        per_func: dict[str, list[tuple[int, str]]] = {}
        for c in facts.calls:
            if c.func and f"{facts.path}::{c.func}" in driven:
                for what in _call_signals(c):
                    per_func.setdefault(c.func, []).append((c.line, what))
        for b in facts.blocks:
            if b.func and b.kind in ("if", "elif", "match", "case") and \
                    f"{facts.path}::{b.func}" in driven and _HEAD.search(b.head):
                per_func.setdefault(b.func, []).append((b.line, _BRANCH))
        for a in facts.assigns:
            if a.scope_kind == "function" and a.value and f"{facts.path}::{a.scope}" in driven:
                v = a.value.strip()
                if _NAME_READ.search(v) and not _HEAD.search(v):
                    per_func.setdefault(a.scope, []).append((a.line, "reads the tool name the model gave"))
                elif _NAME_MAP.match(v):
                    per_func.setdefault(a.scope, []).append((a.line, "maps tool names to tools"))
                elif _TOOLISH.search(a.target) and _LOOKUP.search(v):
                    per_func.setdefault(a.scope, []).append((a.line, "looks the tool up by the name "
                                                                     "the model gave"))
        for func, hits in per_func.items():
            if all(w == _BRANCH for _ln, w in hits):  # a branch alone may be any name test
                continue
            dist = driven.get(f"{facts.path}::{func}", 99)
            for start, end in _clusters([ln for ln, _w in hits]):
                whats = list(dict.fromkeys(w for ln, w in sorted(hits) if start <= ln <= end))
                found.append((dist, facts.path, start, end, func, whats))
    # a site doing several parts of the hand-off first (parse, look up, check, run), then nearest
    found.sort(key=lambda x: (len(x[5]) < 3, x[0], -len(x[5]), x[1], x[2]))
    for dist, path, start, end, func, whats in found[:_MAX]:
        yield finding("agent.tool_call", f"{func} takes the model's tool call here: "
                      + "; ".join(whats[:5]) + ".", path, start, end, func=func, signals=len(whats))


# a message the model will read, with the role of a tool's output: `{"role": "tool", ...}`,
# `ChatMessage(role=MessageRole.TOOL_RESPONSE, ...)`, `msg["role"] = "function"`
_TOOL_ROLE = re.compile(r"""["']role["']\s*:\s*["'](tool|function|ipython)["']|\brole\s*=\s*["'](tool|function|"""
                        r"""ipython)["']|\b\w*Role\.(TOOL_RESPONSE|TOOL|FUNCTION|OBSERVATION)\b""")
_ROLE_TARGET = re.compile(r"""\[\s*["']role["']\s*\]$|\.role$""")
_RESULT_FUNC = re.compile(r"^_?(format|convert|render|serialize|to)_\w*(tool|observation|function)_?"
                          r"\w*(result|output|response|message|data)s?\w*$", re.I)
_RESULT_MAX = 6
_MEASURES = re.compile(r"count|token|len$|size", re.I)  # a message built only to be measured


def _builds_role(text: str) -> bool:
    """TEXT gives a message the tool role (not `if msg["role"] == "tool"`, which reads one)."""
    if "ole" not in text:  # role / Role: most calls never mention one (a cheap test first)
        return False
    return any(not re.search(r"(==|!=|\bin|\bis)\s*$", text[:m.start()])
               and not re.search(r"(count|token)\w*\(", text[max(0, m.start() - 80):m.start()], re.I)
               for m in _TOOL_ROLE.finditer(text))


@probe("agent.tool_result", ("C5", "C9"), "Mark tool output as data before the model reads it.")
def tool_results(index: RepoIndex):
    """Where a tool's output becomes a message the model reads: a message with the tool's role,
    or a function that formats tool results for the model, in live code on the scored path."""
    model = index.agent
    if model is None or not model.session.loops:
        return
    driven = model.session.driven
    found = []
    for facts in index.source_py():
        hits: dict[str, list[int]] = {}
        for c in facts.calls:
            if not (c.args or c.kwargs):
                continue
            text = " ".join(c.args) + " " + " ".join(f"{k}={v}" for k, v in c.kwargs)
            if _builds_role(text) and not _MEASURES.search(c.short):
                hits.setdefault(c.func or "<module>", []).append(c.line)
        for a in facts.assigns:
            v = (a.value or "").strip()
            if _builds_role(v) or (_ROLE_TARGET.search(a.target)
                                        and re.fullmatch(r"""["'](tool|function)["']""", v)):
                hits.setdefault(a.scope if a.scope_kind == "function" else "<module>", []).append(a.line)
        named = set()
        for d in facts.defs:
            if _RESULT_FUNC.match(d.name) and d.qualname not in hits:
                hits.setdefault(d.qualname, []).append(d.line)
                named.add(d.qualname)
        for func, lines in hits.items():
            if func != "<module>" and re.search(r"count|token", func.rsplit(".", 1)[-1], re.I):
                continue  # a message built only to be measured
            named_only = func in named and len(lines) == 1
            if model.reach.of(facts.path, lines[0]).split(":")[0] not in ("default", "library"):
                continue  # behind a setting, or off the scored path
            # reached from an agent loop first; then anything else on the path
            dist = driven.get(f"{facts.path}::{func}", 0 if func == "<module>" else 50)
            for start, end in _clusters(lines):
                found.append((dist, named_only, facts.path, start, end, func))
    found.sort(key=lambda x: (x[0], x[1], x[2], x[3]))
    for _d, named_only, path, start, end, func in found[:_RESULT_MAX]:
        where = "" if func == "<module>" else f" in {func}"
        if named_only:  # what the function does is read off its name: say so
            yield finding("agent.tool_result", f"{func} formats tool results (by its name) on the "
                          "way back to the model.", path, start, end, func=func, kind=Kind.inferred)
        else:
            yield finding("agent.tool_result", f"A tool's output is made into a message the model "
                          f"reads here{where}.", path, start, end, func=func)


# a tool or action list filtered against a named set: `[a for a in actions if a not in EXCLUDED]`,
# `tools = [t for t in tools if t.name in allowed_tools]`
_FILTER = re.compile(r"\bfor\s+(\w+)\s+in\b.*\bif\s+(?:not\s+)?\1(?:\.name)?\s+(not\s+in|in)\s+"
                     r"([\w.]*(?:tool|action|command|allow|exclu|block|disabl|enabl|availab|permit)\w*)",
                     re.I | re.S)
_LISTISH = re.compile(r"tool|action|command|function", re.I)


@probe("tools.filter", ("C3",), "Filter the tools the model is offered against an operator list.")
def tool_filters(index: RepoIndex):
    """Live code on the scored path that keeps only the tools or actions a named list allows (or
    drops those an exclusion list names)."""
    model = index.agent
    if model is None:
        return
    for facts in index.source_py():
        for a in facts.assigns:
            v = a.value or ""
            m = _FILTER.search(v)
            if not m or not (_LISTISH.search(a.target) or _LISTISH.search(v[:m.start()] + m.group(3))):
                continue
            if model.reach.of(facts.path, a.line).split(":")[0] not in ("default", "library"):
                continue
            how = "drops those named in" if m.group(2).lower().startswith("not") else "keeps only those in"
            yield finding("tools.filter", f"{a.target} {how} {m.group(3)} here.", facts.path,
                          a.line, a.end_line, against=m.group(3))
            named = _named_set(index, facts, m.group(3))
            if named is not None:
                path, d = named
                where = f"line {a.line}" if path == facts.path else f"{facts.path}:{a.line}"
                yield finding("tools.filter", f"{d.target} lists the tools or actions the filter at "
                              f"{where} {'drops' if how.startswith('drops') else 'keeps'}.", path, d.line,
                              min(d.end_line, d.line + 20), against=m.group(3), site="set")


def _named_set(index: RepoIndex, facts, name: str):
    """(path, Assign) of the module constant a filter tests against (`EXCLUDED_ACTIONS =
    frozenset({...})`): in the filtering module, else the one module that defines it."""
    last = name.rsplit(".", 1)[-1]
    if not re.fullmatch(r"[A-Z][A-Z0-9_]+", last):
        return None

    def defined(f):
        return next((a for a in f.assigns if a.scope_kind == "module" and a.target == last), None)

    here = defined(facts)
    if here is not None:
        return facts.path, here
    got = [(f.path, d) for f in index.source_py() if (d := defined(f)) is not None]
    return got[0] if len(got) == 1 else None

