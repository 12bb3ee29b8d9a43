"""A call graph over the repository's live Python, built from the parse facts (no second parse).

Nodes are modules (`path::<module>`, their top-level code), classes and functions/methods
(`path::qualname`). Edges follow PyCG's assignment-based rules as far as the facts allow:

- imports resolved to modules (relative imports, re-exports and `*` imports followed);
- calls resolved through imports, nested and module-level definitions, `self`/`cls`/`super()`
  methods along the class hierarchy, attributes whose class is known from an assignment
  (`self.x = Foo(...)`) or an annotation, and locals assigned from a constructor or annotated;
- references: functions and classes passed by name (callbacks, `Thread(target=f)`), listed in
  module-level dicts or lists (registries), or registered by a decorator;
- a class that is reached reaches its public methods and, along its hierarchy, the methods
  others call by name (dynamic dispatch on an instance whose class is known to be live).

What cannot be resolved is kept in `unresolved` (caller, callee text), never silently dropped.
Reachability is a breadth-first walk from given roots; its depth is the distance used to rank
evidence (the closer to the agent loop, the more decisive).
"""

from __future__ import annotations

import re
from collections import deque
from dataclasses import dataclass, field

from ..index.pyfacts import ClassDef, FuncDef, PyFacts, code_of, resolve
from .modules import ModuleMap

MODULE = "<module>"
_MAX_HOPS = 6  # imports and re-exports followed from one name (as _symbol's depth limit)
_MISSING = object()  # not in a memo yet
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# `self.handlers[name]`, `self.handlers.get(name)`: an entry of an instance's dispatch table
_SELF_TABLE = re.compile(r"^self\.([A-Za-z_]\w*)(?:\[[^\]]*\]|\.get\([^()]*\))$")
_RECEIVER_CALL = re.compile(r"\b([A-Za-z_]\w*)\.([A-Za-z_]\w*)\s*\(")  # `agent.responders(`
_SELF_NAME = re.compile(r"\bself\.([A-Za-z_]\w*)\b(?!\s*\()")  # a method named, not called
# what a pipeline loop iterates: a collection by name, one entry of it, or its values
# (`STEPS`, `STEPS[config]`, `STEPS.get(mode, [])`, `HANDLERS.values()`)
_COLLECTION_EXPR = re.compile(r"^([A-Za-z_]\w*)(?:\[[^\]]*\]|\.get\(.*\)|\.values\(\))?$")
_REGISTRY_ENTRY = re.compile(r"""(["'])([\w.-]+)\1\s*:\s*([A-Za-z_][\w.]*)\s*(?=[,}])""")
# `"docker": "pkg.envs.docker.DockerEnvironment"`: a backend registry of dotted paths, each
# class imported by name when its key is chosen
_PATH_ENTRY = re.compile(r"""(["'])([\w.-]+)\1\s*:\s*(["'])([a-z_]\w*(?:\.[A-Za-z_]\w*){2,})\3\s*(?=[,}])""")
_SUBSCRIPT_TARGET = re.compile(r"^([A-Za-z_]\w*)\[[^\]]+\]$")  # REGISTRY[fn.__name__] = ...
_SUBSCRIPT_CALL = re.compile(r"^([A-Za-z_]\w*)\[[^\]]*\]$")
_DOTTED_LITERAL = re.compile(r"""^["']([a-z_][\w]*(?:\.[A-Za-z_]\w*){2,})["']$""")
_DOTTED_STRING = re.compile(r"""["']([a-z_][\w]*(?:\.[A-Za-z_]\w*){2,})["']""")
_SPREAD = re.compile(r"\*\*\s*([A-Za-z_][\w.]*)")
_STRINGS = re.compile(r"""[rbfuRBFU]{0,2}("(?:\\.|[^"\\])*"|'(?:\\.|[^'\\])*')""")


def _code_text(value: str) -> str:
    """The code of an expression's source text: strings blanked and, line by line, comments
    dropped (a multi-line table's `# self.old_handler` names no code)."""
    return _STRINGS.sub('""', "\n".join(code_of(ln) for ln in value.splitlines()))
_DOTTED = re.compile(r"^[A-Za-z_][A-Za-z0-9_.]*$")
# a dependency-injection container asked for an instance of a class (python-injector's
# `injector.get(Cls)` and `create_object(Cls, {...})`, dependency-injector/kink/punq `resolve`)
_DI_GET = re.compile(r"^[\w.]*(?:injector|container|locator)\w*\.(?:get|create_object|resolve|"
                     r"provide|get_instance|instantiate)\(\s*([A-Za-z_][\w.]*)\s*[,)]", re.I)
_TRIVIAL_DECORATORS = re.compile(
    r"^(property|staticmethod|classmethod|abstractmethod|abc\.abstractmethod|overload|"
    r"typing\.overload|override|\w+\.setter|\w+\.getter|\w+\.deleter|cached_property|"
    r"functools\.\w+|wraps|lru_cache|cache|dataclass|dataclasses\.dataclass|final|"
    r"pytest\.\w+|deprecated)\b")
# bases that add no behaviour a framework would call back into
_PLAIN_BASES = {"object", "Exception", "BaseException", "ValueError", "RuntimeError", "TypeError",
                "KeyError", "enum.Enum", "Enum", "str", "int", "dict", "list", "typing.NamedTuple",
                "NamedTuple", "typing.Protocol", "Protocol", "typing.Generic", "Generic",
                "abc.ABC", "ABC", "pydantic.BaseModel", "BaseModel", "typing.TypedDict",
                "TypedDict", "enum.IntEnum", "IntEnum", "enum.StrEnum", "StrEnum", "str, Enum"}
_ANNOT_WRAPPERS = re.compile(r"^(Optional|Annotated|Type|type|ClassVar|Final)\[(.*)\]$")
_UNION = re.compile(r"^(?:typing\.)?Union\[(.*)\]$")


def _top_level_split(text: str, seps: str) -> list[str]:
    """TEXT split at the characters of SEPS that sit outside brackets."""
    out, depth, cur = [], 0, []
    for ch in text:
        if ch in "[(":
            depth += 1
        elif ch in "])":
            depth -= 1
        if ch in seps and depth == 0:
            out.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    out.append("".join(cur))
    return out


@dataclass
class Node:
    id: str
    path: str
    qualname: str
    kind: str  # module | class | function
    line: int
    end_line: int
    cls: str | None = None  # enclosing class qualname of a method
    name: str = ""


@dataclass
class CallGraph:
    modules: ModuleMap
    nodes: dict[str, Node] = field(default_factory=dict)
    edges: dict[str, list[tuple[str, int, str]]] = field(default_factory=dict)  # (dst, line, how)
    unresolved: list[tuple[str, str, int]] = field(default_factory=list)  # (caller, callee, line)
    methods: dict[str, dict[str, str]] = field(default_factory=dict)  # class id -> name -> id
    bases: dict[str, list[str]] = field(default_factory=dict)  # class id -> repo base class ids
    subclasses: dict[str, list[str]] = field(default_factory=dict)
    called_names: dict[str, set[str]] = field(default_factory=dict)  # caller -> short names
    called_at: dict[str, dict[str, list[int]]] = field(default_factory=dict)  # caller -> name -> lines
    _spans: dict[str, list[tuple[int, int, str]]] = field(default_factory=dict)
    _external_bases: dict[str, bool] = field(default_factory=dict)
    _resolver: "_Resolver | None" = None
    registry_alias: dict[str, str] = field(default_factory=dict)  # {**D}: alias -> D
    registries: dict[tuple[str, str], list[tuple[str, str]]] = field(default_factory=dict)
    path_registries: set[str] = field(default_factory=set)  # registries of dotted-path strings
    # Memos of mro(), method() and overrides(): the edge builder, the reach walks, the session
    # and the probes ask them tens of thousands of times for a few thousand classes. They are
    # None (nothing kept) until build() has added the last base class, since resolving the
    # bases themselves goes through mro() on a hierarchy that is still growing.
    _mro_memo: dict[str, list[str]] | None = field(default=None, repr=False)
    _method_memo: dict[tuple[str, str, bool], str | None] | None = field(default=None, repr=False)
    _overrides_memo: dict[str, list[str]] | None = field(default=None, repr=False)

    def add_called(self, src: str, name: str, line: int) -> None:
        """SRC calls a method named NAME at LINE (on a receiver reach() may dispatch by name)."""
        self.called_names.setdefault(src, set()).add(name)
        self.called_at.setdefault(src, {}).setdefault(name, []).append(line)

    def seal_hierarchy(self) -> None:
        """Declare `bases`, `subclasses` and `methods` complete: from now on mro(), method()
        and overrides() keep their answers."""
        self._mro_memo, self._method_memo, self._overrides_memo = {}, {}, {}

    def resolve(self, dotted: str, path: str | None = None) -> str | None:
        """The node DOTTED names (as imported in PATH, or absolute): module, class or function."""
        r = self._resolver
        if r is None:
            return None
        if path is not None:
            return r.symbol(path, dotted, want=("module", "class", "function"))
        return r._global(dotted, 0)

    def add_edge(self, src: str, dst: str, line: int, how: str) -> None:
        if dst in self.nodes and dst != src:
            self.edges.setdefault(src, []).append((dst, line, how))

    def node_at(self, path: str, line: int) -> str:
        """The innermost function or class of PATH holding LINE, else its module node."""
        best = None
        for start, end, nid in self._spans.get(path, ()):
            if start <= line <= end:
                best = nid  # spans are sorted by start, so the last hit is the innermost
            elif start > line:
                break
        return best or f"{path}::{MODULE}"

    def mro(self, cls_id: str) -> list[str]:
        """CLS_ID and its repository bases, depth first, each once (a shared list once the
        hierarchy is sealed: callers do not modify it)."""
        memo = self._mro_memo
        if memo is not None:
            got = memo.get(cls_id)
            if got is None:
                got = memo[cls_id] = self._mro(cls_id)
            return got
        return self._mro(cls_id)

    def _mro(self, cls_id: str) -> list[str]:
        out, stack, seen = [], [cls_id], set()
        while stack:
            c = stack.pop(0)
            if c in seen:
                continue
            seen.add(c)
            out.append(c)
            stack[0:0] = self.bases.get(c, [])
        return out

    def method(self, cls_id: str, name: str, skip_self: bool = False) -> str | None:
        memo = self._method_memo
        if memo is None:
            return self._method(cls_id, name, skip_self)
        key = (cls_id, name, skip_self)
        try:
            return memo[key]
        except KeyError:
            got = memo[key] = self._method(cls_id, name, skip_self)
            return got

    def _method(self, cls_id: str, name: str, skip_self: bool) -> str | None:
        for c in self.mro(cls_id)[1 if skip_self else 0:]:
            m = self.methods.get(c, {}).get(name)
            if m:
                return m
        return None

    def reach(self, roots: list[str], *, calls: set[str] = frozenset(), exclude: set[str] = frozenset(),
              follow=None) -> tuple[dict[str, int], dict[str, tuple[str, int, str]]]:
        """(distance, parent edge) of every node reachable from ROOTS.

        CALLS: method names called by code outside the graph (a README snippet's `agent.run`).
        EXCLUDE: nodes never entered (other CLI commands than the scored one).
        FOLLOW(src, line, how) -> bool: whether an edge is taken (e.g. not behind a branch the
        shipped defaults never enter).

        A method of a reached class is reached when it is a dunder, when reached code calls a
        method of that name on any receiver (dispatch on an instance the graph cannot type), or
        when the class extends a class from outside the repository (whose code calls it)."""
        dist: dict[str, int] = {}
        parent: dict[str, tuple[str, int, str]] = {}
        queue: deque[str] = deque()
        names_called: set[str] = set()
        waiting: dict[str, list[tuple[str, str]]] = {}  # method name -> (class, method)

        def visit(nid: str, d: int, via: tuple[str, int, str] | None) -> None:
            if nid in dist or nid not in self.nodes or nid in exclude:
                return
            dist[nid] = d
            if via:
                parent[nid] = via
            queue.append(nid)

        def called(name: str) -> None:
            if name not in names_called:
                names_called.add(name)
                for cls_id, mid in waiting.pop(name, ()):
                    visit(mid, dist[cls_id] + 1, (cls_id, self.nodes[mid].line, "dispatch"))

        for r in roots:
            visit(r, 0, None)
        for name in calls:
            called(name)
        while queue:
            nid = queue.popleft()
            d = dist[nid]
            node = self.nodes[nid]
            if node.kind != "module":  # code that runs was imported: its module's top level ran
                visit(f"{node.path}::{MODULE}", d + 1, (nid, 1, "module"))
            for dst, line, how in self.edges.get(nid, ()):
                if follow is None or follow(nid, line, how):
                    visit(dst, d + 1, (nid, line, how))
            at = self.called_at.get(nid, {})
            # the names in source order (called_at's), not a set's, which changes per process:
            # methods released by name join the queue out of distance order, so the order they
            # join in decides the distance of what they reach
            for name in at:
                # FOLLOW is asked about the call's lines as for an edge: a name called only in
                # a branch the defaults never enter releases no method
                lines = at.get(name)
                if follow is None or not lines or any(follow(nid, ln, "call") for ln in lines):
                    called(name)
            if node.kind == "class":
                external = self.extends_external(nid)
                for cid in self.mro(nid):
                    for mname, mid in self.methods.get(cid, {}).items():
                        dunder = mname.startswith("__") and mname.endswith("__")
                        if dunder or mname in names_called or (external and not mname.startswith("__")):
                            visit(mid, d + 1, (nid, self.nodes[mid].line, "member"))
                        else:
                            waiting.setdefault(mname, []).append((nid, mid))
                    if cid != nid:
                        visit(cid, d + 1, (nid, node.line, "base"))
        return dist, parent

    def _callers_index(self) -> dict[str, list[tuple[str, int]]]:
        """Callers of each node by call edges (built once): dst -> [(src, line)]."""
        got = self.__dict__.get("_callers")
        if got is None:
            got = {}
            for src, edges in self.edges.items():
                for dst, line, how in edges:
                    if how not in ("import", "package", "module", "nested", "decorator"):
                        got.setdefault(dst, []).append((src, line))
            self.__dict__["_callers"] = got
        return got

    def overrides(self, method_id: str) -> list[str]:
        """Methods of the same name in subclasses of METHOD_ID's class (virtual dispatch); a
        shared list once the hierarchy is sealed (callers do not modify it)."""
        memo = self._overrides_memo
        if memo is None:
            return self._overrides(method_id)
        got = memo.get(method_id)
        if got is None:
            got = memo[method_id] = self._overrides(method_id)
        return got

    def _overrides(self, method_id: str) -> list[str]:
        node = self.nodes.get(method_id)
        if node is None or not node.cls:
            return []
        return [m for c in self.descendants(f"{node.path}::{node.cls}")
                for m in [self.methods.get(c, {}).get(node.name)] if m]

    def descendants(self, cls_id: str) -> list[str]:
        """The subclasses of CLS_ID, theirs, and so on (each once)."""
        out, stack, seen = [], list(self.subclasses.get(cls_id, ())), set()
        while stack:
            c = stack.pop()
            if c in seen:
                continue
            seen.add(c)
            out.append(c)
            stack.extend(self.subclasses.get(c, ()))
        return out

    def extends_external(self, cls_id: str) -> bool:
        """Whether CLS_ID or a repository base of it names a base class from outside the repo."""
        return any(self._external_bases.get(c) for c in self.mro(cls_id))


_SYS_PATH_EDIT = frozenset({"sys.path.insert", "sys.path.append", "sys.path.extend"})


def sys_path_trees(py: dict[str, PyFacts]) -> frozenset[str]:
    """Directories of modules that put a directory on sys.path when imported (at module
    scope: the idiom that makes a server's own imports work, not a registry loaded at run
    time): below them an import may name a module by its path (ModuleMap.absolute)."""
    return frozenset(p.rsplit("/", 1)[0] for p, facts in py.items() if "/" in p and
                     _imports_sys(facts) and
                     any(c.func is None and c.callee in _SYS_PATH_EDIT for c in facts.calls))


def _imports_sys(facts: PyFacts) -> bool:  # a cheap test before reading every call
    return facts.imports.get("sys") == "sys" or facts.imports.get("path") == "sys.path"


def build(py: dict[str, PyFacts]) -> CallGraph:
    """The call graph of the parsed sources PY (path -> facts)."""
    mods = ModuleMap(py, path_roots=sys_path_trees(py))
    g = CallGraph(modules=mods)
    toplevel: dict[str, dict[str, str]] = {}  # path -> top-level name -> node id
    for path, facts in py.items():
        if path not in mods.by_path:
            continue
        mid = f"{path}::{MODULE}"
        g.nodes[mid] = Node(mid, path, MODULE, "module", 1, facts.lines, name=mods.by_path[path])
        top = toplevel.setdefault(path, {})
        spans = []
        for c in facts.classes:
            nid = f"{path}::{c.qualname}"
            g.nodes[nid] = Node(nid, path, c.qualname, "class", c.line, c.end_line, name=c.name)
            spans.append((c.line, c.end_line, nid))
            if "." not in c.qualname:
                top[c.name] = nid
        for d in facts.defs:
            nid = f"{path}::{d.qualname}"
            g.nodes[nid] = Node(nid, path, d.qualname, "function", d.line, d.end_line, cls=d.cls,
                                name=d.name)
            spans.append((d.line, d.end_line, nid))
            if "." not in d.qualname:
                top[d.name] = nid
            if d.cls:
                g.methods.setdefault(f"{path}::{d.cls}", {})[d.name] = nid
        spans.sort(key=lambda s: (s[0], -s[1]))
        g._spans[path] = spans

    for path, name in mods.by_path.items():  # importing a module runs its packages' __init__
        if "." in name:
            pkg = mods.by_name.get(name.rsplit(".", 1)[0])
            if pkg and pkg != path:
                g.add_edge(f"{path}::{MODULE}", f"{pkg}::{MODULE}", 1, "package")
    r = _Resolver(g, py, toplevel)
    protocols: list[str] = []
    for path, facts in py.items():
        if path not in mods.by_path:
            continue
        for c in facts.classes:
            cid = f"{path}::{c.qualname}"
            if any(b.split("[")[0] in _PROTOCOL_BASES for b in c.bases):
                protocols.append(cid)
            for b in c.bases:
                bid = r.symbol(path, b, want=("class",))
                if bid and bid != cid:
                    g.bases.setdefault(cid, []).append(bid)
                    g.subclasses.setdefault(bid, []).append(cid)
                elif bid is None and b.split("[")[0] not in _PLAIN_BASES:
                    g._external_bases[cid] = True
    _implementers(g, py, protocols)
    g.seal_hierarchy()  # every base is known: class lookups may be kept from here on
    r._global_memo = {}
    r.collect_aliases()  # before any call is resolved: a use anywhere reaches the target
    for path, facts in py.items():  # registries first: other files dispatch through them
        if path in mods.by_path:
            r.collect_registries(path, facts)
    r.collect_decorator_registries()
    r.collect_instances()  # module singletons (`agent = Agent()`), before any method call
    for path, facts in py.items():  # attribute types first: any file's calls may read them
        if path in mods.by_path:
            r.file_attrs(path, facts)
    for path, facts in py.items():
        if path in mods.by_path:
            r.file_edges(path, facts)
    g._resolver = r
    return g


_PROTOCOL_BASES = frozenset({"Protocol", "typing.Protocol", "typing_extensions.Protocol"})


def _implementers(g: CallGraph, py: dict[str, PyFacts], protocols: list[str]) -> None:
    """Structural subtypes of the repository's `typing.Protocol` classes, recorded as their
    subclasses: a call on a receiver typed by a protocol (`self.env: Environment`) runs the
    method of whichever class implements it, and those classes never name the protocol as a
    base. A class implements a protocol when it (or a repository base) defines every public
    method the protocol declares; a protocol that declares none (only dunders or fields)
    matches nothing, since any class would."""
    if not protocols:
        return
    definers: dict[str, set[str]] = {}  # method name -> classes defining it directly
    for cid, methods in g.methods.items():
        for name in methods:
            definers.setdefault(name, set()).add(cid)
    proto_set = set(protocols)
    for pid in protocols:
        wanted = [n for n in g.methods.get(pid, {}) if not n.startswith("_")]
        if not wanted:
            continue
        rarest = min(wanted, key=lambda n: len(definers.get(n, ())))
        have = set(g.subclasses.get(pid, ()))
        for cid in sorted(definers.get(rarest, ())):
            if cid == pid or cid in proto_set or cid in have:
                continue
            names = set()
            for k in g._mro(cid):
                names.update(g.methods.get(k, ()))
            if all(n in names for n in wanted):
                g.subclasses.setdefault(pid, []).append(cid)
                have.add(cid)


class _Resolver:
    def __init__(self, g: CallGraph, py: dict[str, PyFacts], toplevel: dict[str, dict[str, str]]):
        self.g, self.py, self.top = g, py, toplevel
        self.attr_types: dict[str, dict[str, str]] = {}  # class id -> attribute -> class id
        self.attr_funcs: dict[str, dict[str, str]] = {}  # class id -> attribute -> function id
        self.instances: dict[str, dict[str, str]] = {}  # module path -> variable -> class id
        # (path, module dict) -> its dotted-path entries (key, node), from collect_registries
        self._path_regs: dict[tuple[str, str], list[tuple[str, str]]] = {}
        self._instance_memo: dict[tuple[str, str], str | None] = {}
        # path -> (function, loop variable) -> the heads of the `for` loops binding it
        self._for_heads: dict[str, dict[tuple[str, str], list[str]]] = {}
        self._locals_of: dict[str, dict[tuple[str, str], list[str]]] = {}  # path -> (func, name) -> values
        self._tables: dict[tuple[str, str], list[str]] = {}  # (class id, attribute) -> entries
        self._memo: dict[tuple[str, str], str | None] = {}
        # _global() answers depend only on the dotted name, the class hierarchy and `top`.
        # Kept from the sealing of the hierarchy on (None before), and dropped whenever an
        # alias adds a name to `top` (see collect_aliases).
        self._global_memo: dict[str, str | None] | None = None
        self._cutoffs = 0  # _global() searches stopped at _MAX_HOPS (their answers are not kept)

    # -- names -------------------------------------------------------------------------------
    def symbol(self, path: str, dotted: str, want: tuple[str, ...] = ("class", "function"),
               depth: int = 0) -> str | None:
        """The node DOTTED names in the context of PATH (imports already applied or not)."""
        key = (path, dotted)
        memo = self._memo
        nid = memo.get(key, _MISSING)
        if nid is _MISSING:
            memo[key] = None  # a cycle of re-exports resolves to nothing
            nid = self._symbol(path, dotted, depth)
            memo[key] = nid
        if nid is not None and self.g.nodes[nid].kind not in want:
            return None
        return nid

    def _symbol(self, path: str, dotted: str, depth: int) -> str | None:
        if depth > _MAX_HOPS or not dotted:
            return None
        head, _, rest = dotted.partition(".")
        facts = self.py.get(path)
        top = self.top.get(path, {})
        if head in top:
            return self._member(path, top[head], rest)
        if facts is not None and head in facts.imports:
            origin = self.g.modules.absolute(facts.imports[head], path)
            return self._global(origin + ("." + rest if rest else ""), depth + 1)
        if "." not in dotted:
            return None  # a builtin or an unknown local name, never a module of the same name
        return self._global(self.g.modules.absolute(dotted, path, imported=False), depth + 1)

    def _global(self, dotted: str, depth: int) -> str | None:
        memo = self._global_memo
        if memo is not None and dotted in memo:
            return memo[dotted]
        if depth > _MAX_HOPS:  # a re-export cycle (a.x from b, b.x from a) or a very long chain
            self._cutoffs += 1
            return None
        cut = self._cutoffs
        got = self._global_uncached(dotted, depth)
        if memo is not None and self._cutoffs == cut:  # an answer cut short depends on the depth
            memo[dotted] = got
        return got

    def _global_uncached(self, dotted: str, depth: int) -> str | None:
        hit = self.g.modules.split(dotted)
        if hit is None:
            return None
        mpath, rest = hit
        if not rest:
            return f"{mpath}::{MODULE}"
        head, _, tail = rest.partition(".")
        top = self.top.get(mpath, {})
        if head in top:
            return self._member(mpath, top[head], tail)
        facts = self.py.get(mpath)
        if facts is None:
            return None
        if head in facts.imports:  # a re-export
            origin = self.g.modules.absolute(facts.imports[head], mpath)
            return self._global(origin + ("." + tail if tail else ""), depth + 1)
        for key, star in facts.imports.items():
            if key.startswith("<star>"):
                found = self._global(self.g.modules.absolute(star, mpath) + "." + rest, depth + 1)
                if found:
                    return found
        return None

    def _member(self, path: str, nid: str, rest: str) -> str | None:
        if not rest:
            return nid
        node = self.g.nodes[nid]
        if node.kind == "class":
            name, _, tail = rest.partition(".")
            m = self.g.method(nid, name)
            if m and not tail:
                return m
            inner = f"{path}::{node.qualname}.{name}"
            if inner in self.g.nodes:
                return self._member(path, inner, tail)
        return None

    def annotation_class(self, path: str, ann: str | None) -> str | None:
        if not ann:
            return None
        a = ann.strip().strip("'\"")
        while True:
            m = _ANNOT_WRAPPERS.match(a)
            if not m:
                break
            a = m.group(2).split(",")[0].strip()
        # `Union[List[BaseAgent], BaseAgent]`, `BaseAgent | None`: the first plain class among
        # the members (a container of them is not an instance)
        m = _UNION.match(a)
        members = _top_level_split(m.group(1) if m else a, ",|" if m else "|")
        for part in members:
            part = part.strip().strip("'\"")
            if part != "None" and _DOTTED.match(part):
                t = self.symbol(path, part, want=("class",))
                if t is not None:
                    return t
        return None

    def ctor_class(self, path: str, value: str | None, cls: str | None = None,
                   depth: int = 0) -> str | None:
        """The class a `Foo(...)`/`await Foo.create(...)`-like value instantiates, or the one a
        method it calls is annotated to return (`self.make_executor()` -> PythonExecutor).
        `a or b` tries each side. DEPTH counts unannotated functions followed to what they return."""
        if not value:
            return None
        v = value.strip()
        if " or " in v:
            for part in v.split(" or "):
                t = self.ctor_class(path, part, cls, depth)
                if t:
                    return t
            return None
        if v.startswith("await "):
            v = v[6:].strip()
        if v.startswith("self.") and cls and v.endswith(")") and "." not in v[5:].split("(")[0]:
            m = self.g.method(f"{path}::{cls}", v[5:].split("(")[0])
            node = self.g.nodes.get(m) if m else None
            return self._returns_class(node, depth) if node else None
        di = _DI_GET.match(v)
        if di:  # `self.injector.get(Planner)`: a dependency-injection container builds a Planner
            return self.symbol(path, di.group(1), want=("class",))
        callee = v.split("(", 1)[0].strip()
        if not callee or not _DOTTED.match(callee):
            return None
        nid = self.symbol(path, callee, want=("class", "function"))
        if nid is None:
            return None
        node = self.g.nodes[nid]
        if node.kind == "class":
            return nid
        ret = self._returns_class(node, depth)
        if ret:
            return ret
        if node.cls:  # Foo.create(...): a classmethod of Foo returns a Foo
            cid = f"{node.path}::{node.cls}"
            return cid if cid in self.g.nodes else None
        return None

    def _returns_class(self, node, depth: int = 0) -> str | None:
        """The class NODE is annotated to return; unannotated, the class of what it returns
        when that is a constructor or another function's result (`def get_model(self): return
        models.get_chat_model(...)`, whose `-> LiteLLMChatWrapper` types the caller's local),
        two functions deep at most."""
        facts = self.py.get(node.path)
        if facts is None:
            return None
        d = facts.function(node.qualname)
        if d is None:
            return None
        if d.returns:
            return self.annotation_class(node.path, d.returns)
        if depth >= 2:
            return None
        for value in facts.return_values.get(node.qualname, ()):
            t = self.ctor_class(node.path, value, node.cls, depth + 1)
            if t:
                return t
        return None

    def collect_aliases(self) -> None:
        """Module-level aliases (`OldName = NewName`) into `top`, for every module before any
        call is resolved (a use in the alias's own file, or in a file walked earlier, reaches
        the target). Repeated while new ones resolve: an alias may name another alias."""
        pending = [(path, a.target, a.value.strip()) for path, facts in self.py.items()
                   if path in self.g.modules.by_path for a in facts.assigns
                   if a.scope_kind == "module" and a.target.isidentifier() and a.value
                   and _DOTTED.match(a.value.strip()) and not a.value.strip()[0].isdigit()]
        while pending:
            left = []
            for path, target, value in pending:
                t = self._ref(path, value, None, None)
                if t is None:
                    left.append((path, target, value))
                    continue
                top = self.top.setdefault(path, {})
                if target not in top:
                    top[target] = t
            if len(left) == len(pending):
                break
            pending = left
            self._memo.clear()  # names through `top` may resolve anew
            if self._global_memo:
                self._global_memo.clear()

    def collect_instances(self) -> None:
        """Module variables holding an instance of a known class (`agent = Agent(...)`,
        `store: Store`): a method called on one, in its module or where it is imported, is that
        class's method. A name assigned twice at module level keeps its first class."""
        for path, facts in self.py.items():
            if path not in self.g.modules.by_path:
                continue
            for a in facts.assigns:
                if a.scope_kind != "module" or not a.target.isidentifier():
                    continue
                t = self.ctor_class(path, a.value) or self.annotation_class(path, a.annotation)
                if t and self.g.nodes[t].kind == "class":
                    self.instances.setdefault(path, {}).setdefault(a.target, t)

    def instance_class(self, path: str, name: str) -> str | None:
        """The class of module variable NAME as PATH sees it: its own, or one imported through
        up to three re-exports. Asked for most method calls of a file, so answered once per
        (PATH, NAME)."""
        key = (path, name)
        if key in self._instance_memo:
            return self._instance_memo[key]
        got = None
        for _ in range(4):
            got = self.instances.get(path, {}).get(name)
            facts = self.py.get(path)
            if got is not None or facts is None or name not in facts.imports:
                break
            hit = self.g.modules.split(self.g.modules.absolute(facts.imports[name], path))
            if hit is None or not hit[1] or "." in hit[1]:
                break
            path, name = hit
        self._instance_memo[key] = got
        return got

    def collect_decorator_registries(self) -> None:
        """Registries a decorator fills (`def tool(fn): REGISTRY[fn.__name__] = fn`): each
        function or class decorated with it is an entry, keyed by its name."""
        fillers: dict[str, tuple[str, str]] = {}  # decorator function -> (path, registry name)
        mods = self.g.modules.by_path
        for path, facts in self.py.items():
            if path not in mods:
                continue
            module_names = {a.target for a in facts.assigns if a.scope_kind == "module"}
            for a in facts.assigns:
                if a.scope_kind != "function" or not a.value:
                    continue
                m = _SUBSCRIPT_TARGET.match(a.target)
                if not m or m.group(1) not in module_names:
                    continue
                d = facts.function(a.scope)
                if d is None or d.cls or "." in d.qualname or not d.params or \
                        d.params[0].name != a.value.strip():
                    continue  # only a module-level function storing its first parameter
                fillers.setdefault(f"{path}::{d.qualname}", (path, m.group(1)))
        if not fillers:
            return
        for path, facts in self.py.items():
            if path not in mods:
                continue
            for d in list(facts.defs) + list(facts.classes):
                if getattr(d, "cls", None) or "." in d.qualname:
                    continue
                for dec in d.decorators:
                    t = self._ref(path, dec.split("(", 1)[0].strip(), None, None)
                    reg = fillers.get(t) if t else None
                    if reg is not None:
                        self.g.registries.setdefault(reg, []).append((d.name, f"{path}::{d.qualname}"))

    # -- per file ----------------------------------------------------------------------------
    def collect_registries(self, path: str, facts: PyFacts) -> None:
        """Module-level dicts from string keys to functions or classes."""
        for a in facts.assigns:
            if a.scope_kind != "module" or not a.value or not a.value.lstrip().startswith("{"):
                continue
            for _q, key, name in _REGISTRY_ENTRY.findall(a.value):
                t = self._ref(path, name, None, None)
                if t:
                    self.g.registries.setdefault((path, a.target), []).append((key, t))
            entries = self._path_entries(a.value)
            if entries:
                self._path_regs[(path, a.target)] = entries
                self.g.registries.setdefault((path, a.target), []).extend(entries)
                self.g.path_registries.add(a.target)

    def _path_entries(self, value: str) -> list[tuple[str, str]]:
        """(key, class or function) of a dict literal's dotted-path entries that name repository
        code (`{"local": "pkg.envs.local.LocalEnvironment"}`)."""
        if "." not in value:
            return []
        out = []
        for _q, key, _q2, dotted in _PATH_ENTRY.findall(value):
            t = self._string_ref(repr(dotted))
            if t:
                out.append((key, t))
        return out

    def file_attrs(self, path: str, facts: PyFacts) -> None:
        """The attribute types and functions of PATH's classes (`self.llm = LLM()`), for every
        file before any call is resolved: a call on `self.llm` in a subclass's file reads them
        whichever of the two files is walked first."""
        g = self.g
        defs = {d.qualname: d for d in facts.defs}
        for a in facts.assigns:
            if a.scope_kind == "function" and a.target.startswith("self.") and "." not in a.target[5:]:
                d = defs.get(a.scope)
                if d is None or not d.cls:
                    continue
                cid = f"{path}::{d.cls}"
                t = self.ctor_class(path, a.value, d.cls)
                if t is None and a.value and re.match(r"^[A-Za-z_]\w*\(", a.value.strip()):
                    made = self._param_default(path, d, a.value.strip().split("(", 1)[0])
                    if made is not None and g.nodes[made].kind == "class":
                        t = made  # `self.h = handler()` with `handler=LiteLLMHandler`
                if t is None and a.value and a.value.strip().isidentifier():
                    p = next((p for p in d.params if p.name == a.value.strip()), None)
                    t = self.annotation_class(path, p.annotation) if p else None
                if t is None:
                    t = self.annotation_class(path, a.annotation)
                if t is None and a.value and _DOTTED.match(a.value.strip()) and \
                        not a.value.strip().startswith("self."):
                    f = self._ref(path, a.value.strip(), d.qualname, None)
                    if f and g.nodes[f].kind == "function":  # self.run = some_function
                        self.attr_funcs.setdefault(cid, {})[a.target[5:]] = f
                if t:
                    self.attr_types.setdefault(cid, {})[a.target[5:]] = t
            elif a.scope_kind == "class" and a.target.isidentifier() and a.annotation:
                t = self.annotation_class(path, a.annotation)
                if t:
                    self.attr_types.setdefault(f"{path}::{a.scope}", {})[a.target] = t

    def file_edges(self, path: str, facts: PyFacts) -> None:
        g = self.g
        mid = f"{path}::{MODULE}"
        defs = {d.qualname: d for d in facts.defs}
        class_quals = {c.qualname: c for c in facts.classes}
        local_types: dict[str, dict[str, str]] = {}
        # (function, name) a function binds itself: a module instance of that name is shadowed
        bound: set[tuple[str, str]] = set()
        for a in facts.assigns:
            if a.scope_kind == "function" and a.target.isidentifier():
                bound.add((a.scope, a.target))
                # `agent = self.create_agent(r)`: typed by the method's return annotation
                owner = defs[a.scope].cls if a.scope in defs else None
                t = self.ctor_class(path, a.value, owner) or \
                    self.annotation_class(path, a.annotation)
                if t:
                    local_types.setdefault(a.scope, {})[a.target] = t
        for d in facts.defs:
            bound.update((d.qualname, p.name.lstrip("*")) for p in d.params)
            for p in d.params:
                if p.annotation and p.name not in ("self", "cls"):
                    t = self.annotation_class(path, p.annotation)
                    if t:
                        local_types.setdefault(d.qualname, {}).setdefault(p.name, t)
        # a closure sees its enclosing function's typed locals and parameters (`def _call():
        # return provider.call_model(...)` inside `_invoke(self, provider: ModelProvider)`),
        # unless it binds the name itself; outer functions first, so nesting carries down
        for d in sorted(facts.defs, key=lambda x: x.qualname.count(".")):
            outer = d.qualname.rpartition(".")[0]
            if outer in defs and outer in local_types:
                mine = local_types.setdefault(d.qualname, {})
                for name, t in local_types[outer].items():
                    if (d.qualname, name) not in bound:
                        mine.setdefault(name, t)

        def caller_of(func: str | None, cls: str | None) -> str:
            if func:
                return f"{path}::{func}"
            if cls:
                return f"{path}::{cls}"
            return mid

        # The targets of a call depend only on its text and scope while this loop runs (the
        # attribute and local types it reads were all collected above), and a file repeats
        # many calls (`self.log(...)`, `len(...)`): each distinct one is resolved once.
        targets_of: dict[tuple[str, str, str | None, str | None], list[tuple[str, str]]] = {}
        for c in facts.calls:
            func, cls = c.func, c.cls
            src = f"{path}::{func}" if func else (f"{path}::{cls}" if cls else mid)
            key = (c.raw, c.callee, func, cls)
            targets = targets_of.get(key)
            if targets is None:
                targets = targets_of[key] = self._call_targets(path, c, defs, local_types, bound)
            if targets:
                for t, how in targets:
                    g.add_edge(src, t, c.line, how)
                if any(how in ("self", "super", "attr", "attr-class", "local") for _t, how in targets):
                    g.add_called(src, c.short, c.line)  # virtual: overrides too
                for t, how in targets:
                    if how == "table" and g.nodes[t].cls:  # a table's methods: overrides too
                        g.add_called(src, g.nodes[t].name, c.line)
            else:
                # a method on a receiver of unknown class: any live class's method of that name
                g.add_called(src, c.short, c.line)
                g.unresolved.append((src, c.callee, c.line))
            for v in c.args + tuple(v for k, v in c.kwargs):
                v = v.strip()
                if v.startswith("*"):
                    v = v.lstrip("*")
                if _DOTTED.match(v) and not v[0].isdigit():
                    head = v.split(".", 1)[0]
                    # a parameter or local of that name (`handle(data)` in a function whose
                    # parameter `data` shadows a module function `data`) names no code
                    local = head not in ("self", "cls") and self._binds(func, head, bound)
                    t = None if local else self._ref(path, v, func, cls)
                    if t:
                        g.add_edge(src, t, c.line, "ref")
                    elif local and c.short in _CALLBACK_TAKERS and v.count(".") == 1:
                        # `executor.submit(model.inference, p)` on a local or parameter: the
                        # bound method runs there, as `model.inference(p)` would (by its
                        # class when known, else any live class's method of that name)
                        meth = v.split(".", 1)[1]
                        k = local_types.get(func or "", {}).get(head)
                        m = g.method(k, meth) if k else None
                        if m:
                            g.add_edge(src, m, c.line, "ref")
                        else:
                            g.add_called(src, meth, c.line)
                elif v[:1] in ("'", '"'):  # only a quoted dotted path names code (_string_ref)
                    t = self._string_ref(v)
                    if t:
                        g.add_edge(src, t, c.line, "ref")
        for a in facts.assigns:  # registries: dicts and lists of functions or classes
            if not a.value:
                continue
            if a.target == "__all__":
                continue  # names as strings: exported, not used
            src = f"{path}::{a.scope}" if a.scope_kind in ("class", "function") else mid
            keyed = {}
            paths = {}
            if a.scope_kind == "module":
                # {"local": "pkg.envs.local.LocalEnvironment"}: each class is live only when the
                # defaults pick its key, as for a registry of names (collect_registries)
                for key, t in self._path_regs.get((path, a.target), ()):
                    paths[t] = key
                    g.add_edge(src, t, a.line, f"registry:{a.target}:{key}")
            for lit in _DOTTED_STRING.findall(a.value):  # "pkg.mod.Class": loaded by name
                t = self._string_ref(repr(lit))
                if t and t not in paths:
                    g.add_edge(src, t, a.line, "ref")
            if a.value.lstrip().startswith("{"):  # a backend registry: {"docker": DockerRuntime}
                for _q, key, name in _REGISTRY_ENTRY.findall(a.value):
                    t = self._ref(path, name, a.scope if a.scope_kind == "function" else None, None)
                    if t:
                        keyed[name] = key
                        g.add_edge(src, t, a.line, f"registry:{a.target}:{key}")
                for alias in _SPREAD.findall(a.value):
                    g.registry_alias[a.target] = alias
            if a.scope_kind == "module" and a.target.isidentifier() and \
                    _DOTTED.match(a.value.strip()) and not a.value.strip()[0].isdigit():
                if self._ref(path, a.value.strip(), None, None):
                    continue  # an alias (`OldName = NewName`), in `top` since collect_aliases
            scope = a.scope if a.scope_kind == "function" else None
            for name, t in self._named_refs(path, a.value, scope):
                if name not in keyed and not self._binds(scope, name, bound):
                    g.add_edge(src, t, a.line, "ref")
        for c in facts.calls:  # importlib.import_module(f"{pkg.__name__}.{name}"): a plugin scan
            if c.short in ("import_module", "__import__") and c.args:
                prefix = self._dynamic_import_prefix(path, facts, c.args[0])
                if prefix:
                    src = caller_of(c.func, c.cls)
                    for name, mpath in g.modules.by_name.items():
                        if name.startswith(prefix + ".") and mpath != path:
                            g.add_edge(src, f"{mpath}::{MODULE}", c.line, "import")
        for site in facts.import_sites:
            target = g.modules.split(g.modules.absolute(site.origin, path))
            if target is not None:
                src = f"{path}::{site.func}" if site.func else mid
                g.add_edge(src, f"{target[0]}::{MODULE}", site.line, "import")
        for d in facts.defs:
            nid = f"{path}::{d.qualname}"
            if "." in d.qualname:
                parent = d.qualname.rsplit(".", 1)[0]
                if parent in defs:  # a nested function lives when its parent does
                    g.add_edge(f"{path}::{parent}", nid, d.line, "nested")
            if not d.cls and any(not _TRIVIAL_DECORATORS.match(x) for x in d.decorators):
                owner = f"{path}::{d.qualname.rsplit('.', 1)[0]}" if "." in d.qualname else mid
                g.add_edge(owner, nid, d.line, "decorator")
        for c in facts.classes:
            cid = f"{path}::{c.qualname}"
            if any(not _TRIVIAL_DECORATORS.match(x) for x in c.decorators) and "." not in c.qualname:
                g.add_edge(mid, cid, c.line, "decorator")
            if "." in c.qualname and c.qualname.rsplit(".", 1)[0] in class_quals:
                g.add_edge(f"{path}::{c.qualname.rsplit('.', 1)[0]}", cid, c.line, "nested")

    def _registry(self, path: str, name: str) -> list[tuple[str, str]]:
        """Entries of the module-level registry NAME as seen from PATH (imports followed)."""
        got = self.g.registries.get((path, name))
        if got is not None:
            return got
        facts = self.py.get(path)
        if facts is None or name not in facts.imports:
            return []
        hit = self.g.modules.split(self.g.modules.absolute(facts.imports[name], path))
        if hit is None or not hit[1] or "." in hit[1]:
            return []
        return self.g.registries.get((hit[0], hit[1]), [])

    def _string_ref(self, literal: str) -> str | None:
        """A class or function a string names by its dotted path ("pkg.mod.Class"), as
        plugin and settings strings do for code that is imported by name."""
        m = _DOTTED_LITERAL.match(literal)
        if not m:
            return None
        t = self._global(m.group(1), 0)
        if t is None or self.g.nodes[t].kind == "module":
            return None
        return t

    def _attr_func(self, cls_id: str, attr: str) -> str | None:
        for k in self.g.mro(cls_id):
            f = self.attr_funcs.get(k, {}).get(attr)
            if f:
                return f
        return None

    def _dynamic_import_prefix(self, path: str, facts: PyFacts, arg: str) -> str | None:
        """The repository package an f-string module name is built under, if any."""
        m = re.match(r"""^f["']\{([\w.]+)\.__name__\}\.""", arg)
        if m:
            head = m.group(1)
            origin = facts.imports.get(head.split(".")[0])
            if origin is None:
                return None
            dotted = self.g.modules.absolute(origin, path) + head[len(head.split(".")[0]):]
            hit = self.g.modules.split(dotted)
            return dotted if hit and not hit[1] else None
        m = re.match(r"""^f["']([\w.]+)\.\{""", arg)
        if m:
            hit = self.g.modules.split(m.group(1))
            return m.group(1) if hit and not hit[1] else None
        return None

    def _ref(self, path: str, name: str, func: str | None, cls: str | None) -> str | None:
        if name.startswith(("self.", "cls.")):
            if not cls:
                return None
            return self.g.method(f"{path}::{cls}", name.split(".", 1)[1]) \
                if "." not in name.split(".", 1)[1] else None
        if "." not in name:
            if func:
                nested = f"{path}::{func}.{name}"
                if nested in self.g.nodes:
                    return nested
            # Most bare names are locals, parameters and builtins. One that is neither a
            # top-level name of PATH nor imported there resolves to nothing, which is what
            # symbol() would answer and keep; answered here without its lookups.
            facts = self.py.get(path)
            if name not in self.top.get(path, ()) and (facts is None or name not in facts.imports):
                self._memo.setdefault((path, name), None)
                return None
        return self.symbol(path, name)

    def _call_targets(self, path, c, defs, local_types, bound=frozenset()) -> list[tuple[str, str]]:
        """The (node, how) a call reaches (never modified by callers: file_edges reuses it for
        calls of the same text in the same scope)."""
        raw = c.raw
        g = self.g
        cls_id = f"{path}::{c.cls}" if c.cls else None
        if cls_id and raw.startswith("self.") and (m := _SELF_TABLE.match(raw)):
            return [(t, "table") for t in self._table(cls_id, m.group(1))]
        if raw.startswith(("self.", "cls.")) and cls_id:
            rest = raw.split(".", 1)[1]
            if "." not in rest:
                m = g.method(cls_id, rest) or self._attr_func(cls_id, rest)
                if m:
                    return [(m, "self")]
                for k in g.mro(cls_id):  # calling an attribute whose class is known
                    t = self.attr_types.get(k, {}).get(rest)
                    if t:
                        call = g.method(t, "__call__")
                        return [(call, "attr")] if call else [(t, "attr-class")]
                return []
            # `self.a.m()`, and a chain of typed attributes (`self.state.flag.step()`, where
            # the state's class declares `flag: IterationFlag`), a few links long
            *chain, meth = rest.split(".")
            if len(chain) > 3:
                return []
            t = cls_id
            for attr in chain:
                t = next((got for k in g.mro(t) for got in [self.attr_types.get(k, {}).get(attr)]
                          if got), None)
                if t is None:
                    return []
            m = g.method(t, meth) or self._attr_func(t, meth)
            return [(m, "attr")] if m else [(t, "attr-class")]
        if raw.startswith("super().") and cls_id:
            m = g.method(cls_id, raw[8:], skip_self=True)
            return [(m, "super")] if m else []
        m = _SUBSCRIPT_CALL.match(raw) if "[" in raw else None
        if m:  # REGISTRY[key](...): every entry the key may pick
            return [(t, f"registry:{m.group(1)}:{k}") for k, t in self._registry(path, m.group(1))]
        head, _, rest = raw.partition(".")
        if c.func and head in local_types.get(c.func, {}) and rest and "." not in rest:
            t = local_types[c.func][head]
            m = g.method(t, rest)
            return [(m, "local")] if m else []
        if rest and "." not in rest and self.instances and \
                not self._binds(c.func, head, bound):
            t = self.instance_class(path, head)
            if t is not None:
                m = g.method(t, rest)
                return [(m, "local")] if m else []
        if c.func and "." not in raw:
            scope = c.func
            while scope:  # a nested function of this one or of an enclosing one
                nested = f"{path}::{scope}.{raw}"
                if nested in g.nodes:
                    return [(nested, "call")]
                scope = scope.rsplit(".", 1)[0] if "." in scope else ""
        if c.func and raw.isidentifier() and c.func in defs:
            # `def __init__(self, handler=LiteLLMHandler): self.h = handler()`: a factory
            # parameter runs its default unless a caller passes another
            t = self._param_default(path, defs[c.func], raw)
            if t is not None:
                return [(t, "ctor" if g.nodes[t].kind == "class" else "call")]
        t = self.symbol(path, c.callee if c.callee != raw else raw)
        if t is None and c.callee != raw:
            t = self.symbol(path, raw)
        if t is None:
            if c.func and raw.isidentifier():
                if cls_id:  # `handler = self.handlers[name]` earlier in the method
                    values = self._local_values(path, c.func, raw)
                    m = _SELF_TABLE.match(values[0]) if len(values) == 1 else None
                    if m:
                        return [(t, "table") for t in self._table(cls_id, m.group(1))]
                return [(t, "call") for t in self._loop_items(path, c.func, raw)]
            return []
        return [(t, "ctor" if g.nodes[t].kind == "class" else "call")]

    def _local_values(self, path: str, func: str, name: str) -> list[str]:
        """The values FUNC assigns to its local NAME (indexed once per file)."""
        by = self._locals_of.get(path)
        if by is None:
            by = self._locals_of[path] = {}
            for a in self.py[path].assigns:
                if a.scope_kind == "function" and a.value and a.target.isidentifier():
                    by.setdefault((a.scope, a.target), []).append(a.value.strip())
        return by.get((func, name), [])

    def _table(self, cls_id: str, attr: str) -> list[str]:
        """The methods and functions an instance's dispatch table holds: what any method of the
        class (or of a base) assigns to `self.ATTR` names (`self.handlers = {"bash":
        self.run_bash, "read": read_file}`), methods looked up on CLS_ID so overrides count."""
        key = (cls_id, attr)
        got = self._tables.get(key)
        if got is not None:
            return got
        got = self._tables[key] = []
        target = f"self.{attr}"
        for k in self.g.mro(cls_id):
            path, _, qual = k.partition("::")
            facts = self.py.get(path)
            if facts is None:
                continue
            for a in facts.assigns:
                if a.target != target or a.scope_kind != "function" or not a.value or \
                        not a.scope.startswith(qual + "."):
                    continue
                for name in dict.fromkeys(_SELF_NAME.findall(_code_text(a.value))):
                    m = self.g.method(cls_id, name)
                    if m and m not in got:
                        got.append(m)
                for _name, t in self._named_refs(path, a.value, a.scope):
                    if self.g.nodes[t].kind == "function" and t not in got:
                        got.append(t)
                for t in self._returned_methods(path, a, cls_id):
                    if t not in got:
                        got.append(t)
        return got

    def _returned_methods(self, path: str, a, cls_id: str) -> list[str]:
        """`self.handlers = dict(pairs)` with `pairs = agent.responders()`: the methods a
        method of the receiver's class returns by name (`return [("llm", self.llm_response),
        ...]`), looked up on that class. The receiver is `self`, a parameter typed by its
        annotation, or a local built by a constructor; the call is in the value or in the
        value of a local it names."""
        code = _code_text(a.value)
        texts = [code] + [_code_text(v) for n in dict.fromkeys(_IDENT.findall(code))
                          for v in self._local_values(path, a.scope, n)]
        d = self.py[path].function(a.scope)
        out: list[str] = []
        for text in texts:
            for recv, meth in _RECEIVER_CALL.findall(text):
                rc = self._receiver_class(path, d, recv, cls_id)
                m = self.g.method(rc, meth) if rc else None
                node = self.g.nodes.get(m) if m else None
                facts = self.py.get(node.path) if node is not None else None
                if facts is None:
                    continue
                for value in facts.return_values.get(node.qualname, ()):
                    for name in dict.fromkeys(_SELF_NAME.findall(_code_text(value))):
                        t = self.g.method(rc, name)
                        if t and t not in out:
                            out.append(t)
        return out

    def _receiver_class(self, path: str, d: FuncDef | None, recv: str, cls_id: str) -> str | None:
        if recv == "self":
            return cls_id
        if d is None:
            return None
        p = next((p for p in d.params if p.name == recv), None)
        if p is not None:
            return self.annotation_class(path, p.annotation)
        values = self._local_values(path, d.qualname, recv)
        return self.ctor_class(path, values[0]) if len(values) == 1 else None

    def _named_refs(self, path: str, value: str, func: str | None):
        """(name, node) for each name VALUE's code text names that resolves (strings blanked,
        comments dropped), each once, in source order (a set's order changes per process)."""
        for name in dict.fromkeys(_IDENT.findall(_code_text(value))):
            t = self._ref(path, name, func, None)
            if t:
                yield name, t

    def _loop_items(self, path: str, func: str, name: str) -> list[str]:
        """`for step in steps: step(ai, dbs)` with `steps = STEPS[config]`: the loop variable
        NAME of FUNC runs each function or class the module-level collection it iterates names
        (`STEPS = {Config.DEFAULT: [clarify, gen_code, execute], ...}`), as a pipeline does."""
        facts = self.py.get(path)
        if facts is None:
            return []
        heads_of = self._for_heads.get(path)
        if heads_of is None:  # once per file: this is asked for every unresolved bare call
            heads_of = self._for_heads[path] = {}
            for b in facts.blocks:
                if b.kind == "for" and b.func:
                    heads_of.setdefault((b.func, b.target.strip()), []).append(b.head.strip())
        heads = heads_of.get((func, name), ())
        if len(heads) != 1:
            return []
        head = heads[0]
        if head.isidentifier():  # `steps = STEPS[config]` earlier in the function
            values = self._local_values(path, func, head)
            if len(values) == 1:
                head = values[0]
        m = _COLLECTION_EXPR.match(head)
        if not m:
            return []
        hit = self._module_collection(path, m.group(1))
        if hit is None:
            return []
        where, value = hit
        return list(dict.fromkeys(t for _name, t in self._named_refs(where, value, None)
                                  if self.g.nodes[t].kind in ("function", "class")))

    def _module_collection(self, path: str, name: str) -> tuple[str, str] | None:
        """(file, value text) of the module-level list, tuple or dict NAME is in PATH (defined
        there or imported from another module of the repository)."""
        facts = self.py.get(path)
        if facts is None:
            return None
        places = [(path, name)]  # a module-level binding of its own first
        origin = facts.imports.get(name)
        if origin:  # `from pkg.steps import STEPS`
            hit = self.g.modules.split(self.g.modules.absolute(origin, path))
            if hit and hit[1] and "." not in hit[1] and hit[0] in self.py and hit[0] != path:
                places.append(hit)
        for where, var in places:
            for a in self.py[where].assigns:
                if a.scope_kind == "module" and a.target == var and a.value and \
                        a.value.lstrip()[:1] in ("[", "(", "{"):
                    return where, a.value
        return None

    def _param_default(self, path: str, d: FuncDef, name: str) -> str | None:
        """The class or function parameter NAME of D defaults to (`handler=LiteLLMHandler`)."""
        p = next((p for p in d.params if p.name == name), None)
        if p is None or not p.default or not _DOTTED.match(p.default.strip()) or \
                p.default.strip() in ("None", "True", "False"):
            return None
        t = self.symbol(path, p.default.strip(), want=("class", "function"))
        return t if t is not None and self.g.nodes[t].kind in ("class", "function") else None


    @staticmethod
    def _binds(func: str | None, name: str, bound) -> bool:
        """Whether FUNC or a function enclosing it binds NAME (a parameter or a local)."""
        while func:
            if (func, name) in bound:
                return True
            func = func.rsplit(".", 1)[0] if "." in func else ""
        return False


# calls that run a callable they are handed (executors, threads, event loops, partials)
_CALLBACK_TAKERS = frozenset({"submit", "run_in_executor", "to_thread", "Thread", "Process",
                              "Timer", "partial", "apply_async", "map", "starmap", "imap",
                              "call_soon", "call_later", "add_done_callback", "run_sync"})


def resolve_value(facts: PyFacts, text: str) -> str:
    """TEXT with its first name replaced by what it was imported as (pyfacts.resolve)."""
    return resolve(text, facts.imports)


__all__ = ["CallGraph", "Node", "build", "MODULE", "ClassDef", "FuncDef"]
