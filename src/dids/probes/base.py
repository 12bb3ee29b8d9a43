"""The probe registry and the shared result container."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable, Iterable

from ..index.repo import RepoIndex
from ..models import Finding, Kind, Location


@dataclass(frozen=True)
class ProbeSpec:
    id: str
    criteria: tuple[str, ...]
    remediation: str
    func: Callable[[RepoIndex], Iterable[Finding]]


PROBES: dict[str, ProbeSpec] = {}


def probe(id: str, criteria: tuple[str, ...], remediation: str):
    """Register a detector; its docstring says what it looks for and why it matters."""

    def wrap(func: Callable[[RepoIndex], Iterable[Finding]]):
        if id in PROBES:
            raise ValueError(f"duplicate probe id {id}")
        PROBES[id] = ProbeSpec(id, criteria, remediation, func)
        return func

    return wrap


class Findings:
    """Findings of every probe, by probe id, most decisive first (reach, then call distance).

    Indexing gives the findings that can decide a level: everything except off-path code
    (build, install and evaluation scripts, other entry points, separately licensed folders).
    `off_path[probe]` keeps the rest, for notes and explanations."""

    def __init__(self, by_probe: dict[str, list[Finding]]):
        self.all_by_probe = by_probe
        self.by_probe = {k: [f for f in v if f.data.get("reach") != "off-path"]
                         for k, v in by_probe.items()}
        self.off_path = {k: [f for f in v if f.data.get("reach") == "off-path"]
                         for k, v in by_probe.items()}

    def __getitem__(self, probe_id: str) -> list[Finding]:
        return self.by_probe.get(probe_id, [])

    def where(self, probe_id: str, **data) -> list[Finding]:
        return [f for f in self[probe_id] if all(f.data.get(k) == v for k, v in data.items())]

    def all(self) -> list[Finding]:
        return [f for k in sorted(self.by_probe) for f in self.by_probe[k]]


_MEMO_MAX = 200_000  # distinct strings kept per pattern (a repository has a few tens of thousands)


class Names:
    """A regex for names (callees, function and parameter names) whose yes/no answer is kept per
    distinct string. Probes test each of tens of thousands of calls against it, but the names
    repeat: a dict lookup replaces all but the first regex run per name.

    A case-insensitive pattern with no upper-case escape or extension (\\S, \\W, (?P<...>) runs
    case-sensitively, lower-cased, on the lower-cased name: Python's IGNORECASE matching is
    several times slower."""

    __slots__ = ("regex", "pattern", "_run", "_fold", "_search", "_match")

    def __init__(self, pattern: str, flags: int = 0):
        self.regex = re.compile(pattern, flags)
        self.pattern = pattern
        self._fold = bool(flags & re.I) and not re.search(r"\\[A-Z]|\(\?[A-Z]", pattern)
        self._run = re.compile(pattern.lower(), flags & ~re.I) if self._fold else self.regex
        self._search: dict[str, bool] = {}
        self._match: dict[str, bool] = {}

    def search(self, s: str) -> bool:
        return self._ask(self._search, self._run.search, s)

    def match(self, s: str) -> bool:
        return self._ask(self._match, self._run.match, s)

    def _ask(self, memo: dict[str, bool], run, s: str) -> bool:
        found = memo.get(s)
        if found is None:
            if len(memo) > _MEMO_MAX:
                memo.clear()
            found = memo[s] = run(s.lower() if self._fold else s) is not None
        return found


def loc(path: str, line: int, end: int | None = None) -> Location:
    return Location(path=path, start_line=line, end_line=end or line)


def settings_named(index: RepoIndex, name: str) -> list:
    """The settings whose key or var is NAME, in index.settings order, from a map built once per
    index: `defaults_for(settings_named(index, k), k)` equals `defaults_for(index.settings, k)`
    without a pass over every setting for every key (quadratic on large repositories)."""
    by = index._search_cache.get(("_settings_by_name",))
    if by is None:
        by = {}
        for s in index.settings:
            by.setdefault(s.key, []).append(s)
            if s.var and s.var != s.key:
                by.setdefault(s.var, []).append(s)
        index._search_cache[("_settings_by_name",)] = by  # type: ignore[assignment]
    return by.get(name, [])  # type: ignore[union-attr]


def finding(probe_id: str, claim: str, path: str | None = None, line: int | None = None,
            end: int | None = None, kind: Kind = Kind.verified, **data) -> Finding:
    return Finding(probe=probe_id, claim=claim, kind=kind,
                   location=loc(path, line, end) if path and line else None, data=data)


def line_findings(index: RepoIndex, probe_id: str, patterns: list[str], claim: str, *,
                  code_only: bool = False, ignore_case: bool = False, **data):
    """One finding per live source line matching any of PATTERNS (one ripgrep call)."""
    for h in index.live_hits(patterns, globs=("*.py",), code_only=code_only,
                             ignore_case=ignore_case):
        yield finding(probe_id, claim, h.path, h.line, **data)


def calls_to_defined(index: RepoIndex, name: Names | re.Pattern[str]):
    """(facts, call) for every call of a function the repository itself defines under a
    matching name: a helper counts as a mechanism only where something calls it."""
    defined = {d.name for f in index.source_py() for d in f.defs if name.search(d.name)}
    yield from index.calls_named(defined)
