"""`dids explain CRITERION TARGET`: the evidence trail behind one criterion's levels.

For every configuration the criterion was scored in (the shipped defaults first, then the opt-in
alternatives), each of S/C/D/B with its level, why, what the next level needs, and every piece of
evidence in the order the level cites it (the first is the decisive one). Each located piece says
where the agent model places it: its reach (default / opt-in:<setting> / off-path / library) and
the call path from an entry point, so a reviewer can check that the decisive line really is on
the path the default user takes.
"""

from __future__ import annotations

from .errors import InputError
from .models import Evidence, Report

_DIMS = ("S", "C", "D", "B")
_NAMES = {"S": "strength", "C": "coverage", "D": "default", "B": "blast radius"}


def criterion_id(text: str) -> str:
    """'c4', 'C4', '4' → 'C4'; anything else is a usage error (exit 2)."""
    t = text.strip().upper()
    if t.isdigit():
        t = "C" + t
    if t not in {f"C{i}" for i in range(1, 11)}:
        raise InputError(f"unknown criterion {text!r}: use C1 … C10")
    return t


def _node_label(graph, nid: str) -> str:
    node = graph.nodes.get(nid) if graph is not None else None
    if node is None:
        return nid
    name = nid.split("::", 1)[1] if "::" in nid else nid
    return f"{name} ({node.path}:{node.line})"


def _placement(model, ev: Evidence) -> dict:
    """Reach and call path of one located piece of evidence, from the agent model."""
    from .agent.callgraph import MODULE

    if model is None or not ev.path or not ev.start_line:
        return {}
    if f"{ev.path}::{MODULE}" not in model.graph.nodes:
        return {}  # not parsed source (a compose file, a manifest): the call graph cannot place it
    reach = model.reach
    out: dict = {"reach": reach.of(ev.path, ev.start_line)}
    dist = reach.distance(ev.path, ev.start_line)
    if dist is not None and dist < 100:
        out["calls_from_entry"] = dist
        trail = reach.trail(ev.path, ev.start_line)
        out["call_path"] = [_node_label(model.graph, nid) for nid, _ln, _how in trail]
    session = model.session
    nid = model.graph.node_at(ev.path, ev.start_line)
    if nid in session.driven:
        out["driven_by_agent_loop"] = True
    return out


def explain(report: Report, model, criterion: str) -> dict:
    """The trail for CRITERION as data (the JSON form of `dids explain`)."""
    cid = criterion_id(criterion)
    res = next((r for r in report.criteria if r.id == cid), None)
    if res is None:  # every report has all ten; a damaged cache entry would not
        raise InputError(f"{cid} is not in the report")
    configs = []
    for cfg in res.assessment.configurations:
        scored = next((s for s in res.configurations if s.name == cfg.name), None)
        dims = []
        for d in _DIMS:
            a = cfg.dims.get(d)
            if a is None:
                continue
            dims.append({
                "dimension": d, "level": a.level, "summary": a.summary,
                "next_level": a.next_level,
                "evidence": [{"path": e.path, "start_line": e.start_line, "end_line": e.end_line,
                              "kind": e.kind.value, "claim": e.claim, "probe": e.probe,
                              **_placement(model, e)} for e in a.evidence],
            })
        configs.append({"name": cfg.name, "label": cfg.label, "opt_in": cfg.opt_in,
                        "counted": cfg.name == res.counted_name,
                        "raw": scored.raw if scored else None,
                        "cap": scored.cap if scored else None,
                        "score": scored.score if scored else None,
                        "caps": list(cfg.caps), "dimensions": dims})
    return {"criterion": cid, "title": res.title, "assessed": res.assessed, "score": res.score,
            "confidence": res.confidence, "summary": res.summary, "cap": res.cap_text,
            "notes": list(res.notes) + list(res.assessment.notes),
            "configurations": configs, "commit": report.commit, "repo_url": report.repo_url}


def render_text(trail: dict) -> str:
    """The trail as plain text for a terminal (repository text is printed, never interpreted)."""
    from .render.text import clean

    def c(s) -> str:
        return " ".join(clean(str(s)).split())

    lines = [f"{trail['criterion']} {c(trail['title'])}: score {trail['score']:.2f} "
             f"(confidence {trail['confidence']}) at {trail['commit'][:12]}"]
    if not trail["assessed"]:
        lines.append("  not assessed: " + c(trail["summary"]))
    for cfg in trail["configurations"]:
        mark = " [counted]" if cfg["counted"] else ""
        kind = "opt-in alternative" if cfg["opt_in"] else "shipped defaults"
        score = f" raw {cfg['raw']:.2f}, score {cfg['score']:.2f}" if cfg["raw"] is not None else ""
        lines.append("")
        lines.append(f"Configuration {c(cfg['label'])} ({kind}){mark}:{score}"
                     + (f", capped: {c(cfg['cap'])}" if cfg["cap"] else ""))
        for d in cfg["dimensions"]:
            lines.append(f"  {d['dimension']} ({_NAMES[d['dimension']]}) = L{d['level']}: "
                         f"{c(d['summary'])}")
            if d["next_level"]:
                lines.append(f"      next level: {c(d['next_level'])}")
            for i, e in enumerate(d["evidence"], 1):
                where = (f"{c(e['path'])}:{e['start_line']}"
                         + (f"-{e['end_line']}" if e["end_line"] and e["end_line"] != e["start_line"]
                            else "")) if e["path"] else "(search)"
                lead = "decisive " if i == 1 else ""
                lines.append(f"    {i}. {lead}[{e['kind']}] {where}: {c(e['claim'])}")
                if "reach" in e:
                    how = f"reach {e['reach']}"
                    if "calls_from_entry" in e:
                        how += f", {e['calls_from_entry']} call(s) from an entry point"
                    if e.get("driven_by_agent_loop"):
                        how += ", driven by the agent loop"
                    lines.append(f"       {how}")
                    if len(e.get("call_path", ())) > 1:
                        lines.append("       via " + " → ".join(c(p) for p in e["call_path"]))
    for n in trail["notes"]:
        lines.append("note: " + c(n))
    return "\n".join(lines) + "\n"
