"""Reach of every place in the tree: on the scored path, opt-in, or off the path.

- `default`: reached by the call graph from the scored entry points without entering a branch the
  shipped defaults skip;
- `opt-in:<setting>`: reached only through such a branch (the setting that enables it is named);
- `off-path`: reached only from other entry points (an onboarding command, a second server), or
  not reached at all and in a place a product does not run from (build, install, CI, evaluation
  and benchmark scripts, separately licensed `enterprise/`/`ee/` folders, migrations);
- `library`: not reached, but package code a user may still call (plugins loaded by name,
  public API): it counts, ranked after what is reached.

Distance from the entry points ranks evidence: the fewer calls from the loop, the more decisive.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .callgraph import MODULE, CallGraph
from .defaults import _UNKNOWN as _UNKNOWN_VALUE, Defaults, Guard, _literal
from .distributions import split_roots
from .entrypoints import EntryPoints, manifests

_ANY_KEY = "\0any"  # a registry whose entries the model picks by name (tools, actions)
_MODEL_KEY = re.compile(r"tool|function|action|call|command|cmd|\bname\b|_name\b|\bop\b|"
                        r"operation|intent|step", re.I)
# how far _key_value follows a registry key back (locals, parameters, callers' arguments)
_KEY_HOPS = 4
# `config.pop("environment_class", default_type)`, `.get(...)`, `getattr(cfg, "kind", d)`
_LOOKUP_DEFAULT = re.compile(r"""^(?:[\w.]+\.(?:pop|get)\(|getattr\([\w.]+,\s*)(["'])(\w+)\1\s*,\s*(.+)\)$""")
_RUN_WORD = re.compile(r"^[A-Za-z][\w-]*$")  # a plain word of a command line (no option, path or URL)
_OFF_PATH_DIR = re.compile(
    r"(^|/)(scripts?|tools?/(dev|build|release)|build_?\w*|installers?|install|setup_?\w*|ci|"
    r"\.github|\.gitlab|\.circleci|hack|dev|devtools|evaluation|evals?|benchmarks?|bench|"
    r"migrations|alembic|enterprise|ee|[\w-]*-ee|saas|docs_src|third_party|contrib|"
    r"playground|sandbox_images|containers/dev|\.devcontainer|legacy|deprecated|old|archive[sd]?)/", re.I)
_OFF_PATH_FILE = re.compile(r"(^|/)(setup|build|build_\w+|make_\w+|release|noxfile|tasks|"
                            r"conftest|manage|fabfile|install\w*|\w*evaluat\w*|\w*_bench\w*|"
                            r"bench_\w+)\.py$", re.I)


@dataclass
class Reach:
    graph: CallGraph
    entries: EntryPoints
    defaults: Defaults
    dist: dict[str, int] = field(default_factory=dict)
    parent: dict[str, tuple[str, int, str]] = field(default_factory=dict)
    opt: dict[str, int] = field(default_factory=dict)  # reached only through a skipped branch
    opt_guard: dict[str, Guard] = field(default_factory=dict)
    alt: set[str] = field(default_factory=set)  # reached from other entry points only
    index: object = None
    _guards: dict[tuple[str, int], Guard | None] = field(default_factory=dict)
    _choices: dict[str, str | None] = field(default_factory=dict)  # registry name -> choice
    # registry name -> the configuration key its choice is looked up under, when one is
    _choice_setting: dict[str, str] = field(default_factory=dict)
    _lookup_key: str | None = None
    _root_set: set[str] = field(default_factory=set)
    # folders of in-repository distributions only an extra installs -> that extra (crewai[tools])
    extras: dict[str, str] = field(default_factory=dict)
    # folders of in-repository distributions a default install does not hold at all
    separate: tuple[str, ...] = ()
    _doubles: dict[str, bool] = field(default_factory=dict)  # node -> whether a test double

    def compute(self) -> "Reach":
        g, ep = self.graph, self.entries
        self._root_set = set(ep.roots)
        self.dist, self.parent = g.reach(ep.roots, calls=ep.calls, exclude=ep.exclude,
                                         follow=self._follow)
        wide, wparent = g.reach(ep.roots, calls=ep.calls, exclude=ep.exclude)
        for nid, d in wide.items():
            if nid not in self.dist:
                self.opt[nid] = d
                self.opt_guard[nid] = self._first_guard(nid, wparent)
        others = [e.node for e in ep.others if e.node] + sorted(ep.exclude)
        # other entries put what only they reach off the scored path; with no scored path (a
        # library) a demo script's imports are the library itself
        if others and ep.roots:
            alt, _ = g.reach(others)
            self.alt = {n for n in alt if n not in wide}
        return self

    def _follow(self, src: str, line: int, how: str) -> bool:
        if how.startswith("registry:"):
            _, name, key = how.split(":", 2)
            # the README's run command picks its entry before anything the code decides
            choice = self._run_word_key(name) or self._registry_choice(src, name)
            if choice is None and name in self.graph.path_registries:
                # a dict of dotted paths whose key the defaults do not decide: every class
                # it names stays live, as any string naming code does
                return self._guard(src, line) is None
            if choice is None or (choice != _ANY_KEY and choice != key.lower()):
                return False  # another backend, or a key chosen by data, not the defaults
            return self._guard(src, line) is None
        if how not in ("call", "ctor", "self", "attr", "attr-class", "local", "ref", "import",
                       "super", "decorator", "table"):
            return True
        return self._guard(src, line) is None

    def _run_word_key(self, name: str) -> str | None:
        """The key of registry NAME the README's run command names: `pr-agent --pr_url URL
        review` dispatches `command2class[action]` with "review", whatever the code would
        otherwise read the key from (exactly one of the command's plain words must be a key)."""
        lp = self.entries.readme
        run = lp.first_run if lp is not None else None
        if run is None or not any(e.kind == "readme-run" for e in self.entries.main):
            return None
        keys = {k.lower() for (_p, n), entries in self.graph.registries.items() if n == name
                for k, _t in entries}
        words = {w.lower() for w in run.words[1:] if _RUN_WORD.match(w)}
        hit = keys & words
        return hit.pop() if len(hit) == 1 else None

    def _registry_choice(self, src: str, name: str) -> str | None:
        """The key a backend registry NAME is looked up with under the shipped defaults:
        `REG[self.executor_type]`, `REG.get(config.runtime)`, or (one hop) the argument a
        caller passes for the parameter used as the key; else the setting the registry is
        named after (`_DEFAULT_RUNTIME_CLASSES` → `runtime`). None when undecided."""
        # The answer depends on the registry's name only (the search covers every source file),
        # so it is kept per name, not per calling file: each search reads the whole tree.
        memo_key = name
        if memo_key in self._choices:
            return self._choices[memo_key]
        self._choices[memo_key] = None
        names = {name} | {a for a, d in self.graph.registry_alias.items() if d == name}
        choice = None
        for n in sorted(names):
            pat = re.compile(rf"\b{re.escape(n)}(?:\[([^\]]+)\]|\.get\(\s*([^,)]+))")
            for facts in self.index.source_py():
                if not facts.idents.get(n.split(".")[-1]):
                    continue
                text = self.index.text(facts.path)
                for m in pat.finditer(text):
                    expr = (m.group(1) or m.group(2) or "").strip()
                    if _MODEL_KEY.search(expr):
                        choice = _ANY_KEY  # the model names the entry: every entry is live
                        break
                    line = text.count("\n", 0, m.start()) + 1
                    func = facts.func_at(line)
                    self._lookup_key = None
                    choice = self._key_value(facts, func, expr)
                    if choice is not None and self._lookup_key:
                        # the setting a user changes to pick another entry (`environment_class`)
                        self._choice_setting[memo_key] = self._lookup_key
                    if choice is not None:
                        break
                if choice is not None:
                    break
            if choice is not None:
                break
        if choice is None:
            stem = re.sub(r"(?i)^_+|_?(default|all|available|known)_?|_?(classes|class|map|mapping|"
                          r"registry|types|impls?|backends?|factories|factory)$", "", name.split(".")[-1])
            stem = stem.strip("_")
            if stem:
                v = self.defaults._table(self.defaults._fields, stem)
                if v is _UNKNOWN_VALUE:
                    v = self.defaults._table(self.defaults._settings, stem)
                choice = v.lower() if isinstance(v, str) else None
        self._choices[memo_key] = choice
        return choice

    def _key_value(self, facts, func, expr: str, hop: int = 0) -> str | None:
        """The string EXPR holds under the shipped defaults in FUNC of FACTS, followed back a
        few steps: a local set from a lookup with a default (`kind = config.pop("kind",
        default_type)`), a parameter by what its callers pass (`get_env(cfg,
        default_type="local")`), else by its own default."""
        lit = _literal(expr)
        if isinstance(lit, str):
            return lit.lower() or None
        qual = func.qualname if func else None
        v = self.defaults.value(facts, qual, expr)
        if isinstance(v, str):
            return v.lower()
        if hop >= _KEY_HOPS or func is None:
            return None
        m = _LOOKUP_DEFAULT.match(expr)
        if m:
            self._lookup_key = m.group(2)
            known = self.defaults._table(self.defaults._settings, m.group(2))
            if isinstance(known, str):
                return known.lower()
            return self._key_value(facts, func, m.group(3).strip(), hop + 1)
        if not expr.isidentifier():
            return None
        for a in facts.assigns:
            if a.scope != qual or a.scope_kind != "function" or a.target != expr or not a.value:
                continue
            value = a.value.strip()
            if _LOOKUP_DEFAULT.match(value) or value.isidentifier():
                return self._key_value(facts, func, value, hop + 1)
            return None
        param = next((p for p in func.params if p.name == expr), None)
        if param is None:
            return None
        idx = func.params.index(param)
        if func.params and func.params[0].name in ("self", "cls"):
            idx -= 1
        for caller_facts, c in self.index.calls_named({func.name}):
            arg = c.kw(expr) or (c.args[idx] if 0 <= idx < len(c.args) and
                                 not param.name.startswith("*") else None)
            if arg:
                got = self._key_value(caller_facts, caller_facts.func_at(c.line), arg.strip(),
                                      hop + 1)
                if got is not None:
                    return got
        d = _literal(param.default) if param.default else None
        return (d.lower() or None) if isinstance(d, str) else None  # "" picks nothing

    def _guard(self, src: str, line: int) -> Guard | None:
        node = self.graph.nodes.get(src)
        if node is None:
            return None
        if node.kind == "module":
            # `if __name__ == "__main__":` runs only when the module is the program itself
            if src in self._root_set:
                return None
            key = (src, line)
            if key not in self._guards:
                self._guards[key] = self._main_guard(node.path, line) or \
                    self.defaults.guard_at(node.path, None, line)
            return self._guards[key]
        if node.kind != "function":
            return None
        key = (src, line)
        if key not in self._guards:
            self._guards[key] = self.defaults.guard_at(node.path, node.qualname, line)
        return self._guards[key]

    def _main_guard(self, path: str, line: int) -> Guard | None:
        facts = self.index.py.get(path) if self.index is not None else None
        if facts is None:
            return None
        for b in facts.blocks:
            if b.func is None and b.kind == "if" and b.line < line <= b.end_line and \
                    "__main__" in b.head and "__name__" in b.head:
                return Guard(path, b.line, b.head, "__main__")
        return None

    def _first_guard(self, nid: str, parent: dict) -> Guard | None:
        """The skipped branch on NID's path from the entry points (the edge that left the
        default walk)."""
        seen = set()
        while nid in parent and nid not in seen:
            seen.add(nid)
            src, line, how = parent[nid]
            if src in self.dist:
                if how.startswith("registry:"):
                    _, name, key = how.split(":", 2)
                    node = self.graph.nodes[src]
                    default = self._registry_choice(src, name)
                    return Guard(node.path, line, f"{name} selects {key!r} (default "
                                 f"{default!r})", self._choice_setting.get(name, name.split(".")[-1]))
                return self._guard(src, line)
            nid = src
        return None

    # -- queries -----------------------------------------------------------------------------
    def node(self, path: str, line: int) -> str:
        return self.graph.node_at(path, line)

    def of(self, path: str, line: int | None) -> str:
        """default | opt-in:<setting> | off-path | library for PATH:LINE."""
        if line is None:
            line = 1
        if self.extras:
            extra = next((v for k, v in self.extras.items() if path.startswith(k)), None)
            if extra is not None:
                return f"opt-in:{extra}"  # not installed by default, whatever imports it
        if self.separate and path.startswith(self.separate):
            return "off-path"  # another distribution of the monorepo, installed on its own
        nid = self.node(path, line)
        double = self._doubles.get(nid)
        if double is None:
            double = self._doubles[nid] = is_test_double(path, self.graph.nodes.get(nid))
        if double:
            return "off-path"  # a mock model or fake client: what a test or a demo selects
        module = f"{path}::{MODULE}"
        if nid in self.dist:
            g = self._guard(nid, line)
            if g is not None and g.setting == "__main__":
                return "off-path"  # a script block: runs only when this module is the program
            return g.label() if g is not None else "default"
        if nid in self.opt:
            guard = self.opt_guard.get(nid)
            if guard is not None and guard.setting == "__main__":
                return "off-path"  # only run when another module is the program
            return guard.label() if guard else "opt-in"
        if module in self.dist and self.graph.nodes.get(nid, None) is not None and \
                self.graph.nodes[nid].kind == "class":
            return "default"  # a class body runs when its module is imported
        if module in self.opt and self.graph.nodes.get(nid) is not None and \
                self.graph.nodes[nid].kind == "class":
            # the class body runs when its module is imported, which only the opt-in branch does
            guard = self.opt_guard.get(module)
            if guard is not None and guard.setting == "__main__":
                return "off-path"
            return guard.label() if guard else "opt-in"
        if nid in self.alt or module in self.alt:
            return "off-path"
        if offpath_place(path):
            return "off-path"
        if module not in self.graph.nodes:
            return "library" if not offpath_place(path) else "off-path"
        return "library"

    def distance(self, path: str, line: int | None) -> int | None:
        nid = self.node(path, line or 1)
        if nid in self.dist:
            return self.dist[nid]
        if nid in self.opt:
            return self.opt[nid] + 100
        return None

    def trail(self, path: str, line: int, limit: int = 8) -> list[tuple[str, int, str]]:
        """The call path from an entry point to PATH:LINE: (node id, line, how), entry first."""
        nid = self.node(path, line)
        out: list[tuple[str, int, str]] = []
        seen = set()
        while nid in self.parent and nid not in seen and len(out) < 40:
            seen.add(nid)
            src, ln, how = self.parent[nid]
            out.append((nid, ln, how))
            nid = src
        out.append((nid, self.graph.nodes[nid].line if nid in self.graph.nodes else 0, "entry"))
        out.reverse()
        return out[-limit:]


# a test double shipped in the package: `llm/mock.py`, `fake_client.py`, `class FakeModel`
_DOUBLE_FILE = re.compile(r"(^|/)(mock|fake|dummy|stub)s?(_\w+)?\.py$|_(mock|fake|stub)s?\.py$", re.I)
_DOUBLE_CLASS = re.compile(r"^(Mock|Fake|Dummy|Stub)[A-Z_]")


def is_test_double(path: str, node) -> bool:
    """Whether PATH (or the class NODE sits in) is a test double: a mock model, a fake client.
    Nothing in one is the product's mechanism, however near the entry points it is."""
    if _DOUBLE_FILE.search(path):
        return True
    cls = getattr(node, "cls", None) or (node.qualname if node is not None and node.kind == "class"
                                         else None)
    return bool(cls) and bool(_DOUBLE_CLASS.match(cls.split(".")[0]))


def offpath_place(path: str) -> bool:
    """A path a product does not run from: build/install/CI/evaluation scripts, migrations,
    separately licensed folders, top-level build helpers."""
    return bool(_OFF_PATH_DIR.search("/" + path) or _OFF_PATH_FILE.search(path)) or \
        ("/" not in path and path.endswith(".py") and not path.startswith(("main", "app", "server",
                                                                              "cli", "agent")))


def compute(graph: CallGraph, entries: EntryPoints, index) -> Reach:
    overrides = {}
    for _callee, kwargs, _line in entries.snippet_calls:
        for k, v in kwargs:
            if k != "**":
                overrides[k] = v
    roots = set()
    for nid in entries.roots:
        node = graph.nodes.get(nid)
        if node is not None and node.kind == "function":
            roots.add((node.path, node.qualname))
    defaults = Defaults({p: index.py[p] for p in index.py}, index.settings, overrides, roots)
    reach = Reach(graph, entries, defaults, index=index).compute()
    install = entries.readme.install.text if entries.readme and entries.readme.install else None
    root_paths = [n.split("::", 1)[0] for n in entries.roots]
    reach.extras, separate = split_roots(index, manifests(index), root_paths, install)
    reach.separate = tuple(separate)
    return reach
