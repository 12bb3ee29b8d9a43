"""The agent model as the report shows it: the scored path, loops, tools, executors, gates.

`summarize(ctx)` gives the JSON `agent` object and the card's "Scored configuration" sentence;
`render/picture.py` draws the same facts as a Mermaid flowchart. Everything here is read from
the session and the findings; nothing is re-derived.
"""

from __future__ import annotations

from .criteria.c3_scoping import caps, default_tools
from .criteria.facts import gate_state, shared


def _at(f) -> str:
    return f.location.label() if f.location else ""


def summarize(ctx) -> dict:
    model = ctx.index.agent
    f = ctx.findings
    sh = shared(ctx)
    ep = model.entries if model is not None else None
    entries = []
    if ep is not None:
        for e in ep.main:
            entries.append({"kind": e.kind, "name": e.name, "declared_at": f"{e.path}:{e.line}",
                            "target": e.target, "node": e.node})
    loops = []
    if model is not None:
        for lp in model.session.loops[:6]:
            loops.append({"kind": lp.kind, "at": lp.label(), "function": lp.node.split("::", 1)[1],
                          "asks_model_at": [f"{p}:{ln}" for p, ln in lp.llm[:2]],
                          "calls_to_model": lp.depth})
    tools = [{"name": str(t.data.get("name")), "at": _at(t),
              "capabilities": sorted(caps(t) - {""}),
              "registration": str(t.data.get("registration")),
              "reach": str(t.data.get("reach", "default"))} for t in default_tools(ctx)[:40]]
    executors = [{"class": p.cls, "at": _at(p.finding), "env": p.env, "reach": p.reach,
                  "model_driven": True} for p in sh.model_exec()[:20]]
    executors += [{"class": p.cls, "at": _at(p.finding), "env": p.env, "reach": p.reach,
                   "model_driven": True} for p in sh.model_exec(opt_in=True)[:10]]
    gates = gate_state(ctx)
    gate_list = [{"how": str(g.data.get("how")), "at": _at(g), "reach": str(g.data.get("reach")),
                  "inside_a_tool": bool(g.data.get("in_tool"))} for g in gates["on"] + gates["opt"]]
    sandboxes = [{"class": p.cls, "at": _at(p.finding), "reach": p.reach}
                 for p in sh.exec_paths if p.cls in ("container", "jail", "remote")][:10]
    defaults = _defaults(ctx)
    readme = ep.readme if ep is not None else None
    scored = {
        "how": ep.how if ep is not None else "no agent model",
        "install": readme.install.text if readme and readme.install else None,
        "run": [e["name"] for e in entries if e["kind"] in ("readme-run", "readme-snippet")][:3],
        "entry_points": entries[:8],
        "shipped_defaults": defaults,
    }
    return {"scored_configuration": scored, "loops": loops, "tools": tools,
            "executors": executors, "gates": gate_list, "sandboxes": sandboxes,
            "assessed": assessed_parts(ctx)}


def _defaults(ctx) -> list[str]:
    """The shipped settings the levels rest on (backend selectors, approval modes, telemetry)."""
    f = ctx.findings
    out = []
    for x in f["exec.selector"] + f["approval.mode"] + f["memory.rls"]:
        if x.data.get("key") and x.data.get("value") is not None:
            out.append(f"{x.data['key']}={x.data['value']}")
    for x in f["secrets.telemetry"]:
        if x.probe == "secrets.telemetry_default" and str(x.data.get("reach", "default")) != "off-path":
            out.append(f"{x.data['key']} ({'on' if x.data['on'] else 'off'})")
    return list(dict.fromkeys(out))[:8]


def assessed_parts(ctx) -> dict:
    """What the parsers read: Python and TypeScript/JavaScript sources, and what stays unread."""
    index = ctx.index
    langs: dict[str, int] = {}
    for rec in index.files.values():
        if rec.role == "source" and rec.lang in ("python", "typescript", "javascript", "go", "rust",
                                                   "java", "ruby"):
            langs[rec.lang] = langs.get(rec.lang, 0) + 1
    parsed = {"python": len(index.py), "typescript/javascript": len(getattr(index, "ts", {}) or {})}
    out = {"source_files": langs, "parsed": parsed}
    if (getattr(index, "stats", None) or {}).get("ts_settings_only"):
        # the scored path is Python: of the TypeScript/JavaScript side only settings were read
        out["settings_only"] = ["typescript/javascript"]
    return out


def scored_sentence(summary: dict, model) -> str:
    """The card's "Scored configuration" line: what is installed, what is run, which shipped
    defaults matter, and how the path was chosen."""
    sc = summary["scored_configuration"]
    parts = []
    if sc["install"]:
        parts.append(f"“{sc['install']}”")
    runs = sc["run"]
    if runs:
        parts.append(("then " if parts else "") + ", ".join(f"“{r}”" for r in runs))
    elif sc["entry_points"]:
        e = sc["entry_points"][0]
        parts.append(("then " if parts else "") +
                     f"the {e['kind'].replace('-', ' ')} “{e['name']}” ({e['target']})")
    how = sc["how"]
    if how.startswith("library ("):  # "library (why)" → "(scored as a library: why)"
        how = "scored as a library: " + how[len("library ("):].rstrip(")")
    if parts:
        text = " ".join(parts) + (f" ({how})" if not how.startswith("no ") else
                                  " (no entry point found)")
    elif sc["how"].startswith("library"):
        text = "The console scripts reach none of the package's model calls; the package's code " \
               "is scored as a library"
    else:
        text = "No entry point was found; the package's code is scored as a library"
    if summary["loops"]:
        lp = summary["loops"][0]
        text += f"; agent loop at {lp['at']}"
    if sc["shipped_defaults"]:
        text += "; shipped defaults: " + "; ".join(sc["shipped_defaults"])
    return text + "."
