"""Re-audit between commits: level changes per criterion and dimension, with the evidence that
appeared, disappeared or changed. Evidence that only moved (new line numbers, renamed file) is
followed through git's own diff and rename detection and is not a change.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from .acquire.safegit import run_git
from .errors import InputError
from .models import DIMENSIONS, CriterionResult, Evidence, Report

DIFF_SCHEMA = "dids.diff/1"
_HUNK = re.compile(rb"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
# never run a diff driver or text conversion the scanned repository configures
_SAFE_DIFF = ["diff", "--no-ext-diff", "--no-textconv", "--no-color"]


class LineMapper:
    """Map FROM-commit locations to TO-commit locations (None: the code there changed or went)."""

    def __init__(self, git_dir: Path, old: str, new: str):
        self.git_dir, self.old, self.new = git_dir, old, new
        self._files: dict[str, tuple[str, str | None]] | None = None
        self._hunks: dict[str, list[tuple[int, int, int, int]]] = {}

    def files(self) -> dict[str, tuple[str, str | None]]:
        """old path -> (status letter, new path or None) for every path the diff touches."""
        if self._files is None:
            out = run_git(_SAFE_DIFF + ["--find-renames", "-z", "--name-status", self.old,
                                        self.new], git_dir=self.git_dir).stdout
            toks = [t.decode("utf-8", "surrogateescape") for t in out.split(b"\0")]
            files: dict[str, tuple[str, str | None]] = {}
            i = 0
            while i < len(toks) and toks[i]:
                status = toks[i][0]
                if status in "RC":
                    files[toks[i + 1]] = (status + toks[i][1:], toks[i + 2])
                    i += 3
                    continue
                path = toks[i + 1]
                if status == "D":
                    files[path] = ("D", None)
                elif status != "A":
                    files[path] = (status, path)
                i += 2
            self._files = files
        return self._files

    def renames(self) -> list[tuple[str, str]]:
        return sorted((o, n) for o, (s, n) in self.files().items() if s.startswith("R") and n)

    def _hunks_of(self, old_path: str, new_path: str) -> list[tuple[int, int, int, int]]:
        if old_path not in self._hunks:
            out = run_git(_SAFE_DIFF + ["-U0", f"{self.old}:{old_path}", f"{self.new}:{new_path}"],
                          git_dir=self.git_dir, check=False).stdout
            hunks = []
            for line in out.splitlines():
                m = _HUNK.match(line)
                if m:
                    a, b, c, d = m.groups()
                    hunks.append((int(a), 1 if b is None else int(b),
                                  int(c), 1 if d is None else int(d)))
            self._hunks[old_path] = hunks
        return self._hunks[old_path]

    def map(self, path: str, start: int, end: int) -> tuple[str, int, int] | None:
        status, new_path = self.files().get(path, ("=", path))
        if new_path is None:
            return None
        if status == "=" or status == "R100":
            return new_path, start, end
        offset = 0
        for a, b, _c, d in self._hunks_of(path, new_path):
            if b == 0:  # d lines inserted after old line a
                if a >= end:
                    break
                if a >= start:
                    return None  # something was inserted inside the span
                offset += d
            else:  # old lines a..a+b-1 replaced by d lines
                if a > end:
                    break
                if a + b - 1 >= start:
                    return None  # the span's own lines changed
                offset += d - b
        return new_path, start + offset, end + offset


@dataclass
class Change:
    criterion: str
    dimension: str
    from_level: int
    to_level: int
    added: list[Evidence] = field(default_factory=list)
    removed: list[Evidence] = field(default_factory=list)
    # from-side evidence that is still there (possibly moved), as (old, new)
    kept: list[tuple[Evidence, Evidence]] = field(default_factory=list)


@dataclass
class DiffResult:
    old: Report
    new: Report
    changes: list[Change]
    renames: list[tuple[str, str]]

    @property
    def score_delta(self) -> float:
        return round(self.new.score - self.old.score, 1)


def counted_evidence(c: CriterionResult, dim: str) -> tuple[Evidence, ...]:
    for cfg in c.assessment.configurations:
        if cfg.name == c.counted_name:
            return cfg.dims[dim].evidence
    return ()


def _key(e: Evidence, path: str | None, start: int | None, end: int | None, claim: str):
    return (e.probe, e.kind.value, path, start, end, claim)


def match_evidence(old: tuple[Evidence, ...], new: tuple[Evidence, ...],
                   mapper: LineMapper | None):
    """Split into (removed, added, kept) with moved evidence counted as kept."""
    new_keys = {_key(n, n.path, n.start_line, n.end_line, n.claim): n for n in new}
    matched: set[int] = set()
    removed, kept = [], []
    for o in old:
        if o.path is None or o.start_line is None:
            k = _key(o, None, None, None, o.claim)
        else:
            end = o.end_line or o.start_line
            moved = mapper.map(o.path, o.start_line, end) if mapper else (o.path, o.start_line, end)
            if moved is None:
                removed.append(o)
                continue
            path, s, e = moved
            claim = o.claim.replace(o.path, path) if path != o.path else o.claim
            k = _key(o, path, s, e if o.end_line is not None else None, claim)
        n = new_keys.get(k)
        if n is None:
            removed.append(o)
        else:
            matched.add(id(n))
            kept.append((o, n))
    added = [n for n in new if id(n) not in matched]
    return removed, added, kept


def diff_reports(old: Report, new: Report, mapper: LineMapper | None) -> DiffResult:
    changes = []
    by_id = {c.id: c for c in new.criteria}
    for oc in old.criteria:
        nc = by_id.get(oc.id)
        if nc is None or oc.levels is None or nc.levels is None:
            continue
        for d in DIMENSIONS:
            a, b = oc.levels.get(d), nc.levels.get(d)
            if a == b:
                continue
            removed, added, kept = match_evidence(counted_evidence(oc, d), counted_evidence(nc, d),
                                                  mapper)
            changes.append(Change(oc.id, d, a, b, added, removed, kept))
    return DiffResult(old, new, changes, mapper.renames() if mapper else [])


def level_moves(old_levels: dict[str, dict], new_report: Report) -> list[str]:
    """"C4 S L0→L3" for every counted level that moved (criteria assessed on both sides)."""
    out = []
    for c in new_report.criteria:
        before = old_levels.get(c.id) or {}
        if c.levels is None or not before:
            continue
        for d in DIMENSIONS:
            if d in before and before[d] != c.levels.get(d):
                out.append(f"{c.id} {d} L{before[d]}→L{c.levels.get(d)}")
    return out


def _levels_of(report: Report) -> dict[str, dict]:
    return {c.id: c.levels.model_dump() for c in report.criteria if c.levels is not None}


def log_entry(date: str, old_commit: str, old_score: float, old_levels: dict[str, dict],
              new: Report) -> str:
    moves = level_moves(old_levels, new)
    return (f"{date} vs {old_commit[:7]} (score {old_score:.1f} → {new.score:.1f}): "
            + (", ".join(moves) if moves else "no level changed") + ".")


def entry_from_previous(new: Report, path: Path) -> str:
    """One re-audit line against a saved `dids score --format json` report."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise InputError(f"{path}: cannot read previous report ({exc.strerror})") from exc
    except ValueError as exc:
        raise InputError(f"{path}: previous report is not JSON") from exc
    if not isinstance(data, dict) or data.get("schema") != "dids.report/1":
        raise InputError(f"{path}: not a dids report (schema dids.report/1)")
    try:
        commit = str(data["repo"]["commit"])
        score = float(data["score"])
        levels = {str(c["id"]): {d: int(v) for d, v in (c.get("levels") or {}).items()}
                  for c in data["criteria"]}
    except (KeyError, TypeError, ValueError) as exc:
        raise InputError(f"{path}: previous report lacks repo.commit, score or criteria") from exc
    return log_entry(new.reviewed, commit, score, levels, new)


def _evidence_dict(e: Evidence) -> dict:
    return {"dimension": e.dimension, "configuration": e.configuration, "path": e.path,
            "start_line": e.start_line, "end_line": e.end_line, "kind": e.kind.value,
            "claim": e.claim, "probe": e.probe}


def diff_dict(result: DiffResult) -> dict:
    old, new = result.old, result.new
    return {
        "schema": DIFF_SCHEMA,
        "repo": {"url": new.repo_url},
        "from": {"commit": old.commit, "score": old.score},
        "to": {"commit": new.commit, "score": new.score},
        "score_delta": result.score_delta,
        "changes": [{"criterion": c.criterion, "dimension": c.dimension,
                     "from": c.from_level, "to": c.to_level,
                     "added_evidence": [_evidence_dict(e) for e in c.added],
                     "removed_evidence": [_evidence_dict(e) for e in c.removed]}
                    for c in result.changes],
        "renames": [{"from": a, "to": b} for a, b in result.renames],
    }


def render_diff_json(result: DiffResult) -> str:
    return json.dumps(diff_dict(result), indent=2, ensure_ascii=False) + "\n"
