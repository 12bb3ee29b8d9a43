"""Readers of single TypeScript/JavaScript syntax nodes: names, callees, parameters, imports.

Each looks at one node and its direct children (or, for a binding, a few parents); none walks a
subtree. Conventions are those of tsfacts' docstring.
"""

from __future__ import annotations

import re
import sys

import tree_sitter as ts

from .pyfacts import Param, _built, _text

_intern = sys.intern
_MODULE_EXPORTS = re.compile(r"^(?:module\s*\.\s*)?exports\s*=")
_AWAIT = re.compile(r"\bawait\s+")
_SPACE = re.compile(r"\s+")
_NON_NULL = re.compile(r"!(?=[.\[(]|$)")


def callee_text(src: bytes, node: ts.Node) -> str:
    """An expression as a dotted name: no `await`, optional chaining as plain dots, no non-null
    assertions or whitespace, a parenthesised head unwrapped (`(await f()).g` -> `f().g`)."""
    t = _text(src, node)
    if "await" in t:
        t = _AWAIT.sub("", t)
    if " " in t or "\n" in t or "\t" in t or "\r" in t:
        t = _SPACE.sub("", t)
    if "?." in t:
        t = t.replace("?.(", "(").replace("?.[", "[").replace("?.", ".")
    if "!" in t:
        t = _NON_NULL.sub("", t)
    if t.startswith("("):  # (x).y -> x.y when the first group closes before the rest
        depth = 0
        for i, ch in enumerate(t):
            depth += (ch == "(") - (ch == ")")
            if depth == 0:
                if i + 1 == len(t) or t[i + 1] in ".[(":
                    t = t[1:i] + t[i + 1:]
                break
    return _intern(t)


def module_spec(src: bytes, string_node: ts.Node) -> str:
    """A module specifier as written, without quotes or a `node:` prefix."""
    spec = _text(src, string_node)[1:-1]
    return _intern(spec[5:] if spec.startswith("node:") else spec)


def key_text(src: bytes, key: ts.Node) -> str:
    """A property key: a string key without its quotes, others as written."""
    if key.type == "string":
        return _intern(_text(src, key)[1:-1])
    return _text(src, key)


def annotation(src: bytes, node: ts.Node | None) -> str | None:
    """A type annotation without its colon."""
    if node is None:
        return None
    return _intern(_text(src, node).lstrip(":").strip())


def object_pairs(src: bytes, obj: ts.Node) -> list[tuple[str, str]]:
    """The top-level entries of an object literal as (key, value text): shorthand `{env}` is
    ("env", "env"), a spread `...x` is ("**", "x"), a method its own text."""
    out = []
    for c in obj.named_children:
        t = c.type
        if t == "pair":
            k, v = c.child_by_field_name("key"), c.child_by_field_name("value")
            if k is not None and v is not None:
                out.append((key_text(src, k), _text(src, v)))
        elif t == "shorthand_property_identifier":
            name = _text(src, c)
            out.append((name, name))
        elif t == "spread_element":
            out.append(("**", _intern(_text(src, c)[3:].strip())))
        elif t == "method_definition":
            name = c.child_by_field_name("name")
            if name is not None:
                out.append((key_text(src, name), _text(src, c)))
    return out


def params(src: bytes, fn: ts.Node) -> tuple[Param, ...]:
    single = fn.child_by_field_name("parameter")  # `x => ...`
    if single is not None:
        return (_built(Param, name=_text(src, single), annotation=None, default=None),)
    plist = fn.child_by_field_name("parameters")
    if plist is None:
        return ()
    out = []
    for p in plist.named_children:
        t = p.type
        name_node = ann = default = None
        if t == "required_parameter" or t == "optional_parameter":  # TypeScript
            name_node = p.child_by_field_name("pattern")
            ann = p.child_by_field_name("type")
            default = p.child_by_field_name("value")
        elif t == "identifier" or t == "rest_pattern" or t == "object_pattern" or \
                t == "array_pattern":
            name_node = p
        elif t == "assignment_pattern":  # JavaScript `b = 2`
            name_node, default = p.child_by_field_name("left"), p.child_by_field_name("right")
        if name_node is None:
            continue  # comments, decorators
        out.append(_built(Param, name=_text(src, name_node),
                          annotation=annotation(src, ann) if ann is not None else None,
                          default=_text(src, default) if default is not None else None))
    return tuple(out)


_MODIFIERS = ("decorator", "accessibility_modifier", "override_modifier")


def is_async(node: ts.Node) -> bool:
    # `async` is a token before the name or the parameters, after modifiers (`private static`)
    for c in node.children[:6]:
        if c.type == "async":
            return True
        if c.is_named and c.type not in _MODIFIERS:
            return False
    return False


def decorators(src: bytes, node: ts.Node) -> tuple[str, ...]:
    """Decorators of a class or method: its own `decorator` children (JavaScript; TypeScript
    classes), those of an enclosing export statement, and (TypeScript methods) the decorator
    siblings just before it in the class body."""
    found = [c for c in node.children if c.type == "decorator"]
    parent = node.parent
    if parent is not None and parent.type == "export_statement":
        found = [c for c in parent.children if c.type == "decorator"] + found
    elif node.type == "method_definition":
        before = []
        sib = node.prev_named_sibling
        while sib is not None and sib.type == "decorator":
            before.append(sib)
            sib = sib.prev_named_sibling
        found = before[::-1] + found
    return tuple(_intern(_text(src, d)[1:].strip()) for d in found)


def binding_name(src: bytes, owner: ts.Node) -> str | None:
    """The name a function, class or object literal is bound to by its OWNER node."""
    t = owner.type
    if t == "variable_declarator":
        n = owner.child_by_field_name("name")
        return _text(src, n) if n is not None and n.type == "identifier" else None
    if t == "pair":
        k = owner.child_by_field_name("key")
        return key_text(src, k) if k is not None else None
    if t == "assignment_expression":
        left = owner.child_by_field_name("left")
        return callee_text(src, left).rsplit(".", 1)[-1] if left is not None else None
    if t == "public_field_definition" or t == "field_definition":
        n = owner.child_by_field_name("name") or owner.child_by_field_name("property")
        return _text(src, n) if n is not None else None
    if t == "export_statement":
        return "default"
    if t == "internal_module":  # TypeScript namespace
        n = owner.child_by_field_name("name")
        return _text(src, n) if n is not None else None
    return None


def owned_value(owner: ts.Node) -> ts.Node | None:
    """The function, class or object an OWNER binds."""
    if owner.type == "assignment_expression":
        return owner.child_by_field_name("right")
    return owner.child_by_field_name("value")


def exports_object(src: bytes, owner: ts.Node) -> bool:
    """Whether OWNER is `module.exports = {...}` / `exports = {...}`."""
    return owner.type == "assignment_expression" and bool(_MODULE_EXPORTS.match(_text(src, owner)))


def require_binding(src: bytes, call: ts.Node, module: str, out: dict[str, str]) -> None:
    """Names bound by `const x = require("m")`, `const {a, b: c} = require("m")`,
    `const x = require("m").y` and `const x = await import("m")`."""
    node, parent, attr = call, call.parent, None
    if parent is not None and parent.type == "await_expression":
        node, parent = parent, parent.parent
    if parent is not None and parent.type == "member_expression" and \
            parent.child_by_field_name("object") == node:
        prop = parent.child_by_field_name("property")
        attr = _text(src, prop) if prop is not None else None
        node, parent = parent, parent.parent
    if parent is None or parent.type != "variable_declarator" or \
            parent.child_by_field_name("value") != node:
        return
    name = parent.child_by_field_name("name")
    origin = f"{module}.{attr}" if attr else module
    if name is None:
        return
    if name.type == "identifier":
        out[_text(src, name)] = _intern(origin)
        return
    if name.type != "object_pattern":
        return
    for c in name.named_children:
        if c.type == "object_assignment_pattern":  # `{a = d}`: still a
            c = c.child_by_field_name("left") or c
        if c.type == "shorthand_property_identifier_pattern":
            n = _text(src, c)
            out[n] = _intern(f"{origin}.{n}")
        elif c.type == "pair_pattern":
            k, v = c.child_by_field_name("key"), c.child_by_field_name("value")
            if v is not None and v.type == "object_assignment_pattern":
                v = v.child_by_field_name("left")
            if k is not None and v is not None and v.type == "identifier":
                out[_text(src, v)] = _intern(f"{origin}.{key_text(src, k)}")


def esm_import(src: bytes, node: ts.Node, out: dict[str, str]) -> None:
    """The bindings of one import statement (ESM, or TypeScript `import x = require()`)."""
    clause_require = next((c for c in node.named_children if c.type == "import_require_clause"),
                          None)
    if clause_require is not None:
        source = clause_require.child_by_field_name("source")
        ident = next((c for c in clause_require.named_children if c.type == "identifier"), None)
        if source is not None:
            module = module_spec(src, source)
            out["<module>" + module] = module
            if ident is not None:
                out[_text(src, ident)] = module
        return
    source = node.child_by_field_name("source")
    if source is None:
        return
    module = module_spec(src, source)
    out["<module>" + module] = module
    for clause in node.named_children:
        if clause.type != "import_clause":
            continue
        for part in clause.named_children:
            if part.type == "identifier":  # default import
                out[_text(src, part)] = module
            elif part.type == "namespace_import":
                ident = next((c for c in part.named_children if c.type == "identifier"), None)
                if ident is not None:
                    out[_text(src, ident)] = module
            elif part.type == "named_imports":
                for spec in part.named_children:
                    if spec.type != "import_specifier":
                        continue
                    name = spec.child_by_field_name("name")
                    alias = spec.child_by_field_name("alias")
                    if name is None:
                        continue
                    out[_text(src, alias or name)] = _intern(f"{module}.{key_text(src, name)}")


def string_arg(src: bytes, args: ts.Node | None) -> str | None:
    """The first argument as a module specifier when it is a string literal."""
    if args is None or args.type != "arguments":
        return None
    first = next((a for a in args.named_children if a.type != "comment"), None)
    if first is None or first.type != "string":
        return None
    return module_spec(src, first)
