"""Build the index of one snapshot: inventory, packed search corpus, Python and TypeScript/JavaScript
facts, Node package manifests, settings, search."""

from __future__ import annotations

import gc
import hashlib
from collections import Counter
import re
import time
from dataclasses import dataclass, field
from typing import Callable
from pathlib import Path

from ..acquire.source import Snapshot, cache_root
from .configs import Setting, compose_settings, env_file_settings, helm_settings
from .inventory import (FileRecord, Limits, generated_content_reason, generated_reason, language,
                        role, skip_reason, unreadable_reason, vendored_dir)
from .corpus import Corpus, build as build_corpus, load as load_corpus
from .node_manifest import NodePackage, node_packages
from .parsing import Parsing
from .pyfacts import Call, PyFacts, code_of, short_name
from .search import Hit



@dataclass
class RepoIndex:
    snapshot: Snapshot
    corpus: Corpus  # the regular text files at the commit, packed for ripgrep
    files: dict[str, FileRecord]
    skipped: list[tuple[str, str]]
    links: list[tuple[str, str]]  # (path, target) of symlinks, reported never followed
    py: dict[str, PyFacts]
    settings: list[Setting] = field(default_factory=list)
    stats: dict[str, float] = field(default_factory=dict)
    # TypeScript/JavaScript facts (lang "typescript"/"javascript"), apart from `py` so that
    # Python probes never see JavaScript calls
    ts: dict[str, PyFacts] = field(default_factory=dict)
    node_packages: list[NodePackage] = field(default_factory=list)  # package.json manifests
    _search_cache: dict[tuple, list[Hit]] = field(default_factory=dict)
    _texts: dict[str, str] = field(default_factory=dict)
    _lines: dict[str, list[str]] = field(default_factory=dict)  # text(path).splitlines(), cached
    _py_keys: list[str] | None = None  # sorted(py), cached by source_py()
    _ts_keys: list[str] | None = None  # sorted(ts), cached by source_ts()
    _refs: Counter | None = None
    _defs: Counter | None = None
    _imported: set[str] | None = None
    _by_callee: dict[str, list[tuple[int, PyFacts, Call]]] | None = None
    _by_short: dict[str, list[tuple[int, PyFacts, Call]]] | None = None
    _all_calls: tuple[tuple[PyFacts, Call], ...] | None = None  # all_calls(), built once
    _scripts: str = ""
    agent: object = None  # the agent model (dids.agent.AgentModel), built after the index
    # build_index(defer_ts=True): completes the TypeScript/JavaScript side (see __getattr__)
    _pending: tuple[Callable[[], None], Callable[[], None]] | None = None  # (complete, stop)
    _parse_noted: set[str] = field(default_factory=set)  # paths the parse noted in skipped

    def __getattr__(self, name: str):
        # Reached only for an attribute not set. While a deferred TypeScript/JavaScript parse
        # runs, the attributes it completes (_DEFERRED) are left unset, so the first reader of
        # any of them waits for it: nothing can see a half-built index, and what never reads
        # them (the Python call graph) runs meanwhile.
        if name in _DEFERRED:
            pending = self.__dict__.get("_pending")
            if pending is not None:
                self._pending = None
                pending[0]()
                return self.__dict__[name]
        raise AttributeError(name)

    def may_have_ts(self) -> bool:
        """Whether there are TypeScript/JavaScript facts, or a deferred parse that may give
        some (answered without waiting for it)."""
        return self.__dict__.get("_pending") is not None or bool(self.ts)

    def settings_only_ts(self) -> None:
        """The scored path is Python (a frontend beside a Python agent): keep only the
        TypeScript/JavaScript sources that hold settings (`node_settings.holds_settings`), whose
        shipped defaults the levels may rest on; the rest is neither parsed further nor
        credited. The same facts remain whether the parse is still deferred or complete."""
        if self.__dict__.get("_pending") is not None:
            self._ts_settings_only = True  # read by the deferred completion
            return
        from .node_settings import holds_settings

        noted = {p for p in self._parse_noted if p in self.files
                 and self.files[p].lang in ("typescript", "javascript")}
        drop = {p for p in set(self.ts) | noted if not holds_settings(self.text(p))}
        if not drop:
            return
        self.ts = {p: f for p, f in self.ts.items() if p not in drop}
        self.settings = [st for st in self.settings if st.path not in drop]
        self.skipped = [(p, why) for p, why in self.skipped if not (p in drop and p in noted)]
        self.stats.update(ts_parsed=len(self.ts), skipped=len(self.skipped), ts_settings_only=True)
        self._ts_keys = self._all_calls = self._by_callee = self._by_short = None
        self._search_cache.clear()

    def stop_pending(self) -> None:
        """Stop a deferred parse nobody read (an error or timeout before the model read it)."""
        pending, self._pending = self.__dict__.get("_pending"), None
        if pending is not None:
            pending[1]()

    def text(self, path: str) -> str:
        if path not in self._texts:
            try:
                data = self.corpus.read(path)
            except OSError:
                data = None
            self._texts[path] = (data or b"").decode("utf-8", "replace")
        return self._texts[path]

    def line(self, path: str, n: int) -> str:
        lines = self._lines.get(path)
        if lines is None:
            lines = self._lines[path] = self.text(path).splitlines()
        return lines[n - 1] if 0 < n <= len(lines) else ""

    def role(self, path: str) -> str:
        rec = self.files.get(path)
        return rec.role if rec else "unknown"

    def search(self, patterns: list[str], *, globs: tuple[str, ...] = (),
               ignore_case: bool = False) -> list[Hit]:
        key = (tuple(patterns), globs, ignore_case)
        if key not in self._search_cache:
            self._search_cache[key] = self._rg(list(patterns), globs, ignore_case)
        return self._search_cache[key]

    def _rg(self, patterns: list[str], globs: tuple[str, ...], ignore_case: bool) -> list[Hit]:
        """The corpus search, with a fast exact path for case-insensitive sets using word
        boundaries: under -i, a Unicode `\\b` keeps ripgrep off its fast engines (seconds per set
        on a large tree). Without its `\\b`s a pattern matches a superset of lines, so ripgrep
        runs the loose set and the exact patterns then select among its lines."""
        loose = [_drop_word_boundaries(p) for p in patterns]
        if not ignore_case or loose == patterns:
            return self.corpus.search(patterns, globs=globs, ignore_case=ignore_case)
        try:
            return self.corpus.search(loose, globs=globs, ignore_case=True, select=patterns)
        except (RuntimeError, re.error):  # a pattern that needs its \b to stay valid
            return self.corpus.search(patterns, globs=globs, ignore_case=True)

    def live_hits(self, patterns: list[str], *, globs: tuple[str, ...] = (),
                  ignore_case: bool = False, code_only: bool = False) -> list[Hit]:
        """Hits in source files on code lines (not comments, docstrings, tests, docs, examples).

        code_only: the match must survive removing string literals and trailing comments, for
        patterns about code structure (comparisons, calls) rather than argv or config strings."""
        out = []
        compiled = [re.compile(p, re.I if ignore_case else 0) for p in patterns] if code_only else []
        for h in self.search(patterns, globs=globs, ignore_case=ignore_case):
            if code_only and not any(c.search(_strip_strings(h.text)) for c in compiled):
                continue
            if _IMPORT_LINE.match(h.text):
                continue  # naming a thing in an import is not using it
            rec = self.files.get(h.path)
            if rec is None or rec.role not in ("source", "config"):
                continue
            facts = self.py.get(h.path) or self.ts.get(h.path)
            if facts is not None and not facts.is_code_line(h.line):
                continue
            if rec.lang in _PARSED_LANGS and facts is None:
                continue  # a source the parse left out (over its time limit) is not credited
            out.append(h)
        return out

    def reference_counts(self) -> Counter:
        """Identifier occurrences across live source, for dead-code checks (computed once)."""
        if self._refs is None:
            refs: Counter = Counter()
            defs: Counter = Counter()
            for f in self.py.values():
                refs.update(f.idents)
                defs.update(d.name for d in f.defs)
            self._refs, self._defs = refs, defs
        return self._refs

    def is_dead(self, path: str, line: int) -> bool:
        """Whether path:line sits in a function nothing references (and no decorator registers).

        Dead code is not a mechanism; names reached only through strings (getattr) look dead
        here, which errs toward not crediting."""
        facts = self.py.get(path)
        if facts is None:
            return False
        for a in facts.assigns:
            # a module constant nothing reads (a decoy string) is not a mechanism
            if a.scope_kind == "module" and a.line <= line <= a.end_line and \
                    a.target.isidentifier() and _LITERAL_START.match(a.value or "") and \
                    self.reference_counts()[a.target] <= 1:
                return True
        func = facts.func_at(line)
        module_live = self.module_imported(path)
        while func is not None:
            if func.decorators or func.name.startswith("__"):
                return False
            unreferenced = self.reference_counts()[func.name] <= self._defs[func.name]
            # a public function of an imported module may be library API called by users
            if unreferenced and (func.name.startswith("_") or not module_live):
                return True
            # a nested function is live only if its parent is
            parent = func.qualname.rsplit(".", 1)[0] if "." in func.qualname else None
            func = facts.function(parent)
        return False

    def module_imported(self, path: str) -> bool:
        """Whether another source file imports this module, or it is an entry point."""
        if self._imported is None:
            names: set[str] = set()
            for f in self.py.values():
                for origin in f.imports.values():
                    names.update(p for p in origin.lstrip(".").split(".") if p)
            scripts = self.text("pyproject.toml") + self.text("setup.py") + self.text("setup.cfg")
            self._imported = names
            self._scripts = scripts
        stem = path.rsplit("/", 1)[-1].removesuffix(".py")
        if stem in ("__init__", "__main__", "main", "app", "cli", "server", "manage", "conftest"):
            return True
        if stem in self._imported:
            return True
        # console-script entry points name "package.module:function"; prose does not count
        if re.search(rf"[.\"']{re.escape(stem)}\s*:\s*[A-Za-z_]", self._scripts):
            return True
        # a script guard (`if __name__ == "__main__":`) read from the parse, so a comment or
        # docstring mentioning __main__ does not make a module an entry point
        facts = self.py.get(path)
        if not (facts and facts.idents.get("__name__")):
            return False
        text = self.text(path)
        return '"__main__"' in text or "'__main__'" in text

    def calls_where(self, test: Callable[[str], object]) -> list[tuple[PyFacts, Call]]:
        """(facts, call) for every parsed call whose callee (dotted, imports resolved) passes
        TEST, in source order (path, then position). TEST runs once per distinct callee, not
        once per call: a repository has tens of thousands of calls to a few thousand names."""
        return self._select(self._call_groups()[0], test)

    def all_calls(self) -> tuple[tuple[PyFacts, Call], ...]:
        """(facts, call) for every parsed call, in source order: what calls_where(lambda n:
        True) returns, but built once. Several probes and the agent model walk every call;
        collecting and sorting tens of thousands of them on each request was a hot spot."""
        if self._all_calls is None:
            self._call_groups()
        return self._all_calls  # type: ignore[return-value]

    def calls_named(self, test: Callable[[str], object] | set[str] | tuple[str, ...]
                    ) -> list[tuple[PyFacts, Call]]:
        """Like calls_where, on the callee's last dotted part (Call.short); TEST may also be
        the collection of wanted names."""
        by = self._call_groups()[1]
        if isinstance(test, (set, frozenset, tuple, list)):
            found = [t for name in set(test) for t in by.get(name, ())]
            found.sort(key=_first)
            return [(facts, c) for _, facts, c in found]
        return self._select(by, test)

    def _call_groups(self):
        """Every call grouped by callee and by short name, with its source-order number."""
        if self._by_callee is None:
            by: dict[str, list[tuple[int, PyFacts, Call]]] = {}
            flat: list[tuple[PyFacts, Call]] = []
            seq = 0
            for facts in self.source_py():
                for c in facts.calls:
                    by.setdefault(c.callee, []).append((seq, facts, c))
                    flat.append((facts, c))
                    seq += 1
            self._all_calls = tuple(flat)
            shorts: dict[str, list[tuple[int, PyFacts, Call]]] = {}
            for callee, group in by.items():
                shorts.setdefault(short_name(callee), []).extend(group)
            self._by_callee, self._by_short = by, shorts
        return self._by_callee, self._by_short

    @staticmethod
    def _select(by: dict, test) -> list[tuple[PyFacts, Call]]:
        found = [t for name, group in by.items() if test(name) for t in group]
        found.sort(key=_first)
        return [(facts, c) for _, facts, c in found]

    def source_ts(self) -> list[PyFacts]:
        """TypeScript/JavaScript facts in path order (like source_py)."""
        keys = self._ts_keys
        if keys is None or len(keys) != len(self.ts):
            keys = self._ts_keys = sorted(self.ts)
        try:
            return [self.ts[p] for p in keys]
        except KeyError:
            self._ts_keys = sorted(self.ts)
            return [self.ts[p] for p in self._ts_keys]

    def source_py(self) -> list[PyFacts]:
        # probes call this dozens of times: keep the sorted paths while py holds the same ones
        # (same size and every kept path present means the very same set)
        keys = self._py_keys
        if keys is None or len(keys) != len(self.py):
            keys = self._py_keys = sorted(self.py)
        try:
            return [self.py[p] for p in keys]
        except KeyError:
            self._py_keys = sorted(self.py)
            return [self.py[p] for p in self._py_keys]


_README = re.compile(r"^readme(\.(md|markdown|rst|txt))?$", re.I)


def is_readme(path: str) -> bool:
    """The repository's root README (never a README deeper in the tree)."""
    return "/" not in path and bool(_README.match(path))


_PARSED_LANGS = ("python", "typescript", "javascript")
_DEFERRED = ("ts", "settings", "skipped", "stats")  # what a deferred TypeScript parse completes


def _first(t: tuple) -> int:
    return t[0]


def _drop_word_boundaries(pattern: str) -> str:
    """PATTERN without its \\b / \\B assertions (outside classes): it matches a superset."""
    out, i, depth, n = [], 0, 0, len(pattern)
    while i < n:
        c = pattern[i]
        if c == "\\" and i + 1 < n:
            if depth == 0 and pattern[i + 1] in "bB":
                i += 2
                continue
            out.append(pattern[i : i + 2])
            i += 2
            continue
        if c == "[":
            if depth:
                return pattern  # nested classes: leave the pattern as it is
            depth = 1
            out.append(c)
            i += 1
            if i < n and pattern[i] == "^":
                out.append("^")
                i += 1
            if i < n and pattern[i] == "]":  # a leading "]" is a literal
                out.append("]")
                i += 1
            continue
        if c == "]" and depth:
            depth = 0
        out.append(c)
        i += 1
    return "".join(out)


_IMPORT_LINE = re.compile(r"^\s*(from\s+\S+\s+)?import\b")
_LITERAL_START = re.compile(r"""^\s*([rbfuRBFU]{0,2}["']|[\[({])""")
_STRING = re.compile(r"""[rbfuRBFU]{0,2}("(?:\\.|[^"\\])*"|'(?:\\.|[^'\\])*')""")


def _strip_strings(line: str) -> str:
    """A code line with string literals emptied and a trailing comment removed (linear time)."""
    return _STRING.sub('""', code_of(line))


def _readable(path: str, data: bytes, limits: Limits, files: dict[str, FileRecord],
              skipped: list[tuple[str, str]]) -> bool:
    """Whether a blob is text dids reads; if not, drop it from FILES and say why in SKIPPED."""
    why = unreadable_reason(data, limits)
    if why is None:
        return True
    skipped.append((path, why))
    del files[path]
    return False


# What the corpus holds changes with what the index reads (v2: the root README is read too);
# a cached corpus of another version is never loaded.
CORPUS_VERSION = "2"


def export_dir(snapshot: Snapshot, limits: Limits | None = None) -> Path:
    key = hashlib.sha256(snapshot.url.encode()).hexdigest()[:16]
    bounds = hashlib.sha256(((limits or Limits()).model_dump_json() + CORPUS_VERSION).encode()
                            ).hexdigest()[:8]
    return cache_root() / "corpus" / key / f"{snapshot.commit}-{bounds}"


def _safe_relpath(path: str) -> bool:
    parts = path.split("/")
    return not (path.startswith("/") or any(p in ("", ".", "..") for p in parts))


def build_index(snapshot: Snapshot, limits: Limits | None = None, *,
                defer_ts: bool = False) -> RepoIndex:
    """The index of SNAPSHOT. DEFER_TS: return once the Python sources are parsed, while the
    workers go on with the TypeScript/JavaScript ones; the index's `ts`, `settings`, `skipped`
    and `stats` are completed by their first reader (the agent model reads them after building
    the Python call graph, which so overlaps that parse). The caller then ends with
    `stop_pending()`, which stops a parse nobody read."""
    limits = limits or Limits()
    t0 = time.perf_counter()
    entries = snapshot.list_tree()
    files: dict[str, FileRecord] = {}
    skipped: list[tuple[str, str]] = []
    links: list[tuple[str, str]] = []
    wanted = []
    total = 0
    seen: set[str] = set()
    vendored: dict[str, int] = {}
    for e in entries:
        if e.path in seen:  # a crafted tree can name a path twice
            skipped.append((e.path, "duplicate path in the tree"))
            continue
        seen.add(e.path)
        if e.is_submodule:
            skipped.append((e.path, "submodule (never fetched)"))
            continue
        if e.is_symlink:
            links.append((e.path, ""))
            continue
        if e.size < 0:
            skipped.append((e.path, "blob absent from the object store"))
            continue
        if not _safe_relpath(e.path):
            skipped.append((e.path, "unsafe path"))
            continue
        reason = skip_reason(e.path, e.size, limits)
        if reason is None and len(files) >= limits.max_files:
            reason = f"over the file-count limit ({limits.max_files})"
        if reason is None and total + e.size > limits.max_total_bytes:
            reason = f"over the total-bytes limit ({limits.max_total_bytes})"
        if reason:
            if reason.startswith("vendored"):  # listed once per directory, with a count
                d = vendored_dir(e.path) or e.path
                vendored[d] = vendored.get(d, 0) + 1
            else:
                skipped.append((e.path, reason))
            continue
        lang = language(e.path)
        files[e.path] = FileRecord(e.path, e.sha, e.size, lang, role(e.path, lang))
        if files[e.path].role == "generated":  # listed, never read nor assessed
            skipped.append((e.path, generated_reason(e.path, lang) or "generated"))
        total += e.size
        wanted.append(e)

    skipped += [(f"{d} ({n} files)", "vendored or generated directory")
                for d, n in vendored.items()]
    link_entries = [(e.path, e.sha) for e in entries if e.is_symlink]
    # Tests, docs and examples are listed by path only: nothing in them is ever credited, so
    # their blobs (often most of a repository's bytes: images, fixtures) are never read.
    # The root README is read too: its leading install/run block is the path a reviewer scores.
    wanted = [e for e in wanted if files[e.path].role in ("source", "config") or is_readme(e.path)]
    # Python, TypeScript and JavaScript sources first: workers parse them while this process
    # reads and packs the rest
    first = [e for e in wanted if files[e.path].lang in _PARSED_LANGS and
             files[e.path].role == "source"]
    blobs = snapshot.read_blobs([e.sha for e in first])
    to_parse = [(e.path, blobs.get(e.sha, b"")) for e in first
                if _readable(e.path, blobs.get(e.sha, b""), limits, files, skipped)
                and not _generated(e.path, blobs.get(e.sha, b""), files, skipped)]
    later: list[tuple[str, bytes]] = []
    held: list[tuple[str, bytes]] = []  # parsed only if a Node package turns out to be scored
    deferred = [item for item in to_parse if files[item[0]].lang != "python"] if defer_ts else []
    if deferred:
        to_parse = [item for item in to_parse if files[item[0]].lang == "python"]
        from .node_settings import holds_settings

        for item in deferred:
            (later if holds_settings(item[1].decode("utf-8", "replace")) else held).append(item)
    parsing = Parsing(to_parse, later=later, rest=held)
    try:
        first_paths = {e.path for e in first}
        rest = [e for e in wanted if e.path not in first_paths]
        # a link's blob is its target text; the target itself is never opened
        blobs.update(snapshot.read_blobs([e.sha for e in rest] + [s for _, s in link_entries]))
        links = sorted((p, blobs.get(s, b"")[:200].decode("utf-8", "replace"))
                       for p, s in link_entries)
        for e in rest:
            _readable(e.path, blobs.get(e.sha, b""), limits, files, skipped)
        root = export_dir(snapshot, limits)
        corpus = load_corpus(root)
        if corpus is None:
            corpus = build_corpus(root, [(e.path, files[e.path].lang == "python", blobs.get(e.sha, b""))
                                         for e in wanted if e.path in files
                                         and files[e.path].role != "generated"])
        file_settings = _file_settings(files, blobs, wanted)
        packages = node_packages(files, blobs, wanted)
        t1 = time.perf_counter()
        parsed = parsing.facts()
        if not deferred:
            parsing.close()
    except BaseException:
        parsing.abandon()
        raise
    t2 = time.perf_counter()
    py: dict[str, PyFacts] = {}
    ts: dict[str, PyFacts] = {}
    noted: set[str] = set()  # sources the parse left out in part or whole (settings_only_ts)
    _sort_facts(parsed, py, ts, skipped, noted)
    index = RepoIndex(snapshot=snapshot, corpus=corpus, files=files, skipped=sorted(skipped),
                      links=links, py=py, ts=ts, node_packages=packages)
    from .node_settings import node_settings  # local: settings read the facts
    from .settings import code_settings

    settings = file_settings + code_settings(index)  # (Python facts only)

    def complete() -> None:
        """The TypeScript/JavaScript facts and what is read from them."""
        t3 = time.perf_counter()
        got = parsing.later_facts() if later else {}
        settings_only = index.__dict__.pop("_ts_settings_only", False)
        if held and not settings_only:
            got.update(parsing.rest_facts())
        (parsing.abandon if settings_only else parsing.close)()
        _sort_facts({p: got[p] for p, _ in deferred if p in got}, py, ts, skipped, noted)
        index.ts, index.skipped, index._parse_noted = ts, sorted(skipped), noted
        index.settings = settings + node_settings(index, blobs, wanted)
        index.stats = {"files": len(files), "python_parsed": len(py), "ts_parsed": len(ts),
                       "skipped": len(skipped), "read_s": round(t1 - t0, 3),
                       "parse_s": round(t2 - t1 + time.perf_counter() - t3, 3)}
        if settings_only and held:
            index.stats["ts_settings_only"] = True
        if gc.get_freeze_count():  # the caller froze the early facts: the late ones join them
            gc.freeze()

    if not deferred:
        complete()
        return index
    for name in _DEFERRED:  # unset: their first reader completes them (RepoIndex.__getattr__)
        index.__dict__.pop(name, None)
    index._pending = (complete, parsing.abandon)
    return index


def _sort_facts(parsed: dict[str, PyFacts], py: dict[str, PyFacts], ts: dict[str, PyFacts],
                skipped: list[tuple[str, str]], noted: set[str] | None = None) -> None:
    """PARSED into PY or TS by language; files left out (or partly) are noted in SKIPPED (and
    their paths in NOTED)."""
    for path, facts in parsed.items():
        if facts.skipped or facts.partial:
            skipped.append((path, facts.skipped or facts.partial))
            if noted is not None:
                noted.add(path)
        if facts.skipped:  # e.g. a parse over its time limit: no facts, not credited
            continue
        (py if facts.lang == "python" else ts)[path] = facts  # (partial: facts kept)


def _generated(path: str, data: bytes, files: dict[str, FileRecord],
               skipped: list[tuple[str, str]]) -> bool:
    """Whether a TypeScript/JavaScript source is generated or minified by its content; if so it
    stays listed with role "generated" (never parsed, searched or credited) and SKIPPED says why."""
    rec = files[path]
    if rec.lang not in ("typescript", "javascript"):
        return False
    why = generated_content_reason(data)
    if why is None:
        return False
    files[path] = FileRecord(rec.path, rec.sha, rec.size, rec.lang, "generated")
    skipped.append((path, why))
    return True


def _file_settings(files: dict[str, FileRecord], blobs: dict[str, bytes], wanted) -> list[Setting]:
    """Settings from compose and .env files (no Python facts needed)."""
    out: list[Setting] = []
    for e in wanted:
        rec = files.get(e.path)
        if rec is None:
            continue
        name = e.path.rsplit("/", 1)[-1]
        text = None
        if rec.role not in ("config", "source"):
            continue  # compose/.env files under docs, examples or tests are not what ships
        if rec.lang == "yaml" and ("compose" in name):
            text = blobs[e.sha].decode("utf-8", "replace")
            out.extend(compose_settings(e.path, text))
        elif rec.lang == "yaml" and name in ("values.yaml", "values.yml"):
            out.extend(helm_settings(e.path, blobs[e.sha].decode("utf-8", "replace")))
        elif name.startswith(".env"):
            text = blobs[e.sha].decode("utf-8", "replace")
            out.extend(env_file_settings(e.path, text))
    return out
