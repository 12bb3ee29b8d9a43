"""Configuration defaults in TypeScript/JavaScript, read while the tree is at hand (ConfigDefault).

process.env reads and their fallbacks and zod `.default()` calls are found by a byte search, each
match then checked in the tree (a match in a comment or a string is not the syntax sought); the
pairs of DEFAULT_* / default*Settings object literals by a bounded walk over that literal only.
"""

from __future__ import annotations

import re
import sys

import tree_sitter as ts

from .pyfacts import ConfigDefault, _text, resolve
from .tsnodes import key_text

_intern = sys.intern
_SPACE = re.compile(r"\s+")


def _f(node: ts.Node, name: str) -> ts.Node | None:
    return node.child_by_field_name(name)


_ENV_REF = re.compile(rb"\bprocess\s*\.\s*env\b")
_DEFAULT_CALL = re.compile(rb"\.\s*(default)\s*\(")
DEFAULTS_NAME = re.compile(r"^(?:DEFAULT_[A-Z0-9_]+|default[A-Za-z0-9]*(?:Settings|Config|Options))$")
_ENV_KEY = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_OBJECT_DEFAULTS_MAX = 2000  # pairs taken from one file's default objects
_OBJECT_DEPTH_MAX = 8


def _line(node: ts.Node) -> int:
    return node.start_point[0] + 1


def env_defaults(src: bytes, root: ts.Node, out: list[ConfigDefault]) -> None:
    """process.env.X, process.env["X"] (with a `??`/`||` fallback when there is one) and
    `const {X = d} = process.env`. Found by a byte search, each match checked in the tree (a
    match in a comment or string is not a `process` identifier)."""
    for m in _ENV_REF.finditer(src):
        ident = root.descendant_for_byte_range(m.start(), m.start() + 7)
        if ident is None or ident.type != "identifier":
            continue
        env = ident.parent
        if env is None or env.type != "member_expression" or _f(env, "object") != ident:
            continue
        use = env.parent
        if use is None:
            continue
        if use.type == "variable_declarator" and _f(use, "value") == env:
            pattern = _f(use, "name")
            if pattern is None or pattern.type != "object_pattern":
                continue
            for c in pattern.named_children:
                key = dflt = None
                if c.type == "shorthand_property_identifier_pattern":
                    key = c
                elif c.type == "object_assignment_pattern":
                    key, dflt = _f(c, "left"), _f(c, "right")
                elif c.type == "pair_pattern":
                    key, val = _f(c, "key"), _f(c, "value")
                    if val is not None and val.type == "object_assignment_pattern":
                        dflt = _f(val, "right")
                if key is None:
                    continue
                name = key_text(src, key)
                if _ENV_KEY.match(name):
                    out.append(ConfigDefault(name, _text(src, dflt) if dflt is not None else None,
                                             _line(dflt if dflt is not None else key), "env"))
            continue
        if use.type == "member_expression" and _f(use, "object") == env:
            key_node = _f(use, "property")
        elif use.type == "subscript_expression" and _f(use, "object") == env:
            key_node = _f(use, "index")
            if key_node is None or key_node.type != "string":
                continue
        else:
            continue
        if key_node is None:
            continue
        key = key_text(src, key_node)
        if not _ENV_KEY.match(key):
            continue
        value, line = None, _line(key_node)
        outer = use.parent
        while outer is not None and outer.type == "non_null_expression":
            use, outer = outer, outer.parent
        if outer is not None and outer.type == "binary_expression" and _f(outer, "left") == use:
            op = _f(outer, "operator")
            right = _f(outer, "right")
            if op is not None and op.type in ("??", "||") and right is not None:
                value, line = _text(src, right), _line(right)
        out.append(ConfigDefault(key, value, line, "env"))


def zod_defaults(src: bytes, root: ts.Node, imports: dict[str, str],
                  out: list[ConfigDefault]) -> None:
    """`key: z.<type>()...default(v)...` inside an object literal (a zod object schema)."""
    if not any(o == "zod" or o.startswith(("zod.", "zod/")) for o in imports.values()):
        return
    for m in _DEFAULT_CALL.finditer(src):
        prop = root.descendant_for_byte_range(m.start(1), m.end(1))
        if prop is None or prop.type != "property_identifier":
            continue
        member = prop.parent
        call = member.parent if member is not None else None
        if call is None or call.type != "call_expression" or _f(call, "function") != member:
            continue
        args = _f(call, "arguments")
        value = next((a for a in (args.named_children if args is not None else ())
                      if a.type != "comment"), None)
        # climb the method chain (`.default(1).describe("...")`) to what holds it
        node = call
        for _ in range(64):
            up = node.parent
            if up is None:
                break
            if up.type == "member_expression" and _f(up, "object") == node:
                node = up
            elif up.type == "call_expression" and _f(up, "function") == node:
                node = up
            else:
                break
        pair = node.parent
        if pair is None or pair.type != "pair" or _f(pair, "value") != node:
            continue
        head = _SPACE.sub("", _text(src, node)).split(".", 1)[0].split("(", 1)[0]
        if not resolve(head, imports).startswith("zod"):
            continue
        key = _f(pair, "key")
        if key is None:
            continue
        out.append(ConfigDefault(key_text(src, key),
                                 _text(src, value) if value is not None else None,
                                 _line(prop), "zod"))


def object_defaults(src: bytes, name: str, obj: ts.Node, out: list[ConfigDefault]) -> None:
    """The pairs of a DEFAULT_* / default*Settings object literal, nested objects as dotted
    keys (a bounded walk over that literal only)."""
    stack = [("", obj, 0)]
    taken = 0
    while stack and taken < _OBJECT_DEFAULTS_MAX:
        prefix, node, depth = stack.pop()
        found = []
        for c in node.named_children:
            if c.type == "pair":
                k, v = _f(c, "key"), _f(c, "value")
                if k is None or v is None:
                    continue
                key = f"{prefix}{key_text(src, k)}"
                while v.type in ("as_expression", "satisfies_expression") and v.named_children:
                    v = v.named_children[0]
                if v.type == "object" and depth < _OBJECT_DEPTH_MAX:
                    stack.append((key + ".", v, depth + 1))
                else:
                    found.append(ConfigDefault(_intern(key), _text(src, v), _line(v), "object",
                                               var=_intern(f"{name}.{key}")))
        taken += len(found)
        out.extend(found)
    out.sort(key=lambda d: d.line)


def unwrap_object(value: ts.Node | None) -> ts.Node | None:
    while value is not None and value.type in ("as_expression", "satisfies_expression"):
        value = value.named_children[0] if value.named_children else None
    return value if value is not None and value.type == "object" else None
