"""Where the default session's tool set is put together.

Tool scoping is read at the line that decides which tools the agent holds: a list or mapping of
tool classes, a run of `tools.append(create_x_tool())` under enable switches, the code that
adds a shipped tool mapping when a flag is on. The tools themselves are already found (the
inventory); this module finds the live code that names two or more of the default tools together
(by class, function, or the factory that builds a tool schema), and, when that is a module
constant, the live function that takes its tools from it. Context only: no level rests on it.
"""

from __future__ import annotations

import re

from ..probes.base import finding

_IDENT = re.compile(r"[A-Za-z_]\w*")
_LONG_STRING = re.compile(r"""\"\"\"[\s\S]*?\"\"\"|'\'\'[\s\S]*?'\'\'""")
_STRING = re.compile(r""""[^"\n]*"|'[^'\n]*'""")
# calls that add what their arguments build to a collection: `tools.append(create_x_tool())`
_ADDS = frozenset({"append", "extend", "add", "insert", "update", "register", "add_tool",
                   "add_tools", "register_tool", "register_tools"})
_SPAN = 40
_GAP = 12
_MAX = 3


def _tool_refs(ctx, tools) -> dict[str, str]:
    """Identifier → the tool it names: the tool's own name, and the function its definition
    sits in when that function builds it (a factory returning a tool schema)."""
    refs: dict[str, str] = {}
    for t in tools:
        name = str(t.data.get("name") or "")
        if not name or name.startswith("schema@"):
            continue
        refs[name] = name
        facts = ctx.index.py.get(t.location.path)
        if facts is None:
            continue
        if not str(t.data.get("registration", "")).startswith("schema"):
            continue
        line = t.location.start_line
        inner = [d for d in facts.defs if d.line < line <= d.end_line]
        if inner:  # built by a factory function
            refs.setdefault(max(inner, key=lambda d: d.line).name, name)
        else:  # or held by a module constant
            for a in facts.assigns:
                if a.scope_kind == "module" and a.line <= line <= a.end_line:
                    refs.setdefault(a.target, name)
    return {k: v for k, v in refs.items() if len(k) > 3}


def _idents(code: str) -> list[str]:
    """Identifiers of CODE outside string literals (a tool's name in a string is not the tool)."""
    code = _LONG_STRING.sub("", code)
    cut = min((i for i in (code.find('"' * 3), code.find("'" * 3)) if i >= 0), default=len(code))
    # a value kept only in part may end inside a long string
    return _IDENT.findall(_STRING.sub("", code[:cut]))


def _clusters(hits: list[tuple[int, str]]) -> list[tuple[int, int, set[str]]]:
    out: list[tuple[int, int, set[str]]] = []
    for ln, tool in sorted(hits):
        if out and ln - out[-1][1] <= _GAP and ln - out[-1][0] <= _SPAN:
            out[-1] = (out[-1][0], ln, out[-1][2] | {tool})
        else:
            out.append((ln, ln, {tool}))
    return out


def assembly(ctx, tools) -> list:
    """Findings (probe `tools.assembly`) at the live code that names two or more default tools."""
    model = ctx.index.agent
    if model is None or len(tools) < 2:
        return []
    refs = _tool_refs(ctx, tools)
    if len(set(refs.values())) < 2:
        return []
    least = 3 if len(set(refs.values())) >= 6 else 2  # two of many tools can meet by chance
    own = {(t.location.path, t.location.start_line) for t in tools}
    found = []
    consts: dict[str, tuple[str, int]] = {}
    for facts in ctx.index.source_py():
        by_scope: dict[str, list[tuple[int, str]]] = {}
        for c in facts.calls:
            if c.short not in _ADDS:
                continue
            for n in _idents(" ".join(c.args)):
                if n in refs and (facts.path, c.line) not in own:
                    by_scope.setdefault(c.func or "<module>", []).append((c.line, refs[n]))
        for a in facts.assigns:
            named = {refs[n] for n in _idents(a.value or "") if n in refs}
            if len(named) >= 2:
                scope = a.scope if a.scope_kind == "function" else "<module>"
                by_scope.setdefault(scope, []).extend((a.line, n) for n in named)
                if a.scope_kind == "module":
                    consts[a.target] = (facts.path, a.line)
        for scope, hits in by_scope.items():
            for start, end, named in _clusters(hits):
                if len(named) < least:
                    continue
                r = str(model.reach.of(facts.path, start)).split(":")[0]
                if r not in ("default", "library"):
                    continue
                found.append((-len(named), facts.path, start, end, scope, sorted(named)))
    found.sort()
    out = []
    for _n, path, start, end, scope, named in found[:_MAX]:
        where = "" if scope == "<module>" else f" in {scope}"
        shown = ", ".join(named[:4]) + (f" and {len(named) - 4} more" if len(named) > 4 else "")
        out.append(finding("tools.assembly", f"The tool set is put together here{where} from "
                           f"{len(named)} of the default tools ({shown}).", path, start, end))
    out += _const_uses(ctx, consts, {(p, s) for _n, p, s, _e, sc, _nm in found[:_MAX] if sc == "<module>"})
    return out


def _const_uses(ctx, consts, cited) -> list:
    """The live functions that take their tools from a cited module constant of tools."""
    names = {k: v for k, v in consts.items() if v in cited and len(k) > 3}
    if not names:
        return []
    rx = re.compile(r"\b(" + "|".join(map(re.escape, names)) + r")\b")
    out = []
    for facts in ctx.index.source_py():
        for c in facts.calls:
            if not c.func:
                continue
            m = rx.search(c.callee + " " + " ".join(c.args))
            if m and (facts.path, c.line) != names[m.group(1)]:
                r = str(ctx.index.agent.reach.of(facts.path, c.line)).split(":")[0]
                if r in ("default", "library"):
                    out.append(finding("tools.assembly", f"{c.func} takes tools from "
                                       f"{m.group(1)} here.", facts.path, c.line, c.end_line))
                    break
        if len(out) >= 2:
            break
    return out
