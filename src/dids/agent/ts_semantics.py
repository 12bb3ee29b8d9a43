"""Library models for Node as data (`data/models/node/*.yaml`), applied to TypeScript/JavaScript
calls.

A row names what it matches in one of three ways:

- `module` + `call`: an export of a module as imported (`import {spawn} from "node:child_process"`,
  `import * as cp from "child_process"; cp.spawn(...)`, `const {exec} = require("child_process")`,
  `new StdioClientTransport()` from any subpath of "@modelcontextprotocol/sdk"); `call: ""` is
  the module's default export called itself (`execa(...)`, `axios(...)`);
- `global`: a callee no import or definition binds (`fetch`, `eval`, `new Function`, `import()`);
- `suffix` + `imports`: the last parts of a method call on an object of that library, in a file
  that imports it (`client.messages.create` with "@anthropic-ai/sdk" imported).

`util.promisify(exec)` bound to a name makes that name the wrapped export. Row options:
`code_arg` (the argument that must not be a literal: `eval("1")` runs no model code), `when_kw`
(an option the call must pass: `{modal: true}`). Every other key is an attribute of the meaning,
as in the Python models.
"""

from __future__ import annotations

import re
from functools import lru_cache

import yaml

from ..index.pyfacts import Call, PyFacts
from ..resources import data_files
from .semantics import Row

_SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_RESERVED = ("module", "call", "global", "suffix", "imports", "why")
_LITERAL = re.compile(r"""^(?:"[^"]*"|'[^']*'|`[^`$]*`)$""")
_PROMISIFY = re.compile(r"^(?:util\.)?promisify\(\s*([A-Za-z_$][\w$.]*)\s*\)$")


class NodeSemantics:
    def __init__(self):
        self.rows: list[Row] = []
        self.by_export: dict[str, list[Row]] = {}  # call (export path) -> rows
        self.by_global: dict[str, list[Row]] = {}
        self.by_last: dict[str, list[Row]] = {}  # last part of a suffix -> rows
        self.lasts: set[str] = set()  # every last name any row can match

    def add(self, row: Row) -> None:
        self.rows.append(row)
        g = row.get("global")
        if g:
            self.by_global.setdefault(g, []).append(row)
            self.lasts.add(g.rsplit(".", 1)[-1])
        elif row.suffix:
            self.by_last.setdefault(row.suffix[-1], []).append(row)
            self.lasts.add(row.suffix[-1])
        else:
            self.by_export.setdefault(row.call or "", []).append(row)
            self.lasts.add((row.call or "").rsplit(".", 1)[-1] if row.call else "")


@lru_cache(maxsize=1)
def load() -> NodeSemantics:
    sem = NodeSemantics()
    for name, f in data_files("models", ".yaml", recursive=True):
        if not name.startswith("node/"):
            continue
        data = yaml.load(f.read_text(encoding="utf-8"), Loader=_SAFE_LOADER) or {}
        kind = data["kind"]
        for raw in data.get("rows", ()):
            call = raw.get("call")
            call = "" if call is None and "module" in raw else call
            suffix = tuple(str(raw["suffix"]).split(".")) if raw.get("suffix") else ()
            module, glob = raw.get("module"), raw.get("global")
            if not (module or glob or suffix):
                raise ValueError(f"{name}: a row needs module, global or suffix: {raw}")
            ident = glob or (".".join(suffix) if suffix else f"{module}:{call}")
            attrs = tuple(sorted((k, v) for k, v in raw.items() if k not in _RESERVED))
            attrs += (("module", module),) if module else ()
            attrs += (("global", glob),) if glob else ()
            sem.add(Row(kind=kind, id=f"{kind}:{ident}", call=call if module else None,
                        suffix=suffix, imports=tuple(raw.get("imports", ())),
                        why=str(raw.get("why", "")), attrs=attrs))
    return sem


def _module_matches(spec: str, module: str) -> bool:
    return spec == module or spec.startswith(module + "/")


class _FileView:
    """What one file imports, for matching its calls (built once per file)."""

    __slots__ = ("specs", "aliases", "imported", "names")

    def __init__(self, facts: PyFacts):
        self.specs = sorted((k[8:] for k in facts.imports if k.startswith("<module>")),
                            key=len, reverse=True)
        self.imported = set(self.specs)
        self.names = {d.name for d in facts.defs if "." not in d.qualname} | \
            {c.name for c in facts.classes}
        self.aliases: dict[str, str] = {}
        for a in facts.assigns:
            if a.value and a.target.isidentifier():
                m = _PROMISIFY.match(a.value.strip())
                if m:
                    head = m.group(1).split(".", 1)[0]
                    origin = facts.imports.get(head)
                    if origin is not None:
                        self.aliases[a.target] = origin + m.group(1)[len(head):]

    def split(self, origin: str) -> tuple[str, str] | None:
        for spec in self.specs:
            if origin == spec:
                return spec, ""
            if origin.startswith(spec + "."):
                return spec, origin[len(spec) + 1:]
        return None


_views: dict[int, tuple[PyFacts, _FileView]] = {}


def file_view(facts: PyFacts) -> _FileView:
    hit = _views.get(id(facts))
    if hit is not None and hit[0] is facts:
        return hit[1]
    if len(_views) > 50_000:
        _views.clear()
    v = _FileView(facts)
    _views[id(facts)] = (facts, v)
    return v


def match(facts: PyFacts, call: Call, kind: str | None = None) -> list[Row]:
    """The rows CALL in FACTS matches, of KIND when given."""
    sem = load()
    view = file_view(facts)
    raw = call.raw[4:] if call.raw.startswith("new ") else call.raw
    head = raw.split(".", 1)[0].split("(", 1)[0]
    callee = call.callee
    if head in view.aliases:
        callee = view.aliases[head] + raw[len(head):]
    out: list[Row] = []
    if head in facts.imports or head in view.aliases:
        got = view.split(callee)
        if got is not None:
            spec, rest = got
            cands = sem.by_export.get(rest, ())
            if rest.startswith("default."):
                cands = list(cands) + list(sem.by_export.get(rest[8:], ()))
            for r in cands:
                if _module_matches(spec, r.get("module")):
                    out.append(r)
    elif head not in view.names:
        out.extend(sem.by_global.get(raw.split("(", 1)[0], ()))
    for r in sem.by_last.get(call.short, ()):
        parts = raw.split(".")
        if tuple(parts[-len(r.suffix):]) != r.suffix:
            continue
        if r.imports and not any(_module_matches(s, m) for s in view.imported for m in r.imports):
            continue
        out.append(r)
    if kind is not None:
        out = [r for r in out if r.kind == kind]
    return [r for r in out if _conditions(r, call)]


def _conditions(row: Row, call: Call) -> bool:
    code_arg = row.get("code_arg")
    if code_arg is not None:
        if not call.args:
            return False
        a = call.args[code_arg] if -len(call.args) <= code_arg < len(call.args) else None
        if a is None or _LITERAL.match(a.strip()):
            return False  # a literal runs no model-written code
    when = row.get("when_kw")
    if isinstance(when, dict):
        for k, v in when.items():
            if (call.kw(str(k)) or "").strip() != str(v):
                return False
    return True


def matches(index) -> dict[str, list]:
    """(facts, call, row) per kind for every live TypeScript/JavaScript call a row matches, in
    source order; INDEX is a TypeScript view (ts_view), its `py` the TypeScript facts."""
    key = ("_ts_semantic_matches",)
    got = index._search_cache.get(key)
    if got is not None:
        return got  # type: ignore[return-value]
    sem = load()
    lasts = sem.lasts
    out: dict[str, list] = {}
    # every call in source order (what calls_where(lambda n: True) gives, without regrouping
    # and sorting a hundred thousand calls)
    for facts, call in ((f, c) for f in index.source_py() for c in f.calls):
        if call.short not in lasts:
            head = call.raw[4:] if call.raw.startswith("new ") else call.raw
            if head.split(".", 1)[0] not in facts.imports and \
                    head.split(".", 1)[0] not in file_view(facts).aliases:
                continue
        for row in match(facts, call):
            out.setdefault(row.kind, []).append((facts, call, row))
            break
    index._search_cache[key] = out  # type: ignore[assignment]
    return out
