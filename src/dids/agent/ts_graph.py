"""The call graph over the repository's TypeScript/JavaScript, added to the same CallGraph as
the Python one (node ids `path::qualname`, so a mixed repository is one graph).

Built from the parse facts (no second parse), with the rules a reader of TypeScript applies:

- imports (ESM, `require`, dynamic `import()`) resolved to files (ts_modules: relative
  specifiers, workspace packages, tsconfig aliases); names followed through re-exports
  (`export * from`, `export {a} from`) and `export default`;
- calls resolved through imports, nested and top-level definitions, `this.m()` and `super.m()`
  along the class hierarchy, `this.x.m()` where x's class is known from a field annotation, a
  constructor parameter or an assignment (`this.x = new Foo()`, `this.x = makeFoo()` with a
  declared return type), locals and parameters typed by annotation or construction;
- calls through a value of a declared type: a method of an interface goes to the classes that
  implement it, a call of a function-typed value (`executor(cmd)` with `executor: ShellExecutor`)
  to the factories declared to return that type (the closure they return runs);
- references: functions and classes passed by name (callbacks, `registerCommand(id, handler)`),
  listed in objects or arrays (registries, tool lists) or exported in `module.exports`;
- an object literal bound to a name is a node whose members live when it is reached; a method
  called on a receiver of unknown type reaches the object-literal members of that name when few
  define it (tool handlers `execute`, command handlers), and the methods of reached classes of
  that name (CallGraph.reach's dispatch).

What cannot be resolved is kept in `unresolved`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..index.pyfacts import PyFacts
from .callgraph import MODULE, CallGraph, Node
from .ts_modules import TsModules

_IDENT = re.compile(r"[A-Za-z_$][\w$]*")
_DOTTED = re.compile(r"^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*$")
_STRINGS = re.compile(r""""(?:\\.|[^"\\])*"|'(?:\\.|[^'\\])*'|`(?:\\.|[^`\\])*`""")
_TYPE_NAME = re.compile(r"\b([A-Z][\w$]*(?:\.[A-Z][\w$]*)*)\b")
_PLAIN_TYPES = {"Promise", "Array", "Record", "Partial", "Readonly", "Required", "Pick", "Omit",
                "Map", "Set", "ReadonlyArray", "Awaited", "ReturnType", "Parameters", "NonNullable",
                "Error", "Date", "String", "Number", "Boolean", "Object", "Function", "Buffer",
                "AsyncGenerator", "AsyncIterable", "Iterable", "Generator", "WeakMap", "Uint8Array"}
_PLAIN_BASES = {"Error", "Object", "EventEmitter", "Array", "Map", "Set", "Promise", "TypeError",
                "RangeError"}
_JS_KEYWORDS = {"if", "for", "while", "switch", "return", "new", "typeof", "await", "this",
                "true", "false", "null", "undefined", "const", "let", "var", "function", "class",
                "async", "of", "in", "instanceof", "void", "delete", "super", "import", "export",
                "default", "catch", "try", "throw", "yield", "as", "from", "extends", "static",
                "get", "set", "string", "number", "boolean", "any", "unknown", "never", "object"}
_MEMBER_RX = re.compile(r"^\s*(?:(?:async|static|get|set|public|private|protected|readonly|override)"
                        r"\s+)*\*?\s*[\"']?([A-Za-z_$][\w$]*)[\"']?\s*\??\s*[:(<=]")
_TYPED_NAME = re.compile(r"(?<![\w$])([A-Za-z_$][\w$]*)\??\s*:\s*([A-Z][\w$.]*)")
_REF_NAME = re.compile(r"(?<![\w$.])(this\.)?([A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)?)")
_BUILTINS = {"Promise", "Object", "Array", "JSON", "Math", "console", "process", "Date", "Reflect",
             "Number", "String", "Buffer", "Symbol", "Intl", "Atomics", "globalThis", "window",
             "document", "crypto", "performance", "Bun", "Deno", "new Promise", "Error"}
_DISPATCH_MAX = 25  # object-literal members of one name a call on an unknown receiver may reach
_SKIP_DISPATCH = {"then", "catch", "finally", "map", "filter", "forEach", "push", "get", "set",
                  "has", "on", "once", "emit", "toString", "join", "split", "slice", "includes",
                  "find", "some", "every", "reduce", "keys", "values", "entries", "resolve",
                  "reject", "bind", "call", "apply", "log", "error", "warn", "info", "debug"}


@dataclass
class TsInfo:
    modules: TsModules
    files: set[str] = field(default_factory=set)
    top: dict[str, dict[str, str]] = field(default_factory=dict)  # path -> name -> node
    objects: set[str] = field(default_factory=set)  # object-literal nodes
    member_funcs: dict[str, list[str]] = field(default_factory=dict)  # name -> member functions
    implementers: dict[str, list[str]] = field(default_factory=dict)  # interface -> classes
    factories: dict[str, list[str]] = field(default_factory=dict)  # type name -> functions
    field_types: dict[str, dict[str, list[str]]] = field(default_factory=dict)  # class -> attr -> types
    product: frozenset = frozenset()  # package directories of the scored product
    resolver: "_Resolver | None" = None


def extend(g: CallGraph, ts: dict[str, PyFacts], packages, line_of, tsconfigs=(),
           product=frozenset()) -> TsInfo:
    """Add the TypeScript/JavaScript sources TS (path -> facts) to G. LINE_OF(path, n) gives a
    source line; TSCONFIGS is [(path, text)] of the shipped tsconfig files; PRODUCT the package
    directories of the scored product (objects from any of them can reach any of its code)."""
    mods = TsModules(ts, packages)
    for path, text in tsconfigs:
        mods.add_tsconfig(path, text)
    info = TsInfo(modules=mods, files=set(ts), product=frozenset(product))
    for path, facts in ts.items():
        _nodes(g, info, path, facts)
    r = _Resolver(g, info, ts, line_of)
    info.resolver = r
    for path, facts in ts.items():
        r.heritage(path, facts)
    for path, facts in ts.items():
        r.types(path, facts)
    for path, facts in ts.items():
        r.file_edges(path, facts)
    return info


def _nodes(g: CallGraph, info: TsInfo, path: str, facts: PyFacts) -> None:
    mid = f"{path}::{MODULE}"
    g.nodes[mid] = Node(mid, path, MODULE, "module", 1, facts.lines, name=path)
    top = info.top.setdefault(path, {})
    spans = []
    quals = {d.qualname for d in facts.defs} | {c.qualname for c in facts.classes}
    for c in facts.classes:
        nid = f"{path}::{c.qualname}"
        g.nodes[nid] = Node(nid, path, c.qualname, "class", c.line, c.end_line, name=c.name)
        spans.append((c.line, c.end_line, nid))
        if "." not in c.qualname:
            top.setdefault(c.name, nid)
    obj_spans: dict[str, list[int]] = {}
    for d in facts.defs:
        nid = f"{path}::{d.qualname}"
        g.nodes[nid] = Node(nid, path, d.qualname, "function", d.line, d.end_line, cls=d.cls,
                            name=d.name)
        spans.append((d.line, d.end_line, nid))
        parent = parent_of(d)
        if parent is None:
            top.setdefault(d.name, nid)
        if d.cls:
            g.methods.setdefault(f"{path}::{d.cls}", {})[d.name] = nid
        elif parent is not None:
            if parent not in quals:  # a member of an object literal (or a namespace)
                obj_spans.setdefault(parent, []).extend((d.line, d.end_line))
    assign_spans = {a.target: (a.line, a.end_line) for a in facts.assigns
                    if a.scope_kind == "module" and a.value and a.value.lstrip().startswith("{")}
    for obj, lines in obj_spans.items():
        oid = f"{path}::{obj}"
        line, end = assign_spans.get(obj.rsplit(".", 1)[-1], (min(lines), max(lines)))
        g.nodes[oid] = Node(oid, path, obj, "class", line, end, name=obj.rsplit(".", 1)[-1])
        g._external_bases[oid] = True  # every member of a reached object literal is live
        info.objects.add(oid)
        spans.append((line, end, oid))
        if "." not in obj:
            top.setdefault(obj, oid)
        for d in facts.defs:
            if not d.cls and parent_of(d) == obj:
                g.methods.setdefault(oid, {})[d.name] = f"{path}::{d.qualname}"
    spans.sort(key=lambda s: (s[0], -s[1]))
    g._spans[path] = spans


def parent_of(d) -> str | None:
    """The qualname of the scope holding definition D (None at the top level); a callback's
    name (`<commands.map>`) holds dots of its own."""
    if d.qualname == d.name:
        return None
    return d.qualname[:-(len(d.name) + 1)]


_GENERIC = re.compile(r"^[A-Z][0-9]?$")  # a type parameter (`T`, `K`), not a named type


# the names a parameter binds: `x`, `...rest`, `{ a, b: c = 1 }` (a, c), `[x, y]`
_BOUND_NAME = re.compile(r"(?<![\w$.:])([A-Za-z_$][\w$]*)(?=\s*(?:[,}\]=]|$))")


def type_names(annotation: str | None) -> list[str]:
    """The named types an annotation mentions (generic wrappers like Promise<> looked into)."""
    if not annotation:
        return []
    return [t for t in _TYPE_NAME.findall(annotation) if t.split(".")[0] not in _PLAIN_TYPES]


class _Resolver:
    def __init__(self, g: CallGraph, info: TsInfo, ts: dict[str, PyFacts], line_of):
        self.g, self.info, self.ts, self.line_of = g, info, ts, line_of
        self._specs: dict[str, list[str]] = {}
        self._memo: dict[tuple[str, str], str | None] = {}
        self._external: dict[tuple[str, str], bool] = {}
        self._defaults: dict[str, str | None] = {}
        self._split: dict[tuple[str, str], tuple[str, str]] = {}
        self._reexports: dict[str, list[str]] = {}
        self._ptypes: dict[tuple[str, str, str], list[str]] = {}
        self._members_built = False
        self._symbols: dict[tuple[str, str], str | None] = {}
        self._pkg_dir: dict[str, str | None] = {}
        self._closure: dict[str | None, frozenset] = {}
        self._defs_by_qual: dict[str, dict[str, object]] = {}
        self._impl_memo: dict[str, list[str]] = {}  # interface -> implementing classes

    # -- names ---------------------------------------------------------------------------------
    def specs(self, path: str) -> list[str]:
        got = self._specs.get(path)
        if got is None:
            facts = self.ts.get(path)
            got = sorted((k[8:] for k in (facts.imports if facts else ()) if k.startswith("<module>")),
                         key=len, reverse=True)
            self._specs[path] = got
        return got

    def split_origin(self, path: str, origin: str) -> tuple[str, str]:
        """(module specifier, exported name path) of an import origin in PATH."""
        key = (path, origin)
        got = self._split.get(key)
        if got is None:
            got = self._split[key] = self._split_origin(path, origin)
        return got

    def _split_origin(self, path: str, origin: str) -> tuple[str, str]:
        for spec in self.specs(path):
            if origin == spec:
                return spec, ""
            if origin.startswith(spec + "."):
                return spec, origin[len(spec) + 1:]
        head, _, rest = origin.partition(".")
        return head, rest

    def is_external(self, path: str, dotted: str) -> bool:
        """Whether DOTTED, as written in PATH, names a third-party module's export."""
        facts = self.ts.get(path)
        head = dotted.split(".", 1)[0]
        if facts is None or head not in facts.imports or head in self.info.top.get(path, {}):
            return False
        spec, _ = self.split_origin(path, facts.imports[head])
        return self.info.modules.resolve(path, spec) is None

    def symbol(self, path: str, dotted: str, depth: int = 0) -> str | None:
        """The node DOTTED names in PATH (a top-level name or an import, then members)."""
        if depth == 0:
            key = (path, dotted)
            if key in self._symbols:
                return self._symbols[key]
            self._symbols[key] = None
            got = self._symbol(path, dotted, 0)
            self._symbols[key] = got
            return got
        return self._symbol(path, dotted, depth)

    def _symbol(self, path: str, dotted: str, depth: int) -> str | None:
        if not dotted or depth > 8:
            return None
        head, _, rest = dotted.partition(".")
        top = self.info.top.get(path, {})
        if head in top:
            return self.member(top[head], rest)
        facts = self.ts.get(path)
        if facts is not None and head in facts.imports:
            origin = facts.imports[head] + ("." + rest if rest else "")
            return self.origin(path, origin, depth + 1)
        return None

    def origin(self, path: str, origin: str, depth: int = 0) -> str | None:
        spec, rest = self.split_origin(path, origin)
        target = self.info.modules.resolve(path, spec)
        if target is None:
            return None
        if not rest:
            return f"{target}::{MODULE}"
        return self.export(target, rest, depth + 1)

    def export(self, path: str, dotted: str, depth: int = 0) -> str | None:
        key = (path, dotted)
        if key in self._memo:
            return self._memo[key]
        self._memo[key] = None  # cycles of re-exports resolve to nothing
        got = self._export(path, dotted, depth)
        self._memo[key] = got
        return got

    def _export(self, path: str, dotted: str, depth: int) -> str | None:
        if depth > 10:
            return None
        head, _, rest = dotted.partition(".")
        top = self.info.top.get(path, {})
        if head in top:
            return self.member(top[head], rest)
        facts = self.ts.get(path)
        if facts is None:
            return None
        if head == "default":
            d = self.default_of(path)
            return self.member(d, rest) if d else None
        if head in facts.imports:  # import {a} from "x"; export {a}
            return self.origin(path, facts.imports[head] + ("." + rest if rest else ""), depth + 1)
        for target in self.reexports(path):  # export * from / export {a} from
            got = self.export(target, dotted, depth + 1)
            if got:
                return got
        return None

    def reexports(self, path: str) -> list[str]:
        """Repository files PATH names by a specifier that binds no name (re-exports)."""
        got = self._reexports.get(path)
        if got is not None:
            return got
        facts = self.ts.get(path)
        named = set()
        for k, v in facts.imports.items():
            if not k.startswith("<module>"):
                named.add(self.split_origin(path, v)[0])
        got = []
        for spec in self.specs(path):
            if spec in named:
                continue
            target = self.info.modules.resolve(path, spec)
            if target is not None and target != path:
                got.append(target)
        self._reexports[path] = got
        return got

    def default_of(self, path: str) -> str | None:
        if path in self._defaults:
            return self._defaults[path]
        self._defaults[path] = None
        facts = self.ts[path]
        got = None
        for a in facts.assigns:
            if a.scope_kind == "module" and a.target == "default" and a.value:
                v = a.value.strip()
                got = self.symbol(path, v) if _DOTTED.match(v) else None
                break
        if got is None:
            for d in list(facts.classes) + list(facts.defs):
                if "." in d.qualname:
                    continue
                if re.match(r"^\s*export\s+default\b", self.line_of(path, d.line)):
                    got = f"{path}::{d.qualname}"
                    break
        self._defaults[path] = got
        return got

    def member(self, nid: str | None, rest: str) -> str | None:
        if nid is None or not rest:
            return nid
        node = self.g.nodes.get(nid)
        if node is None:
            return None
        first, _, more = rest.partition(".")
        if node.kind == "class":
            m = self.g.method(nid, first)
            if m is None:
                nested = f"{node.path}::{node.qualname}.{first}"
                m = nested if nested in self.g.nodes else None
            return self.member(m, more) if m else None
        if node.kind == "module":
            return self.export(node.path, rest)
        nested = f"{node.path}::{node.qualname}.{first}"
        return self.member(nested, more) if nested in self.g.nodes else None

    # -- classes and types ---------------------------------------------------------------------
    def heritage(self, path: str, facts: PyFacts) -> None:
        g = self.g
        for c in facts.classes:
            cid = f"{path}::{c.qualname}"
            for b in c.bases:
                b = b.split("<", 1)[0]
                bid = self.symbol(path, b) if _DOTTED.match(b or "") else None
                imported = False
                if bid is None and b:
                    # the facts resolve an imported base through its import:
                    # "./base-provider.BaseProvider" is BaseProvider of that module
                    bid = self.origin(path, b)
                    imported = bid is not None
                if bid and bid != cid and g.nodes[bid].kind == "class":
                    g.bases.setdefault(cid, []).append(bid)
                    g.subclasses.setdefault(bid, []).append(cid)
                if (not bid or imported) and b and b.split(".")[-1] not in _PLAIN_BASES:
                    # A library's class calls its methods back. So, here, does a base in another
                    # file: its template methods and whoever holds the base type call the
                    # overrides, through values the reader rarely can type (`invocation.execute()`
                    # on a union of tool invocations); its members stay live with the class.
                    g._external_bases[cid] = True
            for i in c.implements:
                name = i.split("<", 1)[0]
                if self.is_external(path, name):
                    g._external_bases[cid] = True  # a framework's interface (a provider)
                self.info.implementers.setdefault(name.split(".")[-1], []).append(cid)
        for d in facts.defs:
            if d.returns and not d.cls:
                for t in type_names(d.returns):
                    self.info.factories.setdefault(t.split(".")[-1], []).append(
                        f"{path}::{d.qualname}")

    def classes_of(self, path: str, annotation: str | None) -> list[str]:
        """Repository classes a value of ANNOTATION may be: the class it names, or the classes
        implementing the interface it names."""
        out = []
        for t in type_names(annotation):
            nid = self.symbol(path, t)
            node = self.g.nodes.get(nid) if nid else None
            if node is not None and node.kind == "class":
                out.append(nid)
            else:
                out.extend(c for c in self._implementing(t.split(".")[-1])
                           if self.visible(path, c.split("::", 1)[0]))
        return out

    def _implementing(self, interface: str) -> list[str]:
        """The classes implementing INTERFACE: those that name it, and their subclasses (an
        abstract base implements it, each provider extends the base)."""
        got = self._impl_memo.get(interface)
        if got is None:
            got = self._impl_memo[interface] = list(dict.fromkeys(
                d for c in self.info.implementers.get(interface, ())
                for d in (c, *self.g.descendants(c))))
        return got

    def value_classes(self, path: str, value: str | None, cls: str | None = None) -> list[str]:
        """Classes VALUE constructs or returns: `new Foo()`, `makeFoo()` (declared return
        type), `this.makeFoo()`, `a ?? b` either side."""
        if not value:
            return []
        v = value.strip()
        if v.startswith("await "):
            v = v[6:].strip()
        for sep in (" ?? ", " || "):
            if sep in v:
                out = []
                for part in v.split(sep)[:3]:
                    out += self.value_classes(path, part, cls)
                return out
        if v.startswith("new "):
            name = v[4:].split("(", 1)[0].split("<", 1)[0].strip()
            nid = self.symbol(path, name) if _DOTTED.match(name) else None
            if nid and self.g.nodes[nid].kind == "class":
                return [nid]
            return []
        callee = v.split("(", 1)[0].strip()
        if not v.endswith(")") or not _DOTTED.match(callee):
            return []
        if callee.startswith("this.") and cls and callee.count(".") == 1:
            nid = self.g.method(f"{path}::{cls}", callee[5:])
        else:
            nid = self.symbol(path, callee)
        node = self.g.nodes.get(nid) if nid else None
        if node is None or node.kind != "function":
            return []
        facts = self.ts.get(node.path)
        d = facts.function(node.qualname) if facts else None
        return self.classes_of(node.path, d.returns) if d is not None and d.returns else []

    def types(self, path: str, facts: PyFacts) -> None:
        """Attribute types of this file's classes (fields, constructor parameters, `this.x =`)."""
        ft = self.info.field_types
        defs = {d.qualname: d for d in facts.defs}
        for a in facts.assigns:
            if a.scope_kind == "class" and a.annotation:
                got = self.classes_of(path, a.annotation)
                if got:
                    ft.setdefault(f"{path}::{a.scope}", {}).setdefault(a.target, []).extend(got)
            elif a.scope_kind == "class" and a.value:
                got = self.value_classes(path, a.value, a.scope)
                if got:
                    ft.setdefault(f"{path}::{a.scope}", {}).setdefault(a.target, []).extend(got)
            elif a.scope_kind == "function" and a.target.startswith("this.") and \
                    a.target.count(".") == 1:
                d = defs.get(a.scope)
                if d is None or not d.cls:
                    continue
                got = self.value_classes(path, a.value, d.cls)
                if not got and a.value and a.value.strip().isidentifier():
                    p = next((p for p in d.params if p.name == a.value.strip()), None)
                    got = self.classes_of(path, p.annotation) if p else []
                if got:
                    ft.setdefault(f"{path}::{d.cls}", {}).setdefault(a.target[5:], []).extend(got)
        for d in facts.defs:  # constructor(private readonly x: Foo)
            if d.cls and d.name == "constructor":
                for p in d.params:
                    if p.annotation and p.name.isidentifier():
                        got = self.classes_of(path, p.annotation)
                        if got:
                            ft.setdefault(f"{path}::{d.cls}", {}).setdefault(p.name, got)

    def field(self, cls_id: str, attr: str) -> list[str]:
        for c in self.g.mro(cls_id):
            got = self.info.field_types.get(c, {}).get(attr)
            if got:
                return got
        return []

    # -- packages ------------------------------------------------------------------------------
    def pkg_dir(self, path: str) -> str | None:
        d = path.rsplit("/", 1)[0] if "/" in path else ""
        got = self._pkg_dir.get(d, 0)
        if got == 0:
            pkg = self.info.modules.package_of(path)
            got = self._pkg_dir[d] = pkg.dir if pkg is not None else None
        return got

    def visible(self, from_path: str, to_path: str) -> bool:
        """Whether code in FROM_PATH can call into TO_PATH without naming it: the same package,
        a workspace package it depends on (transitively), or any package of the scored product
        (objects built anywhere in the product flow into its runtime). Root-level code sees
        everything."""
        a = self.pkg_dir(from_path)
        if not a:
            return True
        b = self.pkg_dir(to_path)
        if a == b or (b in self.info.product and a in self.info.product):
            return True
        closure = self._closure.get(a)
        if closure is None:
            mods = self.info.modules
            by_dir = {p.dir: p for _d, p in mods.pkg_dirs}
            out, stack = set(), [a]
            while stack:
                d = stack.pop()
                if d in out or d not in by_dir:
                    continue
                out.add(d)
                for dep in by_dir[d].dependencies:
                    q = mods.packages.get(dep.name)
                    if q is not None:
                        stack.append(q.dir)
            closure = self._closure[a] = frozenset(out)
        return b in closure

    # -- per file ------------------------------------------------------------------------------
    def file_edges(self, path: str, facts: PyFacts) -> None:
        g = self.g
        mid = f"{path}::{MODULE}"
        defs = {d.qualname: d for d in facts.defs}
        classes = {c.qualname for c in facts.classes}
        # name -> classes per function scope; "" holds the module's variables (`let m: Manager;`,
        # `const m = new Manager()`), which a function sees unless it binds the name itself
        local_types: dict[str, dict[str, list[str]]] = {}
        bound: set[tuple[str, str]] = set()  # (scope, name) a function binds, typed or not
        for a in facts.assigns:
            if not a.target.isidentifier():
                continue
            if a.scope_kind == "function":
                bound.add((a.scope, a.target))
                d = defs.get(a.scope)
                got = self.classes_of(path, a.annotation) or \
                    self.value_classes(path, a.value, d.cls if d else None)
                if got:
                    local_types.setdefault(a.scope, {})[a.target] = got
            elif a.scope_kind == "module":
                got = self.classes_of(path, a.annotation) or self.value_classes(path, a.value, None)
                if got:
                    local_types.setdefault("", {}).setdefault(a.target, got)
        for d in facts.defs:
            for p in d.params:  # `x`, `...xs` and the names a pattern destructures
                names = _BOUND_NAME.findall(p.name.replace("...", " "))
                bound.update((d.qualname, n) for n in names)
                if p.annotation and p.name.isidentifier():
                    got = self.classes_of(path, p.annotation)
                    if got:
                        local_types.setdefault(d.qualname, {}).setdefault(p.name, got)

        def caller_of(func, cls):
            if func:
                return f"{path}::{func}"
            if cls:
                return f"{path}::{cls}"
            return mid

        for c in facts.calls:
            src = caller_of(c.func, c.cls)
            if c.raw in ("import", "require"):
                spec = (c.args[0].strip().strip("'\"`") if c.args else "")
                t = self.info.modules.resolve(path, spec[5:] if spec.startswith("node:") else spec)
                if t is not None:
                    g.add_edge(src, f"{t}::{MODULE}", c.line, "import")
                continue
            targets = self.call_targets(path, c, defs, local_types, bound)
            if targets:
                for t, how in targets:
                    g.add_edge(src, t, c.line, how)
                if any(how in ("self", "attr", "local", "typed", "super") for _t, how in targets):
                    g.add_called(src, c.short, c.line)
            else:
                short = c.short
                g.add_called(src, short, c.line)
                g.unresolved.append((src, c.callee, c.line))
                if "." in c.raw and short not in _SKIP_DISPATCH and \
                        c.raw.split(".", 1)[0] not in _BUILTINS and \
                        not self.is_external(path, c.raw):
                    cands = [t for t in self._members_named(short)
                             if self.visible(path, t.split("::", 1)[0])]
                    if 0 < len(cands) <= _DISPATCH_MAX:
                        for t in cands:
                            g.add_edge(src, t, c.line, "dispatch")
            for v in c.args + tuple(v for k, v in c.kwargs):
                self._refs(path, src, v, c.line, c.func, c.cls)
        for a in facts.assigns:
            if not a.value:
                continue
            if a.scope_kind == "function":
                src = f"{path}::{a.scope}"
            elif a.scope_kind == "class":
                src = f"{path}::{a.scope}"
            else:
                src = mid
            v = a.value.strip()
            if v.startswith(("(", "async", "function")) and "=>" in v[:200] or \
                    v.startswith("function"):
                continue  # a bound function: its calls are its own
            if a.scope_kind == "function" and not v.startswith(("{", "[")) and \
                    not _DOTTED.match(v):
                continue  # a local computed by calls: those calls are its edges
            self._refs(path, src, v, a.line, a.scope if a.scope_kind == "function" else None,
                       None, names=True)
        for d in facts.defs:
            nid = f"{path}::{d.qualname}"
            parent = parent_of(d)
            if parent is not None:
                if parent in defs:
                    g.add_edge(f"{path}::{parent}", nid, d.line, "nested")
            elif d.name.startswith("<"):  # a callback passed to a module-level call
                g.add_edge(mid, nid, d.line, "nested")
        for c in facts.classes:
            if "." in c.qualname:
                parent = c.qualname.rsplit(".", 1)[0]
                if parent in defs or parent in classes:
                    g.add_edge(f"{path}::{parent}", f"{path}::{c.qualname}", c.line, "nested")
        for k, spec in facts.imports.items():
            if k.startswith("<module>"):
                t = self.info.modules.resolve(path, spec)
                if t is not None and t != path:
                    g.add_edge(mid, f"{t}::{MODULE}", 1, "import")

    def _members_named(self, name: str) -> list[str]:
        """Functions named NAME that are members of an object literal (`{ execute: async () =>
        ... }`, `{ handler(x) {} }`), whatever object holds them (indexed once for all names)."""
        if not self._members_built:
            self._members_built = True
            for path, facts in self.ts.items():
                for d in facts.defs:
                    if d.cls or "." not in d.qualname or d.name.startswith("<"):
                        continue
                    m = _MEMBER_RX.match(self.line_of(path, d.line))
                    if m and m.group(1) == d.name and m.group(1) not in ("function", "const",
                                                                          "let", "var", "class"):
                        got = self.info.member_funcs.setdefault(d.name, [])
                        nid = f"{path}::{d.qualname}"
                        if not got or got[-1] != nid:
                            got.append(nid)
        return self.info.member_funcs.get(name, [])

    def _refs(self, path, src, text, line, func, cls, names=False) -> None:
        """Reference edges for the functions and classes TEXT names (an argument, a value)."""
        v = text.strip()
        if not v:
            return
        if _DOTTED.match(v):
            t = self._ref(path, v, func, cls)
            if t:
                self.g.add_edge(src, t, line, "ref")
            return
        if not names and not v.startswith(("{", "[")):
            return
        body = _STRINGS.sub('""', v)
        seen = set()
        for m in _REF_NAME.finditer(body):
            name = (m.group(1) or "") + m.group(2)
            if name in seen or m.group(2).split(".")[0] in _JS_KEYWORDS:
                continue
            seen.add(name)
            t = self._ref(path, name, func, cls)
            if t:
                self.g.add_edge(src, t, line, "ref")

    def _ref(self, path, name, func, cls) -> str | None:
        if name.startswith("this."):
            rest = name[5:]
            if cls and "." not in rest:
                return self.g.method(f"{path}::{cls}", rest)
            return None
        if func and "." not in name:
            scope = func
            while scope:
                nested = f"{path}::{scope}.{name}"
                if nested in self.g.nodes:
                    return nested
                scope = scope.rsplit(".", 1)[0] if "." in scope else ""
        t = self.symbol(path, name)
        if t and self.g.nodes[t].kind == "module":
            return None  # a namespace import named as a value is not a use of its code
        return t

    def call_targets(self, path, c, defs, local_types, bound=frozenset()) -> list[tuple[str, str]]:
        g = self.g
        raw = c.raw
        is_new = raw.startswith("new ")
        if is_new:
            raw = raw[4:]
        cls_id = f"{path}::{c.cls}" if c.cls else None
        if raw.startswith("this.") and cls_id:
            rest = raw[5:]
            if "." not in rest:
                m = g.method(cls_id, rest)
                if m:
                    return [(m, "self")]
                return []
            attr, _, meth = rest.partition(".")
            if "." in meth:
                return []
            out = []
            for t in self.field(cls_id, attr):
                m = g.method(t, meth)
                if m:
                    out.append((m, "attr"))
            return out
        if raw == "super" and cls_id:
            bases = g.bases.get(cls_id, [])
            return [(m, "super") for b in bases for m in [g.method(b, "constructor")] if m]
        if raw.startswith("super.") and cls_id:
            m = g.method(cls_id, raw[6:], skip_self=True)
            return [(m, "super")] if m else []
        head, _, rest = raw.partition(".")
        scope = c.func
        if rest and "." not in rest:
            s = scope or ""
            while True:
                got = local_types.get(s, {}).get(head)
                if got:
                    return [(m, "local") for t in got for m in [g.method(t, rest)] if m]
                if not s or (s, head) in bound:
                    break  # the module's variable, or shadowed by this function's own name
                s = s.rsplit(".", 1)[0] if "." in s else ""
        if scope and not rest:
            s = scope
            while s:  # a function nested in this one or an enclosing one
                nested = f"{path}::{s}.{raw}"
                if nested in g.nodes:
                    return [(nested, "call")]
                s = s.rsplit(".", 1)[0] if "." in s else ""
        t = self.symbol(path, raw) if _DOTTED.match(raw) else None
        if t is not None:
            node = g.nodes[t]
            if node.kind == "class":
                out = [(t, "ctor")]
                ctor = g.method(t, "constructor")
                if ctor:
                    out.append((ctor, "ctor"))
                return out
            if node.kind == "module":
                return []
            return [(t, "call")]
        if not rest and scope:  # a call of a function-typed parameter: the factories' closures
            for tname in self._param_types(path, scope, head):
                facs = [f for f in self.info.factories.get(tname.split(".")[-1], ())
                        if self.visible(path, f.split("::", 1)[0])]
                if 0 < len(facs) <= _DISPATCH_MAX:
                    return [(f, "typed") for f in facs]
        return []

    def _param_types(self, path: str, func: str, name: str) -> list[str]:
        """Declared types of NAME in FUNC (or an enclosing function): a parameter's annotation,
        or a property of an inline object-type annotation the parameter is destructured from."""
        key = (path, func, name)
        if key in self._ptypes:
            return self._ptypes[key]
        got = self._ptypes[key] = self._param_types_of(path, func, name)
        return got

    def _param_types_of(self, path: str, func: str, name: str) -> list[str]:
        facts = self.ts.get(path)
        if facts is None:
            return []
        defs = self._defs_by_qual.get(path)
        if defs is None:
            defs = self._defs_by_qual[path] = {d.qualname: d for d in facts.defs}
        s = func
        while s:
            d = defs.get(s)
            if d is not None:
                for p in d.params:
                    if p.name == name and p.annotation:
                        if "=>" in p.annotation:
                            # an inline function type (`(value: T) => unknown`): the callback is
                            # whatever the caller passes; the types it names are its arguments'
                            return []
                        return [t for t in type_names(p.annotation)[:1] if not _GENERIC.match(t)]
                for p in d.params:
                    if p.annotation and name in p.annotation:
                        for n, t in _TYPED_NAME.findall(p.annotation):
                            if n == name:
                                return [t]
            s = s.rsplit(".", 1)[0] if "." in s else ""
        return []
