"""Configuration keys and their shipped defaults in TypeScript/JavaScript code and Node manifests.

From code (source "code"): `process.env.X ?? d` / `|| d` / `process.env["X"]` / `const {X = d} =
process.env` (a read without a fallback has value None), zod `.default(v)` on an object schema
property, the pairs of DEFAULT_* / default*Settings object literals (nested keys dotted, `var` the
last part) and UPPER_CASE module constants with literal values. From manifests (source
"manifest"): VS Code `contributes.configuration` defaults (key = the setting id) and the
`default` of every property of a `*.schema.json` JSON schema (nested properties dotted).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from .configs import Setting
from .jsonlines import JsonArray, JsonObject, loads, scalar_text

if TYPE_CHECKING:
    from .repo import RepoIndex

_CONST = re.compile(r"^[A-Z][A-Z0-9_]{2,}$")
_LITERAL = re.compile(r"""^(?:-?\d[\d_.]*(?:[eE][+-]?\d+)?|true|false|null|undefined|"[^"\n]*"|"""
                      r"""'[^'\n]*'|`[^`$\n]*`)$""")
# a constant initialised by an environment read, maybe converted: `X = Number(process.env.Y ?? 1)`
_ENV_VALUE = re.compile(
    r"^(?:(?:Number|parseInt|parseFloat|String|Boolean)\s*\(\s*)?process\s*\.\s*env\b")
# what a source holding settings shows (an environment read, a zod default, a defaults object);
# on a Python-scored repository only these TypeScript/JavaScript sources are parsed
_SETTINGS_HINT = re.compile(r"process\.env|\.default\(|DEFAULT_|[dD]efault\w*Settings")
_SCHEMA_MAX_SETTINGS = 5000
_SCHEMA_DEPTH = 16


def holds_settings(text: str) -> bool:
    """Whether a TypeScript/JavaScript source may hold settings with shipped defaults."""
    return bool(_SETTINGS_HINT.search(text))


def js_value(text: str | None) -> str | None:
    """A default's source text as its value: quotes of a plain string literal removed."""
    if text is None:
        return None
    v = text.strip()
    if len(v) >= 2 and v[0] == v[-1] and v[0] in "\"'`" and not (v[0] == "`" and "${" in v):
        return v[1:-1]
    return v


def code_settings_ts(index: "RepoIndex") -> list[Setting]:
    out: list[Setting] = []
    for facts in index.source_ts():
        module_assigns = [a for a in facts.assigns if a.scope_kind == "module"]
        for d in facts.defaults:
            var = d.var.rsplit(".", 1)[-1] if d.var else None
            if d.form == "env":  # bound to the module constant it initialises, as in Python
                var = next((a.target for a in module_assigns if a.line <= d.line <= a.end_line
                            and a.target.isidentifier() and _ENV_VALUE.match(a.value or "")),
                           None)
            out.append(Setting(d.key, js_value(d.value), facts.path, d.line, "code", var=var))
        for a in module_assigns:
            if _CONST.match(a.target) and a.value and _LITERAL.match(a.value.strip()):
                out.append(Setting(a.target, js_value(a.value), facts.path, a.line, "code",
                                   var=a.target))
    return out


def manifest_settings(index: "RepoIndex") -> list[Setting]:
    out: list[Setting] = []
    for pkg in index.node_packages:
        if pkg.vscode is None:
            continue
        for e in pkg.vscode.configuration:
            out.append(Setting(e.name, e.value, e.path, e.line, "manifest"))
    return out


def schema_settings(path: str, text: str) -> list[Setting]:
    """The `default` of every property of a JSON schema, nested properties as dotted keys."""
    doc = loads(text)
    if not isinstance(doc, (JsonObject, JsonArray)):
        return []
    out: list[Setting] = []
    stack: list[tuple[str, object, int]] = [("", doc, 0)]
    while stack and len(out) < _SCHEMA_MAX_SETTINGS:
        prefix, node, depth = stack.pop()
        if depth > _SCHEMA_DEPTH:
            continue
        if isinstance(node, JsonArray):
            stack.extend((prefix, v, depth + 1) for v in node)
            continue
        if not isinstance(node, JsonObject):
            continue
        props = node.get("properties")
        for key, value in node.items():
            if key == "properties" and isinstance(props, JsonObject):
                for name, spec in props.items():
                    dotted = f"{prefix}{name}"
                    if isinstance(spec, JsonObject) and "default" in spec:
                        out.append(Setting(dotted, scalar_text(spec["default"]), path,
                                           spec.line_of("default"), "manifest",
                                           var=name if prefix else None))
                    stack.append((dotted + ".", spec, depth + 1))
            elif isinstance(value, (JsonObject, JsonArray)) and key != "default":
                stack.append((prefix, value, depth + 1))  # definitions, allOf, items ...
    return sorted(out, key=lambda s: s.line)


def node_settings(index: "RepoIndex", blobs: dict[str, bytes], wanted) -> list[Setting]:
    out = code_settings_ts(index) + manifest_settings(index)
    for e in wanted:
        rec = index.files.get(e.path)
        if rec is not None and rec.role == "config" and e.path.endswith(".schema.json"):
            out.extend(schema_settings(e.path, blobs.get(e.sha, b"").decode("utf-8", "replace")))
    return out
