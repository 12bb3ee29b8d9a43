"""The JSON report per the contract (`schema: dids.report/1`), deterministic byte for byte."""

from __future__ import annotations

import json

from ..models import Report


def report_dict(report: Report) -> dict:
    criteria = []
    for c in report.criteria:
        evidence = []
        for cfg in c.assessment.configurations:
            for d in "SCDB":
                for e in cfg.dims[d].evidence:
                    evidence.append({
                        "dimension": e.dimension, "configuration": e.configuration,
                        "path": e.path, "start_line": e.start_line, "end_line": e.end_line,
                        "kind": e.kind.value, "claim": e.claim, "probe": e.probe,
                    })
        criteria.append({
            "id": c.id, "title": c.title, "threats": list(c.threats), "assessed": c.assessed,
            "levels": c.levels.model_dump() if c.levels else {},
            "raw": c.raw, "cap": c.cap, "score": c.score,
            "counted": c.counted, "confidence": c.confidence, "summary": c.summary,
            "configurations": [
                {"name": s.name, "label": s.label, "opt_in": s.opt_in,
                 "levels": s.levels.model_dump(), "raw": s.raw, "cap": s.cap, "score": s.score,
                 "next_level": {d: a.dims[d].next_level for d in "SCDB"}}
                for s, a in zip(c.configurations, c.assessment.configurations)
            ],
            "evidence": evidence,
            "notes": list(c.notes),
        })
    return {
        "schema": "dids.report/1",
        "repo": {"url": report.repo_url, "commit": report.commit},
        "name": report.name,
        "reviewed": report.reviewed,
        "commit_date": report.commit_date,
        "score": report.score,
        "band": report.band,
        "scored_configuration": report.scored_configuration,
        "agent": report.agent,
        "could_not_assess": report.could_not_assess,
        "criteria": criteria,
        "surface": report.surface,
        "tools": [t.model_dump() for t in report.tools],
        "improvements": [i.model_dump() for i in report.improvements],
        "critical_gaps": [
            {**{k: v for k, v in g.items() if k != "evidence"},
             "evidence": [{"path": e.path, "start_line": e.start_line, "end_line": e.end_line,
                           "claim": e.claim} for e in g.get("evidence", [])]}
            for g in report.critical_gaps],
        "rule_of_two": report.rule_of_two,
        "limitations": report.limitations,
        "stats": {k: v for k, v in report.stats.items() if not k.endswith("_s")},
    }


def render_json(report: Report) -> str:
    return json.dumps(report_dict(report), indent=2, sort_keys=False, ensure_ascii=False) + "\n"
