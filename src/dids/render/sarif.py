"""SARIF 2.1.0: one rule per criterion (C1..C10), one result per gap, as GitHub code scanning
ingests it.

A gap is a dimension below L2 on the criterion's counted configuration; the result is located at
the gap's first evidence with a path (other cited locations become relatedLocations). GitHub
rejects the whole file when any result lacks a location, and a gap backed only by a negative
search has none of its own: it is then located at the file a fix would start from (the
criterion's other evidence, else the tool module, else the project file: pyproject.toml,
package.json or README, line 1). The partialFingerprints leave line numbers and that fallback
out, so a gap keeps its identity when code moves. Rules carry `security-severity`, a `helpUri`
and Markdown help with each level's next step. The total score, band and per-criterion levels
are in run.properties. Output is deterministic byte for byte.

Waivers and suppression comments appear as `suppressions`: under review (a claim, not applied) in
`dids score`, accepted in `dids gate`, rejected when expired.
"""

from __future__ import annotations

import json
import re
from datetime import date
from pathlib import Path

from .. import HOMEPAGE, __version__
from ..models import CRITERIA, DIMENSIONS, Report
from ..rubric import load_rubric

SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
FINGERPRINT = "didsGap/v1"
# the project file a repository-level gap is pinned to when nothing more specific exists
ANCHOR_FILES = ("pyproject.toml", "setup.py", "setup.cfg", "package.json", "README.md",
                "README.rst", "README.txt", "README")
MAX_RELATED = 100  # GitHub keeps at most this many related locations per result


def rule_help_uri(cid: str) -> str:
    """The criterion's rubric (ladders, next-level text) at this version's release tag."""
    return f"{HOMEPAGE}/blob/v{__version__}/src/dids/data/rubrics/{cid.lower()}.yaml"


def _help_markdown(crit, rubric) -> str:
    pb = rubric.playbooks.get(crit.playbook)
    out = [f"**{crit.id} {crit.title}.** {crit.question}", "",
           "dids reports a result for each dimension below L2 on the counted configuration "
           "(the default, or an opt-in alternative when that scores higher). The result's "
           "message says which level was found and what the next one needs.", ""]
    for d in DIMENSIONS:
        dim = rubric.dimensions[d]
        out += [f"#### {d}: {dim.name}", "", f"*To improve:* {crit.improvements[d]}", ""]
        for rung in crit.ladders[d][:4]:
            out.append(f"- **L{rung.level}** {rung.means} *Next:* {rung.next}")
        out.append("")
    if pb:
        step = f", step {crit.playbook_step}" if crit.playbook_step else ""
        out.append(f"Remediation: Playbook {crit.playbook} ({pb.title}){step}.")
        out += [f"{n}. {text}" for n, text in sorted(pb.steps.items())]
    return "\n".join(out).strip() + "\n"


def _rule(cid: str, rubric) -> dict:
    crit = rubric.criteria[cid]
    pb = rubric.playbooks.get(crit.playbook)
    improvements = " ".join(f"{d}: {t}" for d, t in crit.improvements.items())
    help_text = (f"{crit.question} Playbook {crit.playbook}"
                 + (f" ({pb.title})" if pb else "") + f". {improvements}")
    name = re.sub(r"[^A-Za-z0-9]+", " ", crit.title).title().replace(" ", "")
    return {
        "id": cid,
        "name": name,
        "shortDescription": {"text": f"{cid} {crit.title}"},
        "fullDescription": {"text": crit.question},
        "helpUri": rule_help_uri(cid),
        "help": {"text": help_text, "markdown": _help_markdown(crit, rubric)},
        "defaultConfiguration": {"level": "warning"},
        "properties": {"tags": ["security", "defense-in-depth", *crit.threats],
                       "playbook": crit.playbook,
                       # GitHub reads the severity from the rule, as a string
                       "security-severity": f"{crit.security_severity:.1f}",
                       "precision": "medium"},
    }


def _driver(rules: list[dict]) -> dict:
    return {"name": "dids", "version": __version__, "semanticVersion": __version__,
            "informationUri": HOMEPAGE, "rules": rules}


def fallback_location(criterion: dict, report: Report, files: list[str] | None) -> tuple[dict, str]:
    """Where a gap with no located evidence of its own is shown, and why there: the file a fix
    would change. The criterion's other cited evidence first (counted configuration first), then
    the module of the first tool, then the project file, line 1. FILES (the paths at the
    commit) confirms the project file exists; without it the first anchor name is used."""
    counted_name = _counted_name(criterion)
    ev = sorted((e for e in criterion.get("evidence", []) if e.get("path")),
                key=lambda e: (e.get("configuration") != counted_name,
                               "SCDB".find(e.get("dimension", ""))))
    if ev:
        return ev[0], f"the nearest {criterion['id']} evidence ({ev[0].get('claim', '')})"
    tools = sorted(report.tools, key=lambda t: (t.path, t.line))
    if tools and tools[0].path:
        t = tools[0]
        return ({"path": t.path, "start_line": t.line or 1, "end_line": t.line or 1},
                f"the first registered tool, {t.name}")
    present = set(files or ())
    anchor = next((f for f in ANCHOR_FILES if f in present), None)
    if anchor is None and files:
        top = sorted(f for f in files if "/" not in f)
        anchor = top[0] if top else sorted(files)[0]
    anchor = anchor or ANCHOR_FILES[0]
    return ({"path": anchor, "start_line": 1, "end_line": 1},
            f"the repository as a whole ({anchor}, line 1)")


def _counted_name(criterion: dict) -> str | None:
    from ..gate.gaps import counted

    cfg = counted(criterion)
    return cfg["name"] if cfg else None


def _location(e: dict, message: str | None = None, ident: int | None = None) -> dict:
    # GitHub needs a region with a start line on every location; a file-level citation is line 1
    start = e.get("start_line") or 1
    region = {"startLine": start, "endLine": max(e.get("end_line") or start, start)}
    loc: dict = {"physicalLocation": {"artifactLocation": {"uri": _uri(e["path"]),
                                                           "uriBaseId": "%SRCROOT%"},
                                      "region": region}}
    if ident is not None:
        loc["id"] = ident
    if message:
        loc["message"] = {"text": message}
    return loc


def _uri(path: str) -> str:
    return "".join(c if c.isalnum() or c in "-._~/" else "%{:02X}".format(ord(c))
                   if ord(c) < 128 else c for c in path)


def _repo_uri(url: str) -> str | None:
    if re.match(r"^[a-z][a-z0-9+.-]*://", url):
        return url
    if url.startswith("/"):
        return Path(url).as_uri()
    return None


def _suppression(w, status: str) -> dict:
    s = {"kind": "inSource" if w.origin == "comment" else "external", "status": status,
         "justification": f"{w.reason}: {w.justification}",
         "properties": {"reason": w.reason, "owner": w.owner, "expires": w.expires.isoformat(),
                        "declaredAt": w.where}}
    if w.origin == "comment":
        s["location"] = _location({"path": w.path, "start_line": w.line, "end_line": w.line})
    return s


def render_sarif(report: Report, claims=None, *, applied: bool = False,
                 today: date | None = None, baseline: dict | None = None,
                 files: list[str] | None = None) -> str:
    """SARIF of REPORT. CLAIMS (gate.Claims) adds suppressions: `underReview` unless APPLIED
    (`dids gate`), where unexpired ones are `accepted` and expired ones `rejected`. BASELINE
    (a report view) sets each result's baselineState. FILES (the paths at the commit) picks the
    project file a repository-level gap is located at."""
    from ..gate.gaps import counted, current_view, evidence_key, gaps

    rubric = load_rubric()
    view = current_view(report)
    today = today or date.today()
    rules = [_rule(cid, rubric) for cid in CRITERIA]
    base_gaps = None
    if baseline is not None:
        base_gaps = {(g.criterion, g.dimension): g for g in gaps(baseline)}
    results = []
    for g in gaps(view):
        located = g.located
        related = [e for e in g.evidence if e.get("path") and e is not located]
        searches = [e for e in g.evidence if not e.get("path")]
        where = "alternative" if g.opt_in else "default"
        text = (f"{g.criterion} {g.title}: {g.dimension} is L{g.level} on the counted "
                f"{where} configuration ({g.configuration}); L2 is the gap threshold. "
                f"{g.summary} To reach the next level: {g.next_level}").strip()
        if searches:
            text += " Searched: " + "; ".join(e["claim"] for e in searches)
        res: dict = {
            "ruleId": g.criterion,
            "ruleIndex": CRITERIA.index(g.criterion),
            "kind": "fail",
            "level": "error" if g.level == 0 else "warning",
            "message": {"text": " ".join(text.split())},
            "partialFingerprints": {FINGERPRINT: g.fingerprint},
            "properties": {
                "criterion": g.criterion, "dimension": g.dimension, "level": g.level,
                "configuration": g.configuration, "optIn": g.opt_in,
                "evidence": [{"probe": e.get("probe"), "path": e.get("path"),
                              "startLine": e.get("start_line"), "kind": e.get("kind"),
                              "claim": e.get("claim")} for e in g.evidence],
            },
        }
        if located:
            res["locations"] = [_location(located, located.get("claim"))]
        else:  # only searches back this dimension: locate where a fix would start
            c = next(x for x in view["criteria"] if x["id"] == g.criterion)
            near, why = fallback_location(c, report, files)
            res["locations"] = [_location(near, "No file:line backs this dimension (only "
                                                f"searches); shown at {why}")]
            res["properties"]["locatedAt"] = "fallback"
        if related:
            res["relatedLocations"] = [_location(e, e.get("claim"), i)
                                       for i, e in enumerate(related[:MAX_RELATED], 1)]
        if claims is not None:
            c = next(x for x in view["criteria"] if x["id"] == g.criterion)
            cfg = counted(c)
            ev = [e for e in c["evidence"] if cfg and e["configuration"] == cfg["name"]
                  and e["dimension"] == g.dimension]
            sup = []
            for w in claims.waivers:
                if not w.covers(g.criterion, g.dimension, ev):
                    continue
                status = ("rejected" if w.expired(today) else "accepted") if applied \
                    else "underReview"
                sup.append(_suppression(w, status))
            if sup:
                res["suppressions"] = sup
        if base_gaps is not None:
            old = base_gaps.get((g.criterion, g.dimension))
            if old is None:
                res["baselineState"] = "new"
            elif old.level == g.level and sorted(map(evidence_key, old.evidence)) == \
                    sorted(map(evidence_key, g.evidence)):
                res["baselineState"] = "unchanged"
            else:
                res["baselineState"] = "updated"
        results.append(res)
    run: dict = {
        "tool": {"driver": _driver(rules)},
        "automationDetails": {"id": f"dids/{report.commit}"},
        "columnKind": "unicodeCodePoints",
        "results": results,
        "properties": {
            "schema": "dids.report/1",
            "repository": report.repo_url,
            "commit": report.commit,
            "score": report.score,
            "maxScore": 10.0,
            "band": report.band,
            "criteria": {c["id"]: {"title": c["title"], "assessed": c["assessed"],
                                   "levels": c["levels"], "score": c["score"],
                                   "cap": c["cap"], "counted": c["counted"],
                                   "confidence": c["confidence"]}
                         for c in view["criteria"]},
        },
    }
    if report.could_not_assess:  # what dids could not see is said where code scanning shows it
        run["invocations"] = [{"executionSuccessful": True, "toolExecutionNotifications": [
            {"level": "warning", "message": {"text": "could not assess: " + " ".join(why.split())}}
            for why in report.could_not_assess]}]
    repo = _repo_uri(report.repo_url)
    if repo:
        run["versionControlProvenance"] = [{"repositoryUri": repo, "revisionId": report.commit}]
    log = {"$schema": SCHEMA_URI, "version": "2.1.0", "runs": [run]}
    return json.dumps(log, indent=2, ensure_ascii=False) + "\n"


def render_error_sarif(message: str, *, exit_code: int) -> str:
    """The SARIF log of a gate that could not run (bad configuration, unknown base, timeout):
    no results, and the error as a tool execution notification of an unsuccessful invocation,
    so a CI step that uploads the file with `if: always()` shows why instead of failing on a
    missing file."""
    rules = [_rule(cid, load_rubric()) for cid in CRITERIA]
    run = {
        "tool": {"driver": _driver(rules)},
        "invocations": [{"executionSuccessful": False, "exitCode": exit_code,
                         "toolExecutionNotifications": [
                             {"level": "error", "message": {"text": " ".join(message.split())}}]}],
        "columnKind": "unicodeCodePoints",
        "results": [],
    }
    log = {"$schema": SCHEMA_URI, "version": "2.1.0", "runs": [run]}
    return json.dumps(log, indent=2, ensure_ascii=False) + "\n"
