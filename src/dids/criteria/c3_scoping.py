"""C3 tool & action scoping: typed arguments vs raw passthrough, destinations, default tool set."""

from __future__ import annotations

import re

from ..models import CriterionAssessment
from .base import ConfigBuilder, Context, assessor

_RAW_EXEC = re.compile(r"(command|cmd|script|code|shell|args|argv)\b", re.I)
_RAW_URL = re.compile(r"\b(url|uri|endpoint|host)\b", re.I)


def _pkg(path: str) -> str:
    parts = path.split("/")
    return "/".join(parts[:2]) if len(parts) > 2 else parts[0]


def _code_passthrough(ctx: Context, code_exec, restricted) -> CriterionAssessment:
    """An agent whose action is model-written code: the code itself is the raw argument."""
    b = ConfigBuilder(ctx, "C3", "default", "default configuration", opt_in=False)
    lvl = 1 if restricted else 0
    b.set("S", lvl, "The agent's action is model-written code run as given"
          + ("; an import allowlist filters it." if restricted else " with no argument schema."),
          restricted[:1] + code_exec[:2])
    b.set("C", lvl, "Every action goes through the same unscoped code path.", code_exec[:2])
    b.set("D", 0, "Code execution is on by default and cannot be narrowed per task.", code_exec[:1])
    b.set("B", lvl, "Code can reach whatever the interpreter's process can reach"
          + (" beyond the allowlist." if restricted else "."), code_exec[:2])
    return CriterionAssessment(
        criterion="C3", assessed=True, configurations=(b.build(),),
        summary=f"dids found no tool registry; the agent acts by running model-written code "
                f"({len(code_exec)} execution sites"
                + (", behind a restricted interpreter" if restricted else "") + ").")


@assessor("C3")
def assess(ctx: Context) -> CriterionAssessment:
    f = ctx.findings
    tools = f["tools.inventory"]
    tools_all = f["tools.inventory"]
    # a destination check protects tools only where their package calls it
    tool_pkgs = {_pkg(t.location.path) for t in tools_all if t.location}
    ssrf = [x for x in f["scope.destination"] if x.location and _pkg(x.location.path) in tool_pkgs]
    allow = f["scope.allowlist"]
    code_exec = f["exec.inprocess"] + [s for s in f["exec.spawn"] if s.data["shell"]]
    only_schemas = all(t.data["registration"] == "schema" for t in tools)
    if only_schemas and code_exec:
        return _code_passthrough(ctx, code_exec, f["exec.restricted"])
    if not tools:
        return CriterionAssessment(
            criterion="C3", assessed=False,
            summary="No tool registration dids recognises was found, so tool scoping was not "
                    "assessed (tools may be registered in a way dids does not read yet).")
    caps = lambda t: set(str(t.data["capabilities"]).split(","))  # noqa: E731
    raw_exec = [t for t in tools if "shell" in caps(t) or
                ("exec" in caps(t) and _RAW_EXEC.search(str(t.data["params"])))]
    net = [t for t in tools if "network" in caps(t)]
    raw_url = [t for t in net if _RAW_URL.search(str(t.data["params"]))]
    typed = [t for t in tools if t.data["typed"]]
    b = ConfigBuilder(ctx, "C3", "default", "default configuration", opt_in=False)
    if f["exec.restricted"] and not raw_exec:
        # a code agent: its interpreter is a passthrough even if other tools are typed
        raw_exec = f["exec.restricted"][:2]
    if raw_exec:
        s, stext = (1 if len(typed) * 2 >= len(tools) else 0), (
            "A tool passes a raw command string to a process; argument types elsewhere do not "
            "bound it.")
    elif raw_url and not ssrf:
        s, stext = 2, "Tool arguments are typed, but an HTTP tool takes any URL with no "
        stext += "destination allowlist or private-address check."
    elif len(typed) * 2 >= len(tools):
        s, stext = (3 if ssrf or not net else 2), "Tool arguments are typed" + (
            " and destinations are checked." if ssrf else ".")
    else:
        s, stext = 1, "Most tools take untyped arguments."
    b.set("S", s, stext, (raw_exec[:2] + raw_url[:2] + ssrf[:1]) or typed[:2])
    share = len(typed) / len(tools)
    c = 2 if share >= 0.8 else (1 if share >= 0.4 else 0)
    b.set("C", min(c, s + 1), f"{len(typed)} of {len(tools)} tools declare typed arguments.",
          (typed[:2] + [t for t in tools if not t.data["typed"]][:2]))
    if allow:
        d, dtext = 3, "Agents start with an empty tool list and receive only the tools configured."
    elif raw_exec:
        d, dtext = 0, "Every registered tool, including command execution, is on by default."
    else:
        d, dtext = 1, "Tools are registered globally; no per-agent allowlist was found."
    b.set("D", min(d, s + 1), dtext, allow[:2] or raw_exec[:1] or tools[:1])
    only_restricted = raw_exec and all(x.probe == "exec.restricted" for x in raw_exec)
    if only_restricted:
        bl, btext = 1, "Model-written code reaches whatever the restricted interpreter allows."
    elif raw_exec:
        bl, btext = 0, "A general-purpose command tool reaches the whole host and its credentials."
    elif raw_url and not ssrf:
        bl, btext = 1, "An HTTP tool can reach any destination the process can reach."
    else:
        bl, btext = 2, "Tool reach is bounded by typed arguments and destination checks."
    b.set("B", min(bl, s + 1), btext, raw_exec[:2] or raw_url[:2] or tools[:1])
    summary = (f"dids found {len(tools)} registered tools ({len(raw_exec)} passing raw commands, "
               f"{len(net)} with network egress, {len(raw_url)} taking a free URL); "
               f"{len(typed)} declare typed arguments; {len(ssrf)} destination checks and "
               f"{len(allow)} per-agent tool allowlists were found.")
    return CriterionAssessment(criterion="C3", assessed=True, summary=summary,
                               configurations=(b.build(),))
