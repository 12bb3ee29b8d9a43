"""Configuration defaults in TypeScript/JavaScript, read while the tree is at hand (ConfigDefault).

process.env reads and their fallbacks and zod `.default()` calls come from a second query, run
only on files whose bytes mention them (a mention in a comment or a string matches no pattern);
the pairs of DEFAULT_* / default*Settings object literals from a bounded walk over that literal.
"""

from __future__ import annotations

import re
import sys

import tree_sitter as ts

from .pyfacts import ConfigDefault, _text, resolve
from .tsnodes import key_text

_intern = sys.intern


def _f(node: ts.Node, name: str) -> ts.Node | None:
    return node.child_by_field_name(name)


_ENV_REF = re.compile(rb"\bprocess\s*\.\s*env\b")
_DEFAULT_CALL = re.compile(rb"\.\s*(default)\s*\(")
DEFAULTS_NAME = re.compile(
    r"^(?:DEFAULT_[A-Z0-9_]+|default[A-Za-z0-9]*(?:Settings|Config|Options))$")
_ENV_KEY = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_OBJECT_DEFAULTS_MAX = 2000  # pairs taken from one file's default objects
_OBJECT_DEPTH_MAX = 8


def _line(node: ts.Node) -> int:
    return node.start_point[0] + 1


# The patterns of code_defaults, run only on files whose bytes show an environment read or a
# `.default(` call. Every fact is then reached downwards from a captured node (children are
# cheap), never upwards: a parent lookup costs the node's depth, which hostile nesting makes huge.
DEFAULTS_QUERY = """
(member_expression object: (member_expression object: (identifier) property: (property_identifier))
                   property: (property_identifier)) @read
(subscript_expression object: (member_expression object: (identifier)
                                                  property: (property_identifier))
                      index: (string)) @read
(binary_expression operator: "??") @fallback
(binary_expression operator: "||") @fallback
(variable_declarator name: (object_pattern) value: (member_expression)) @destructure
(pair key: (_) value: (call_expression)) @schema
"""
_ENV_READ = re.compile(rb"process\s*\.\s*env\s*(?:\.|\[)")
_ENV_OBJECT = re.compile(rb"process\s*\.\s*env\s*$")
_CHAIN_MAX = 64


def code_defaults(src: bytes, root: ts.Node, query: ts.Query, imports: dict[str, str],
                  out: list[ConfigDefault], max_depth: int) -> None:
    """process.env reads (with their `??`/`||` fallback) and zod `.default()` defaults."""
    spans = [m.span() for m in _ENV_REF.finditer(src)]
    want_env = bool(spans)
    if any(o == "zod" or o.startswith(("zod.", "zod/")) for o in imports.values()):
        found = [m.span() for m in _DEFAULT_CALL.finditer(src)]
        want_zod = bool(found)
        spans += found
    else:
        want_zod = False
    if not spans:
        return
    cursor = ts.QueryCursor(query)
    cursor.set_max_start_depth(max_depth)
    # only nodes that overlap the mentions can be what is sought (a schema pair holds its
    # `.default(`, a fallback its read): the cursor skips the rest of the file
    cursor.set_byte_range(min(a for a, _ in spans), max(b for _, b in spans))
    caps = cursor.captures(root)
    if want_env:
        _env_defaults(src, caps, out)
    if want_zod:
        _zod_defaults(src, caps.get("schema", ()), imports, out)


def _span(node) -> tuple[int, int]:
    return node.start_byte, node.end_byte


def _env_defaults(src: bytes, caps: dict, out: list[ConfigDefault]) -> None:
    """process.env.X, process.env["X"] (with a `??`/`||` fallback when there is one) and
    `const {X = d} = process.env`."""
    fallbacks = {}
    for b in caps.get("fallback", ()):
        left, right = _f(b, "left"), _f(b, "right")
        if left is not None and right is not None:
            fallbacks[(left.start_byte, left.end_byte)] = right
    # in source order: the cursor's capture order varies from run to run on the same tree
    for read in sorted(caps.get("read", ()), key=_span):
        if not _ENV_READ.match(src, read.start_byte):
            continue
        key_node = _f(read, "property") if read.type == "member_expression" else _f(read, "index")
        if key_node is None:
            continue
        key = key_text(src, key_node)
        if not _ENV_KEY.match(key):
            continue
        right = fallbacks.get((read.start_byte, read.end_byte))
        if right is not None:
            out.append(ConfigDefault(key, _text(src, right), _line(right), "env"))
        else:
            out.append(ConfigDefault(key, None, _line(key_node), "env"))
    for decl in sorted(caps.get("destructure", ()), key=_span):
        value = _f(decl, "value")
        if value is None or not _ENV_OBJECT.match(src[value.start_byte:value.end_byte]):
            continue
        pattern = _f(decl, "name")
        for c in pattern.named_children if pattern is not None else ():
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


def _zod_defaults(src: bytes, pairs, imports: dict[str, str], out: list[ConfigDefault]) -> None:
    """`key: z.<type>()...default(v)...` inside an object literal (a zod object schema): the
    method chain of the pair's value is walked down to its root, which must come from zod."""
    for pair in pairs:
        node = _f(pair, "value")
        found = None  # (the outermost .default call, its `default` name): what applies
        for _ in range(_CHAIN_MAX):
            if node is None:
                break
            if node.type == "call_expression":
                fn = _f(node, "function")
                if fn is not None and fn.type == "member_expression":
                    prop = _f(fn, "property")
                    if found is None and prop is not None and \
                            src[prop.start_byte:prop.end_byte] == b"default":
                        found = (node, prop)
                    node = _f(fn, "object")
                else:
                    node = fn
            elif node.type == "member_expression":
                node = _f(node, "object")
            else:
                break
        if found is None or node is None or node.type != "identifier":
            continue
        if not resolve(_text(src, node), imports).startswith("zod"):
            continue
        key = _f(pair, "key")
        args = _f(found[0], "arguments")
        value = next((a for a in (args.named_children if args is not None else ())
                      if a.type != "comment"), None)
        if key is not None:
            out.append(ConfigDefault(key_text(src, key),
                                     _text(src, value) if value is not None else None,
                                     _line(found[1]), "zod"))


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
