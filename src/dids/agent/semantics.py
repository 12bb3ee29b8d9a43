"""Library models as data: what a third-party call means (`data/models/<language>/*.yaml`).

Each file names one kind (exec, llm, network, prompt, persist, telemetry, credential, mcp,
loader) and lists rows. A row matches an import-resolved dotted callee exactly (`call:
subprocess.run`), or by its last dotted parts (`suffix: containers.run`) in a file that imports
one of `imports` (methods on objects whose type a static reader cannot know). Every other key of
a row is an attribute of the meaning (`class: container`, `sender: posthog`, `why: ...`).
Adding a library is a data change: a new row and a fixture that uses it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from functools import lru_cache
import yaml

from ..index.pyfacts import Call, PyFacts, resolve
from ..resources import data_files

_SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_RESERVED = ("call", "suffix", "imports", "why")
_LITERAL = re.compile(r"""^[rbfuRBFU]{0,2}["']""")


@dataclass(frozen=True)
class Row:
    kind: str
    id: str  # "<kind>:<call or suffix>", stable for tests and evidence
    call: str | None
    suffix: tuple[str, ...]
    imports: tuple[str, ...]
    why: str
    attrs: tuple[tuple[str, object], ...] = ()

    def get(self, key: str, default=None):
        for k, v in self.attrs:
            if k == key:
                return v
        return default


@dataclass
class Semantics:
    rows: list[Row] = field(default_factory=list)
    by_call: dict[str, list[Row]] = field(default_factory=dict)
    by_last: dict[str, list[Row]] = field(default_factory=dict)

    def add(self, row: Row) -> None:
        self.rows.append(row)
        if row.call:
            self.by_call.setdefault(row.call, []).append(row)
        if row.suffix:
            self.by_last.setdefault(row.suffix[-1], []).append(row)

    def without(self, packages: frozenset[str]) -> "Semantics":
        """These rows less the ones that hold only for calls into PACKAGES."""
        out = Semantics()
        for r in self.rows:
            if not (r.imports and set(r.imports) <= packages):
                out.add(r)
        return out

    def names(self, kind: str | None = None) -> set[str]:
        """Short names of every callee a row of KIND can match (for calls_named)."""
        out = set()
        for r in self.rows:
            if kind and r.kind != kind:
                continue
            if r.call:
                out.add(r.call.rsplit(".", 1)[-1])
            if r.suffix:
                out.add(r.suffix[-1])
        return out

    def match(self, facts: PyFacts, call: Call, kind: str | None = None) -> list[Row]:
        """The rows CALL in FACTS matches (exact callee first), of KIND when given."""
        out = [r for r in self.by_call.get(call.callee, ()) if kind is None or r.kind == kind]
        if not out:
            # a re-export or a lazy proxy keeps the library's name as trailing parts
            # (`pkg.llm.litellm.completion` is litellm.completion); two parts at least
            parts = call.callee.split(".")
            for k in range(len(parts) - 2, 0, -1):
                tail = ".".join(parts[k:])
                rows = [r for r in self.by_call.get(tail, ()) if (kind is None or r.kind == kind)
                        and "." in tail]
                if rows:
                    out = rows
                    break
        cands = self.by_last.get(call.short, ())
        if cands:
            parts = tuple(call.callee.split("."))
            mods = imported_modules(facts)
            for r in cands:
                if r in out or (kind and r.kind != kind):
                    continue
                if parts[-len(r.suffix):] != r.suffix:
                    continue
                if r.imports and not any(m in mods for m in r.imports):
                    continue
                if r.imports and _imported_elsewhere(facts, call, r.imports):
                    continue
                if _receiver_excluded(r, parts):
                    continue
                out.append(r)
        return out


def _imported_elsewhere(facts: PyFacts, call: Call, packages: tuple[str, ...]) -> bool:
    """Whether CALL is a bare function imported from another library than the row's
    (`from anyio.to_thread import run_sync; run_sync(f)` is not pydantic-ai's `Agent.run_sync`,
    even in a file that imports pydantic_ai too)."""
    origin = facts.imports.get(call.raw) if call.raw.isidentifier() else None
    return bool(origin) and not origin.startswith(".") and origin.split(".")[0] not in packages


def _receiver_excluded(row: Row, parts: tuple[str, ...]) -> bool:
    """Whether a suffix row's `receiver_not` pattern names the object the method is called on
    (`tool.ainvoke(args)` runs a LangChain tool, not a model step)."""
    pattern = row.get("receiver_not")
    if not pattern or len(parts) <= len(row.suffix):
        return False
    receiver = re.sub(r"\[.*$|\(.*$", "", parts[-len(row.suffix) - 1])
    return bool(_receiver_rx(str(pattern)).search(receiver))


@lru_cache(maxsize=64)
def _receiver_rx(pattern: str) -> re.Pattern:
    return re.compile(pattern)


_mods_memo: dict[int, tuple[PyFacts, frozenset[str]]] = {}


def imported_modules(facts: PyFacts) -> frozenset[str]:
    """Top-level names of the modules FACTS imports (absolute imports only)."""
    hit = _mods_memo.get(id(facts))
    if hit is not None and hit[0] is facts:
        return hit[1]
    mods = frozenset(o.split(".")[0] for o in facts.imports.values() if o and not o.startswith("."))
    if len(_mods_memo) > 50_000:
        _mods_memo.clear()
    _mods_memo[id(facts)] = (facts, mods)
    return mods


_REF = re.compile(r"^[A-Za-z_][\w]*(\.[A-Za-z_]\w*)+$")
_WRITE_MODE = re.compile(r"""^[rbuRBU]?["'][rbt]*[wax+][rbt+]*["']$""")


def opens_to_write(call: Call, mode_arg: int) -> bool:
    """Whether CALL opens a file to write: its mode (positional MODE_ARG or `mode=`) is a literal
    with w, a, x or +."""
    mode = call.kw("mode") or (call.args[mode_arg] if len(call.args) > mode_arg else None)
    return mode is not None and bool(_WRITE_MODE.match(mode.strip()))


def matches(index) -> dict[str, list]:
    """(facts, call, row) per kind, for every live call a row matches, in source order; computed
    once per index. A callable passed as an argument counts as called there
    (`retry(self.client.chat.completions.create, ...)`, `pool.submit(subprocess.run, ...)`)."""
    if getattr(index, "lang", "python") != "python":  # a TypeScript view: the Node models
        from .ts_semantics import matches as ts_matches

        return ts_matches(index)
    key = ("_semantic_matches",)
    got = index._search_cache.get(key)
    if got is not None:
        return got  # type: ignore[return-value]
    sem = load()
    own = _own_packages(index)
    if own:  # the repository of a modelled library: its own code is the call graph's to read
        sem = sem.without(own)
    names = sem.names()
    out: dict[str, list] = {}
    bound_memo: dict[str, dict] = {}
    for facts, call in index.all_calls():
        candidates = [call] if call.short in names else []
        if not candidates and call.func and call.raw.isidentifier():
            # `completion_call = self.client.chat.completions.create` ... `completion_call(**kw)`:
            # a callable bound to a local, then called (each binding the function makes)
            bound = bound_memo.get(facts.path)
            if bound is None:
                bound = bound_memo[facts.path] = _bound_callables(facts, names)
            for value in bound.get((call.func, call.raw), ()):
                candidates.append(replace(call, callee=resolve(value, facts.imports), raw=value))
        for a in call.args[:2]:
            a = a.strip()
            if (_REF.match(a) and a.rsplit(".", 1)[-1] in names) or \
                    (a.isidentifier() and a in facts.imports):
                ref = resolve(a, facts.imports)
                if ref.rsplit(".", 1)[-1] in names:
                    candidates.append(replace(call, callee=ref, raw=a, args=(), kwargs=()))
        matched = False
        for c in candidates:
            if _record(sem, facts, facts, c, out):
                matched = True
                break
        if not matched and candidates and call is candidates[0]:
            # `from .prompts import session; session.prompt()`: a library object another
            # module of the repository builds at import time
            hit = _singleton_call(index, facts, call)
            if hit is not None:
                _record(sem, hit[0], facts, hit[1], out)
    index._search_cache[key] = out  # type: ignore[assignment]
    return out


def _own_packages(index) -> frozenset[str]:
    mods = index._search_cache.get(MODULE_MAP_KEY)
    if mods is None:
        return frozenset()
    from .distributions import own_packages
    from .entrypoints import manifests

    return own_packages(index, manifests(index), mods)


def _bound_callables(facts: PyFacts, names: set[str]) -> dict[tuple[str, str], list[str]]:
    """(function, local) -> the dotted callables a function binds to that local
    (`runner = litellm.completion`), for the ones a model row may name."""
    out: dict[tuple[str, str], list[str]] = {}
    for a in facts.assigns:
        if a.scope_kind != "function" or not a.value or not a.target.isidentifier():
            continue
        v = a.value.strip()
        if not (_REF.match(v) or v.isidentifier()):
            continue
        if v.rsplit(".", 1)[-1] in names or resolve(v, facts.imports).rsplit(".", 1)[-1] in names:
            out.setdefault((a.scope, a.target), []).append(v)
    return out


def _record(sem: Semantics, typing_facts: PyFacts, facts: PyFacts, c: Call, out: dict) -> bool:
    """Add (FACTS, C, row) for the first row C matches (its imports read from TYPING_FACTS);
    whether one did."""
    for row in sem.match(typing_facts, c):
        code_arg = row.get("code_arg")
        if code_arg is not None and (len(c.args) <= code_arg or
                                     _LITERAL.match(c.args[code_arg])):
            continue  # exec("literal") runs no model-written code
        mode_arg = row.get("mode_arg")
        if mode_arg is not None and not opens_to_write(c, mode_arg):
            continue  # open(path) reads: only a write, append or create mode persists
        out.setdefault(row.kind, []).append((facts, c, row))
        return True
    return False


_CTOR_VALUE = re.compile(r"^([A-Za-z_][\w.]*)\(")


def _singleton_call(index, facts: PyFacts, call: Call) -> tuple[PyFacts, Call] | None:
    """(defining module's facts, CALL with its callee typed) when CALL's receiver is a module
    variable imported from another repository module that assigns it an instance of a library
    class at module level (`prompt_session = PromptSession(...)` there, `prompt_session.prompt()`
    here): the callee becomes `prompt_toolkit.shortcuts.PromptSession.prompt`, matched with the
    defining module's imports. A class of the repository is the call graph's to type. Modules
    are resolved by the call graph's ModuleMap (none before the graph is built)."""
    mods = index._search_cache.get(MODULE_MAP_KEY)
    head, _, rest = call.raw.partition(".")
    origin = facts.imports.get(head) if mods is not None and rest and head.isidentifier() else None
    if not origin:
        return None
    hit = mods.split(mods.absolute(origin, facts.path))
    if hit is None or not hit[1] or "." in hit[1]:
        return None
    tf = index.py.get(hit[0])
    if tf is None or tf is facts:
        return None
    cls = _module_instance(index, mods, tf, hit[1])
    if cls is None:
        return None
    return tf, replace(call, callee=f"{cls}.{rest}")


# where build_model leaves the call graph's ModuleMap for the library models to resolve imports
MODULE_MAP_KEY = ("_module_map",)


def _module_instance(index, mods, facts: PyFacts, var: str) -> str | None:
    """The library class (dotted, as imported) whose instance module variable VAR of FACTS
    holds, else None (memoised per index)."""
    memo = index._search_cache.setdefault(("_module_instances",), {})  # type: ignore[arg-type]
    key = (facts.path, var)
    if key in memo:
        return memo[key]  # type: ignore[return-value]
    got = None
    for a in facts.assigns:
        if a.scope_kind != "module" or a.target != var or not a.value:
            continue
        m = _CTOR_VALUE.match(a.value.strip())
        if m:
            dotted = resolve(m.group(1), facts.imports)
            if dotted != m.group(1) and not dotted.startswith(".") and mods.split(dotted) is None:
                got = dotted  # imported from outside the repository
        break  # the first binding decides, as for the call graph's singletons
    memo[key] = got  # type: ignore[index]
    return got


@lru_cache(maxsize=4)
def load(language: str = "python") -> Semantics:
    """The rows of every `data/models/<language>/*.yaml` file (package data)."""
    sem = Semantics()
    for name, f in data_files("models", ".yaml", recursive=True):
        if not name.startswith(language + "/"):
            continue
        data = yaml.load(f.read_text(encoding="utf-8"), Loader=_SAFE_LOADER) or {}
        kind = data["kind"]
        for raw in data.get("rows", ()):
            call = raw.get("call")
            suffix = tuple(str(raw["suffix"]).split(".")) if raw.get("suffix") else ()
            if not call and not suffix:
                raise ValueError(f"{name}: a row needs call or suffix: {raw}")
            attrs = tuple(sorted((k, v) for k, v in raw.items() if k not in _RESERVED))
            sem.add(Row(kind=kind, id=f"{kind}:{call or raw['suffix']}", call=call,
                        suffix=suffix, imports=tuple(raw.get("imports", ())),
                        why=str(raw.get("why", "")), attrs=attrs))
    return sem
