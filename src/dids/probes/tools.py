"""Tool inventory: the functions and classes the model can invoke, classified by capability."""

from __future__ import annotations

import bisect
import re

from ..index.pyfacts import FuncDef, PyFacts, short_name
from ..index.repo import RepoIndex
from ..agent import semantics
from ..agent.modules import ModuleMap
from ..agent.session import TOOL_BASE
from .base import Names, finding, probe
from .exec_paths import SPAWN, is_shell

_TOOL_DECORATOR = re.compile(
    r"^(?:[\w.]*\.)?(tool|tool_plain|function_tool|ai_function|kernel_function|register|register_tool|"
    r"action|skill)\b(?:\(|$)")
_NET = re.compile(r"^(requests|httpx|aiohttp|urllib\.request|urllib3|socket|http\.client)\.|"
                  r"\.(get|post|put|patch|delete|request|send)$")
_NET_CLIENT = Names(r"^(requests|httpx|aiohttp|urllib\.request|urllib3|http\.client)\.")
_COMM = Names(r"slack|smtp|sendmail|send_message|chat_postMessage|telegram|discord|twilio|"
              r"teams|webhook|post_comment|create_issue|create_comment", re.I)
_FS_WRITE = Names(r"\.(write_text|write_bytes|unlink|rmdir|rename|mkdir)$|^os\.(remove|unlink|"
                  r"rename|makedirs)$|^shutil\.(rmtree|move|copy\w*)$")
_CRED = Names(r"^os\.(environ|getenv)|boto3\.|kubernetes\.config|load_kube_config|keyring\.")
# a registration that can never be available: `is_available=lambda _: False`, `enabled=False`
# given to the decorator itself (a constructor default a loader may override does not count)
_HARD_DISABLED = re.compile(r"\b(is_available|available|is_enabled)\s*=\s*(lambda[^:]*:\s*)?False\b|"
                            r"\bdisabled\s*=\s*True\b")
_APPROVAL_KW = re.compile(r"(requires?_approval|needs_approval|require_confirmation|confirm)\s*=\s*(True|False)")


def helper_capabilities(index: RepoIndex) -> dict[str, set[str]]:
    """Direct capabilities of every uniquely named function (its own calls and those of the
    functions nested in it), so a tool's one-hop helpers count. One pass over each file's calls:
    each call's capabilities go to its function and every enclosing one."""
    key = "_helper_caps"
    cached = index._search_cache.get((key,))
    if cached is not None:
        return cached  # type: ignore[return-value]
    counts: dict[str, int] = {}
    caps: dict[str, set[str]] = {}
    for facts in index.source_py():
        within: dict[str, set[str]] = {}
        for c in facts.calls:
            found = _call_caps(c) if c.func else None
            if found:
                parts = c.func.split(".")
                for i in range(len(parts), 0, -1):
                    within.setdefault(".".join(parts[:i]), set()).update(found)
        for d in facts.defs:
            counts[d.name] = counts.get(d.name, 0) + 1
            caps[d.name] = within.get(d.qualname, set())
    out = {n: set(c) for n, c in caps.items() if counts[n] == 1 and len(n) > 4 and c}
    index._search_cache[(key,)] = out  # type: ignore[assignment]
    return out


_by_func_last: list = [None, None]  # (facts, its calls grouped by enclosing function)
_callee_caps_memo: dict[str, frozenset[str]] = {}


def _calls_in(facts: PyFacts, qualname: str) -> list:
    """Calls made in function QUALNAME or functions nested in it (one grouping per file)."""
    if _by_func_last[0] is not facts:
        by: dict[str, list] = {}
        for c in facts.calls:
            if c.func:
                by.setdefault(c.func, []).append(c)
        _by_func_last[:] = [facts, (by, sorted(by))]
    by, keys = _by_func_last[1]
    out = list(by.get(qualname, ()))
    prefix = qualname + "."
    i = bisect.bisect_left(keys, prefix)
    while i < len(keys) and keys[i].startswith(prefix):
        out.extend(by[keys[i]])
        i += 1
    return out


def _callee_caps(callee: str) -> frozenset[str]:
    caps = _callee_caps_memo.get(callee)
    if caps is None:
        found = set()
        if callee in SPAWN:
            found.add("exec")
        if _NET_CLIENT.match(callee):
            found.add("network")
        if _FS_WRITE.search(callee):
            found.add("fs_write")
        if _COMM.search(callee):
            found.add("external_comm")
        if _CRED.search(callee):
            found.add("credentials")
        caps = _callee_caps_memo[callee] = frozenset(found)
    return caps


def _capabilities(facts: PyFacts, d: FuncDef, helpers: dict[str, set[str]] | None) -> list[str]:
    calls = _calls_in(facts, d.qualname)
    caps = set()
    for c in calls:
        if helpers and c.short in helpers and c.short != d.name:
            caps.update(helpers[c.short])
    for c in calls:
        caps.update(_call_caps(c))
    return sorted(caps) or ["read_only"]


def _call_caps(c) -> frozenset[str] | set[str]:
    """What one call can do: its callee's capabilities, a shell for a command string, a write
    for open() in a writing mode."""
    caps = _callee_caps(c.callee)
    if c.callee in SPAWN and is_shell(c):
        caps = caps | {"shell"}  # a command string through a shell: raw passthrough
    if c.short == "open" and semantics.opens_to_write(c, 1):
        caps = caps | {"fs_write"}
    return caps


def _decorated_tools(facts: PyFacts):
    for d in facts.defs:
        for dec in d.decorators:
            if _TOOL_DECORATOR.match(dec):
                approval = _APPROVAL_KW.search(dec)
                yield d, dec, approval.group(2) if approval else None
                break


@probe("tools.inventory", ("C2", "C3"),
       "Give every tool typed arguments, a capability class and an approval flag.")
def inventory(index: RepoIndex):
    """Functions registered as tools by decorator, Tool subclasses (transitively), registered
    functions and function-calling schema objects, with their capabilities."""
    helpers = helper_capabilities(index)
    tool_classes = _tool_classes(index)
    for facts in index.source_py():
        for d, dec, approval in _decorated_tools(facts):
            caps = _capabilities(facts, d, helpers)
            typed = all(p.annotation for p in d.params if p.name not in ("self", "cls", "ctx"))
            params = ",".join(f"{p.name}:{p.annotation or '?'}" for p in d.params
                              if p.name not in ("self", "cls"))
            disabled = bool(_HARD_DISABLED.search(dec))
            yield finding("tools.inventory",
                          f"Tool {d.name} registered by @{dec.split('(')[0]} "
                          f"({', '.join(caps)})" + (", hard-disabled." if disabled else "."),
                          facts.path, d.line, kind=_kind(), name=d.name, registration="decorator",
                          capabilities=",".join(caps), typed=typed, params=params,
                          approval=approval, disabled=disabled)
        for c in facts.classes:
            if f"{facts.path}::{c.qualname}" not in tool_classes:
                continue
            methods = [d for d in facts.defs if d.cls == c.qualname]
            schema = " ".join(a.value or "" for a in facts.assigns if a.scope == c.qualname and
                              a.target in ("inputs", "parameters", "args_schema", "input_schema"))
            caps: set[str] = set()
            for m in methods:
                caps.update(x for x in _capabilities(facts, m, helpers) if x != "read_only")
            base = tool_classes[f"{facts.path}::{c.qualname}"]
            yield finding("tools.inventory",
                          f"Tool {'base ' if base else ''}class {c.name} "
                          f"({', '.join(sorted(caps)) or 'read_only'}).",
                          facts.path, c.line, kind=_kind(), name=c.name, registration="subclass",
                          capabilities=",".join(sorted(caps)) or "read_only", typed=True,
                          params=schema[:400], approval=None, base=base,
                          alias=_tool_alias(facts, c))
    yield from _registered_elsewhere(index, helpers)
    yield from _schema_objects(index)
    yield from _mcp_listed_tools(index, helpers)


_ALIAS_DECORATOR = re.compile(r"""^[\w.]*(register|tool)\w*\(\s*(?:name\s*=\s*)?["']([\w.-]+)["']""")


def _tool_alias(facts: PyFacts, c) -> str | None:
    """The name a tool class is registered under for the model and for configuration
    (`@register_tool("code_interpreter")`, else a class-level `name = "code_interpreter"`)."""
    for dec in c.decorators:
        m = _ALIAS_DECORATOR.match(dec)
        if m:
            return m.group(2)
    for a in facts.assigns:
        if a.scope == c.qualname and a.scope_kind == "class" and a.target == "name" and a.value:
            v = a.value.strip()
            if len(v) >= 2 and v[0] in "\"'" and v[-1] == v[0]:
                return v[1:-1]
    return None


_REGISTER_CALL = Names(r"(^|\.)(register|register_tool|add_tool|add_function|tool)$")
# a tool object built around a function: FunctionTool(self.search), Tool(fn), X.from_defaults(fn=f),
# a repository's own spec: ToolSpec(name="shell", execute=execute_shell)
_TOOL_CTOR = Names(r"(^|\.)(FunctionTool|Tool|StructuredTool|ToolSpec|ToolDef|ToolDefinition)"
                   r"(\.(from_function|from_defaults))?$")
_FUNCTION_SCHEMA = re.compile(r"""["']type["']\s*:\s*["']function["']""")


def _target_of(c) -> str | None:
    """The function a registering call hands over (as written), if any."""
    if _REGISTER_CALL.search(c.callee):
        return c.args[0] if c.args else None
    if _TOOL_CTOR.search(c.callee) or c.short == "from_function":
        return c.kw("func") or c.kw("fn") or c.kw("function") or c.kw("execute") or \
            c.kw("handler") or (c.args[0] if c.args else None)
    return None


def _registered_elsewhere(index: RepoIndex, helpers):
    """Tools registered by a call (registry.register(fn), agent.add_tool(fn), StructuredTool.
    from_function(fn), FunctionTool(self.search) in a toolkit), by a name→function dict, or
    described by an OpenAI function schema."""
    defs = {f"{facts.path}::{d.qualname}": (facts, d) for facts in index.source_py() for d in facts.defs}
    sem = semantics.load()
    seen = set()
    for facts, c in index.calls_where(lambda n: _REGISTER_CALL.search(n) or _TOOL_CTOR.search(n)
                                      or short_name(n) == "from_function"):
        target = (_target_of(c) or "").strip()
        if target.startswith("self.") and c.cls and target[5:].isidentifier():
            nid = _method_named(index, facts, c.cls, target[5:])
        elif target.isidentifier() and not sem.match(facts, c, "hook"):
            nid = _function_named(index, facts, c, target)  # atexit.register(f): no model gets f
        else:
            continue
        if nid not in defs or nid in seen:
            continue
        seen.add(nid)
        tf, d = defs[nid]
        caps = _capabilities(tf, d, helpers)
        params = [p for p in d.params if p.name not in ("self", "cls", "ctx")]
        yield finding("tools.inventory", f"Tool {d.name} registered by {c.raw}(...) "
                      f"({', '.join(caps)}).", facts.path, c.line, kind=_kind(), name=d.name,
                      registration="call", capabilities=",".join(caps),
                      typed=all(p.annotation for p in params),
                      params=",".join(f"{p.name}:{p.annotation or '?'}" for p in params),
                      approval=None, owner=(d.cls or "").rsplit(".", 1)[-1])
    for h in index.live_hits([_FUNCTION_SCHEMA.pattern], globs=("*.py",)):
        name = _schema_name(index, h.path, h.line)
        if name is None:
            yield finding("tools.inventory", "A function-calling tool schema is declared here.",
                          h.path, h.line, kind=_kind(), name=f"schema@{h.path}:{h.line}",
                          registration="schema", capabilities="read_only", typed=True, params="",
                          approval=None)
            continue
        # `{"type": "function", "function": {"name": "bash", ...}}`: the name is the tool's
        # only contract with the model, and what it does is read from it
        caps = sorted(name_caps(name)) or ["read_only"]
        yield finding("tools.inventory", f"Tool schema {name!r} declared as a function-calling "
                      f"dict ({', '.join(caps)}).", h.path, h.line, kind=_kind(), name=name,
                      registration="schema", capabilities=",".join(caps), typed=True, params="",
                      approval=None, named=True)


_SCHEMA_NAME = re.compile(r"""^\s*["']name["']\s*:\s*["']([A-Za-z_][\w.-]*)["']""")


def _schema_name(index: RepoIndex, path: str, line: int) -> str | None:
    """The literal `"name": "..."` of the function schema opened at PATH:LINE, read from the
    next lines up to the first that declares the parameters (its description comes between)."""
    for i in range(line, line + 8):
        text = index.line(path, i)
        m = _SCHEMA_NAME.match(text) or _SCHEMA_NAME.match(text.split("{")[-1])
        if m:
            return m.group(1)
        if re.search(r"""["'](parameters|input_schema)["']""", text):
            return None
    return None


def _method_named(index: RepoIndex, facts: PyFacts, cls: str, name: str) -> str | None:
    """The node id of method NAME of class CLS of FACTS (inherited ones included)."""
    graph = index.agent.graph if index.agent is not None else None
    if graph is not None:
        return graph.method(f"{facts.path}::{cls}", name)
    q = f"{cls}.{name}"
    return f"{facts.path}::{q}" if any(d.qualname == q for d in facts.defs) else None


def _function_named(index: RepoIndex, facts: PyFacts, call, name: str) -> str | None:
    """The node id of the function NAME means where CALL passes it: a function nested in the
    caller, one defined or imported in its file. A parameter or local (`add_tool(tool)` in a
    loop over tools) names no function, however many files define one with that name."""
    if call.func:
        nested = f"{facts.path}::{call.func}.{name}"
        if any(d.qualname == f"{call.func}.{name}" for d in facts.defs):
            return nested
        if any(p.name == name for d in facts.defs if d.qualname == call.func for p in d.params):
            return None
    graph = index.agent.graph if index.agent is not None else None
    if graph is not None:
        return graph.resolve(name, facts.path)
    if any(d.qualname == name for d in facts.defs):
        return f"{facts.path}::{name}"
    if name not in facts.imports:  # no agent model: follow `from pkg.mod import name` only
        return None
    mods = ModuleMap(index.py)
    hit = mods.split(mods.absolute(facts.imports[name], facts.path))
    return f"{hit[0]}::{hit[1]}" if hit and hit[1] else None


def _tool_classes(index: RepoIndex) -> dict[str, bool]:
    """Tool classes (node id -> whether other tool classes extend it): direct subclasses of a
    class named like a tool base, and their subclasses along the repository's hierarchy."""
    direct = {f"{f.path}::{c.qualname}" for f in index.source_py() for c in f.classes
              if any(TOOL_BASE.search(b) for b in c.bases)}
    model = index.agent
    if model is None:
        return {c: False for c in direct}
    g = model.graph
    out: dict[str, bool] = {}
    stack = list(direct)
    while stack:
        cid = stack.pop()
        if cid in out:
            continue
        subs = g.subclasses.get(cid, [])
        out[cid] = bool(subs)
        stack.extend(subs)
    return out


_SCHEMA_CTOR = {"ChatCompletionToolParam", "ChatCompletionToolParamFunctionChunk",
                "FunctionDefinition", "ChatCompletionFunctionToolParam", "FunctionTool",
                "ToolParam"}
# what a schema tool does, from the name it gives the model (its only contract)
_NAME_CAPS = (
    (re.compile(r"bash|shell|terminal|\bcmd\b|command|execute_(?!ipython)|run_(cmd|command)", re.I),
     ("exec", "shell")),
    (re.compile(r"python|ipython|jupyter|(execute|run)_code|notebook", re.I), ("exec",)),
    (re.compile(r"brows|web_|fetch|url|http", re.I), ("network",)),
    (re.compile(r"edit|write|str_replace|patch|create_file|delete", re.I), ("fs_write",)),
)


def name_caps(name: str) -> set[str]:
    """The capabilities a tool's name says it has (for tools known only by their schema)."""
    return {cap for rx, cs in _NAME_CAPS if rx.search(name) for cap in cs}


def _schema_objects(index: RepoIndex):
    """Function-calling tool schemas built as objects (litellm/OpenAI ChatCompletionToolParam and
    friends), named by a literal or a constant; what the tool does is read from that name."""
    seen = set()
    for facts, c in index.calls_named(_SCHEMA_CTOR):
        name = c.kw("name")
        if name is None:
            continue
        value = _constant(index, facts, name.strip())
        if not value or (facts.path, value) in seen:
            continue
        seen.add((facts.path, value))
        caps = sorted(name_caps(value)) or ["read_only"]
        yield finding("tools.inventory", f"Tool schema {value!r} built by {c.raw}(...) "
                      f"({', '.join(caps)}).", facts.path, c.line, c.end_line, kind=_kind(),
                      name=value, registration="schema-object", capabilities=",".join(caps),
                      typed=True, params="", approval=None)


_LISTER = re.compile(r"(^|\.)list_tools\(\s*\)$")
_DISPATCHER = re.compile(r"(^|\.)call_tool\(")
_INPUT_SCHEMA = ("inputSchema", "input_schema")


def _mcp_listed_tools(index: RepoIndex, helpers):
    """Tools an MCP server on the low-level SDK lists (`@server.list_tools()` returning
    `Tool(name=..., inputSchema=...)`), each with the capabilities of its branch in the
    `@server.call_tool()` dispatcher (`case ToolName.X:` / `if name == "x":`)."""
    for facts in index.source_py():
        listers = [d for d in facts.defs if any(_LISTER.search(x) for x in d.decorators)]
        if not listers:
            continue
        dispatchers = [d for d in facts.defs if any(_DISPATCHER.search(x) for x in d.decorators)]
        for lister in listers:
            for c in _calls_in(facts, lister.qualname):
                if c.short != "Tool" or not any(c.kw(k) for k in _INPUT_SCHEMA):
                    continue
                expr = (c.kw("name") or "").strip()
                value = _constant(index, facts, expr) or _member(facts, expr)
                if not value:
                    continue
                caps = name_caps(value)
                for d in dispatchers:
                    caps |= _branch_caps(index, facts, d, expr, value, helpers)
                caps = caps - {"read_only"} or {"read_only"}
                schema = next(c.kw(k) for k in _INPUT_SCHEMA if c.kw(k))
                yield finding("tools.inventory", f"Tool {value!r} listed by the MCP server's "
                              f"{lister.name} ({', '.join(sorted(caps))}).", facts.path, c.line,
                              c.end_line, kind=_kind(), name=value, registration="mcp-list",
                              capabilities=",".join(sorted(caps)), typed=True,
                              params=_schema_fields(facts, schema), approval=None)


def _member(facts: PyFacts, expr: str) -> str | None:
    """The string value of `Cls.MEMBER` for a class of FACTS (an Enum of tool names)."""
    if expr.count(".") != 1:
        return None
    cls, attr = expr.split(".")
    for a in facts.assigns:
        if a.scope == cls and a.scope_kind == "class" and a.target == attr and a.value:
            v = a.value.strip()
            if len(v) >= 2 and v[0] in "\"'" and v[-1] == v[0]:
                return v[1:-1]
    return None


_BRANCH = re.compile(r"^\s*(case\b|elif\b|if\b)")


def _branch_caps(index: RepoIndex, facts: PyFacts, d: FuncDef, expr: str, value: str,
                 helpers) -> set[str]:
    """Capabilities of the calls in the dispatcher branch that handles the tool EXPR names
    (its name as written, or the literal VALUE): from that branch's line to the next one."""
    def line(i: int) -> str:
        return index.line(facts.path, i)

    def indent(i: int) -> int:
        return len(line(i)) - len(line(i).lstrip())

    names = {expr, repr(value), f'"{value}"'}
    start = next((i for i in range(d.line, d.end_line + 1)
                  if _BRANCH.match(line(i)) and any(n and n in line(i) for n in names)), None)
    if start is None:
        return set()
    end = next((i - 1 for i in range(start + 1, d.end_line + 1)
                if _BRANCH.match(line(i)) and indent(i) <= indent(start)), d.end_line)
    caps: set[str] = set()
    for c in _calls_in(facts, d.qualname):
        if start < c.line <= end:
            caps |= _call_caps(c)
            if helpers and c.short in helpers:
                caps |= helpers[c.short]
    return caps


def _schema_fields(facts: PyFacts, schema: str) -> str:
    """The argument names of a tool schema built from a model class (`X.model_json_schema()`,
    `X.schema()`) of FACTS, as `name:?` pairs."""
    m = re.match(r"^([A-Za-z_]\w*)\.(model_json_schema|schema)\(\)$", schema.strip())
    if not m:
        return ""
    fields = [a.target for a in facts.assigns if a.scope == m.group(1) and a.scope_kind == "class"
              and a.target.isidentifier()]
    return ",".join(f"{f}:?" for f in fields)[:400]


def _constant(index: RepoIndex, facts, text: str) -> str | None:
    """The string TEXT names: a literal, a module constant, or an imported constant."""
    if len(text) >= 2 and text[0] in "\"'" and text[-1] == text[0]:
        return text[1:-1]
    if not text.isidentifier():
        return None
    for a in facts.assigns:
        if a.scope_kind == "module" and a.target == text and a.value:
            v = a.value.strip()
            if len(v) >= 2 and v[0] in "\"'" and v[-1] == v[0]:
                return v[1:-1]
    origin = facts.imports.get(text)
    model = index.agent
    if origin and model is not None:
        hit = model.graph.modules.split(model.graph.modules.absolute(origin, facts.path))
        if hit and hit[1] and "." not in hit[1] and hit[0] in index.py:
            return _constant(index, index.py[hit[0]], hit[1]) if hit[0] != facts.path else None
    return None


def _kind():
    from ..models import Kind

    return Kind.verified
