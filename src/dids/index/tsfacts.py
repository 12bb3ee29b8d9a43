"""One tree-sitter parse per TypeScript/JavaScript file, reduced to the facts pyfacts gives Python.

The facts are pyfacts' own dataclasses (`PyFacts` with `lang` "typescript" or "javascript"), so
the layers above read both languages alike. As in pyfacts, facts are pulled with one tree-sitter
query per file (matched in C, tsgrammar), captures are sorted by start byte (captures() does not
keep document order) and nesting is resolved by a sweep over byte ranges; nothing recurses on the
tree. Readers of single nodes are in tsnodes, configuration defaults in tsdefaults.

Conventions where JavaScript has no Python counterpart:

- imports: `import x from "m"`, `import * as x from "m"`, `import x = require("m")`,
  `const x = require("m")` and `const x = await import("m")` map x -> "m" (a default export
  stands for the module, as `require` returns it); `import {a as b} from "m"` and
  `const {a: b} = require("m")` map b -> "m.a"; `require("m").a` bound to x maps x -> "m.a".
  `node:` prefixes are dropped; module specifiers are kept as written ("./tools/bash.js",
  "@scope/pkg/sub"), so a dotted origin can hold dots of its own: every imported or re-exported
  specifier is also a key "<module>" + specifier (as pyfacts does for `import a.b`), so the
  module part of an origin is its longest "<module>" key that prefixes it.
- calls: `new X(...)` is a Call whose `raw` starts with "new " (callee is the resolved X, like a
  Python constructor call). Callee text drops `await`, optional chaining (`a?.b` -> `a.b`),
  non-null assertions (`a!.b`), whitespace and a parenthesised head (`(await f()).g` -> `f().g`).
  `args` holds every argument's text in order (object literals included, so positions hold); an
  object-literal argument also adds its top-level pairs to `kwargs`: `key: v` -> ("key", "v"),
  shorthand `{env}` -> ("env", "env"), spread `...x` -> ("**", "x"), a method `m() {}` ->
  ("m", its text). A tagged template (`` $`ls` ``) is a call with the template as its one arg.
- functions: declarations, class and object-literal methods, and function/arrow expressions
  bound to a const/let/var, an object property, a class field, an assignment target (its last
  dotted part: `exports.run = () => {}` is "run") or `export default` ("default"). An object
  literal bound to a name (`const tools = { run() {} }`) or a TypeScript namespace prefixes the
  qualnames inside ("tools.run") but is neither a function nor a class. An anonymous function
  passed straight to a call is a function named after the call in angle brackets:
  `server.tool("x", s, async () => {...})` holds "<server.tool>" (nothing can reference that name:
  it is as live as the call). Other anonymous functions are not scopes: their calls belong to the
  enclosing function, or to the module.
- params: name as written for patterns ("{a, b}", "...rest"), annotation without its colon.
- classes: `bases` are the `extends` clause, `implements` the TypeScript implements clause, both
  resolved through imports. Class decorators include those written before `export`.
- assigns: module-level const/let/var declarators and assignment statements, `export default`
  (target "default"), class fields (scope the class) and statements directly in a function body
  (declarations and assignments, `this.x = ...` included; scope the function).
- prose_lines: lines wholly inside comments (JSDoc blocks included).
- idents: left empty (Python's dead-code checks read them; TypeScript liveness is reach).
- defaults: process.env reads with their `??`/`||` fallback, zod `.default(v)` on an object
  property and the pairs of DEFAULT_* / default*Settings object literals (see ConfigDefault).
"""

from __future__ import annotations

import bisect
import re
import sys

import tree_sitter as ts

from .pyfacts import (_MAX_DEPTH, _TEXT_MAX, Assign, Call, ClassDef, ConfigDefault, FuncDef,
                      PyFacts, _bounded_parse, _built, _text, resolve)
from .tsblocks import blocks as _blocks
from .tsdefaults import DEFAULTS_NAME, code_defaults, object_defaults, unwrap_object
from .tsgrammar import FACT_LANG, GRAMMAR_OF_SUFFIX, grammar, grammar_for, is_ts_path
from .tsnodes import (annotation, binding_name, callee_text, decorators, esm_import,
                      exports_object, is_async, key_text, module_spec, object_pairs, owned_value,
                      params, require_binding, string_arg)

__all__ = ["GRAMMAR_OF_SUFFIX", "extract_ts", "grammar", "grammar_for", "is_ts_path"]

_intern = sys.intern


class _Scopes:
    """Named scopes (functions, classes, bound object literals) nested by byte range."""

    def __init__(self) -> None:
        self.spans: list[tuple[int, int, str, str]] = []  # (start, end, qualname, kind)
        self.parents: list[int] = []
        self.starts: list[int] = []

    def build(self, raw: list[tuple[int, int, str, str, object]]
              ) -> list[tuple[str, str, str, str | None, object]]:
        """RAW: (start, end, name, kind, payload). Returns (name, qualname, kind, enclosing
        class, payload) for each, in source order."""
        raw.sort(key=lambda x: (x[0], -x[1]))
        stack: list[int] = []
        out = []
        for start, end, name, kind, payload in raw:
            while stack and self.spans[stack[-1]][1] <= start:
                stack.pop()
            parent = stack[-1] if stack else -1
            qual = f"{self.spans[parent][2]}.{name}" if parent >= 0 else name
            in_class = parent >= 0 and self.spans[parent][3] == "class"
            cls = self.spans[parent][2] if in_class else None
            self.spans.append((start, end, _intern(qual), kind))
            self.parents.append(parent)
            stack.append(len(self.spans) - 1)
            out.append((name, self.spans[-1][2], kind, cls, payload))
        self.starts = [s[0] for s in self.spans]
        return out

    def enclosing(self, start: int, end: int = -1) -> tuple[str | None, str | None]:
        """(function qualname, class qualname) of the innermost scopes holding [start, end),
        the scope whose range is exactly that one excluded (a bound function is not inside
        itself); pyfacts' rule: the innermost class, and the innermost function inside it."""
        spans, parents = self.spans, self.parents
        i = bisect.bisect_right(self.starts, start) - 1
        while i >= 0 and (start >= spans[i][1] or (spans[i][0] == start and spans[i][1] == end)):
            i = parents[i]
        func = None
        while i >= 0:
            _s, _e, q, k = spans[i]
            if k == "class":
                return func, q
            if func is None and k == "function":
                func = q
            i = parents[i]
        return func, None


_CALL_ARGS = re.compile(r"\([^()]+\)")


_LABEL_UNSAFE = re.compile(r"[^\w-]")


def _short_label(callee: str) -> str:
    """A callee without its inner calls' arguments (`a.b("x").c` -> `a.b().c`), bounded."""
    for _ in range(8):
        shorter = _CALL_ARGS.sub("()", callee)
        if shorter == callee:
            break
        callee = shorter
    return callee[:80]


def _outer_first(node: ts.Node) -> tuple[int, int]:
    return node.start_byte, -node.end_byte


def extract_ts(path: str, src: bytes) -> PyFacts:
    """Parse a TypeScript/JavaScript file once and return its facts."""
    name = grammar_for(path) or "typescript"
    g = grammar(name)
    facts = PyFacts(path=path, lines=src.count(b"\n") + 1, lang=FACT_LANG[name])
    tree, src, left_out = _bounded_parse(src, g.language, g.label)
    if tree is None:
        facts.has_error, facts.skipped = True, left_out
        return facts
    root = tree.root_node
    facts.has_error = root.has_error or bool(left_out)
    facts.partial = left_out
    cursor = ts.QueryCursor(g.query)
    cursor.set_max_start_depth(_MAX_DEPTH)
    caps = cursor.captures(root)
    # chained calls share a start byte: the outer one first, every time
    calls = sorted(caps.get("call", ()), key=_outer_first)
    _imports(src, caps, calls, facts.imports)
    facts.prose_lines = _prose(src, caps.get("comment", ()))
    scopes = _Scopes()
    functions = _definitions(src, caps, scopes, facts)
    facts.calls = _calls(src, calls, scopes, facts.imports)
    facts.blocks = _blocks(src, caps, scopes.enclosing)
    defaults: list[ConfigDefault] = []
    facts.assigns = _assigns(src, root, functions, caps.get("assign.field", ()), scopes, defaults)
    code_defaults(src, root, g.defaults_query, facts.imports, defaults, _MAX_DEPTH)
    defaults.sort(key=lambda d: d.line)
    facts.defaults = tuple(defaults)
    # idents stay empty: identifier counts serve Python's dead-code and liveness checks only
    # (the TypeScript side is judged by reach), and capturing every identifier of a file would
    # be most of the query's matches
    return facts


def _imports(src: bytes, caps: dict, calls: list[ts.Node], imports: dict[str, str]) -> None:
    """Import statements, require() and import() calls, in source order so a name bound twice
    keeps its last binding; re-exports name their module only."""
    binders: list[tuple[int, int, ts.Node]] = [(n.start_byte, 0, n) for n in caps.get("import", ())]
    for node in calls:
        start = node.start_byte
        if not (src.startswith(b"require", start) or src.startswith(b"import", start)):
            continue  # (a byte test first: few calls are either)
        fn = node.child_by_field_name("function")
        if fn is not None and (fn.type == "import" or (
                fn.type == "identifier" and src[fn.start_byte:fn.end_byte] == b"require")):
            binders.append((start, 1, node))
    binders.sort(key=lambda b: b[0])
    for _, kind, node in binders:
        if kind == 0:
            esm_import(src, node, imports)
            continue
        module = string_arg(src, node.child_by_field_name("arguments"))
        if module is not None:
            imports["<module>" + module] = module
            require_binding(src, node, module, imports)
    for node in caps.get("reexport", ()):
        module = module_spec(src, node)
        imports["<module>" + module] = module


def _prose(src: bytes, comments) -> frozenset[int]:
    """Lines wholly inside comments; a block comment's last line is code when code follows it."""
    prose: set[int] = set()
    for node in comments:
        line_start = src.rfind(b"\n", 0, node.start_byte) + 1
        if src[line_start:node.start_byte].strip():
            continue  # a trailing comment shares its line with code
        first, last = node.start_point[0] + 1, node.end_point[0] + 1
        line_end = src.find(b"\n", node.end_byte)
        if src[node.end_byte:line_end if line_end >= 0 else len(src)].strip():
            last -= 1
        prose.update(range(first, last + 1))
    return frozenset(prose)


def _definitions(src: bytes, caps: dict, scopes: _Scopes, facts: PyFacts) -> list[ts.Node]:
    """Functions and classes into FACTS, every named scope into SCOPES; returns the nodes of
    the functions (whose bodies hold function-scope assignments)."""
    # (start, end, name, kind, (node whose lines are cited, node defining it) or None)
    raw: list[tuple[int, int, str, str, object]] = []
    bound_fns: set[int] = set()
    for owner in caps.get("bound", ()):
        fn = owned_value(owner)
        name = binding_name(src, owner)
        if fn is None or not name:
            continue
        bound_fns.add(fn.start_byte)
        raw.append((owner.start_byte, owner.end_byte, name, "function", (owner, fn)))
    for node in caps.get("def", ()):
        n = node.child_by_field_name("name")
        raw.append((node.start_byte, node.end_byte, key_text(src, n) if n is not None else "?",
                    "function", (node, node)))
    for node in caps.get("def.named", ()):
        if node.start_byte not in bound_fns:
            bound_fns.add(node.start_byte)
            n = node.child_by_field_name("name")
            raw.append((node.start_byte, node.end_byte, _text(src, n), "function", (node, node)))
    callbacks = []
    for node in caps.get("callback", ()):
        if node.start_byte in bound_fns:
            continue
        args = node.parent
        call = args.parent if args is not None else None
        if call is None:
            continue
        callee = call.child_by_field_name(
            "constructor" if call.type == "new_expression" else "function")
        label = _short_label(callee_text(src, callee)) if callee is not None else "?"
        first = args.named_children[0] if args.named_children else None
        name = _text(src, first)[1:-1] if first is not None and first is not node and \
            first.type == "string" else ""
        callbacks.append((node, label, _LABEL_UNSAFE.sub("_", name)[:40]))
    # sibling registrations of one call (`server.tool("a", ..., cb)`, `server.tool("b", ..., cb)`)
    # keep apart by the name they register, or their handlers would share one scope
    counts: dict[str, int] = {}
    for _node, label, _name in callbacks:
        counts[label] = counts.get(label, 0) + 1
    for node, label, name in callbacks:
        if counts[label] > 1 and name:
            label = f"{label}:{name}"
        raw.append((node.start_byte, node.end_byte, f"<{label}>", "function", (node, node)))
    for node in caps.get("class", ()):
        n = node.child_by_field_name("name")
        raw.append((node.start_byte, node.end_byte, _text(src, n) if n is not None else "?",
                    "class", (node, node)))
    for owner in caps.get("class.bound", ()):
        cls_node = owned_value(owner)
        if cls_node is None:
            continue
        n = cls_node.child_by_field_name("name")  # the binding names it, as for functions
        name = binding_name(src, owner) or (_text(src, n) if n is not None else None)
        raw.append((owner.start_byte, owner.end_byte, name or "?", "class", (owner, cls_node)))
    for owner in caps.get("object", ()):
        if exports_object(src, owner):
            continue  # `module.exports = {run() {}}`: run is a module-level function
        name = binding_name(src, owner)
        if name:
            raw.append((owner.start_byte, owner.end_byte, name, "object", None))

    imports = facts.imports
    functions = []
    for name, qual, kind, cls, payload in scopes.build(raw):
        if payload is None:
            continue
        owner, node = payload
        line, end = owner.start_point[0] + 1, owner.end_point[0] + 1
        name = _intern(name)
        if kind == "function":
            functions.append(node)
            facts.defs.append(_built(
                FuncDef, name=name, qualname=qual, line=line, end_line=end,
                decorators=decorators(src, node) if node.type == "method_definition" else (),
                params=params(src, node), cls=cls, is_async=is_async(node),
                returns=annotation(src, node.child_by_field_name("return_type"))))
        else:
            bases, implements = _heritage(src, node, imports)
            facts.classes.append(_built(
                ClassDef, name=name, qualname=qual, line=line, end_line=end, bases=bases,
                decorators=decorators(src, node), implements=implements))
    facts.defs.sort(key=lambda d: (d.line, d.end_line))
    facts.classes.sort(key=lambda c: (c.line, c.end_line))
    return functions


def _heritage(src: bytes, node: ts.Node, imports: dict[str, str]
              ) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(extends, implements) of a class, resolved through imports."""
    bases: list[str] = []
    implements: list[str] = []
    for part in node.named_children:
        if part.type != "class_heritage":
            continue
        for h in part.named_children:
            if h.type == "extends_clause":  # TypeScript
                bases += [resolve(callee_text(src, v), imports)
                          for v in h.children_by_field_name("value")]
            elif h.type == "implements_clause":
                implements += [resolve(callee_text(src, v).split("<", 1)[0], imports)
                               for v in h.named_children if v.type != "comment"]
            elif h.type != "comment":  # JavaScript: the expression itself
                bases.append(resolve(callee_text(src, h), imports))
    return tuple(bases), tuple(implements)


def _calls(src: bytes, calls: list[ts.Node], scopes: _Scopes, imports: dict[str, str]
           ) -> list[Call]:
    out = []
    enclosing = scopes.enclosing
    # the same callees recur through a file: normalise and resolve each distinct text once
    named: dict[tuple[bytes, bool], tuple[str, str]] = {}
    for node in calls:
        is_new = node.type == "new_expression"
        fn = node.child_by_field_name("constructor" if is_new else "function")
        if fn is None:
            continue
        start = fn.start_byte
        key = (src[start:min(fn.end_byte, start + _TEXT_MAX)], is_new)
        names = named.get(key)
        if names is None:
            raw = callee_text(src, fn)
            names = named[key] = (_intern("new " + raw) if is_new else raw,
                                  _intern(resolve(raw, imports)))
        positional, keywords = [], []
        args = node.child_by_field_name("arguments")
        if args is not None:
            if args.type == "template_string":  # tagged template
                positional.append(_text(src, args))
            else:
                for a in args.named_children:
                    t = a.type
                    if t == "comment":
                        continue
                    positional.append(_text(src, a))
                    if t == "object":
                        keywords.extend(object_pairs(src, a))
        func, cls = enclosing(node.start_byte)
        out.append(_built(
            Call, callee=names[1], raw=names[0],
            line=node.start_point[0] + 1, end_line=node.end_point[0] + 1,
            args=tuple(positional), kwargs=tuple(keywords), func=func, cls=cls))
    return out


_DECLARATIONS = ("lexical_declaration", "variable_declaration")


def _statement_assigns(stmt: ts.Node, out: list[tuple[ts.Node, str]]) -> None:
    """The declarators / assignment of one statement, or of what it exports."""
    t = stmt.type
    if t == "export_statement":
        if stmt.child_by_field_name("value") is not None:  # export default <expression>
            out.append((stmt, "default"))
            return
        stmt = stmt.child_by_field_name("declaration")
        if stmt is None:
            return
        t = stmt.type
    if t in _DECLARATIONS:
        out.extend((d, "") for d in stmt.named_children if d.type == "variable_declarator")
    elif t == "expression_statement":
        expr = stmt.named_children[0] if stmt.named_child_count else None
        if expr is not None and expr.type == "assignment_expression":
            out.append((expr, ""))


def _assigns(src: bytes, root: ts.Node, functions: list[ts.Node], fields, scopes: _Scopes,
             defaults: list[ConfigDefault]) -> list[Assign]:
    """Module declarators and assignments, `export default`, class fields and statements
    directly in function bodies; the pairs of module DEFAULT_* object literals go to DEFAULTS."""
    nodes: list[tuple[ts.Node, str]] = [(n, "field") for n in fields]
    for stmt in root.named_children:  # one level: the module's statements
        _statement_assigns(stmt, nodes)
    for fn in functions:  # one level: each function body's statements
        body = fn.child_by_field_name("body")
        if body is not None and body.type == "statement_block":
            for stmt in body.named_children:
                if stmt.type in _DECLARATIONS or stmt.type == "expression_statement":
                    _statement_assigns(stmt, nodes)
    nodes.sort(key=lambda x: x[0].start_byte)
    out = []
    for node, how in nodes:
        ann = None
        if how == "default":  # NODE is the export statement
            target, value, span = "default", node.child_by_field_name("value"), node
        elif how == "field":
            name = node.child_by_field_name("name") or node.child_by_field_name("property")
            if name is None:
                continue
            target, span = _text(src, name), node
            value, ann = node.child_by_field_name("value"), node.child_by_field_name("type")
        elif node.type == "variable_declarator":
            name = node.child_by_field_name("name")
            if name is None:
                continue
            target, span = _text(src, name), node
            value, ann = node.child_by_field_name("value"), node.child_by_field_name("type")
        else:  # assignment_expression
            left = node.child_by_field_name("left")
            if left is None:
                continue
            target, value, span = callee_text(src, left), node.child_by_field_name("right"), node
        func, cls = scopes.enclosing(span.start_byte, span.end_byte)
        scope, kind = (func, "function") if func else \
            ((cls, "class") if cls else ("module", "module"))
        out.append(_built(
            Assign, target=target, annotation=annotation(src, ann),
            value=_text(src, value) if value is not None else None,
            line=node.start_point[0] + 1, end_line=node.end_point[0] + 1,
            scope=scope or "module", scope_kind=kind))
        if kind == "module" and node.type == "variable_declarator" and DEFAULTS_NAME.match(target):
            obj = unwrap_object(value)
            if obj is not None:
                object_defaults(src, target, obj, defaults)
    return out
