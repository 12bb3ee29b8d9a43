"""What the maintainers of a scanned repository say about its gaps: waivers in the gate
configuration and suppression comments in its source.

`dids score` shows them as the maintainers' claims and never lets them change a result;
`dids gate` (run by the maintainers on their own repository) applies them.

Suppression comment (after `#` or `//`), on the line of the evidence or the line above it:

    dids: waive C4.B reason=accepted-risk owner=@alice expires=2026-12-31 -- runner VM has no secrets
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date

from ..acquire.safegit import run_git
from ..config_file import REASONS, ConfigError, LoadedConfig, excluded, glob_regex, read_config
from ..index.inventory import Limits, language, role, skip_reason, unreadable_reason

_COMMENT = re.compile(r"(?:#|//)\s*dids:\s*waive\b(?P<rest>.*)$")
_TARGET = re.compile(r"^C(10|[1-9])\.[SCDB]$")
_REQUIRED = ("reason", "owner", "expires")


@dataclass(frozen=True)
class Waiver:
    criterion: str
    dimension: str
    reason: str
    justification: str
    owner: str
    expires: date
    origin: str  # "config" | "comment"
    path: str
    line: int | None

    @property
    def key(self) -> str:
        return f"{self.criterion}.{self.dimension}"

    @property
    def where(self) -> str:
        return f"{self.path}:{self.line}" if self.line else self.path

    def expired(self, today: date) -> bool:
        return self.expires < today

    def describe(self) -> str:
        return (f"{self.reason} by {self.owner} until {self.expires.isoformat()} "
                f"({self.where}): \"{self.justification}\"")

    def as_dict(self) -> dict:
        return {"criterion": self.criterion, "dimension": self.dimension, "reason": self.reason,
                "justification": self.justification, "owner": self.owner,
                "expires": self.expires.isoformat(), "origin": self.origin, "path": self.path,
                "line": self.line}

    def covers(self, criterion: str, dimension: str, evidence: list[dict]) -> bool:
        """Config waivers name a criterion and dimension; a comment must also sit at (or on the
        line above) one of that dimension's cited locations."""
        if (criterion, dimension) != (self.criterion, self.dimension):
            return False
        if self.origin == "config":
            return True
        for e in evidence:
            if e.get("path") == self.path and e.get("start_line") and self.line:
                if e["start_line"] - 1 <= self.line <= (e.get("end_line") or e["start_line"]):
                    return True
        return False


@dataclass
class Claims:
    config: LoadedConfig = field(default_factory=LoadedConfig)
    waivers: list[Waiver] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)  # only when collected leniently

    def exclude_patterns(self) -> list[re.Pattern[str]]:
        return [glob_regex(p) for p in self.config.config.exclude]

    def lines(self) -> list[str]:
        """One line per claim, for the report card (score does not apply any of them)."""
        out = []
        cfg = self.config
        if cfg.path and cfg.config.exclude:
            out.append(f"Maintainers' claim ({cfg.path}, applied by dids gate only): exclude "
                       + ", ".join(cfg.config.exclude) + ".")
        if cfg.path and cfg.config.hints:
            out.append(f"Maintainers' claim ({cfg.path}, applied by dids gate only): the scored "
                       "configuration sets " + ", ".join(f"{k}={v}" for k, v in
                                                        sorted(cfg.config.hints.items())) + ".")
        for w in self.waivers:
            out.append(f"Maintainers' claim ({'suppression comment' if w.origin == 'comment' else 'waiver'}"
                       f", applied by dids gate only): waive {w.key} — {w.describe()}")
        out.extend(f"Maintainers' claim not understood: {p}" for p in self.problems)
        return out


def config_waivers(loaded: LoadedConfig) -> list[Waiver]:
    out = []
    for i, w in enumerate(loaded.config.waivers):
        out.append(Waiver(w.criterion, w.dimension, w.reason, w.justification, w.owner,
                          w.expires, "config", loaded.path or "", loaded.waiver_line(i)))
    return out


def parse_comment(path: str, line: int, text: str) -> Waiver:
    m = _COMMENT.search(text)
    if m is None:
        raise ConfigError(f"{path}:{line}: not a dids suppression comment")
    rest = m.group("rest").strip()
    head, sep, justification = rest.partition(" -- ")
    if not sep and rest.endswith(" --"):
        head = rest[:-3]
    tokens = head.split()
    where = f"{path}:{line}: suppression comment"
    if not tokens or not _TARGET.match(tokens[0]):
        raise ConfigError(f"{where}: the first word must name criterion.dimension, e.g. C4.B")
    crit, dim = tokens[0].split(".")
    fields: dict[str, str] = {}
    for tok in tokens[1:]:
        key, eq, value = tok.partition("=")
        if not eq or key not in _REQUIRED or not value:
            raise ConfigError(f"{where}: {key}: unknown key (allowed: {', '.join(_REQUIRED)}, "
                              "then ' -- ' and the justification)")
        fields[key] = value
    for key in _REQUIRED:
        if key not in fields:
            raise ConfigError(f"{where}: {key}: required key is missing")
    if fields["reason"] not in REASONS:
        raise ConfigError(f"{where}: reason: {fields['reason']!r} is not one of "
                          + ", ".join(REASONS))
    try:
        expires = date.fromisoformat(fields["expires"])
    except ValueError:
        raise ConfigError(f"{where}: expires: {fields['expires']!r} is not a YYYY-MM-DD date") \
            from None
    justification = justification.strip().rstrip("*/").strip()
    if not justification:
        raise ConfigError(f"{where}: justification: required after ' -- '")
    return Waiver(crit, dim, fields["reason"], justification, fields["owner"], expires,
                  "comment", path, line)


_WAIVE_COMMENT = r"(#|//)\s*dids:\s*waive"  # ripgrep and Python syntax
_WAIVE_COMMENT_ERE = r"(#|//)[[:space:]]*dids:[[:space:]]*waive"  # the same for git grep -E


def comment_hits(snapshot, patterns: list[re.Pattern[str]]) -> list[tuple[str, int, str]]:
    """`dids: waive` comments in source and configuration files at the commit, read from the
    packed search corpus when this commit has one, else with git grep on the object store
    (nothing is checked out either way; both skip the files the index skips). Tests, docs,
    examples and vendored files are skipped."""
    limits = Limits()
    hits = _corpus_hits(snapshot)
    if hits is None:
        hits = _grep_hits(snapshot, limits)
    out = []
    for path, line, text in hits:
        if skip_reason(path, 0, limits) or role(path, language(path)) not in ("source", "config"):
            continue
        if excluded(path, patterns):
            continue
        out.append((path, line, text))
    return sorted(out)


def _corpus_hits(snapshot) -> list[tuple[str, int, str]] | None:
    from ..index.corpus import load
    from ..index.repo import export_dir

    corpus = load(export_dir(snapshot))
    if corpus is None:
        return None
    out = []
    for h in corpus.search([_WAIVE_COMMENT]):
        lines = (corpus.read(h.path) or b"").split(b"\n")  # the whole line, not the hit's excerpt
        text = lines[h.line - 1] if h.line <= len(lines) else b""
        out.append((h.path, h.line, text.decode("utf-8", "replace").rstrip("\r")))
    return out


def _grep_hits(snapshot, limits: Limits) -> list[tuple[str, int, str]]:
    proc = run_git(["grep", "-I", "-n", "--null", "--no-color", "--no-textconv", "-E",
                    "-e", _WAIVE_COMMENT_ERE, snapshot.commit, "--"],
                   git_dir=snapshot.git_dir, check=False)
    if proc.returncode not in (0, 1):
        return []
    prefix = snapshot.commit + ":"
    found = []
    for raw in proc.stdout.split(b"\n"):
        parts = raw.split(b"\0", 2)
        if len(parts) == 3 and parts[1].isdigit():
            found.append((parts[0].decode("utf-8", "backslashreplace").removeprefix(prefix),
                          int(parts[1]), parts[2].decode("utf-8", "replace")))
    # the files the index leaves out (too large, binary, an over-long line) are left out here too
    entries = {e.path: e for e in snapshot.list_tree()}
    shas = {entries[p].sha for p, _, _ in found if p in entries}
    blobs = snapshot.read_blobs(sorted(shas)) if shas else {}
    out = []
    for path, line, text in found:
        e = entries.get(path)
        if e is None or e.size > limits.max_file_bytes or e.sha not in blobs or \
                unreadable_reason(blobs[e.sha], limits):
            continue
        out.append((path, line, text))
    return out


def collect_claims(snapshot, *, strict: bool, loaded: LoadedConfig | None = None) -> Claims:
    """Config waivers and suppression comments. strict (gate): the first problem raises
    ConfigError (exit 2); lenient (score): problems are kept and shown."""
    claims = Claims()
    try:
        claims.config = loaded if loaded is not None else read_config(snapshot)
        claims.waivers.extend(config_waivers(claims.config))
    except ConfigError as exc:
        if strict:
            raise
        claims.problems.append(str(exc))
    for path, line, text in comment_hits(snapshot, claims.exclude_patterns()):
        try:
            claims.waivers.append(parse_comment(path, line, text))
        except ConfigError as exc:
            if strict:
                raise
            claims.problems.append(str(exc))
    return claims


def annotate_report(report, claims: Claims):
    """`dids score`: list the claims under Limitations and mark the critical gaps a claim names.
    Nothing is applied: levels, scores and the gaps themselves stay as scored."""
    if not (claims.waivers or claims.problems or claims.config.config.exclude
            or claims.config.config.hints):
        return report
    from .gaps import counted, current_view, dim_evidence

    view = current_view(report)
    by_crit = {c["id"]: c for c in view["criteria"]}
    gaps = []
    for g in report.critical_gaps:
        c = by_crit.get(g.get("criterion"))
        ev = dim_evidence(c, counted(c), g.get("dimension", "")) if c else []
        named = [w for w in claims.waivers if w.covers(g.get("criterion"), g.get("dimension"), ev)]
        if named:
            w = named[0]
            g = {**g, "text": f"{g['text']} [claimed waived by the maintainers: {w.reason}, "
                              f"{w.owner}, until {w.expires.isoformat()}; not applied by dids score]",
                 "claimed_waivers": [x.as_dict() for x in named]}
        gaps.append(g)
    return report.model_copy(update={"critical_gaps": gaps,
                                     "limitations": list(report.limitations) + claims.lines()})


def json_with_claims(text: str, claims: Claims) -> str:
    """The JSON report with a `claims` list (only when the repository makes claims)."""
    import json

    if not (claims.waivers or claims.problems):
        return text
    data = json.loads(text)
    data["claims"] = {"applied": False,
                      "config": claims.config.path,
                      "waivers": [w.as_dict() for w in claims.waivers],
                      "problems": list(claims.problems)}
    return json.dumps(data, indent=2, sort_keys=False, ensure_ascii=False) + "\n"
