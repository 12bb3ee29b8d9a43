"""One tree-sitter parse per TypeScript/JavaScript file, reduced to the facts pyfacts gives Python.

The facts are pyfacts' own dataclasses (`PyFacts` with `lang` "typescript" or "javascript"), so
the layers above read both languages alike. As in pyfacts, facts are pulled with one tree-sitter
query per file (matched in C), captures are sorted by start byte (captures() does not keep
document order) and nesting is resolved by a sweep over byte ranges; nothing recurses on the tree.

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
- defaults: process.env reads with their `??`/`||` fallback, zod `.default(v)` on an object
  property and the pairs of DEFAULT_* / default*Settings object literals (see ConfigDefault).
"""

from __future__ import annotations

import bisect
import re
import sys
from collections import Counter
from dataclasses import dataclass

import tree_sitter as ts
import tree_sitter_javascript as tsjs
import tree_sitter_typescript as tsts

from .pyfacts import (_MAX_DEPTH, Assign, Call, ClassDef, ConfigDefault, FuncDef, Param, PyFacts,
                      _bounded_parse, _built, _start_byte, _text, resolve)

_intern = sys.intern

# file suffix -> grammar; the .tsx grammar also reads JSX inside TypeScript
GRAMMAR_OF_SUFFIX = {
    ".ts": "typescript", ".mts": "typescript", ".cts": "typescript", ".tsx": "tsx",
    ".js": "javascript", ".jsx": "javascript", ".mjs": "javascript", ".cjs": "javascript",
}
_FACT_LANG = {"typescript": "typescript", "tsx": "typescript", "javascript": "javascript"}

_FUNC_VALUE = "[(arrow_function) (function_expression) (generator_function)]"
# statements directly in a function body (an alternation of node types with a field does not
# match in these grammars, so one pattern per function type)
_BODY_ASSIGNS = "\n".join(
    f"({fn} body: (statement_block [(lexical_declaration (variable_declarator) @assign)"
    f" (variable_declaration (variable_declarator) @assign)"
    f" (expression_statement (assignment_expression) @assign)]))"
    for fn in ("function_declaration", "generator_function_declaration", "function_expression",
               "arrow_function", "method_definition"))
_COMMON_QUERY = f"""
(call_expression) @call
(new_expression) @call
(import_statement) @import
(export_statement source: (string) @reexport)
(comment) @comment
(function_declaration) @def
(generator_function_declaration) @def
(method_definition) @def
(function_expression name: (identifier)) @def.named
(arguments [(arrow_function) (function_expression)] @callback)
(variable_declarator value: {_FUNC_VALUE}) @bound
(pair value: {_FUNC_VALUE}) @bound
(assignment_expression right: {_FUNC_VALUE}) @bound
(export_statement value: {_FUNC_VALUE}) @bound
(class_declaration) @class
(variable_declarator value: (class)) @class.bound
(export_statement value: (class)) @class.bound
(variable_declarator value: (object)) @object
(pair value: (object)) @object
(assignment_expression right: (object)) @object
(export_statement value: (object)) @object
(program (lexical_declaration (variable_declarator) @assign))
(program (variable_declaration (variable_declarator) @assign))
(program (export_statement declaration: (lexical_declaration (variable_declarator) @assign)))
(program (export_statement declaration: (variable_declaration (variable_declarator) @assign)))
(program (expression_statement (assignment_expression) @assign))
(program (export_statement value: (_) @assign.default))
{_BODY_ASSIGNS}
(identifier) @id
(property_identifier) @id
(shorthand_property_identifier) @id
(shorthand_property_identifier_pattern) @id
"""
_JS_QUERY = f"""
(field_definition value: {_FUNC_VALUE}) @bound
(field_definition) @assign.field
"""
_TS_QUERY = f"""
(public_field_definition value: {_FUNC_VALUE}) @bound
(public_field_definition) @assign.field
(abstract_class_declaration) @class
(variable_declarator value: [(as_expression (object)) (satisfies_expression (object))]) @object
(internal_module) @object
(type_identifier) @id
"""


@dataclass
class _Grammar:
    language: ts.Language
    query: ts.Query
    label: str


_grammars: dict[str, _Grammar] = {}


def grammar(name: str) -> _Grammar:
    """The language and compiled query of one grammar, built on first use (a TypeScript query
    takes a noticeable fraction of a second to compile; parsing.py builds the ones a repository
    needs before its workers fork, so they inherit them)."""
    g = _grammars.get(name)
    if g is None:
        if name == "javascript":
            lang, extra, label = ts.Language(tsjs.language()), _JS_QUERY, "JavaScript"
        else:
            raw = tsts.language_tsx() if name == "tsx" else tsts.language_typescript()
            lang, extra, label = ts.Language(raw), _TS_QUERY, "TypeScript"
        g = _grammars[name] = _Grammar(lang, ts.Query(lang, _COMMON_QUERY + extra), label)
    return g


def grammar_for(path: str) -> str | None:
    """The grammar that parses PATH, or None when it is not TypeScript/JavaScript."""
    dot = path.rfind(".")
    return GRAMMAR_OF_SUFFIX.get(path[dot:].lower()) if dot > path.rfind("/") else None


def is_ts_path(path: str) -> bool:
    return grammar_for(path) is not None


# ------------------------------------------------------------------------------ small readers

_MODULE_EXPORTS = re.compile(r"^(?:module\s*\.\s*)?exports\s*=")
_AWAIT = re.compile(r"\bawait\s+")
_SPACE = re.compile(r"\s+")
_NON_NULL = re.compile(r"!(?=[.\[(]|$)")


def _callee_text(src: bytes, node: ts.Node) -> str:
    """The called expression as a dotted name (see the module docstring)."""
    t = _text(src, node)
    if "await" in t:
        t = _AWAIT.sub("", t)
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


def _module_spec(src: bytes, string_node: ts.Node) -> str:
    spec = _text(src, string_node)[1:-1]
    return _intern(spec[5:] if spec.startswith("node:") else spec)


def _key_text(src: bytes, key: ts.Node) -> str:
    if key.type == "string":
        return _intern(_text(src, key)[1:-1])
    return _text(src, key)


def _field(node: ts.Node, name: str) -> ts.Node | None:
    return node.child_by_field_name(name)


def _annotation(src: bytes, node: ts.Node | None) -> str | None:
    if node is None:
        return None
    return _intern(_text(src, node).lstrip(":").strip())


def _object_pairs(src: bytes, obj: ts.Node) -> list[tuple[str, str]]:
    out = []
    for c in obj.named_children:
        t = c.type
        if t == "pair":
            k, v = _field(c, "key"), _field(c, "value")
            if k is not None and v is not None:
                out.append((_key_text(src, k), _text(src, v)))
        elif t == "shorthand_property_identifier":
            name = _text(src, c)
            out.append((name, name))
        elif t == "spread_element":
            out.append(("**", _intern(_text(src, c)[3:].strip())))
        elif t == "method_definition":
            name = _field(c, "name")
            if name is not None:
                out.append((_key_text(src, name), _text(src, c)))
    return out


def _params(src: bytes, fn: ts.Node) -> tuple[Param, ...]:
    single = _field(fn, "parameter")  # `x => ...`
    if single is not None:
        return (_built(Param, name=_text(src, single), annotation=None, default=None),)
    params = _field(fn, "parameters")
    if params is None:
        return ()
    out = []
    for p in params.named_children:
        t = p.type
        name_node = ann = default = None
        if t in ("required_parameter", "optional_parameter"):  # TypeScript
            name_node, ann, default = _field(p, "pattern"), _field(p, "type"), _field(p, "value")
        elif t == "assignment_pattern":  # JavaScript `b = 2`
            name_node, default = _field(p, "left"), _field(p, "right")
        elif t in ("identifier", "rest_pattern", "object_pattern", "array_pattern"):
            name_node = p
        if name_node is None:
            continue  # comments, decorators
        out.append(_built(Param, name=_text(src, name_node), annotation=_annotation(src, ann),
                          default=_text(src, default) if default is not None else None))
    return tuple(out)


def _is_async(node: ts.Node) -> bool:
    # `async` is an unnamed token before the name or the parameters (after `static`, `get`...)
    for c in node.children[:4]:
        if c.type == "async":
            return True
        if c.is_named and c.type != "decorator":
            return False
    return False


def _decorators(src: bytes, node: ts.Node) -> tuple[str, ...]:
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


def _binding_name(src: bytes, owner: ts.Node) -> str | None:
    """The name a function, class or object literal is bound to by its OWNER node."""
    t = owner.type
    if t == "variable_declarator":
        n = _field(owner, "name")
        return _text(src, n) if n is not None and n.type == "identifier" else None
    if t == "pair":
        k = _field(owner, "key")
        return _key_text(src, k) if k is not None else None
    if t == "assignment_expression":
        left = _field(owner, "left")
        return _callee_text(src, left).rsplit(".", 1)[-1] if left is not None else None
    if t in ("public_field_definition", "field_definition"):
        n = _field(owner, "name") or _field(owner, "property")
        return _text(src, n) if n is not None else None
    if t == "export_statement":
        return "default"
    return None


def _owned_value(owner: ts.Node) -> ts.Node | None:
    if owner.type == "assignment_expression":
        return _field(owner, "right")
    return _field(owner, "value")


def _require_binding(src: bytes, call: ts.Node, module: str, out: dict[str, str]) -> None:
    """Names bound by `const x = require("m")`, `const {a, b: c} = require("m")`,
    `const x = require("m").y` and `const x = await import("m")`."""
    node, parent, attr = call, call.parent, None
    if parent is not None and parent.type == "await_expression":
        node, parent = parent, parent.parent
    if parent is not None and parent.type == "member_expression" and _field(parent, "object") == node:
        prop = _field(parent, "property")
        attr = _text(src, prop) if prop is not None else None
        node, parent = parent, parent.parent
    if parent is None or parent.type != "variable_declarator" or _field(parent, "value") != node:
        return
    name = _field(parent, "name")
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
            c = _field(c, "left") or c
        if c.type == "shorthand_property_identifier_pattern":
            n = _text(src, c)
            out[n] = _intern(f"{origin}.{n}")
        elif c.type == "pair_pattern":
            k, v = _field(c, "key"), _field(c, "value")
            if v is not None and v.type == "object_assignment_pattern":
                v = _field(v, "left")
            if k is not None and v is not None and v.type == "identifier":
                out[_text(src, v)] = _intern(f"{origin}.{_key_text(src, k)}")


def _esm_import(src: bytes, node: ts.Node, out: dict[str, str]) -> None:
    clause_require = next((c for c in node.named_children if c.type == "import_require_clause"),
                          None)
    if clause_require is not None:  # TypeScript `import fs = require("fs")`
        source = _field(clause_require, "source")
        ident = next((c for c in clause_require.named_children if c.type == "identifier"), None)
        if source is not None:
            module = _module_spec(src, source)
            out["<module>" + module] = module
            if ident is not None:
                out[_text(src, ident)] = module
        return
    source = _field(node, "source")
    if source is None:
        return
    module = _module_spec(src, source)
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
                    name, alias = _field(spec, "name"), _field(spec, "alias")
                    if name is None:
                        continue
                    orig = _key_text(src, name)
                    out[_text(src, alias or name)] = _intern(f"{module}.{orig}")


def _string_arg(src: bytes, args: ts.Node | None) -> str | None:
    if args is None or args.type != "arguments":
        return None
    first = next((a for a in args.named_children if a.type != "comment"), None)
    if first is None or first.type != "string":
        return None
    return _module_spec(src, first)


# --------------------------------------------------------------------------------- scopes

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
            cls = self.spans[parent][2] if parent >= 0 and self.spans[parent][3] == "class" else None
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


# ------------------------------------------------------------------------------ defaults

_ENV_REF = re.compile(rb"\bprocess\s*\.\s*env\b")
_DEFAULT_CALL = re.compile(rb"\.\s*(default)\s*\(")
_DEFAULTS_NAME = re.compile(r"^(?:DEFAULT_[A-Z0-9_]+|default[A-Za-z0-9]*(?:Settings|Config|Options))$")
_ENV_KEY = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_OBJECT_DEFAULTS_MAX = 2000  # pairs taken from one file's default objects
_OBJECT_DEPTH_MAX = 8


def _line(node: ts.Node) -> int:
    return node.start_point[0] + 1


def _env_defaults(src: bytes, root: ts.Node, out: list[ConfigDefault]) -> None:
    """process.env.X, process.env["X"] (with a `??`/`||` fallback when there is one) and
    `const {X = d} = process.env`. Found by a byte search, each match checked in the tree (a
    match in a comment or string is not a `process` identifier)."""
    for m in _ENV_REF.finditer(src):
        ident = root.descendant_for_byte_range(m.start(), m.start() + 7)
        if ident is None or ident.type != "identifier":
            continue
        env = ident.parent
        if env is None or env.type != "member_expression" or _field(env, "object") != ident:
            continue
        use = env.parent
        if use is None:
            continue
        if use.type == "variable_declarator" and _field(use, "value") == env:
            pattern = _field(use, "name")
            if pattern is None or pattern.type != "object_pattern":
                continue
            for c in pattern.named_children:
                key = dflt = None
                if c.type == "shorthand_property_identifier_pattern":
                    key = c
                elif c.type == "object_assignment_pattern":
                    key, dflt = _field(c, "left"), _field(c, "right")
                elif c.type == "pair_pattern":
                    key, val = _field(c, "key"), _field(c, "value")
                    if val is not None and val.type == "object_assignment_pattern":
                        dflt = _field(val, "right")
                if key is None:
                    continue
                name = _key_text(src, key)
                if _ENV_KEY.match(name):
                    out.append(ConfigDefault(name, _text(src, dflt) if dflt is not None else None,
                                             _line(dflt if dflt is not None else key), "env"))
            continue
        if use.type == "member_expression" and _field(use, "object") == env:
            key_node = _field(use, "property")
        elif use.type == "subscript_expression" and _field(use, "object") == env:
            key_node = _field(use, "index")
            if key_node is None or key_node.type != "string":
                continue
        else:
            continue
        if key_node is None:
            continue
        key = _key_text(src, key_node)
        if not _ENV_KEY.match(key):
            continue
        value, line = None, _line(key_node)
        outer = use.parent
        while outer is not None and outer.type == "non_null_expression":
            use, outer = outer, outer.parent
        if outer is not None and outer.type == "binary_expression" and _field(outer, "left") == use:
            op = _field(outer, "operator")
            right = _field(outer, "right")
            if op is not None and op.type in ("??", "||") and right is not None:
                value, line = _text(src, right), _line(right)
        out.append(ConfigDefault(key, value, line, "env"))


def _zod_defaults(src: bytes, root: ts.Node, imports: dict[str, str],
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
        if call is None or call.type != "call_expression" or _field(call, "function") != member:
            continue
        args = _field(call, "arguments")
        value = next((a for a in (args.named_children if args is not None else ())
                      if a.type != "comment"), None)
        # climb the method chain (`.default(1).describe("...")`) to what holds it
        node = call
        for _ in range(64):
            up = node.parent
            if up is None:
                break
            if up.type == "member_expression" and _field(up, "object") == node:
                node = up
            elif up.type == "call_expression" and _field(up, "function") == node:
                node = up
            else:
                break
        pair = node.parent
        if pair is None or pair.type != "pair" or _field(pair, "value") != node:
            continue
        head = _SPACE.sub("", _text(src, node)).split(".", 1)[0].split("(", 1)[0]
        if not resolve(head, imports).startswith("zod"):
            continue
        key = _field(pair, "key")
        if key is None:
            continue
        out.append(ConfigDefault(_key_text(src, key),
                                 _text(src, value) if value is not None else None,
                                 _line(prop), "zod"))


def _object_defaults(src: bytes, name: str, obj: ts.Node, out: list[ConfigDefault]) -> None:
    """The pairs of a DEFAULT_* / default*Settings object literal, nested objects as dotted
    keys (a bounded walk over that literal only)."""
    stack = [("", obj, 0)]
    taken = 0
    while stack and taken < _OBJECT_DEFAULTS_MAX:
        prefix, node, depth = stack.pop()
        found = []
        for c in node.named_children:
            if c.type == "pair":
                k, v = _field(c, "key"), _field(c, "value")
                if k is None or v is None:
                    continue
                key = f"{prefix}{_key_text(src, k)}"
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


def _unwrap_object(value: ts.Node | None) -> ts.Node | None:
    while value is not None and value.type in ("as_expression", "satisfies_expression"):
        value = value.named_children[0] if value.named_children else None
    return value if value is not None and value.type == "object" else None


# -------------------------------------------------------------------------------- extract

def extract_ts(path: str, src: bytes) -> PyFacts:
    """Parse a TypeScript/JavaScript file once and return its facts."""
    g = grammar(grammar_for(path) or "typescript")
    facts = PyFacts(path=path, lines=src.count(b"\n") + 1, lang=_FACT_LANG[grammar_for(path)
                                                                           or "typescript"])
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
    imports = facts.imports
    calls = sorted(caps.get("call", ()), key=_start_byte)

    # imports, in source order so a name bound twice keeps its last binding
    binders: list[tuple[int, int, ts.Node]] = [(n.start_byte, 0, n) for n in caps.get("import", ())]
    for node in calls:
        fn = _field(node, "function")
        if fn is not None and (fn.type == "import" or (fn.type == "identifier" and
                                                       src[fn.start_byte:fn.end_byte] == b"require")):
            binders.append((node.start_byte, 1, node))
    binders.sort(key=lambda b: b[0])
    for _, kind, node in binders:
        if kind == 0:
            _esm_import(src, node, imports)
            continue
        module = _string_arg(src, _field(node, "arguments"))
        if module is not None:
            imports["<module>" + module] = module
            _require_binding(src, node, module, imports)
    for node in caps.get("reexport", ()):
        module = _module_spec(src, node)
        imports["<module>" + module] = module

    # prose: whole-line comments; a block comment's last line is code when code follows it
    prose: set[int] = set()
    for node in caps.get("comment", ()):
        line_start = src.rfind(b"\n", 0, node.start_byte) + 1
        if src[line_start:node.start_byte].strip():
            continue
        first, last = node.start_point[0] + 1, node.end_point[0] + 1
        line_end = src.find(b"\n", node.end_byte)
        if src[node.end_byte:line_end if line_end >= 0 else len(src)].strip():
            last -= 1
        prose.update(range(first, last + 1))
    facts.prose_lines = frozenset(prose)

    # scopes: (start, end, name, kind, (node, fn node or None, owner kind))
    raw: list[tuple[int, int, str, str, object]] = []
    bound_fns: set[int] = set()
    for owner in caps.get("bound", ()):
        fn = _owned_value(owner)
        name = _binding_name(src, owner)
        if fn is None or not name:
            continue
        bound_fns.add(fn.start_byte)
        raw.append((owner.start_byte, owner.end_byte, name, "function", (owner, fn)))
    for node in caps.get("def", ()):
        n = _field(node, "name")
        raw.append((node.start_byte, node.end_byte, _key_text(src, n) if n is not None else "?",
                    "function", (node, node)))
    for node in caps.get("def.named", ()):
        if node.start_byte not in bound_fns:
            bound_fns.add(node.start_byte)
            n = _field(node, "name")
            raw.append((node.start_byte, node.end_byte, _text(src, n), "function", (node, node)))
    for node in caps.get("callback", ()):
        if node.start_byte in bound_fns:
            continue
        args = node.parent
        call = args.parent if args is not None else None
        if call is None:
            continue
        callee = _field(call, "constructor" if call.type == "new_expression" else "function")
        label = _callee_text(src, callee)[:80] if callee is not None else "?"
        raw.append((node.start_byte, node.end_byte, f"<{label}>", "function", (node, node)))
    for node in caps.get("class", ()):
        n = _field(node, "name")
        raw.append((node.start_byte, node.end_byte, _text(src, n) if n is not None else "?",
                    "class", (node, node)))
    for owner in caps.get("class.bound", ()):
        cls_node = _owned_value(owner)
        if cls_node is None:
            continue
        n = _field(cls_node, "name")
        name = _text(src, n) if n is not None else _binding_name(src, owner)
        raw.append((owner.start_byte, owner.end_byte, name or "?", "class", (owner, cls_node)))
    for owner in caps.get("object", ()):
        if owner.type == "assignment_expression" and _MODULE_EXPORTS.match(_text(src, owner)):
            continue  # `module.exports = {run() {}}`: run is a module-level function
        name = _text(src, _field(owner, "name")) if owner.type == "internal_module" and \
            _field(owner, "name") is not None else _binding_name(src, owner)
        if name:
            raw.append((owner.start_byte, owner.end_byte, name, "object", None))

    scopes = _Scopes()
    for name, qual, kind, cls, payload in scopes.build(raw):
        if payload is None:
            continue
        owner, node = payload
        line, end = owner.start_point[0] + 1, owner.end_point[0] + 1
        name = _intern(name)
        if kind == "function":
            facts.defs.append(_built(
                FuncDef, name=name, qualname=qual, line=line, end_line=end,
                decorators=_decorators(src, node) if node.type == "method_definition" else (),
                params=_params(src, node), cls=cls, is_async=_is_async(node)))
        else:
            bases: list[str] = []
            implements: list[str] = []
            for part in node.named_children:
                if part.type != "class_heritage":
                    continue
                for h in part.named_children:
                    if h.type == "extends_clause":  # TypeScript
                        bases += [resolve(_callee_text(src, v), imports)
                                  for v in h.children_by_field_name("value")]
                    elif h.type == "implements_clause":
                        implements += [resolve(_callee_text(src, v).split("<", 1)[0], imports)
                                       for v in h.named_children]
                    elif h.type != "comment":  # JavaScript: the expression itself
                        bases.append(resolve(_callee_text(src, h), imports))
            facts.classes.append(_built(
                ClassDef, name=name, qualname=qual, line=line, end_line=end, bases=tuple(bases),
                decorators=_decorators(src, node), implements=tuple(implements)))
    facts.defs.sort(key=lambda d: (d.line, d.end_line))
    facts.classes.sort(key=lambda c: (c.line, c.end_line))

    for node in calls:
        is_new = node.type == "new_expression"
        fn = _field(node, "constructor" if is_new else "function")
        if fn is None:
            continue
        raw_callee = _callee_text(src, fn)
        positional, keywords = [], []
        args = _field(node, "arguments")
        if args is not None:
            if args.type == "template_string":  # tagged template
                positional.append(_text(src, args))
            else:
                for a in args.named_children:
                    if a.type == "comment":
                        continue
                    positional.append(_text(src, a))
                    if a.type == "object":
                        keywords.extend(_object_pairs(src, a))
        func, cls = scopes.enclosing(node.start_byte)
        facts.calls.append(_built(
            Call, callee=_intern(resolve(raw_callee, imports)),
            raw=_intern("new " + raw_callee) if is_new else raw_callee,
            line=node.start_point[0] + 1, end_line=node.end_point[0] + 1,
            args=tuple(positional), kwargs=tuple(keywords), func=func, cls=cls))

    defaults: list[ConfigDefault] = []
    assign_nodes = [(n, "") for n in caps.get("assign", ())] + \
        [(n, "default") for n in caps.get("assign.default", ())] + \
        [(n, "field") for n in caps.get("assign.field", ())]
    assign_nodes.sort(key=lambda x: x[0].start_byte)
    for node, how in assign_nodes:
        ann = None
        if how == "default":
            target, value = "default", node
            span = node.parent  # the export statement
        elif how == "field":
            name = _field(node, "name") or _field(node, "property")
            if name is None:
                continue
            target, value, ann, span = _text(src, name), _field(node, "value"), _field(node, "type"), node
        elif node.type == "variable_declarator":
            name = _field(node, "name")
            if name is None:
                continue
            target, value, ann, span = _text(src, name), _field(node, "value"), _field(node, "type"), node
        else:  # assignment_expression
            left = _field(node, "left")
            if left is None:
                continue
            target, value, span = _callee_text(src, left), _field(node, "right"), node
        func, cls = scopes.enclosing(span.start_byte, span.end_byte)
        scope, kind = (func, "function") if func else ((cls, "class") if cls else ("module", "module"))
        facts.assigns.append(_built(
            Assign, target=target, annotation=_annotation(src, ann),
            value=_text(src, value) if value is not None else None,
            line=node.start_point[0] + 1, end_line=node.end_point[0] + 1,
            scope=scope or "module", scope_kind=kind))
        if kind == "module" and node.type == "variable_declarator" and _DEFAULTS_NAME.match(target):
            obj = _unwrap_object(value)
            if obj is not None:
                _object_defaults(src, target, obj, defaults)

    if b"process" in src:
        _env_defaults(src, root, defaults)
    if b"default" in src:
        _zod_defaults(src, root, imports, defaults)
    defaults.sort(key=lambda d: d.line)
    facts.defaults = tuple(defaults)

    idents = facts.idents
    raw_ids = Counter([src[node.start_byte:node.end_byte] for node in caps.get("id", ())])
    for name, n in raw_ids.items():
        idents[_intern(name.decode("utf-8", "replace"))] += n
    return facts
