"""`dids score` output with the scanned repository's claims shown (never applied)."""

from __future__ import annotations

from ..acquire import acquire
from .claims import annotate_report, collect_claims, json_with_claims


def render_scored(report, target: str, fmt: str, render) -> str:
    """Render REPORT as md/json (via RENDER) or sarif, listing the repository's waivers and
    suppression comments as the maintainers' claims. A problem reading them never fails score."""
    snapshot = acquire(target, report.commit)
    claims = collect_claims(snapshot, strict=False)
    report = annotate_report(report, claims)
    if fmt == "sarif":
        from ..render.sarif import render_sarif

        return render_sarif(report, claims, files=[e.path for e in snapshot.list_tree()])
    text = render(report, fmt)
    return json_with_claims(text, claims) if fmt == "json" else text
