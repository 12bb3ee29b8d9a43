"""C3 tool & action scoping: what the default session's tools accept and can reach.

The tool set is the default session's: tools registered on the scored path (hard-disabled ones
and abstract base classes left out), narrowed to the tools a README snippet hands the agent
when it names them, plus model-written code when code is the agent's action.

- S: raw passthrough (a shell string, model-written code) with nothing checking it (L0);
  passthrough behind an allowlist or an interpreter filter, or typed schemas whose generic
  tools still take any command or URL (L1); commands parsed and rejected by a validator, or a
  read-only surface whose arguments code builds (L2); destination allowlists / private-address
  blocks on top (L3).
- C: how much of the action surface the control covers.
- D: an empty default tool list (L3); a small explicit set or tools that turn on only with
  their integration (L2); everything on by default (L1).
- B: what a misused tool reaches: the host and its credentials (L0), a container or any URL
  (L1), read-only queries (L2).
"""

from __future__ import annotations

import re

from ..models import CriterionAssessment, Kind
from ..probes.base import finding
from .base import ConfigBuilder, Context, assessor
from .facts import reached_from_tools, shared

_RAW_EXEC = re.compile(r"(command|cmd|script|code|shell|args|argv)\b", re.I)
_RAW_URL = re.compile(r"\b(url|uri|endpoint|host)\b", re.I)


def _pkg(path: str) -> str:
    parts = path.split("/")
    return "/".join(parts[:2]) if len(parts) > 2 else parts[0]


def _checks_of(ctx: Context, tools, checks) -> list:
    """The destination CHECKS that guard the default TOOLS: in a tool's own file, or in code a
    tool reaches (a shared URL validator it calls); not a check some other shipped toolkit of
    the same package makes for itself."""
    files = {t.location.path for t in tools if t.location}
    model = ctx.index.agent
    if model is None:  # no call graph: the package of a tool is the nearest we can say
        pkgs = {_pkg(p) for p in files}
        return [x for x in checks if x.location and _pkg(x.location.path) in pkgs]
    reached = reached_from_tools(ctx, tools)
    return [x for x in checks if x.location and (
        x.location.path in files or
        model.graph.node_at(x.location.path, x.location.start_line) in reached)]


def caps(t) -> set[str]:
    return set(str(t.data.get("capabilities", "")).split(","))


def default_tools(ctx: Context) -> list:
    """The tools of the default session (see the module docstring)."""
    tools = [t for t in ctx.findings["tools.inventory"] if not t.data.get("disabled")
             and not t.data.get("base")
             and not str(t.data.get("reach", "")).startswith("opt-in")
             and not (t.data.get("registration") == "schema" and not _schema_has_tool(t))]
    named = snippet_tool_names(ctx)
    if named:
        # the tools named, else every tool of a toolkit named (`SearchToolkit().get_tools()`)
        kept = [t for t in tools if str(t.data.get("name")) in named
                or str(t.data.get("alias") or "") in named] or \
            [t for t in tools if t.data.get("owner") and str(t.data["owner"]) in named]
        if kept:
            return kept
    return tools


def _schema_has_tool(t) -> bool:
    # a bare `"type": "function"` line is a schema, not a tool of its own; one with the literal
    # name it gives the model is that tool
    return bool(t.data.get("named"))


# the keyword a README snippet hands the agent its tools by (`Assistant(function_list=[...])`)
_TOOL_KWARGS = frozenset({"tools", "function_list", "functions", "tool_list", "toolkits",
                          "toolsets"})


def snippet_tool_names(ctx: Context) -> set[str]:
    """Classes, functions or registered tool names (`'code_interpreter'`) a README snippet passes
    as the agent's `tools=[...]`."""
    model = ctx.index.agent
    if model is None:
        return set()
    out: set[str] = set()
    values = model.entries.snippet_values
    for _callee, kwargs, _line in model.entries.snippet_calls:
        for k, v in kwargs:
            if k in _TOOL_KWARGS:
                out.update(re.findall(r"[A-Za-z_]\w*", v))
    # a name the snippet assigned first (`search = SearchToolkit().search_duckduckgo`) stands
    # for what it was assigned (two steps at most)
    for _ in range(2):
        out |= {n for name in list(out) if name in values
                for n in re.findall(r"[A-Za-z_]\w*", values[name])}
    out -= set(values)  # the snippet's own variables name no tool of the repository
    # `from pkg.tools import google_search` where the package holds `google_search =
    # GoogleSearchTool()`: the tool is that instance's class
    r = model.graph._resolver
    for name in list(out):
        origin = model.entries.snippet_imports.get(name)
        hit = model.graph.modules.split(origin) if origin and r is not None else None
        if hit and hit[1] and "." not in hit[1]:
            cls = r.instance_class(hit[0], hit[1])
            if cls is not None:
                out.add(model.graph.nodes[cls].name)
    return out


@assessor("C3")
def assess(ctx: Context) -> CriterionAssessment:
    f = ctx.findings
    sh = shared(ctx)
    tools = default_tools(ctx)
    ssrf = _checks_of(ctx, tools, f["scope.destination"])
    allow = f["scope.allowlist"]
    validators = [x for x in f["exec.filter"] if x.data.get("how") == "validator"]
    model_exec = sh.model_exec()
    code = [p for p in model_exec if p.cls in ("restricted", "inprocess", "kernel")]
    restricted = [p for p in code if p.cls == "restricted"]
    # no tool at all, but the loop hands command lines the model wrote to an executor, on the
    # host or in a sandbox (`run_cmd(command)` after parsing the reply, a container session's
    # `BashAction(command=...)`): the actions are raw commands
    commands = sh.model_commands if not tools and not code else []
    notes: tuple[str, ...] = ()
    if not tools and not code and not commands and not model_exec:
        # Nothing the model drives was found (the loop may be wired in a way dids does not
        # follow: injected roles, a registry read from YAML), but the package runs code through
        # an interpreter of its own: that executor stands in for the agent's action.
        code = sh.package_interpreters
        restricted = [p for p in code if p.cls == "restricted"]
        if code:
            notes = ("No agent loop was found to reach a tool or executor; the levels take the "
                     f"package's code executor ({code[0].finding.location.label()}) as the "
                     "agent's action (inferred).",)
    if not tools and not code and not commands:
        loops = [x for x in f["agent.loop"]
                 if str(x.data.get("reach", "default")).split(":")[0] in ("default", "library")]
        if loops and not any(p.finding.data.get("handed_in") for p in model_exec):
            return _no_tool_surface(ctx, loops)
        return CriterionAssessment(
            criterion="C3", assessed=False,
            summary="No tool registration dids recognises was found on the scored path, so tool "
                    "scoping was not assessed (tools may be registered in a way dids does not "
                    "read yet).")
    raw_exec = [t for t in tools if "shell" in caps(t) or
                ("exec" in caps(t) and (_RAW_EXEC.search(str(t.data.get("params"))) or
                                        t.data.get("registration") == "schema-object"))]
    net = [t for t in tools if "network" in caps(t)]
    raw_url = [t for t in net if _RAW_URL.search(str(t.data.get("params"))) or
               t.data.get("registration") == "schema-object"]
    writes = [t for t in tools if caps(t) & {"exec", "fs_write", "external_comm", "shell"}]
    typed = [t for t in tools if t.data.get("typed")]
    # a read-only surface: nothing executes or writes files; a ticket or two may be opened
    read_only = not code and not any(caps(t) & {"exec", "fs_write", "shell"} for t in tools) \
        and len(writes) <= 2 and len(tools) > 2 * len(writes)
    leaks = sh.model_exec_env_leaks
    contained = not leaks and bool(sh.default_sandboxes)
    b = ConfigBuilder(ctx, "C3", "default", "default configuration", opt_in=False)

    # S and C
    if commands:
        s, stext = 0, ("The agent's actions are command lines the model writes, run as given: "
                       "no tool schema types or checks them.")
        s_ev = [p.finding for p in commands[:2]]
        c, ctext, c_ev = 0, "No path checks what the commands do.", s_ev
    elif code and not raw_exec:
        s = 1 if restricted else 0
        stext = ("The agent's action is model-written code run as given"
                 + ("; an import allowlist filters it." if restricted else
                    ", with no argument schema."))
        s_ev = [p.finding for p in (restricted or code)[:2]] + tools[:1]
        c, ctext = (2 if restricted else 0), ("Every code action goes through the same "
                                              "interpreter filter; tool calls made from code are "
                                              "not schema-checked." if restricted else
                                              "No path checks what the code does.")
        c_ev = [p.finding for p in code[:2]]
    elif raw_exec and validators:
        s, stext = 2, ("Commands are parsed and checked against allow/deny rules before they "
                       "run; other tools take typed, quoted arguments.")
        s_ev = validators[:2] + raw_exec[:1] + raw_url[:1]
        unvalidated = [t for t in raw_exec if not any(
            v.location and t.location and v.location.path == t.location.path for v in validators)]
        c = 1 if unvalidated or raw_url else 2
        ctext = ("Validation covers only part of the command tools; "
                 f"{len(unvalidated)} others render arguments into commands unchecked."
                 if unvalidated else "Every command tool is validated.")
        c_ev = validators[:1] + unvalidated[:2] + raw_url[:1]
    elif raw_exec:
        # typed schemas scope something only when some typed tool is not itself a passthrough:
        # a session whose every tool takes any command is one general-purpose tool
        scoped = [t for t in typed if t not in raw_exec]
        s = 1 if scoped and len(typed) * 2 >= len(tools) else 0
        stext = ("Tool arguments are typed, but a command or code tool accepts any command "
                 "string." if s else
                 "Every tool of the session takes a raw command string; its schema requires "
                 "the string and checks nothing it does." if typed else
                 "A tool passes a raw command string to a process with no schema or check.")
        s_ev = raw_exec[:2] + raw_url[:1]
        c = min(1, s)
        ctext = "No tool validates commands, paths or destinations; the schemas only require " \
                "arguments." if s else "No tool path validates its arguments."
        c_ev = raw_exec[:2] + raw_url[:1]
    elif raw_url and not ssrf:
        s, stext = 2, ("Tool arguments are typed, but an HTTP tool takes any URL with no "
                       "destination allowlist or private-address check.")
        s_ev = raw_url[:2] + typed[:1]
        c, ctext = 2, f"{len(typed)} of {len(tools)} tools declare typed arguments."
        c_ev = typed[:2]
    else:
        checked = {x.location.path.rsplit("/", 1)[0] for x in ssrf if x.location}
        covered = [t for t in net if t.location and t.location.path.rsplit("/", 1)[0] in checked]
        s = 3 if net and len(covered) * 2 >= len(net) and len(typed) * 2 >= len(tools) else 2
        stext = ("Tools are typed and read-only" if read_only else "Tool arguments are typed") \
            + (", and destinations are checked." if ssrf else ".")
        s_ev = (ssrf[:1] + typed[:2]) or tools[:2]
        share = len(typed) / max(len(tools), 1)
        c = 2 if share >= 0.8 else 1
        ctext = f"{len(typed)} of {len(tools)} tools declare typed arguments."
        c_ev = typed[:2] or tools[:2]
    b.set("S", s, stext, s_ev)
    b.set("C", min(c, s + 1), ctext, c_ev)

    # D
    named = snippet_tool_names(ctx)
    gated = [t for t in ctx.findings["tools.inventory"] if t.data.get("disabled")]
    exec_on = bool(raw_exec or code and not restricted or commands)
    if allow:
        d, dtext, d_ev = 3, ("Agents start with an empty tool list and receive only the tools "
                             "configured."), allow[:2]
    elif named and tools:
        d, dtext, d_ev = 2, ("The quick start hands the agent an explicit, short tool list; "
                             "other shipped tools are not added by default."), tools[:2]
    elif gated and not exec_on:
        d, dtext, d_ev = 2, ("Tools turn on only when their integration is configured, and "
                             "the generic execution tool is hard-disabled."), gated[:2] + tools[:1]
    else:
        d, dtext = 1, ("Every built-in tool is on by default" + (", including command or code "
                       "execution." if exec_on else "."))
        d_ev = (raw_exec or [p.finding for p in code] or tools)[:2]
    b.set("D", min(d, s + 1), dtext, d_ev)

    # B
    if leaks and (raw_exec or code or commands):
        bl, btext = 0, "A misused tool reaches the whole host: commands or code run with the " \
                       "agent's user, files and credentials."
        b_ev = [p.finding for p in leaks[:2]] + raw_exec[:1]
    elif contained and (raw_exec or code or commands):
        bl, btext = 1, "Tools are general-purpose but act on a disposable container and what " \
                       "its tokens and network reach, not on the host."
        b_ev = [p.finding for p in sh.default_sandboxes[:2]] + raw_exec[:1]
    elif raw_url and not ssrf:
        bl, btext = 1, "An HTTP tool can reach any destination the process can reach."
        b_ev = raw_url[:2]
    elif read_only:
        bl, btext = 2, "The default tools only read: a misused call returns data, it changes " \
                       "nothing."
        b_ev = tools[:2]
    else:
        bl, btext = 1, "Tools write to external systems within their typed arguments."
        b_ev = writes[:2] or tools[:1]
    b.set("B", min(bl, s + 1), btext, b_ev)
    summary = (f"The default session holds {len(tools)} tools ({len(raw_exec)} taking raw "
               f"commands, {len(net)} with network egress, {len(raw_url)} taking a free URL"
               + (f", model-written code through {len(code)} execution sites" if code else "")
               + f"); {len(typed)} declare typed arguments; {len(validators)} command validators, "
               f"{len(ssrf)} destination checks and {len(allow)} per-agent tool allowlists.")
    return CriterionAssessment(criterion="C3", assessed=True, summary=summary,
                               configurations=(b.build(),), notes=notes)


def _no_tool_surface(ctx: Context, loops) -> CriterionAssessment:
    """The agent loop asks the model, but gives it nothing to call: no tool registration, tool
    schema or model-driven executor is on the scored path (a reviewer, summariser or pipeline
    whose code decides what is done with each reply). The model fills no action's arguments,
    which scopes it; a host command on the scored path near that work (a run script the code
    executes) may still take what the replies wrote, so that case is weaker (inferred)."""
    sh = shared(ctx)
    none = finding("tools.inventory", "live source for tool registrations, tool schemas and "
                   "model-driven executors on the scored path → 0 hits.", kind=Kind.search)
    host = [p.finding for p in sh.exec_paths
            if not p.opt_in and p.reach == "default" and p.cls == "host"]
    b = ConfigBuilder(ctx, "C3", "default", "default configuration", opt_in=False)
    if host:
        lvl = 1
        stext = ("The model is given no tools; the code runs host commands on the scored path "
                 "that what the model wrote may feed, with no schema or check.")
        ev = loops[:1] + host[:1] + [none]
        btext = ("A poisoned reply reaches what the code does with it, including the host "
                 "commands it runs.")
    else:
        lvl = 2
        stext = ("The model is given no tools: it answers in text, and the code decides what is "
                 "done with each reply; the model fills no action's arguments.")
        ev = loops[:1] + [none]
        btext = ("A poisoned reply changes only the text the code acts on, in the systems the "
                 "code is configured for.")
    b.set("S", lvl, stext, ev)
    b.set("C", lvl, "No tool path exists; what the code does with each reply is fixed by the code.",
          ev)
    b.set("D", lvl, "No tool is enabled by default: the default session gives the model none.", ev)
    b.set("B", lvl, btext, ev)
    return CriterionAssessment(
        criterion="C3", assessed=True, configurations=(b.build(),),
        summary="The default session gives the model no tools (0 tool registrations or schemas, "
                "0 model-driven executors on the scored path); the levels are inferred from the "
                "agent loop, whose replies the code handles itself.",
        notes=("No tool registration was found on the scored path; tools registered in a way "
               "dids does not read yet would change these levels.",))


__all__ = ["assess", "caps", "default_tools", "snippet_tool_names", "Kind", "finding"]
