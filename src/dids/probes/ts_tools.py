"""Tools in TypeScript/JavaScript (tools.inventory): the definitions the model can call and what
each one's handler reaches.

A tool is, in the shapes TypeScript agents use:
- a definition object: a literal with a `name` string and an argument schema (`inputSchema`,
  `input_schema`, `parameters`, `schema`) or a handler (`execute`, `handler`, `run`, `call`,
  `invoke`), passed to a factory (`createTool({...})`, `tool({...})`) or bound to a name;
- a registration call naming the tool first (`server.tool("name", schema, handler)`,
  `registerTool("name", {...}, handler)`, `addTool("name", ...)`);
- an AI SDK `tool({description, parameters, execute})` keyed by name in a tools object;
- a class with a `name` field and an execute/run/handle method beside a schema field;
- a case of a dispatcher: `switch (call.name) { case "bash": ... }` over tool names.

Capabilities are what the handler reaches in the call graph (the Node models on the nodes it
reaches: host processes, network, file writes, messaging), not what the tool is called; a
command-string executor (`exec` with a schema or name about commands or shells) adds `shell`.
Only when no handler can be resolved is the name the tool gives the model read, as for Python
schema tools.
"""

from __future__ import annotations

import re
from collections import deque

from ..agent.semantics import matches
from .base import finding
from .tools import _COMM, name_caps
from .ts_exec import is_shell
from .ts_probes import ts_probe

_SCHEMA_KEYS = ("inputSchema", "input_schema", "parameters", "schema", "argsSchema", "inputs",
                "args")
_HANDLER_KEYS = ("execute", "handler", "run", "call", "invoke", "func", "fn", "callback",
                 "handle")
_APPROVAL_KEYS = re.compile(r"^(requires?_?approval|needs_?approval|require_?confirmation|"
                            r"requires_?confirmation|auto_?approve|needs_?confirmation)$", re.I)
_REGISTER = re.compile(r"^(tool|registerTool|addTool|defineTool|createTool|register_tool)$")
_STR = re.compile(r"""^["'`]([\w.:/-]{1,80})["'`]$""")
_NAME_IN_TEXT = re.compile(r"""\bname\s*:\s*["'`]([\w.:/-]{1,80})["'`]""")
_SCHEMA_IN_TEXT = re.compile(r"\b(inputSchema|input_schema|parameters|argsSchema)\s*:")
_AI_TOOL_KEY = re.compile(r"""["']?([\w-]{1,60})["']?\s*:\s*(?:\w+\.)?tool\(""")
_CMD_WORDS = re.compile(r"command|\bcmd|shell|bash|terminal|script|exec", re.I)
_FS_WRITE = re.compile(r"^(fs|fs/promises|fs-extra|node:fs)\.(promises\.)?(rm|rmSync|unlink|unlinkSync|"
                       r"rename|renameSync|mkdir|mkdirSync|copyFile|copyFileSync|cp|cpSync|"
                       r"rmdir|rmdirSync|truncate|symlink)$")
_DISPATCH_HEAD = re.compile(r"tool", re.I)
_DISPATCH_NAME = re.compile(r"(^|\.)(name|functionName|function\.name)$")
_DISPATCH_FUNC = re.compile(r"tool|call|dispatch|execut|handle|invoke|run", re.I)
_CAPS_DEPTH = 10
_CAPS_NODES = 4000


def _node_caps(index, graph) -> dict[str, set[str]]:
    key = ("_ts_node_caps",)
    got = index._search_cache.get(key)
    if got is not None:
        return got
    caps: dict[str, set[str]] = {}
    sem = matches(index)
    for facts, c, row in sem.get("exec", ()):
        if row.get("class") in ("host", "inprocess"):
            s = caps.setdefault(graph.node_at(facts.path, c.line), set())
            s.add("exec")
            if is_shell(c, row):
                s.add("shell")
        elif row.get("class") == "browser":
            caps.setdefault(graph.node_at(facts.path, c.line), set()).add("network")
    for facts, c, _row in sem.get("network", ()):
        caps.setdefault(graph.node_at(facts.path, c.line), set()).add("network")
    for facts, c, row in sem.get("persist", ()):
        if row.get("class") == "file":
            caps.setdefault(graph.node_at(facts.path, c.line), set()).add("fs_write")
    for facts in index.source_py():
        for c in facts.calls:
            if _FS_WRITE.match(c.callee):
                caps.setdefault(graph.node_at(facts.path, c.line), set()).add("fs_write")
            elif _COMM.search(c.callee) and "." in c.callee:
                caps.setdefault(graph.node_at(facts.path, c.line), set()).add("external_comm")
    index._search_cache[key] = caps
    return caps


def reach_caps(index, graph, starts) -> tuple[set[str], list[str]]:
    """Capabilities of the nodes STARTS reach by calls (not through dispatch on an unknown
    receiver, which would reach every tool), with the nodes that hold them."""
    caps = _node_caps(index, graph)
    seen, queue = set(starts), deque((s, 0) for s in starts)
    found: set[str] = set()
    holders: list[str] = []
    while queue and len(seen) < _CAPS_NODES:
        nid, d = queue.popleft()
        got = caps.get(nid)
        if got:
            found |= got
            holders.append(nid)
        if d >= _CAPS_DEPTH:
            continue
        node = graph.nodes.get(nid)
        if node is not None and node.kind == "class":
            for mid in graph.methods.get(nid, {}).values():
                if mid not in seen:
                    seen.add(mid)
                    queue.append((mid, d + 1))
        for dst, _line, how in graph.edges.get(nid, ()):
            if how in ("import", "package", "module", "dispatch") or dst in seen:
                continue
            seen.add(dst)
            queue.append((dst, d + 1))
    return found, holders


def _literal(text: str | None) -> str | None:
    if not text:
        return None
    m = _STR.match(text.strip())
    return m.group(1) if m else None


def _defs_in(facts, start: int, end: int, func: str | None):
    return [d for d in facts.defs if start <= d.line <= end and d.qualname != func]


@ts_probe("tools.inventory")
def inventory(index):
    """Tool definitions, registrations and dispatcher cases in TypeScript/JavaScript."""
    model = index.agent
    if model is None:
        return
    g = model.graph
    seen: set[tuple[str, str]] = set()

    def emit(facts, line, end, name, registration, starts, params, typed, approval=None,
             disabled=False, how=""):
        if (facts.path, name) in seen:
            return None
        seen.add((facts.path, name))
        caps, _holders = reach_caps(index, g, starts)
        if "exec" in caps and _CMD_WORDS.search(name + " " + params):
            caps.add("shell")
        if not starts:
            caps |= name_caps(name)
        caps_list = sorted(caps) or ["read_only"]
        return finding("tools.inventory", f"Tool {name} {how} ({', '.join(caps_list)})"
                       + (", hard-disabled." if disabled else "."), facts.path, line, end,
                       name=name, registration=registration, capabilities=",".join(caps_list),
                       typed=typed, params=params[:400], approval=approval, disabled=disabled)

    for facts in index.source_py():
        path = facts.path
        for c in facts.calls:
            if not c.kwargs and not _REGISTER.match(c.short):
                continue  # without object-literal keys only a registration call names a tool
            kw = dict(c.kwargs)
            name = _literal(kw.get("name"))
            has_schema = any(k in kw for k in _SCHEMA_KEYS)
            handler = next((k for k in _HANDLER_KEYS if k in kw), None)
            if name and (has_schema or handler) and (has_schema or "description" in kw):
                starts = [f"{path}::{d.qualname}" for d in _defs_in(facts, c.line, c.end_line, c.func)]
                if handler and not starts:
                    t = model.ts.resolver._ref(path, kw[handler].strip(), c.func, c.cls) \
                        if re.match(r"^[\w$.]+$", kw[handler].strip()) else None
                    starts = [t] if t else []
                schema = next((kw[k] for k in _SCHEMA_KEYS if k in kw), "")
                approval = next((v.strip() for k, v in c.kwargs if _APPROVAL_KEYS.match(k)), None)
                disabled = (kw.get("enabled", "").strip() == "false" or
                            kw.get("disabled", "").strip() == "true")
                f = emit(facts, c.line, c.end_line, name, "definition", starts,
                         f"{name} {schema} {kw.get('description', '')[:120]}", has_schema,
                         approval, disabled, f"defined by {c.raw}({{...}})")
                if f:
                    yield f
                continue
            if _REGISTER.match(c.short) and c.args and _literal(c.args[0]) and \
                    (len(c.args) >= 2 or c.kwargs):
                name = _literal(c.args[0])
                starts = [f"{path}::{d.qualname}" for d in _defs_in(facts, c.line, c.end_line, c.func)]
                for a in c.args[1:]:
                    a = a.strip()
                    if re.match(r"^[\w$.]+$", a):
                        t = model.ts.resolver._ref(path, a, c.func, c.cls)
                        if t and g.nodes[t].kind == "function":
                            starts.append(t)
                typed = len(c.args) >= 3 or any(_SCHEMA_IN_TEXT.search(a) for a in c.args[1:])
                f = emit(facts, c.line, c.end_line, name, "call", starts,
                         " ".join(c.args[1:])[:400], typed, how=f"registered by {c.raw}(...)")
                if f:
                    yield f
                continue
            if c.short == "tool" and ("execute" in kw or has_schema) and not name:
                m = _AI_TOOL_KEY.search(index.line(path, c.line))
                if m:
                    starts = [f"{path}::{d.qualname}" for d in _defs_in(facts, c.line, c.end_line, c.func)]
                    f = emit(facts, c.line, c.end_line, m.group(1), "definition", starts,
                             f"{m.group(1)} {next((kw[k] for k in _SCHEMA_KEYS if k in kw), '')}",
                             has_schema, how=f"defined by {c.raw}({{...}})")
                    if f:
                        yield f
        for a in facts.assigns:  # definition objects bound to a name
            v = a.value or ""
            if not v.lstrip().startswith("{") or a.scope_kind == "class":
                continue
            m = _NAME_IN_TEXT.search(v)
            if not m or not _SCHEMA_IN_TEXT.search(v):
                continue
            obj = f"{path}::{a.target}"
            starts = [obj] if obj in g.nodes else \
                [f"{path}::{d.qualname}" for d in _defs_in(facts, a.line, a.end_line, None)]
            f = emit(facts, a.line, a.end_line, m.group(1), "definition", starts, v[:400], True,
                     how=f"defined by {a.target}")
            if f:
                yield f
        yield from _classes(index, facts, g, emit)
        yield from _dispatch_cases(index, facts, g, emit)


def _classes(index, facts, g, emit):
    by_class: dict[str, dict] = {}  # class qualname -> field name -> assign (one pass per file)
    for a in facts.assigns:
        if a.scope_kind == "class":
            by_class.setdefault(a.scope, {})[a.target] = a
    for c in facts.classes:
        fields = by_class.get(c.qualname, {})
        name = _literal(fields["name"].value) if "name" in fields else None
        if not name:
            f = _declarative(index, facts, g, emit, c, fields)
            if f:
                yield f
            continue
        methods = g.methods.get(f"{facts.path}::{c.qualname}", {})
        handler = next((methods[k] for k in _HANDLER_KEYS if k in methods), None)
        schema = next((fields[k] for k in _SCHEMA_KEYS if k in fields), None)
        if handler is None or (schema is None and not any(re.search(r"Tool", b) for b in
                                                           c.bases + c.implements)):
            continue
        f = emit(facts, c.line, c.line, name, "subclass", [handler],
                 f"{name} {(schema.value or '') if schema else ''}", schema is not None,
                 how=f"class {c.name}")
        if f:
            yield f


_NAME_FIELDS = ("Name", "NAME", "toolName", "TOOL_NAME")
_SCHEMA_ARG = re.compile(r"schema|parameters", re.I)


def _declarative(index, facts, g, emit, c, fields):
    """A tool in two classes: the declared tool (a `...Tool` base, its schema handed to the base
    constructor) builds an invocation object (`createInvocation(params) { return new
    XInvocation(...) }`) whose execute/run method is the handler. Its name is the `Name` field's
    string, read through a constant where it is one, else the class name."""
    if not any(re.search(r"Tool\b", b.split("<", 1)[0]) for b in c.bases):
        return None
    resolver = index.agent.ts.resolver
    handlers = []
    for call in facts.calls:
        if call.cls != c.qualname or not call.raw.startswith("new "):
            continue
        target = resolver.symbol(facts.path, call.raw[4:].split("<", 1)[0].strip())
        if target is None or g.nodes[target].kind != "class":
            continue
        methods = g.methods.get(target, {})
        handler = next((methods[k] for k in _HANDLER_KEYS if k in methods), None)
        if handler is not None and handler not in handlers:
            handlers.append(handler)
    if not handlers:
        return None
    field = next((fields[k] for k in _NAME_FIELDS if k in fields), None)
    name = _const_string(index, facts, field.value) if field is not None and field.value else None
    typed = any(call.cls == c.qualname and call.raw == "super" and
                any(_SCHEMA_ARG.search(a) for a in call.args) for call in facts.calls)
    return emit(facts, c.line, c.line, name or c.name, "subclass", handlers, name or c.name, typed,
                how=f"class {c.name} (its invocation's handler)")


def _const_string(index, facts, text: str) -> str | None:
    """The string TEXT holds: a literal, or a module constant of this file or of the module it
    is imported from (followed through one re-export)."""
    text = text.strip()
    literal = _literal(text)
    if literal or not re.match(r"^[A-Za-z_$][\w$]*$", text):
        return literal
    own = _module_const(facts, text)
    if own is not None or text not in facts.imports:
        return own
    resolver = index.agent.ts.resolver
    spec, rest = resolver.split_origin(facts.path, facts.imports[text])
    target = resolver.info.modules.resolve(facts.path, spec)
    there = index.ts.get(target) if target else None
    if there is None or not rest:
        return None
    got = _module_const(there, rest)
    if got is not None:
        return got
    for key in there.imports:  # `export * from "./x"`, `export { NAME } from "./x"`
        if key.startswith("<module>"):
            further = resolver.info.modules.resolve(target, key[8:])
            facts2 = index.ts.get(further) if further else None
            got = _module_const(facts2, rest) if facts2 is not None else None
            if got is not None:
                return got
    return None


def _module_const(facts, name: str) -> str | None:
    return next((_literal(a.value) for a in facts.assigns if a.scope_kind == "module" and
                 a.target == name and _literal(a.value)), None)


def _dispatch_cases(index, facts, g, emit):
    """`switch (x.name) { case "tool_a": ... }` in code the agent loop drives: each case over
    string names is a tool the dispatcher runs; its capabilities are what the calls in the case
    reach (a switch over tool names that only renders them is not driven by the loop)."""
    driven = index.agent.session.driven
    blocks = facts.blocks
    for i, b in enumerate(blocks):
        if b.kind != "switch" or not (_DISPATCH_HEAD.search(b.head) or (
                _DISPATCH_NAME.search(b.head) and _DISPATCH_FUNC.search(b.func or ""))):
            continue
        cases = [x for x in blocks[i + 1:] if x.kind == "case" and b.line <= x.line <= b.end_line
                 and x.func == b.func]
        named = [(x, _literal(x.head)) for x in cases]
        named = [(x, n) for x, n in named if n and re.match(r"^[a-z][\w.-]*$", n)]
        if len(named) < 3:
            continue  # a dispatcher over tool names has several cases
        src = f"{facts.path}::{b.func}" if b.func else f"{facts.path}::<module>"
        if src not in driven:
            continue
        for x, n in named:
            starts = [dst for dst, line, how in g.edges.get(src, ())
                      if x.line <= line <= x.end_line and how not in ("import", "module")]
            if not starts:
                continue
            f = emit(facts, x.line, x.end_line, n, "dispatch", starts, n, False,
                     how="dispatched by a switch over tool names")
            if f:
                yield f
