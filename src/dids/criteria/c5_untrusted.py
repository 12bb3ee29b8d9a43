"""C5 untrusted input blast radius: what a hijacked default session can do.

- An always-on per-action human gate at the chokepoint every tool passes is what lifts C5 to L2
  (the person sees each action after untrusted content was read); so does a structural design
  where the model cannot act: a read-only tool surface whose arguments code builds.
- Without either: prompt rules and delimiters around content are L1 (they ask the model; nothing
  changes what may run); nothing at all is L0.
- The Rule of Two is judged in the default session: [A] content others write that the tools
  read, [B] secrets the model's executors can reach, [C] egress or state change no human gates.
  All three meeting is C5-WORSTCASE.
- An opt-in gate (a confirmation mode) is the alternative (G1).
"""

from __future__ import annotations

import re

from ..models import CriterionAssessment, Kind
from ..probes.base import finding
from .base import ConfigBuilder, Context, assessor
from .c3_scoping import caps, default_tools
from .common import empty_default_toolset
from .facts import gate_state, read_only_surface, shared, toolless_loops


def rule_of_two(ctx: Context) -> dict:
    """[A] untrusted input, [B] sensitive data, [C] ungated state change/egress, in the default
    session, each with its evidence."""
    f = ctx.findings
    sh = shared(ctx)
    tools = default_tools(ctx)
    code = [p.finding for p in sh.model_exec()]
    net = [t for t in tools if "network" in caps(t)]
    a_ev = f["untrusted.source"][:2] + net[:2] + code[:1]
    ambient = [x for x in f["sem.credential"] if x.data.get("ambient") and
               str(x.data.get("reach", "default")) in ("default", "library")]
    b_ev = [p.finding for p in sh.model_exec_env_leaks[:2]] + ambient[:1] + f["secrets.deploy_env"][:1]
    gates = gate_state(ctx)
    if gates["chokepoint"] or read_only_surface(ctx) or f["untrusted.taint"]:
        c_ev = []
    else:
        powerful = [t for t in tools if caps(t) & {"exec", "shell", "network", "external_comm",
                                                     "fs_write"}]
        c_ev = (powerful[:2] + code[:1])[:3]
    same = bool(a_ev and b_ev and c_ev) and not empty_default_toolset(ctx)
    return {"A": a_ev, "B": b_ev, "C": c_ev, "same": same}


@assessor("C5")
def assess(ctx: Context) -> CriterionAssessment:
    f = ctx.findings
    spots = [x for x in f["untrusted.spotlight"] if str(x.data.get("reach", "default")) != "off-path"
             and not str(x.data.get("reach", "")).startswith("opt-in")]
    taint = f["untrusted.taint"]
    gates = gate_state(ctx)
    none = finding("untrusted.spotlight", "live source and prompt templates for delimiters or "
                   "labels around untrusted content, 'do not follow embedded instructions' "
                   "rules, taint checks and per-action gates → 0 hits.", kind=Kind.search)
    r2 = rule_of_two(ctx)
    tools = default_tools(ctx)
    b = ConfigBuilder(ctx, "C5", "default", "default configuration", opt_in=False)
    if gates["chokepoint"]:
        ev = gates["chokepoint"][:2] + spots[:1]
        b.set("S", 2, "No spotlighting, but every model action, egress included, waits for the "
              "person's decision after untrusted content is read.", ev)
        b.set("C", 2, "Every action of the main loop passes the gate; content is still not "
              "marked as untrusted.", ev)
        b.set("D", 2, "The gate is on for the default path, but a flag removes it.", ev[:2])
        b.set("B", 2, "A hijacked session can propose exfiltration or destructive actions, but "
              "each needs the person's yes on what is shown.", ev[:2])
        kind = "a per-action gate"
    elif taint:
        delims = [s for s in spots if s.data.get("how") == "delimiter"]
        wrapped = {x.location.path for x in delims + taint if x.location}
        ev = taint[:2] + delims[:2]
        b.set("S", 2, "Code changes what may run after untrusted content is read (dangerous "
              "tools are refused once the session is tainted).", ev)
        b.set("C", 2 if len(wrapped) >= 3 else 1, f"Taint and delimiters cover {len(wrapped)} "
              "ingest paths.", ev)
        b.set("D", 2, "The taint check is part of the default loop.", taint[:2])
        b.set("B", 2, "After untrusted content is read, the dangerous tools are refused.", taint[:2])
        kind = "a taint check"
    elif loops := toolless_loops(ctx):
        _structural(b, loops[:1] + (f["untrusted.source"] + f["untrusted.prompt_paste"])[:1],
                    spots, "Structural: the model is given no tools; injected text can steer only "
                    "the text it writes, and the code decides what is done with it.",
                    "No path lets the model act: every reply is handled by fixed code.",
                    "A hijacked session can only mislead through the text it produces; it has "
                    "no tool, code execution or egress of its own.")
        kind = "a session that gives the model no tools"
    elif read_only_surface(ctx):
        _structural(b, tools[:2], spots, "Structural: the model's tools only read, with typed "
                    "arguments; injected text can steer queries and the report, not actions.",
                    "Every tool of the default session is read-only.",
                    "A hijacked session has no write, no code execution and no egress to a "
                    "destination of its choice.")
        kind = "a read-only tool surface"
    else:
        delims = [s for s in spots if s.data.get("how") == "delimiter"]
        rule_lines = {(x.location.path, x.location.start_line) for x in spots
                      if x.data.get("how") == "prompt" and x.location}
        if taint:
            s, stext, s_ev = 2, "Code changes what may run after untrusted content is read.", taint[:3]
        elif delims or len(rule_lines) >= 2:  # one inline sentence about one field is not a rule set
            s, stext = 1, ("Prompt-level only: " + ("delimiters around attached content" if delims
                           else "") + (" and " if delims and len(spots) > len(delims) else "")
                           + ("a rule telling the model not to obey embedded instructions"
                              if len(spots) > len(delims) else "") + "; nothing acts on where "
                           "content came from.")
            s_ev = spots[:3]
        else:
            s, stext, s_ev = 0, ("At most a prompt sentence asks the model to treat some content "
                                 "as data; nothing marks or isolates untrusted content, and no "
                                 "code restricts tools after it is read."), spots[:1] + [none]
        b.set("S", s, stext, s_ev)
        b.set("C", min(s, 1), "Tool results and fetched content reach the model as plain text, "
              "without the markers." if s else "No source is handled.", s_ev[:2] + tools[:1])
        b.set("D", min(s, 1), "The prompt rule and delimiters are always on, but the model reads "
              "the same content through tools without them." if s else
              "There is no injection control to be on by default.", s_ev[:2])
        worst = r2["same"]
        if worst:
            bl, btext = 0, ("A hijacked default session can reach secrets and take egress or "
                            "irreversible actions with no human in the loop.")
            b.caps.append("C5-WORSTCASE")
        elif r2["C"] and empty_default_toolset(ctx):
            bl, btext = 1, ("Powerful tools run unattended once an operator grants them, but a "
                            "new agent holds no tools by default.")
        elif r2["C"]:
            bl, btext = 1, "Egress or state-changing tools run unattended, but not all Rule-of-Two legs meet."
        elif gate_state(ctx)["chokepoint"]:
            bl, btext = 2, "Powerful tools need a human by default."
        else:  # read-only tools, tainted content held back, or no powerful action found
            bl, btext = 2, ("No egress or state-changing action the model drives runs "
                            "unattended on the default path.")
        bypass = gates.get("bypass", [])[:1] if bl == 0 else []
        b.set("B", bl, btext, (bypass + r2["C"][:2] + r2["B"][:1] + f["scope.allowlist"][:1]) or [none])
        kind = "prompt-level rules" if spots else "nothing"
    configs = [b.build()]
    if gates["opt"] and not gates["chokepoint"]:
        configs.append(_gated_alternative(ctx, gates["opt"], gates.get("exempt", ())))
    summary = (f"The default session relies on {kind}. Rule of Two: untrusted input "
               f"{'yes' if r2['A'] else 'not found'}, sensitive data in reach "
               f"{'yes' if r2['B'] else 'not found'}, unattended egress/state change "
               f"{'yes' if r2['C'] else 'no'}; {len(spots)} spotlighting markers and rules, "
               f"{len(taint)} taint checks.")
    return CriterionAssessment(criterion="C5", assessed=True, summary=summary,
                               configurations=tuple(configs))


_EGRESS_TOOL = re.compile(r"fetch|web|http|url|browse|curl|request|download|search_?web", re.I)


def _structural(b: ConfigBuilder, ev, spots, stext: str, ctext: str, btext: str) -> None:
    """L2 on every dimension from the design of the default session (no tools, or tools that
    only read): EV is what shows it, SPOTS any prompt rules beside it."""
    b.set("S", 2, stext, ev + spots[:1])
    b.set("C", 2, ctext, ev)
    b.set("D", 2, "The design is built into the default session and cannot be switched off "
          "there.", ev[:1])
    b.set("B", 2, btext, ev[:1])


def _gated_alternative(ctx: Context, opt, exempt=()):
    setting = str(opt[0].data.get("reach")).split(":", 1)[-1]
    leaks = [e for e in exempt if any(_EGRESS_TOOL.search(t)
                                      for t in str(e.data.get("tools", "")).split(","))]
    if leaks:
        return _exempt_egress_alternative(ctx, opt, leaks, setting)
    alt = ConfigBuilder(ctx, "C5", "ask", f"opt-in confirmation ({setting} turned on)", opt_in=True)
    mcp = ctx.findings["ext.mcp_stdio"] + ctx.findings["sem.mcp"]
    replace = [x for x in ctx.findings["secrets.replacement"]
               if str(x.data.get("reach", "default")) in ("default", "library")]
    alt.set("S", 2, "Every held action needs a human, including after untrusted content has "
            "been read.", opt[:2])
    alt.set("C", 1 if mcp else 2, "Extension (MCP) tools bypass the gate." if mcp else
            "Every built-in action passes the gate.", opt[:1] + mcp[:1])
    alt.set("D", 0, "Off by default.", opt[:1])
    alt.set("B", 1, "Leaking what the model can reach needs an approved action"
            + (", and known secret values are masked before the model sees them." if replace
               else "."), opt[:1] + replace[:1])
    alt.caps.append("G1")
    return alt.build()


def _exempt_egress_alternative(ctx: Context, opt, leaks, setting):
    """The opt-in gate leaves an egress tool auto-approved: reading untrusted content and
    sending what the model read out still needs no human, so the gate is no injection control."""
    from ..agent.ts_defaults import switch_of

    turned = "off" if switch_of(setting) in ("autoapprove", "yolo", "skippermissions") else "on"
    alt = ConfigBuilder(ctx, "C5", "ask", f"opt-in confirmation ({setting} turned {turned})",
                        opt_in=True)
    egress = [t for t in str(leaks[0].data.get("tools", "")).split(",") if _EGRESS_TOOL.search(t)]
    names = ", ".join(egress[:3])
    alt.set("S", 0, f"No mechanism treats untrusted content differently; the opt-in gate exempts "
            f"{names}, so egress after reading untrusted content is not held.", leaks[:1])
    alt.set("C", 0, "No untrusted source is handled; the gate is not specific to them.", leaks[:1])
    alt.set("D", 0, "Off by default.", opt[:1])
    alt.set("B", 1, f"Approved actions need a human, but {names} stays auto-approved, so "
            "leaking what the model can read needs none.", leaks[:1] + opt[:1])
    alt.caps.append("G1")
    return alt.build()
