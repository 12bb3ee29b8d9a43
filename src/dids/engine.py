"""The pipeline: acquire → index → probes → assessors → scorer → Report."""

from __future__ import annotations

import gc
import re
from datetime import date
from pathlib import Path

from .acquire import acquire
from .acquire.source import Snapshot
from .criteria.base import Context, assess_all
from .identity import describe
from .index.inventory import Limits
from .index.repo import RepoIndex, build_index
from .models import Report
from .probes import run_probes
from .rubric import load_rubric
from .scoring import improvements, score_criterion, total_score
from .sentences import agree_counts, true_to_evidence
from .agent_view import scored_sentence, summarize
from .surface import surface
from .coverage import assess as assess_coverage, assessed_languages


def score_target(target: str, rev: str | None = None, *, reviewed: str | None = None,
                 limits: Limits | None = None, repo_url: str | None = None,
                 use_cache: bool = False, previous: Path | None = None) -> Report:
    """Score TARGET at REV. With use_cache, a commit already scored under the same dids version,
    rubric and probe code is read back (no indexing, no probes). The re-audit log compares with
    PREVIOUS (a saved JSON report) only: what the local cache happens to hold never changes
    the card. REVIEWED is the review date (default today)."""
    snapshot = acquire(target, rev)
    report = score_snapshot(snapshot, limits=limits, repo_url=repo_url, use_cache=use_cache)
    report = report.model_copy(update={"reviewed": reviewed or date.today().isoformat()})
    _warn_partial(report)
    if previous is None:
        return report
    from .diff import entry_from_previous

    return report.model_copy(update={"reaudit_log": [entry_from_previous(report, previous)]})


def _warn_partial(report: Report) -> None:
    """What could not be assessed goes to stderr too: a CI log or a pipe to jq must not read a
    silent L0 as the repository's weakness (from the cache as well as from a fresh run)."""
    from . import notices

    for why in report.could_not_assess:
        notices.warn(f"could not assess: {why}")


def score_snapshot(snapshot: Snapshot, *, limits: Limits | None = None,
                   repo_url: str | None = None, use_cache: bool = False) -> Report:
    """The Report of one pinned commit, from the result cache when allowed and present."""
    from . import cache, notices

    url = repo_url or snapshot.url
    use_cache = use_cache and limits is None  # custom limits give a different index
    if use_cache:
        hit = cache.load(url, snapshot.commit)
        if hit is not None:
            notices.detail(f"cached result for {snapshot.commit[:12]} (no indexing, no probes)")
            return hit
    notices.stage("index and parse")
    # the TypeScript/JavaScript parse goes on while the model builds the Python call graph
    index = build_index(snapshot, limits, defer_ts=True)
    # The index is about a million long-lived objects without reference cycles. Frozen, the
    # cyclic collector stops rescanning them on every full collection the probes trigger
    # (a third of the probe time on a large repository); unfrozen again once scored.
    gc.freeze()
    notices.stage("probes and assessors")
    try:
        report = score_index(index, repo_url=repo_url)
    finally:
        index.stop_pending()
        gc.unfreeze()
    if use_cache:
        cache.store(report, url)
    return report


def explain_target(target: str, rev: str | None = None, *, limits: Limits | None = None,
                   repo_url: str | None = None) -> tuple[Report, object]:
    """Score TARGET at REV from scratch and keep the agent model: `dids explain` places every
    piece of evidence on it (a cached report has no model, so nothing is read from the cache)."""
    snapshot = acquire(target, rev)
    index = build_index(snapshot, limits)
    report = score_index(index, repo_url=repo_url)
    return report, index.agent


def score_index(index: RepoIndex, *, reviewed: str | None = None,
                repo_url: str | None = None) -> Report:
    rubric = load_rubric()
    if index.agent is None:
        from .agent import build_model

        index.agent = build_model(index)
    findings = run_probes(index)
    ctx = Context(index=index, findings=findings, rubric=rubric)
    cov = assess_coverage(ctx)
    assessments = true_to_evidence(assess_all(ctx), findings)
    if cov.nothing:  # no level would rest on anything dids read: none is given
        assessments = [a.model_copy(update={"assessed": False, "configurations": (),
                                            "summary": "Could not assess: " + cov.reasons[0]})
                       for a in assessments]
    results = [score_criterion(a, rubric) for a in assessments]
    if cov.partial:  # levels on a part, or on nothing found: never High confidence
        results = [r.model_copy(update={"confidence": "Low"}) for r in results]
    total = total_score(results)
    url = repo_url or index.snapshot.url
    name, what = describe(index, url)
    surf, tools = surface(ctx)
    agent = summarize(ctx)
    assessed = [r for r in results if r.assessed]
    r2 = _rule_of_two(ctx)
    report = Report(
        schema="dids.report/1",
        repo_url=url,
        commit=index.snapshot.commit,
        reviewed=reviewed or date.today().isoformat(),
        commit_date=index.snapshot.commit_date(),
        name=name,
        what_it_is=what,
        category="AI agent repository",
        scored_configuration=scored_sentence(agent, index.agent),
        agent=agent,
        surface=surf,
        criteria=results,
        score=total,
        band=rubric.band(total),
        summary=_summary(name, results, total, cov),
        critical_gaps=_critical_gaps(results, rubric),
        rule_of_two=r2,
        improvements=improvements(results, rubric),
        limitations=[agree_counts(line) for line in _limitations(index, results, cov)],
        could_not_assess=list(cov.reasons),
        tools=tools,
        stats={**index.stats, "assessed_criteria": len(assessed)},
    )
    return report


def _summary(name: str, results, total: float, cov) -> str:
    assessed = [r for r in results if r.assessed]
    missing = [r.id for r in results if not r.assessed]
    if cov.nothing:
        return re.sub(r"\s+", " ", f"dids could not assess {name}: {cov.reasons[0]} The 0.0 is "
                      "not a finding about the repository.").strip()
    weakest = sorted(assessed, key=lambda r: r.score)[:2]
    text = f"{name} scores {total:.1f} / 10.0 on the criteria dids assessed statically. "
    if cov.partial:
        text += "The levels rest on part of the product (see Could not assess); read them as a " \
                "lower bound. "
    for r in weakest:
        text += f"{r.id} ({r.title}) scores {r.score:.2f}: {r.summary} "
    if missing:
        text += (f"Criteria {', '.join(missing)} are not assessed by this version of dids and "
                 "count 0.00; the total is a lower bound.")
    return re.sub(r"\s+", " ", text).strip()


def _rule_of_two(ctx: Context) -> dict:
    from .criteria.c5_untrusted import rule_of_two

    legs = rule_of_two(ctx)

    def text(ev, none: str) -> str:
        if not ev:
            return none
        return "; ".join(f"{e.claim.rstrip('.')} ({e.location.label()})" for e in ev[:2]
                         if e.location) or none
    return {
        "A": text(legs["A"], "no untrusted-input source found"),
        "B": text(legs["B"], "no sensitive data in reach found"),
        "C": text(legs["C"], "no unattended egress or state change found"),
        "same_session": "Yes" if legs["same"] else "No",
    }


def _critical_gaps(results, rubric) -> list[dict]:
    """L0 strength or blast radius in the default configuration, biggest score lift first."""
    gaps = []
    for r in results:
        if not r.assessed or r.levels is None:
            continue
        cfg = next(c for c in r.assessment.configurations if not c.opt_in)
        for d in "SB":
            dim = cfg.dims[d]
            located = [e for e in dim.evidence if e.path]
            if dim.level == 0 and located:
                capped = 1 if any(c != "G1" for c in cfg.caps) else 0
                lift = rubric.dimensions[d].weight * 2 / 400  # to L2, before caps
                gaps.append({"criterion": r.id, "dimension": d, "text": dim.summary,
                             "tags": ", ".join(r.threats), "evidence": located[:3],
                             "rank": (-capped, -lift, int(r.id[1:]))})
                break
    gaps.sort(key=lambda g: g["rank"])
    for g in gaps:
        del g["rank"]
    return gaps


def _limitations(index: RepoIndex, results, cov) -> list[str]:
    out = ["Static source review of the pinned commit only; nothing from the repository was "
           "executed, imported or installed."]
    out += [f"Could not assess: {why} Every level is Low confidence." for why in cov.reasons]
    missing = [r.id for r in results if not r.assessed]
    if missing and not cov.nothing:
        out.append("Not assessed (no detector yet, scored 0.00, confidence Low): "
                   + ", ".join(missing) + ".")
    out.append(f"Indexed {index.stats['files']} files; parsed {index.stats['python_parsed']} "
               "Python source files (tests, docs and examples are listed by path but never read "
               "or credited).")
    if index.skipped:  # every reason is named, with its count and the first paths
        by_reason: dict[str, list[str]] = {}
        for p, why in index.skipped:
            by_reason.setdefault(why, []).append(p)
        parts = []
        for why, paths in sorted(by_reason.items(), key=lambda kv: (-len(kv[1]), kv[0])):
            more = f" and {len(paths) - 5} more" if len(paths) > 5 else ""
            parts.append(f"{why} ({len(paths)}): {', '.join(paths[:5])}{more}")
        out.append(f"Skipped or only partly read {len(index.skipped)} files — "
                   + "; ".join(parts) + ".")
    if index.links:
        shown = ", ".join(f"{p} → {t}" for p, t in index.links[:10])
        more = f" and {len(index.links) - 10} more" if len(index.links) > 10 else ""
        out.append(f"{len(index.links)} symbolic links were reported (path and target text), "
                   f"never followed or read: {shown}{more}.")
    if getattr(index, "ts", None) and "TypeScript/JavaScript" not in assessed_languages(index.agent):
        # only where there is TypeScript to speak of: the scored path here is Python
        if index.stats.get("ts_settings_only"):
            out.append("The scored path is Python, so the criteria assess its Python; of the "
                       "TypeScript/JavaScript side only the manifests and the sources that hold "
                       f"settings were parsed ({len(index.ts)} files), for their shipped defaults.")
        else:
            out.append("TypeScript/JavaScript is parsed into the index (manifests, settings, facts) "
                       "but the scored path is Python, so the criteria assess its Python.")
    return out
