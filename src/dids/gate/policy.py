"""`dids gate`: score a commit with the repository's own gate configuration applied, then check
the minimums, the baseline and the waivers. The result says which check failed and why."""

from __future__ import annotations

import dataclasses
import json
import re
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

from ..acquire import acquire
from ..config_file import excluded
from ..errors import InputError
from ..models import CRITERIA, DIMENSIONS, Report
from .claims import Claims, Waiver, collect_claims
from .fixes import closing_steps, level_steps, renew_or_fix
from .gaps import Gap, Move, cite, compare, current_view, gap_instances, gaps, instance_examples


@dataclass
class Check:
    kind: str  # min_score | min_criterion | min_level | regression | expired_waiver
    status: str  # fail | waived
    message: str
    criterion: str | None = None
    dimension: str | None = None
    details: list[str] = field(default_factory=list)
    waivers: list[Waiver] = field(default_factory=list)
    move: Move | None = None

    def as_dict(self) -> dict:
        out = {"check": self.kind, "status": self.status, "criterion": self.criterion,
               "dimension": self.dimension, "message": self.message, "details": self.details,
               "waivers": [w.as_dict() for w in self.waivers]}
        if self.move is not None:
            m = self.move
            out.update({"from": m.old, "to": m.new, "score_from": m.old_score,
                        "score_to": m.new_score, "added_evidence": m.added,
                        "removed_evidence": m.removed})
        return out


@dataclass
class GateResult:
    target: str
    report: Report
    view: dict
    claims: Claims
    min_score: float | None
    checks: list[Check]
    gaps: list[Gap]
    unused_waivers: list[Waiver]
    baseline_label: str | None = None
    baseline_view: dict | None = None
    new_instances: list[tuple[tuple, int]] = field(default_factory=list)
    fixed_instances: list[tuple[tuple, int]] = field(default_factory=list)
    improved: list[Move] = field(default_factory=list)
    excluded_files: int = 0
    files: list[str] = field(default_factory=list)  # paths at the gated commit (SARIF anchors)

    @property
    def policy_set(self) -> bool:
        """Whether anything could fail: a minimum, a baseline or a waiver to expire."""
        cfg = self.claims.config.config
        return bool(self.min_score is not None or cfg.min_criteria or cfg.min_levels
                    or self.baseline_view is not None or self.claims.waivers)

    @property
    def failures(self) -> list[Check]:
        return [c for c in self.checks if c.status == "fail"]

    @property
    def passed(self) -> bool:
        return not self.failures


# ---------------------------------------------------------------------------- scoring

def apply_config(index, claims: Claims) -> int:
    """Leave excluded paths out of the index and apply the scored-configuration hints.
    Returns how many files were excluded."""
    cfg = claims.config
    patterns = claims.exclude_patterns()
    gone = sorted(p for p in index.files if excluded(p, patterns))
    for p in gone:
        del index.files[p]
        index.py.pop(p, None)
        index.ts.pop(p, None)
        index.skipped.append((p, f"excluded by {cfg.path}"))
    index.skipped.sort()
    index.settings = [s for s in index.settings if not excluded(s.path, patterns)]
    index.node_packages = [p for p in index.node_packages if not excluded(p.path, patterns)]
    if cfg.config.hints:
        line = cfg.key_line("hints") or cfg.key_line(f"[{cfg.prefix}hints]")
        settings = []
        for s in index.settings:
            hint = cfg.config.hints.get(s.key)
            if hint is None and s.var:
                hint = cfg.config.hints.get(s.var)
            if hint is not None:
                s = dataclasses.replace(s, value=hint, path=cfg.path, line=line or 1,
                                        source=f"hint in {cfg.path}")
            settings.append(s)
        known = {s.key for s in index.settings} | {s.var for s in index.settings if s.var}
        from ..index.configs import Setting

        for key, value in sorted(cfg.config.hints.items()):
            if key not in known:
                settings.append(Setting(key, value, cfg.path, line or 1, f"hint in {cfg.path}"))
        index.settings = settings
    index.stats["files"] = len(index.files)
    index.stats["python_parsed"] = len(index.py)
    index.stats["ts_parsed"] = len(index.ts)
    index.stats["skipped"] = len(index.skipped)
    return len(gone)


def score_gated(snapshot, claims: Claims, repo_url: str | None = None) -> tuple[Report, int]:
    from .. import notices
    from ..engine import score_index
    from ..index.repo import build_index

    notices.stage(f"index and parse {snapshot.commit[:12]}")
    index = build_index(snapshot)
    n = apply_config(index, claims)
    notices.stage(f"probes and assessors {snapshot.commit[:12]}")
    report = score_index(index, repo_url=repo_url)
    cfg = claims.config
    if cfg.path and cfg.config.hints:
        hints = ", ".join(f"{k}={v}" for k, v in sorted(cfg.config.hints.items()))
        report.scored_configuration = (report.scored_configuration.rstrip(".")
                                       + f"; with the hints in {cfg.path}: {hints}.")
    return report, n


# ---------------------------------------------------------------------------- checks

def _applicable(waivers: list[Waiver], today: date, criterion: str, dim: str,
                evidence: list[dict]) -> list[Waiver]:
    return [w for w in waivers if not w.expired(today) and w.covers(criterion, dim, evidence)]


def evaluate(target: str, report: Report, claims: Claims, *, min_score: float | None,
             baseline: dict | None, baseline_label: str | None, today: date,
             excluded_files: int = 0) -> GateResult:
    view = current_view(report)
    cfg = claims.config.config
    min_score = min_score if min_score is not None else cfg.min_score
    all_gaps = gaps(view)
    by_crit = {c["id"]: c for c in view["criteria"]}
    from .gaps import counted, dim_evidence

    def dim_ev(cid: str, d: str) -> list[dict]:
        c = by_crit[cid]
        return dim_evidence(c, counted(c), d)

    used: set[Waiver] = set()

    def waive(cid: str, d: str) -> list[Waiver]:
        ws = _applicable(claims.waivers, today, cid, d, dim_ev(cid, d))
        used.update(ws)
        return ws

    for g in all_gaps:
        g.waivers = waive(g.criterion, g.dimension)

    checks: list[Check] = []
    if min_score is not None and report.score < min_score - 1e-9:
        checks.append(Check("min_score", "fail", f"score {report.score:.1f} is under the "
                            f"minimum {min_score:.1f}", details=closing_steps(
                                report, round(min_score - report.score, 2))))

    for cid in CRITERIA:
        need = cfg.min_criteria.get(cid)
        c = by_crit[cid]
        if need is None or c["score"] >= need - 1e-9:
            continue
        lv = c["levels"] or {}
        shown = " ".join(f"{d} L{lv[d]}" for d in DIMENSIONS if d in lv) or "not assessed"
        crit_gaps = [g for g in all_gaps if g.criterion == cid]
        ws = [w for g in crit_gaps for w in g.waivers]
        status = "waived" if crit_gaps and all(g.waivers for g in crit_gaps) else "fail"
        details = [f"{g.criterion} {g.dimension} L{g.level}: " + (
            "waived — " + g.waivers[0].describe() if g.waivers else
            (cite(g.located) if g.located else g.summary)) for g in crit_gaps]
        if status == "fail":
            details += closing_steps(report, round(need - c["score"], 2), criterion=cid)
        checks.append(Check("min_criterion", status, f"{cid} {c['title']} scores "
                            f"{c['score']:.2f}, under its minimum {need:.2f} ({shown})",
                            cid, None, details, ws))

    for key, need in sorted(cfg.min_levels.items(), key=lambda kv: _order(kv[0])):
        cid, d = key.split(".")
        c = by_crit[cid]
        have = (c["levels"] or {}).get(d)
        if have is not None and have >= need:
            continue
        ws = waive(cid, d)
        ev = dim_ev(cid, d)
        checks.append(Check("min_level", "waived" if ws else "fail",
                            f"{cid} {d} is " + (f"L{have}" if have is not None else
                                                "not assessed")
                            + f", under its minimum L{need} ({c['title']})", cid, d,
                            [cite(e) for e in ev[:3]]
                            + ([] if ws else level_steps(cid, d, have, need)), ws))

    result_moves: list[Move] = []
    improved: list[Move] = []
    new_inst: list = []
    fixed_inst: list = []
    if baseline is not None:
        # evidence lines belong to a commit: removed evidence cites the baseline's lines
        base_commit = str((baseline.get("repo") or {}).get("commit") or "?")[:12]
        now = report.commit[:12]
        for m in compare(baseline, view):
            if not m.fell:
                improved.append(m)
                continue
            result_moves.append(m)
            ws = waive(m.criterion, m.dimension) if m.dimension else []
            details = [f"removed (lines of baseline {base_commit}): {cite(e)}" for e in m.removed]
            details += [f"added (lines of {now}): {cite(e)}" for e in m.added]
            if not m.added and not m.removed and m.dimension:
                details += [f"evidence now (lines of {now}): {cite(e)}"
                            for e in m.new_evidence[:3]]
            if m.note:
                details.append(m.note)
            what = (f"{m.criterion} {m.dimension} fell from L{int(m.old)} to L{int(m.new)} "
                    f"({m.title}; criterion score {m.old_score:.2f} → {m.new_score:.2f})"
                    if m.dimension else
                    f"{m.criterion} score fell from {m.old:.2f} to {m.new:.2f} ({m.title})")
            checks.append(Check("regression", "waived" if ws else "fail",
                                what + " against the baseline", m.criterion, m.dimension,
                                details, ws, m))
        base_inst, cur_inst = gap_instances(baseline), gap_instances(view)
        new_inst = sorted((cur_inst - base_inst).items())
        fixed_inst = sorted((base_inst - cur_inst).items())

    for w in claims.waivers:
        if w.expired(today):
            checks.append(Check("expired_waiver", "fail",
                                f"waiver {w.key} ({w.reason}, owner {w.owner}, {w.where}) "
                                f"expired on {w.expires.isoformat()}", w.criterion,
                                w.dimension, [f"justification: {w.justification}"]
                                + renew_or_fix(w), [w]))
    unused = [w for w in claims.waivers if w not in used and not w.expired(today)]
    res = GateResult(target, report, view, claims, min_score, checks, all_gaps, unused,
                     baseline_label, baseline, new_inst, fixed_inst, improved, excluded_files)
    res.checks.sort(key=lambda c: (c.status != "fail", _KIND_ORDER.index(c.kind),
                                   _order(f"{c.criterion}.{c.dimension or ''}")
                                   if c.criterion else (0, -2)))
    return res


_KIND_ORDER = ["expired_waiver", "min_score", "regression", "min_criterion", "min_level"]


def _order(key: str) -> tuple[int, str]:
    cid, _, d = key.partition(".")
    n = int(cid[1:]) if cid[1:].isdigit() else 0
    return (n, "SCDB".find(d) if d else -1)


def run_gate(target: str, rev: str | None = None, *, min_score: float | None = None,
             baseline_file: Path | None = None, no_regress: bool = False,
             base_rev: str | None = None, today: date | None = None) -> GateResult:
    if min_score is not None and not 0 <= min_score <= 10:
        raise InputError(f"--min-score {min_score}: must be between 0 and 10")
    today = today or date.today()
    snapshot = acquire(target, rev)
    claims = collect_claims(snapshot, strict=True)
    note_uncommitted_config(target, snapshot, rev, claims.config.path)
    report, n_excluded = score_gated(snapshot, claims)
    baseline = label = None
    if baseline_file is not None:
        from .gaps import load_baseline

        baseline = load_baseline(baseline_file)
        refuse_foreign_baseline(baseline_file, baseline, snapshot, report)
        label = (f"{baseline_file} (commit {str(baseline.get('repo', {}).get('commit', '?'))[:12]}"
                 f", score {float(baseline.get('score', 0.0)):.1f})")
    elif no_regress or base_rev:
        spec = base_rev or f"{snapshot.commit}^"
        try:
            base_snap = acquire(target, spec)
        except InputError:
            raise InputError(missing_base(target, snapshot, base_rev)) from None
        base_report, _ = score_gated(base_snap, claims)
        baseline = current_view(base_report)
        label = f"commit {base_snap.commit[:12]} (score {base_report.score:.1f})"
    res = evaluate(target, report, claims, min_score=min_score, baseline=baseline,
                   baseline_label=label, today=today, excluded_files=n_excluded)
    res.files = [e.path for e in snapshot.list_tree()]
    return res


def refuse_foreign_baseline(path: Path, baseline: dict, snapshot, report: Report) -> None:
    """A baseline must describe this repository: its commit is in this clone, or its URL or
    project name is this one's. (A CI job that checks out one commit may lack the baseline's
    commit; its URL still matches.) Comparing with another repository's report would fail or
    pass for reasons that have nothing to do with this change."""
    from ..acquire.safegit import run_git

    repo = baseline.get("repo") or {}
    commit, url = str(repo.get("commit") or ""), str(repo.get("url") or "")
    if re.fullmatch(r"[0-9a-f]{40}", commit) and run_git(
            ["cat-file", "-e", f"{commit}^{{commit}}"], git_dir=snapshot.git_dir,
            check=False).returncode == 0:
        return
    if url and same_repository_url(url, report.repo_url):
        return
    if baseline.get("name") and baseline.get("name") == report.name:
        return
    raise InputError(f"baseline {path} is a report of {url or 'an unknown repository'} "
                     f"(commit {commit[:12] or '?'}), not of {report.repo_url}: its commit is "
                     "not in this repository and neither its URL nor its project name match; "
                     "pass a `dids score --format json` report of this repository")


def same_repository_url(a: str, b: str) -> bool:
    """git@host:o/r, ssh://git@host/o/r and https://host/o/r.git name one repository."""
    def norm(u: str) -> str:
        u = u.strip().rstrip("/")
        u = re.sub(r"\.git$", "", u)
        m = re.match(r"^(?:[a-z+]+://)?(?:[^@/]+@)?([^/:]+)[:/](.+)$", u)
        return f"{m.group(1).lower()}/{m.group(2)}" if m and not u.startswith("/") else u
    return norm(a) == norm(b)


def note_uncommitted_config(target: str, snapshot, rev: str | None, config_path: str | None) -> None:
    """The gate reads its policy from the commit. When the work tree's copy differs, say so (a
    CI run or a push hook after editing .dids.toml would otherwise look unexplained). The file
    is hashed here as git would hash it; no git command reads the work tree's files."""
    import hashlib

    from .. import notices
    from ..acquire.safegit import run_git

    if rev or snapshot.protocol is not None or not Path(target).is_dir():
        return
    proc = run_git(["-C", str(Path(target).resolve()), "rev-parse", "--show-toplevel"],
                   check=False)
    if proc.returncode != 0:
        return  # a bare repository: no work tree to differ
    top = Path(proc.stdout.decode("utf-8", "surrogateescape").strip())
    committed = {e.path: e.sha for e in snapshot.list_tree()
                 if e.path in (".dids.toml", "pyproject.toml")}
    for name in (".dids.toml", "pyproject.toml"):
        local = top / name
        try:
            data = local.read_bytes() if local.is_file() and not local.is_symlink() else None
        except OSError:
            data = None
        if name == "pyproject.toml" and config_path != name and b"tool.dids" not in (data or b""):
            continue  # pyproject edits unrelated to the gate's policy
        if data is None and name not in committed:
            continue
        sha = hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest() if data is not None \
            else None
        if sha != committed.get(name):
            state = "is not committed" if name not in committed else (
                "was deleted" if data is None else "has uncommitted changes")
            notices.note(f"{name} {state}; the gate uses the policy at the gated commit "
                         f"{snapshot.commit[:12]}")


def missing_base(target: str, snapshot, base_rev: str | None) -> str:
    """Why the --no-regress baseline commit is not there, with what to do: an unknown --base,
    a shallow clone that lacks the parent (actions/checkout fetches one commit by default), or
    a first commit."""
    from ..acquire.safegit import run_git

    short = snapshot.commit[:12]
    if base_rev:
        return (f"{target}: unknown revision {base_rev!r} for --base: it is not in this clone "
                "(fetch it first, e.g. `git fetch origin main`, or check out with fetch-depth: 0)"
                "; or pass --baseline FILE")
    raw = run_git(["cat-file", "commit", snapshot.commit], git_dir=snapshot.git_dir,
                  check=False).stdout
    parents = [ln.split()[1].decode() for ln in raw.split(b"\n\n", 1)[0].splitlines()
               if ln.startswith(b"parent ")]
    if parents:
        return (f"{target}: no baseline commit: the parent of {short} ({parents[0][:12]}) is not "
                "in this clone, which is shallow (use fetch-depth: 2 with actions/checkout, or "
                "`git fetch --deepen=1`); or pass --baseline FILE or --base REV")
    return (f"{target}: no baseline commit: {short} is the first commit (it has no parent); "
            "pass --baseline FILE or --base REV")


# ---------------------------------------------------------------------------- output

def render_text(res: GateResult, *, quiet: bool = False) -> str:
    """The gate's result for a CI log. QUIET (-q) keeps the verdict and the checks and leaves
    out the list of gaps."""
    r = res.report
    fails, waived = res.failures, [c for c in res.checks if c.status == "waived"]
    head = "PASSED" if res.passed else "FAILED"
    counts = []
    if fails:
        counts.append(f"{len(fails)} check{'s' if len(fails) != 1 else ''} failed")
    if waived:
        counts.append(f"{len(waived)} waived")
    out = [f"dids gate: {head}" + (f" ({', '.join(counts)})" if counts else "")
           + f" — {res.target} at {r.commit[:12]}",
           f"Score {r.score:.1f} / 10.0 ({r.band})"
           + (f"; minimum {res.min_score:.1f}" if res.min_score is not None else "")]
    cfg = res.claims.config
    out.append("Configuration: " + (f"{cfg.path} at the gated commit" if cfg.path else
                                    "none (.dids.toml or [tool.dids] in pyproject.toml)")
               + (f"; {res.excluded_files} files excluded" if res.excluded_files else ""))
    if cfg.path and cfg.config.hints:
        out.append("Scored-configuration hints applied: " + ", ".join(
            f"{k}={v}" for k, v in sorted(cfg.config.hints.items())))
    if res.baseline_label:
        out.append(f"Baseline: {res.baseline_label}")
    out.append("")
    for c in res.checks:
        tag = "FAIL  " if c.status == "fail" else "WAIVED"
        out.append(f"{tag} {c.message}")
        for d in c.details:
            out.append(f"         {d}")
        if c.status == "waived":
            for w in c.waivers:
                out.append(f"         waiver {w.key}: {w.describe()}")
    if not res.checks and not res.policy_set:
        out.append("No minimums configured: nothing was checked. Set min_score, min_criteria or "
                   "min_levels in .dids.toml (or [tool.dids]), or pass --min-score, --baseline "
                   "or --no-regress.")
    elif not res.checks:
        out.append("All checks passed.")
    if quiet:
        return "\n".join(out) + "\n"
    out.append("")
    out.append(f"Gaps (dimensions below L2 on the counted configuration): {len(res.gaps)}")
    for g in res.gaps:
        mark = f" [waived: {g.waivers[0].reason}, {g.waivers[0].owner}, until " \
               f"{g.waivers[0].expires.isoformat()}]" if g.waivers else ""
        where = cite(g.located) if g.located else (g.summary or "no located evidence")
        out.append(f"  {g.criterion} {g.dimension} L{g.level}{mark} — {where}")
    if res.baseline_view is not None:
        base_commit = str((res.baseline_view.get("repo") or {}).get("commit") or "?")[:12]
        n_new = sum(n for _, n in res.new_instances)
        out.append(f"New gap evidence since the baseline: {n_new}"
                   + (f" (lines of {r.commit[:12]})" if n_new else ""))
        ex = instance_examples(res.view)
        for key, n in res.new_instances:
            e = (ex.get(key) or [{}])[0]
            out.append(f"  + {key[0]} {cite(e)}" + (f" (×{n})" if n > 1 else ""))
        n_gone = sum(n for _, n in res.fixed_instances)
        out.append(f"Gap evidence gone since the baseline: {n_gone}"
                   + (f" (lines of baseline {base_commit})" if n_gone else ""))
        bex = instance_examples(res.baseline_view)
        for key, n in res.fixed_instances:
            e = (bex.get(key) or [{}])[0]
            out.append(f"  - {key[0]} {cite(e)}" + (f" (×{n})" if n > 1 else ""))
        for m in res.improved:
            out.append(f"  improved: {m.label()}")
    for w in res.unused_waivers:
        out.append(f"Unused waiver {w.key} (no matching check or gap): {w.describe()}")
    return "\n".join(out) + "\n"


def render_gate_json(res: GateResult) -> str:
    r = res.report
    ex = instance_examples(res.view)
    bex = instance_examples(res.baseline_view) if res.baseline_view else {}

    def inst(items, examples):
        return [{"criterion": k[0], "probe": k[1], "path": k[2] or None, "claim": k[3],
                 "count": n, "cites": [{"path": e.get("path"), "start_line": e.get("start_line")}
                                       for e in examples.get(k, [])]} for k, n in items]

    data = {
        "schema": "dids.gate/1",
        "passed": res.passed,
        "repo": {"url": r.repo_url, "commit": r.commit},
        "score": r.score, "band": r.band, "min_score": res.min_score,
        "config": res.claims.config.path,
        "baseline": res.baseline_label,
        "baseline_commit": (res.baseline_view.get("repo") or {}).get("commit")
        if res.baseline_view else None,
        "minimums_configured": res.policy_set,
        "checks": [c.as_dict() for c in res.checks],
        "gaps": [{"criterion": g.criterion, "dimension": g.dimension, "level": g.level,
                  "configuration": g.configuration, "fingerprint": g.fingerprint,
                  "location": g.located, "waived": bool(g.waivers),
                  "waivers": [w.as_dict() for w in g.waivers]} for g in res.gaps],
        "new_gap_evidence": inst(res.new_instances, ex) if res.baseline_view else None,
        "gone_gap_evidence": inst(res.fixed_instances, bex) if res.baseline_view else None,
        "unused_waivers": [w.as_dict() for w in res.unused_waivers],
    }
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"
