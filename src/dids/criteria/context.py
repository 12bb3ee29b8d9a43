"""Context evidence: the located facts a reviewer reads next to a level's decisive line.

An assessor cites first the construct its level rests on; after it, each dimension lists the
nearby facts of the session that the level is about (the model's executors and what they hold,
the agent loop, the tools, the credentials, the gates), up to the nine citations a level keeps.
Every added citation is a finding with its own claim, true of its line; it never changes a level.
"""

from __future__ import annotations

import re

from ..models import CriterionAssessment, Evidence
from ..probes.config_defaults import TOPICS, topic
from .facts import gate_state, shared

_TOPICS = tuple(t for t, _ in TOPICS)  # what a setting's name can be about

_LIMIT = 9


def _on(items):
    return [x for x in items if x.location and str(x.data.get("reach", "default")) != "off-path"]


def _pools(ctx) -> dict[str, list]:
    f = ctx.findings
    sh = shared(ctx)
    from .c3_scoping import _RAW_EXEC, _RAW_URL, caps, default_tools
    from .exec_env import env_builds
    from .toolset import assembly

    tools = default_tools(ctx)
    powerful = [t for t in tools if caps(t) & {"exec", "shell", "network", "external_comm", "fs_write"}]
    # the tools that take a raw command, code or URL from the model first: the widest reach
    powerful.sort(key=lambda t: not (_RAW_EXEC.search(str(t.data.get("params")))
                                     or _RAW_URL.search(str(t.data.get("params")))))
    return {
        "exec": [p.finding for p in sh.model_exec()] + _on(f["agent.executor"])
                + [p.finding for p in sh.default_sandboxes],
        "guards": _on(f["agent.guard"]),
        "flips": _on(f["approval.runtime_switch"]),
        # branches on the scored path that test a setting of one topic (`if self.executor_type
        # == "local"`, `if self.state.confirmation_mode`): where that setting takes effect
        **_guards_by_topic(_on(f["agent.guard"])),
        "envbuild": env_builds(ctx, sh.model_exec() + [p for p in sh.exec_paths if p.driven]
                               + [p for p in sh.exec_paths if not p.opt_in]),
        # credentials the code builds clients with first, the factory most callers share
        # first (the one every tool's client comes from); then keys read from the environment
        "creds": _by_fan_in(ctx, [x for x in _on(f["sem.credential"]) if x.data.get("ambient")]
                            + _on(f["identity.ambient"])) + _on(f["secrets.env_key"]),
        "loop": _on(f["agent.loop"]),
        "dispatch": _on(f["agent.dispatch"]),
        # sites doing several parts of the hand-off (parse, look up, check, run) first
        "toolcall": sorted(_on(f["agent.tool_call"]), key=lambda x: int(x.data.get("signals", 0)) < 3),
        "toolresult": _on(f["agent.tool_result"]),
        "toolset": assembly(ctx, tools),
        # YAML tool sets a shipped switch turns on first, shell pipelines first among them
        "tooldefs": sorted(_on(f["tools.yaml_command"]), key=lambda x: (not x.data.get("default_on"),
                                                                        not x.data.get("shell"))),
        # each filter before the named set it tests against
        "toolfilter": sorted(_on(f["tools.filter"]), key=lambda x: x.data.get("site") == "set"),
        "toolcap": [x for x in _on(f["limits.size_cap"]) if x.data.get("of") == "tools"],
        "toolbody": _in_tools(ctx, powerful, _on(f["sem.network"] + f["sem.exec"] + f["exec.spawn"])),
        "tools": powerful + [t for t in tools if t not in powerful],
        "gates": gate_state(ctx)["on"] + gate_state(ctx)["opt"],
        "filters": _on(f["exec.filter"]),
        "records": _on(f["records.event_store"] + f["records.transcript"] + f["records.step"]
                       + f["records.console"]),
        "memory": _on(f["memory.model_write"] + f["memory.inject"] + f["memory.extraction"]
                      + f["memory.config_scope"]),
        "history": _on(f["records.transcript"] + f["records.event_store"])
                   + [x for x in _on(f["sem.persist"]) if str(x.data.get("reach")) == "default"],
        "deletes": _on(f["records.delete"]),
        "logcfg": _on(f["records.log_config"]),
        "resets": _on(f["memory.reset"]),
        "traces": _on(f["records.trace"] + f["records.output_flag"] + f["audit.record"]),
        "limits": _on(f["limits.loop_cap"] + f["limits.enforced"] + f["limits.cap"]
                      + f["limits.exec_timeout"] + f["limits.timeout"])
                  + [x for x in _on(f["limits.size_cap"]) if x.data.get("of") == "run"],
        "settable": _on(f["limits.model_settable_arg"] + f["limits.model_settable"]
                        + f["limits.model_settable_schema"]),
        "cancel": _on(f["limits.cancel"]),
        # one line per file and kind first (a profile folder read on four lines is one fact);
        # profile or plugin code the agent runs in-process is configuration that executes
        "config": _first_per(_on(f["memory.repo_config"] + f["memory.user_config"]
                                 + f["memory.dotenv_commands"])
                             + [x for x in _on(f["sem.credential"]) if x.data.get("source") == "dotenv"]
                             + [x for x in _on(f["ext.loader"]) if x.data.get("how") == "exec"]
                             + _on(f["ext.definition_loader"]),
                             lambda x: (x.probe, x.location.path)),
        "ext": _on(f["ext.remote_code"] + f["ext.loader"] + f["ext.mcp_stdio"] + f["sem.mcp"]
                   + f["ext.definition_loader"]),
        "spots": _on(f["untrusted.spotlight"]),
        "pasted": _on(f["untrusted.prompt_paste"]),
        # one line per sender first: six decorated functions of one tracer are one fact
        "telemetry": _first_per(_on(f["sem.telemetry"]) + _on(f["secrets.telemetry"]),
                                lambda x: (x.probe, str(x.data.get("sender") or x.data.get("row")
                                                        or x.claim.split("(")[0]))),
        **{f"set:{t}": [x for x in _on(f["config.default"]) if x.data.get("topic") == t]
           for t in _TOPICS if t != "limits"},
        "set:limits": _limit_settings(f),
        # secret values asked for in clear text, those stored first (the secret at rest)
        "exposed": sorted(_on(f["secrets.exposed"]), key=lambda x: not x.data.get("stored")),
        # one of each kind of protection before a second of any (forty secret-typed fields
        # would otherwise hide the one encryption call)
        "protect": _round_robin([_on(f[p]) for p in (
            "secrets.replacement", "secrets.masking", "secrets.encryption", "secrets.file_mode",
            "secrets.export_exclusion", "secrets.masked_prompt", "secrets.secret_type")]),
    }


def _guards_by_topic(guards: list) -> dict[str, list]:
    out: dict[str, list] = {f"guard:{t}": [] for t in _TOPICS}
    for g in guards:
        t = topic(str(g.data.get("setting", "")))
        if t is not None:
            out[f"guard:{t}"].append(g)
    return out


def _first_per(found: list, key) -> list:
    """FOUND with the first of each KEY first, the repeats after them (order kept in each)."""
    seen, first, rest = set(), [], []
    for x in found:
        k = key(x)
        (rest if k in seen else first).append(x)
        seen.add(k)
    return first + rest


def _round_robin(groups: list[list]) -> list:
    """The first of each group, then the second of each, and so on."""
    out = []
    for i in range(max((len(g) for g in groups), default=0)):
        out.extend(g[i] for g in groups if i < len(g))
    return out


def _by_fan_in(ctx, found) -> list:
    """FOUND without repeated lines, those in functions more of the code calls first (stable)."""
    model = ctx.index.agent
    seen, out = set(), []
    for x in found:
        key = (x.location.path, x.location.start_line)
        if key not in seen:
            seen.add(key)
            out.append(x)
    if model is None:
        return out
    g = model.graph
    callers = g._callers_index()

    def fan_in(x) -> int:
        nid = g.node_at(x.location.path, x.location.start_line)
        return len({src for src, _ in callers.get(nid, ())})

    return sorted(out, key=lambda x: -fan_in(x))


def _limit_settings(f) -> list:
    """Limit settings, the bounds that found caps compare with first (`MAX_LOOPS = 4` where the
    router tests `loop_count >= MAX_LOOPS`), result sizes (`max_rows`) last: how much one call
    returns bounds nothing of a run."""
    from ..probes.limits import _RESULT_SIZE

    bounds = {str(x.data.get("bound", "")).split(".")[-1].lower()
              for x in _on(f["limits.loop_cap"] + f["limits.size_cap"])} - {""}
    found = [x for x in _on(f["config.default"]) if x.data.get("topic") == "limits"]

    def rank(x):
        name = str(x.data.get("setting", "")).lstrip("-").replace("-", "_").lower()
        return (name not in bounds, bool(_RESULT_SIZE.search(name)) or "max_tokens" in name)

    return sorted(found, key=rank)


def _in_tools(ctx, tools, found) -> list:
    """FOUND that sit in the bodies of TOOLS (what a tool does with the model's arguments: the
    request it sends, the command it runs), first tool first, one per tool."""
    spans = []
    for t in tools:
        facts = ctx.index.py.get(t.location.path)
        if facts is None:
            continue
        line = t.location.start_line
        owners = [(d.line, d.end_line) for d in facts.defs if d.line <= line <= d.end_line] + \
                 [(c.line, c.end_line) for c in facts.classes if c.line == line]
        if owners:
            start, end = min(owners, key=lambda o: o[1] - o[0])
            spans.append((t.location.path, start, end))
    out, used = [], set()
    for path, start, end in spans:
        for x in found:
            if x.location.path == path and start <= x.location.start_line <= end and \
                    (path, start) not in used:
                used.add((path, start))
                out.append(x)
    return out


# per criterion and dimension: the pools whose facts follow the assessor's own evidence
# (`set:<topic>`: where the shipped default of a setting on that topic is defined)
PLAN = {
    "C1": {"S": ("creds", "exec", "guard:sandbox"), "C": ("exec", "envbuild", "creds"),
           "D": ("creds", "config", "set:sandbox"), "B": ("envbuild", "exec", "exposed", "creds")},
    "C2": {"S": ("gates", "dispatch", "set:approval", "flips", "guard:approval", "toolcall", "loop"),
           "C": ("gates", "toolcall", "tools"),
           "D": ("gates", "set:approval"), "B": ("exec", "tools")},
    "C3": {"S": ("toolcall", "toolfilter", "toolcap", "filters", "tools"),
           "C": ("toolset", "tooldefs", "toolfilter", "toolcap", "tools", "filters", "set:tools"),
           "D": ("toolset", "set:tools", "guard:tools", "tools"),
           "B": ("toolbody", "exec", "toolcall", "tools")},
    "C4": {"S": ("exec", "filters", "set:sandbox"), "C": ("exec", "tooldefs", "guard:sandbox", "dispatch"),
           "D": ("exec", "set:sandbox"), "B": ("exec", "envbuild", "creds")},
    "C5": {"S": ("gates", "spots", "pasted", "toolresult"),
           "C": ("spots", "pasted", "toolresult", "toolcall", "tools"),
           "D": ("gates", "spots", "guard:approval", "flips", "set:approval"),
           "B": ("tools", "tooldefs", "exec", "creds", "set:network")},
    "C6": {"S": ("memory", "resets", "config"), "C": ("config", "history"),
           "D": ("config", "set:memory", "guard:memory"),
           "B": ("memory", "history", "config", "exec")},
    "C7": {"S": ("ext",), "C": ("ext", "guard:extensions"), "D": ("ext", "config", "set:extensions"),
           "B": ("ext", "exec")},
    "C8": {"S": ("protect", "exposed", "set:secrets"), "C": ("protect", "exec"),
           "D": ("set:secrets", "telemetry", "protect", "set:telemetry"),
           "B": ("envbuild", "exposed", "creds", "exec")},
    "C9": {"S": ("records", "loop", "traces"), "C": ("records", "loop", "traces"),
           "D": ("logcfg", "records", "traces", "set:audit", "guard:audit"),
           "B": ("records", "deletes", "logcfg", "traces")},
    "C10": {"S": ("limits", "loop", "set:limits"), "C": ("limits", "exec"),
            "D": ("settable", "limits", "set:limits"), "B": ("limits", "cancel")},
}


def augment(ctx, a: CriterionAssessment) -> CriterionAssessment:
    plan = PLAN.get(a.criterion)
    if not plan or not a.configurations:
        return a
    pools = getattr(ctx, "_pools", None)
    if pools is None:
        # in every pool one fact per function, file and kind first (forty keys read in one
        # catalogue, six appends in one loop), the repeats after them; settings keep their order
        pools = ctx._pools = {name: items if name.startswith("set:") else
                              _first_per(items, lambda x: (x.probe, x.location.path,
                                                           str(x.data.get("func", ""))))
                              for name, items in _pools(ctx).items()}
    configs = []
    for cfg in a.configurations:
        dims = {}
        # context an earlier dimension of this configuration already shows is not repeated: each
        # dimension adds the next facts of its pools (its own decisive evidence always stays)
        shown: set = set()
        for d, dim in cfg.dims.items():
            ev = list(dim.evidence)
            own = {(e.path, e.start_line) for e in ev}
            have = own | shown
            # a level that rests on a negative search keeps it; context comes after
            # the dimension's own pools, then the criterion's other pools (what earlier dimensions
            # left unshown)
            pools_here = tuple(plan.get(d, ())) + tuple(dict.fromkeys(
                p for dd in "SCDB" for p in plan.get(dd, ()) if p not in plan.get(d, ())))
            if cfg.opt_in:  # an alternative is opt-in because of a branch: cite it
                pools_here = ("guards",) + tuple(pools_here)
            for pool in pools_here:
                # the branch that makes an alternative opt-in: the nearest two, not every guard
                items = pools.get(pool, ())
                if pool == "guards":
                    named = f"{cfg.name} {cfg.label}".lower()
                    items = sorted(items, key=lambda g: str(g.data.get("setting", "")).lower()
                                   not in named)[:4]
                elif pool.startswith("set:"):
                    # the switch the cited code reads first (`enable_browsing` where the tool
                    # set is assembled), then the topic's other settings
                    near = _names_read(ctx, {(e.path, e.start_line) for e in ev} | shown)
                    items = sorted(items, key=lambda x: _setting_word(x) not in near)
                for x in items:
                    if len(ev) >= _LIMIT:
                        break
                    key = (x.location.path, x.location.start_line)
                    # a level resting only on a search still shows one located fact, repeated or not
                    located = any(e.path for e in ev)
                    if key in have and (located or key not in shown or key in own):
                        continue
                    have.add(key)
                    ev.append(Evidence.of(x, d, cfg.name))
            shown |= {(e.path, e.start_line) for e in ev[len(dim.evidence):]}
            dims[d] = dim.model_copy(update={"evidence": tuple(ev)})
        configs.append(cfg.model_copy(update={"dims": dims}))
    return a.model_copy(update={"configurations": tuple(configs)})


_IDENT = re.compile(r"[A-Za-z_]\w*")


def _setting_word(x) -> str:
    return str(x.data.get("setting", "")).lstrip("-").replace("-", "_").lower()


def _names_read(ctx, cited) -> set[str]:
    """Identifiers (lower-cased) in the functions that hold the CITED (path, line)s: the
    settings a criterion's cited code reads. Each function is read once per run."""
    memo = ctx.__dict__.setdefault("_names_memo", {})
    out: set[str] = set()
    for key in cited:
        if not key[0] or not key[1]:
            continue
        got = memo.get(key)
        if got is None:
            got = memo[key] = _function_names(ctx.index, *key)
        out |= got
    return out


def _function_names(index, path: str, line: int) -> frozenset:
    facts = index.py.get(path)
    if facts is None:
        return frozenset()
    spans = [(d.line, d.end_line) for d in facts.defs if d.line <= line <= d.end_line]
    if not spans:
        return frozenset()
    start, end = min(spans, key=lambda s: s[1] - s[0])
    names = set()
    for n in range(start, min(end, start + 300) + 1):
        names.update(w.lower() for w in _IDENT.findall(index.line(path, n)))
    return frozenset(names)

