"""Gaps of a report and how two reports compare, on the JSON view (`dids.report/1`) so that a
baseline file and a fresh Report are handled by the same code.

A gap is a dimension below L2 on a criterion's counted configuration. Its evidence is matched
across reports the way Semgrep matches findings to a baseline: by criterion, probe, path and the
evidence text with line references and whitespace normalized — never by line number — and as
multisets, so one old entry cannot absorb several new ones.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import InputError
from ..models import DIMENSIONS, Report

GAP_BELOW = 2  # a dimension below L2 is a gap
_LINE_REF = re.compile(r"(?<=\S):\d+(?:-\d+)?\b|\blines? \d+(?:-\d+)?\b|\bL\d+(?:-L?\d+)?\b")
_SPACE = re.compile(r"\s+")


def normalize(text: str) -> str:
    return _SPACE.sub(" ", _LINE_REF.sub("", text or "")).strip()


def evidence_key(e: dict) -> tuple[str, str, str]:
    return (e.get("probe") or "", e.get("path") or "", normalize(e.get("claim") or ""))


def cite(e: dict) -> str:
    if e.get("path"):
        where = e["path"] + (f":{e['start_line']}" if e.get("start_line") else "")
    else:
        where = "search"
    return f"{e.get('probe') or '?'} `{where}` {e.get('claim', '')}".strip()


def current_view(report: Report) -> dict:
    """The JSON report dict plus each dimension's summary (the JSON carries next_level only)."""
    from ..render.json_out import report_dict

    view = report_dict(report)
    for c, res in zip(view["criteria"], report.criteria):
        by_name = {a.name: a for a in res.assessment.configurations}
        for cfg in c["configurations"]:
            a = by_name.get(cfg["name"])
            if a is not None:
                cfg["summary"] = {d: a.dims[d].summary for d in DIMENSIONS}
    return view


def load_baseline(path: Path) -> dict:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise InputError(f"baseline {path}: no such file") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InputError(f"baseline {path}: not a JSON file ({exc})") from None
    if not isinstance(data, dict) or data.get("schema") != "dids.report/1":
        raise InputError(f"baseline {path}: not a `dids score --format json` report "
                         "(schema dids.report/1)")
    crits = data.get("criteria")
    if not isinstance(crits, list) or not all(isinstance(c, dict) and "id" in c for c in crits):
        raise InputError(f"baseline {path}: criteria: missing or malformed")
    return data


def counted(c: dict) -> dict | None:
    """The counted configuration: the best score, a tie keeping the earlier (default) one."""
    cfgs = c.get("configurations") or []
    if not cfgs or not c.get("assessed", bool(c.get("levels"))):
        return None
    best = 0
    for i, s in enumerate(cfgs):
        if s.get("score", s.get("raw", 0)) > cfgs[best].get("score", cfgs[best].get("raw", 0)):
            best = i
    return cfgs[best]


def dim_evidence(c: dict, cfg: dict | None, dim: str) -> list[dict]:
    if cfg is None:
        return []
    return [e for e in c.get("evidence", [])
            if e.get("configuration") == cfg["name"] and e.get("dimension") == dim]


@dataclass
class Gap:
    criterion: str
    title: str
    dimension: str
    level: int
    configuration: str
    opt_in: bool
    evidence: list[dict]
    summary: str = ""
    next_level: str = ""
    waivers: list = field(default_factory=list)  # applicable, unexpired Waiver objects

    @property
    def located(self) -> dict | None:
        return next((e for e in self.evidence if e.get("path")), None)

    @property
    def fingerprint(self) -> str:
        """Stable across line moves: criterion, dimension and the located evidence's key."""
        e = self.located or (self.evidence[0] if self.evidence else {})
        probe, path, text = evidence_key(e)
        raw = "\x1f".join((self.criterion, self.dimension, probe, path, text))
        return hashlib.sha256(raw.encode("utf-8")).hexdigest()

    @property
    def key(self) -> str:
        return f"{self.criterion}.{self.dimension}"


def gaps(view: dict) -> list[Gap]:
    out = []
    for c in view["criteria"]:
        cfg = counted(c)
        if cfg is None:
            continue
        for d in DIMENSIONS:
            level = cfg["levels"].get(d, 0)
            if level >= GAP_BELOW:
                continue
            out.append(Gap(c["id"], c.get("title", c["id"]), d, level, cfg["name"],
                           bool(cfg.get("opt_in")), dim_evidence(c, cfg, d),
                           (cfg.get("summary") or {}).get(d, ""),
                           (cfg.get("next_level") or {}).get(d, "")))
    return out


def gap_instances(view: dict) -> Counter:
    """Distinct pieces of evidence behind each criterion's gaps, keyed without line numbers.
    A finding cited by several dimensions counts once; two findings with the same text in the
    same file count twice."""
    seen: set = set()
    out: Counter = Counter()
    for g in gaps(view):
        for e in g.evidence:
            ident = (g.criterion, e.get("probe"), e.get("path"), e.get("start_line"),
                     e.get("end_line"), e.get("claim"))
            if ident in seen:
                continue
            seen.add(ident)
            out[(g.criterion,) + evidence_key(e)] += 1
    return out


def instance_examples(view: dict) -> dict[tuple, list[dict]]:
    """Evidence dicts per instance key (to cite lines when listing new or fixed instances)."""
    out: dict[tuple, list[dict]] = {}
    for g in gaps(view):
        for e in g.evidence:
            lst = out.setdefault((g.criterion,) + evidence_key(e), [])
            if all(x is not e and (x.get("start_line"), x.get("claim")) !=
                   (e.get("start_line"), e.get("claim")) for x in lst):
                lst.append(e)
    return out


def multiset_diff(old: list[dict], new: list[dict]) -> tuple[list[dict], list[dict]]:
    """(added, removed) evidence between two lists, matched by key with multiplicities."""
    old_c = Counter(evidence_key(e) for e in old)
    new_c = Counter(evidence_key(e) for e in new)
    added, removed = [], []
    budget = Counter(old_c)
    for e in new:
        k = evidence_key(e)
        if budget[k] > 0:
            budget[k] -= 1
        else:
            added.append(e)
    budget = Counter(new_c)
    for e in old:
        k = evidence_key(e)
        if budget[k] > 0:
            budget[k] -= 1
        else:
            removed.append(e)
    return added, removed


@dataclass
class Move:
    """One criterion dimension (or a criterion's score alone) that changed against the baseline."""

    criterion: str
    title: str
    dimension: str | None  # None: the score moved with no level moving (cap, configuration)
    old: float
    new: float
    old_score: float
    new_score: float
    added: list[dict]
    removed: list[dict]
    new_evidence: list[dict]  # the current evidence of the dimension (when none was added)
    note: str = ""

    @property
    def fell(self) -> bool:
        return self.new < self.old

    def label(self) -> str:
        if self.dimension is None:
            return f"{self.criterion} score {self.old:.2f} → {self.new:.2f}"
        return f"{self.criterion} {self.dimension} L{int(self.old)} → L{int(self.new)}"


def compare(base: dict, cur: dict) -> list[Move]:
    """Every level and score move between two views, criterion by criterion, in C1..C10 order."""
    moves: list[Move] = []
    base_by = {c["id"]: c for c in base["criteria"]}
    for c in cur["criteria"]:
        b = base_by.get(c["id"])
        if b is None:
            continue
        bcfg, ccfg = counted(b), counted(c)
        b_levels = (b.get("levels") or {}) if bcfg else {}
        c_levels = (c.get("levels") or {}) if ccfg else {}
        b_score, c_score = float(b.get("score", 0.0)), float(c.get("score", 0.0))
        moved_dims = []
        for d in DIMENSIONS:
            if d not in b_levels:
                continue
            old, new = b_levels[d], c_levels.get(d, 0)
            if old == new:
                continue
            old_ev, new_ev = dim_evidence(b, bcfg, d), dim_evidence(c, ccfg, d)
            added, removed = multiset_diff(old_ev, new_ev)
            note = ""
            if not ccfg:
                note = "the criterion is no longer assessed"
            elif bcfg and bcfg["name"] != ccfg["name"]:
                note = (f"the counted configuration changed from {bcfg['name']} to "
                        f"{ccfg['name']}")
            moved_dims.append(Move(c["id"], c.get("title", c["id"]), d, old, new, b_score,
                                   c_score, added, removed, new_ev, note))
        moves.extend(moved_dims)
        if not moved_dims and round(c_score - b_score, 4) != 0:
            note = f"cap {b.get('cap') or 'none'} → {c.get('cap') or 'none'}"
            if bcfg and ccfg and bcfg["name"] != ccfg["name"]:
                note += f"; counted configuration {bcfg['name']} → {ccfg['name']}"
            moves.append(Move(c["id"], c.get("title", c["id"]), None, b_score, c_score, b_score,
                              c_score, [], [], [], note))
    return moves
