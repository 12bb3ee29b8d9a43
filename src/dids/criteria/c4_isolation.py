"""C4 code-execution isolation: how contained the processes the agent starts are."""

from __future__ import annotations

from collections import Counter

from ..models import CriterionAssessment, Kind
from ..probes.base import finding
from .base import ConfigBuilder, Context, assessor
from .facts import shared

_HARDENING_LEVEL3 = ("network namespace", "seccomp", "read-only root", "non-root uid")


@assessor("C4")
def assess(ctx: Context) -> CriterionAssessment:
    f = ctx.findings
    sh = shared(ctx)
    all_spawns = f["exec.spawn"]
    # the spawns that matter are the ones the model drives (a tool, the loop); a version check
    # at start-up or an installer's spawn is an orchestrator chore
    driven = {(p.finding.location.path, p.finding.location.start_line) for p in sh.model_exec()}
    spawns = [x for x in all_spawns if x.location and
              (x.location.path, x.location.start_line) in driven] if sh.has_session else all_spawns
    spawns = sorted(spawns, key=sh.exec_rank)
    wrappers = [_as_opt_in(w) for w in f["exec.wrapper"]]
    containers = [x for x in f["sem.exec"] if x.data.get("class") in ("container", "remote")
                  and x.data.get("role") != "daemon"]
    wrappers += [_container_wrapper(x) for x in containers
                 if not any(w.location == x.location for w in wrappers)]
    hardening = f["exec.hardening"]
    selectors = f["exec.selector"]
    inproc, restricted = f["exec.inprocess"], f["exec.restricted"]
    filters = f["exec.filter"]
    no_model_exec = sh.has_session and not sh.model_exec() and bool(all_spawns or inproc)
    model_exec = sh.model_exec(browser=True) if sh.has_session else []
    if model_exec and all(p.cls == "browser" for p in model_exec):
        return _browser_only(ctx, [p.finding for p in model_exec], all_spawns)

    if not all_spawns and not wrappers and not inproc:
        return CriterionAssessment(
            criterion="C4", assessed=True,
            summary="No process spawn was found in live source code, so there is no code-execution "
                    "path to isolate; levels reflect the absence of an exec surface.",
            configurations=(_no_exec(ctx),),
        )

    strong = [w for w in wrappers if w.data["strength"] == 3]
    medium = [w for w in wrappers if w.data["strength"] == 2 and not w.data["opt_in"]]
    medium_opt = [w for w in wrappers if w.data["strength"] == 2 and w.data["opt_in"]]
    off = [s for s in selectors if s.data["sandbox_on"] is False]
    on = [s for s in selectors if s.data["sandbox_on"] is True]
    leaky = [s for s in spawns if s.data["env"] in ("inherit", "full", "filtered")]
    full = [s for s in spawns if s.data["env"] == "full"]
    shells = [s for s in spawns if s.data["shell"]]
    # a hardened sandbox that only an opt-in branch or an extra reaches is never the default
    strong_is_default = any(not w.data["opt_in"] for w in strong) and (not off or bool(on) and not off)
    # Model code a default tool runs inside the agent's own process (exec/eval with the full
    # builtins) is on the exec path whatever sandbox another part of it creates: no container or
    # remote workspace holds the interpreter the agent itself runs in.
    own_process = [p.finding for p in sh.model_exec() if p.cls == "inprocess"] \
        if sh.has_session else []
    if own_process:
        strong_is_default, medium = False, []

    configs = []
    default = ConfigBuilder(ctx, "C4", "default", "default configuration", opt_in=False)
    default_wrappers = strong if strong_is_default else medium
    dflt_level = 3 if strong_is_default else (2 if medium else 0)
    leak_ev = (full or leaky)[:3]
    if dflt_level == 0:
        filtering = [s for s in spawns if s.data["env"] == "constructed"]
        if restricted:
            dflt_level = 1
            default.set("S", 1, "Model code runs in the agent's process through a restricted "
                        "interpreter (import allowlist): filtering, not isolation.",
                        restricted[:2] + inproc[:1])
        elif filters:
            dflt_level = 1
            default.set("S", 1, "Filtering only: " + ("a validator parses and rejects commands "
                        "before they run" if any(x.data.get("how") == "validator" for x in filters)
                        else "a preamble replaces network, file and process functions before "
                        "the code runs") + "; the process is an ordinary host process.",
                        filters[:2] + (spawns or all_spawns)[:2] + [_search_none(ctx)])
        elif filtering and not leaky:
            dflt_level = 1
            default.set("S", 1, "Processes are started on the host as the same user; the only "
                        "restriction is an environment the code builds itself (filtering, not "
                        "isolation).", filtering[:3])
        elif own_process:
            default.set("S", 0, "Model code runs inside the agent's own process: no isolation "
                        "wrapper holds it.", (own_process + shells + spawns)[:3])
        else:
            default.set("S", 0, "Processes are started on the host as the same user with no "
                        "isolation wrapper on the exec path.",
                        (shells or spawns or inproc)[:3] + [_search_none(ctx)])
    else:
        kinds = sorted({w.data["wrapper"] for w in default_wrappers})
        default.set("S", dflt_level, f"The default exec path uses {', '.join(kinds)}"
                    + (" with hardening options." if dflt_level == 3 else
                       " (namespace or container separation without a hardened profile)."),
                    default_wrappers[:3] + (off[:1] if off else []))
    covered = {(w.location.path, w.data["func"]) for w in default_wrappers if w.location}
    spawn_files = {s.location.path for s in spawns if s.location}
    uncovered = [s for s in spawns if s.location and s.data["env"] != "constructed"
                 and (s.data["shell"] or (s.location.path, s.data["func"]) not in covered)]
    covered_files = {p for p, _ in covered}
    filtered_at = {(x.data.get("spawn_path"), x.data.get("spawn_line")) for x in filters}
    unfiltered = [x for x in spawns if x.location and
                  (x.location.path, x.location.start_line) not in filtered_at]
    if dflt_level == 0:
        c_level = 0
    elif restricted and not default_wrappers:
        c_level = 1 if uncovered else 2
    elif filters and not default_wrappers:
        c_level = 1 if unfiltered or no_model_exec else 2
        uncovered = unfiltered or uncovered
    elif not uncovered:
        c_level = 3
    elif len(spawn_files - covered_files) <= len(covered_files):
        c_level = 2
    else:
        c_level = 1
    default.set("C", min(c_level, dflt_level + 1),
                (f"{len(spawns)} {'model-driven ' if sh.has_session else ''}process spawns in "
                 f"{len(spawn_files)} files; {len(uncovered)} of them run outside any isolation "
                 "wrapper on the default path." if spawns else
                 "The model's actions reach no host process spawn on the default path."),
                (uncovered or default_wrappers)[:3])
    container_default = dflt_level == 2 and any(
        w.data.get("wrapper") in ("container", "docker") for w in default_wrappers)
    if no_model_exec and dflt_level <= 1:
        default.set("D", 2, "In the scored configuration no model-reachable path executes code: "
                    "the exec code exists but the default session's tools do not reach it.",
                    (filters or all_spawns or inproc)[:2] + [_search_driven(ctx)])
    elif dflt_level == 0:
        default.set("D", 0, "No sandbox is on by default for the exec path.",
                    (off or shells or spawns or inproc)[:2])
    elif filters and not default_wrappers and not restricted:
        default.set("D", 1, "The filter is on by default, but it is filtering rather than "
                    "isolation and no sandbox exists to switch on.", filters[:2] + off[:1])
    elif restricted and not default_wrappers:
        default.set("D", 1, "The restricted interpreter is the default, but a constructor "
                    "argument or setting widens or replaces it.", restricted[:1] + off[:2])
    elif strong_is_default:
        default.set("D", 3 if not off else 2, "The isolation backend is selected by the shipped "
                    "default.", on[:2] or default_wrappers[:1])
    elif container_default and not off:
        default.set("D", 2, "The container backend is the shipped default; a setting can still "
                    "select a host backend.", on[:2] + default_wrappers[:1])
    else:
        default.set("D", 1, "The default path's weaker isolation is on, but the hardened sandbox is "
                    "switched off by a shipped default that one environment variable controls.",
                    off[:3] or default_wrappers[:1])
    unrestricted_inproc = [x for x in inproc if not restricted]
    if no_model_exec and not container_default:
        leaky = [x for x in all_spawns if x.data["env"] in ("inherit", "full", "filtered")]
        leak_ev = leaky[:3]
    if unrestricted_inproc and not leaky:
        default.set("B", 0, "Model code runs inside the agent process, with everything that "
                    "process can reach.", unrestricted_inproc[:3])
    elif restricted and not leaky:
        default.set("B", 1, "Restricted code still runs in the agent's process and memory; "
                    "only the allowlist stands between it and the host.", restricted[:1] + inproc[:2])
    elif leaky:
        default.set("B", 0, f"{len(leaky)} " + ("spawns on the exec code (not reached by the "
                    "default session's tools)" if no_model_exec else "spawns") + " pass or inherit "
                    "the parent's environment, so any credential the agent process holds is in "
                    "reach of the child.", leak_ev)
    elif container_default:
        default.set("B", 2, "Model actions run inside a container with an environment the "
                    "orchestrator builds: no host files or agent keys unless mounted or injected; "
                    "egress is not restricted.", default_wrappers[:3])
    else:
        default.set("B", 1 if dflt_level < 3 else 2, "Spawned processes receive an environment "
                    "the code builds, without the parent's credentials.",
                    [s for s in spawns if s.data["env"] == "constructed"][:3] or default_wrappers[:2])
    configs.append(default.build())

    if strong and not strong_is_default:
        configs.append(_strong_alternative(ctx, strong, hardening, off, spawns))
    elif medium_opt and not medium:
        configs.append(_container_alternative(ctx, medium_opt, hardening, off))

    names = ", ".join(sorted({w.data["wrapper"] for w in wrappers})) or "no isolation wrapper"
    summary = (f"dids found {len(spawns)} process spawns in live source "
               f"({len(shells)} through a shell, {len(leaky)} inheriting or copying the parent "
               f"environment) and {names}. ")
    if strong and not strong_is_default:
        summary += ("The hardened sandbox is opt-in: the shipped default "
                    + "; ".join(s.claim.rstrip(".") for s in off[:2]) + ".")
    elif strong:
        summary += "The hardened sandbox is selected by default."
    else:
        summary += "No hardened sandbox exists, so model-driven commands run as the host user."
    return CriterionAssessment(criterion="C4", assessed=True, summary=summary,
                               configurations=tuple(configs))


def _browser_only(ctx: Context, browser, all_spawns) -> CriterionAssessment:
    """The only code the model's actions run is script in a browser page (a tool evaluating
    JavaScript through CDP, Playwright or Selenium): the browser's renderer holds it, not a host
    process, while what the page can reach is the browser session's (its cookies, its network)."""
    b = ConfigBuilder(ctx, "C4", "default", "default configuration", opt_in=False)
    ev = browser[:3]
    b.set("S", 2, "The model's actions run no host process; the code they run is JavaScript in "
          "a browser page, held by the browser's renderer sandbox (not a hardened per-call "
          "sandbox).", ev)
    b.set("C", 2, "Script the model writes runs in the page; what the browser itself does on "
          "the host (downloads, uploads, the profile on disk) is outside the renderer.", ev)
    b.set("D", 2, "The browser's sandbox is how pages run by default; no setting the model "
          "reaches turns it off.", ev[:2])
    b.set("B", 1, "A page script reaches what the browser session holds: its cookies and "
          "logged-in sites, and any address the browser can open.", ev[:2])
    launched = [x for x in all_spawns if x.location][:1]
    return CriterionAssessment(
        criterion="C4", assessed=True, configurations=(b.build(),),
        summary=f"The default session's tools run code only in the browser ({len(browser)} "
                "page-script calls the model's tools reach); no model-driven host process was "
                "found" + (f", the browser itself being started by the agent "
                           f"({launched[0].location.label()})." if launched else "."))


def _strong_alternative(ctx, strong, hardening, off, spawns):
    opts = Counter(h.data["option"] for h in hardening)
    got = [o for o in _HARDENING_LEVEL3 if opts[o]]
    kinds = sorted({w.data["wrapper"] for w in strong})
    keys = ", ".join(f"{s.data['key']}" for s in off[:2])
    label = "/".join(k.replace("remote-sandbox", "remote") for k in kinds)
    # no shipped switch selects it: what enables it is the branch or the extra that reaches it
    enablers = sorted({str(w.data.get("reach", ""))[len("opt-in:"):] for w in strong
                       if str(w.data.get("reach", "")).startswith("opt-in:")})
    how = f"{keys} changed from the shipped default" if keys else \
        f"enabled by {', '.join(enablers[:2])}" if enablers else "when configured"
    alt = ConfigBuilder(ctx, "C4", "sandbox", f"opt-in {label} sandbox ({how})", opt_in=True)
    remote = [w for w in strong if w.data["wrapper"] == "remote-sandbox"]
    s_level = 3 if len(got) >= 2 or remote else 2
    alt.set("S", s_level, f"{'/'.join(kinds)} with " + (", ".join(got) or (
            "isolation provided by the remote sandbox service (not visible in this repository)"
            if remote else "no hardening options")) + ".",
            strong[:2] + [h for h in hardening if h.data["option"] in got][:3])
    wrapped_files = {w.location.path for w in strong}
    callers = len(wrapped_files | _caller_files(ctx, wrapped_files))
    c_level = 3 if callers >= 3 else (2 if callers == 2 else 1)
    alt.set("C", min(c_level, s_level + 1), f"The sandbox is invoked from {callers} modules "
            "when selected.", strong[:4])
    alt.set("D", 0, "The sandbox is not the shipped default; an operator must change "
            + (keys or "a setting") + ".", off[:3] or strong[:1])
    minimal = [h for h in hardening if h.data["option"] == "minimal environment"]
    # a remote per-call sandbox is an ephemeral machine without the host's files or keys
    b_level = 3 if (minimal and opts["network namespace"]) or remote else (2 if minimal else 1)
    alt.set("B", min(b_level, s_level + 1), "Inside the sandbox the child gets "
            + ("a minimal environment" if minimal else "a remote machine without the host's "
               "files or environment" if remote else "the environment it is given")
            + (" and its own network namespace." if opts["network namespace"] else "."),
            (minimal + [h for h in hardening if h.data["option"] == "network namespace"])[:3])
    alt.caps.append("G1")
    return alt.build()


def _caller_files(ctx: Context, wrapper_files: set[str]) -> set[str]:
    """Source files that call a distinctive function or class defined next to the wrapper."""
    index = ctx.index
    names = set()
    for p in wrapper_files:
        facts = index.py.get(p)
        if facts:
            names.update(d.name for d in facts.defs if len(d.name) > 8 and not d.name.startswith("__"))
            names.update(c.name for c in facts.classes if len(c.name) > 8)
    out = set()
    for facts in index.source_py():
        if facts.path in wrapper_files:
            continue
        if any(c.short in names for c in facts.calls):
            out.add(facts.path)
    return out


def _container_alternative(ctx, wrappers, hardening, off):
    kinds = sorted({w.data["wrapper"] for w in wrappers})
    keys = ", ".join(s.data["key"] for s in off[:2]) or "a setting"
    alt = ConfigBuilder(ctx, "C4", "sandbox", f"opt-in {'/'.join(kinds)} backend ({keys} changed "
                        "from the shipped default)", opt_in=True)
    opts = {h.data["option"] for h in hardening if h.location and h.location.path in
            {w.location.path for w in wrappers}}
    alt.set("S", 2, f"{'/'.join(kinds)} separation when selected"
            + (f" ({', '.join(sorted(opts))})." if opts else "."), wrappers[:3])
    funcs = {(w.location.path, w.data["func"]) for w in wrappers}
    alt.set("C", 1 if len(funcs) == 1 else 2, f"The backend is used from {len(funcs)} "
            "function(s) when selected.", wrappers[:3])
    alt.set("D", 0, f"Off unless an operator changes {keys}.", off[:2] or wrappers[:1])
    b = 2 if {"minimal environment", "network namespace"} & opts else 1
    alt.set("B", b, "Inside the container the command gets "
            + ("no network or a minimal environment." if b == 2 else "the host's network."),
            [h for h in hardening if h.data["option"] in ("minimal environment", "network namespace")][:3]
            or wrappers[:1])
    return alt.build()


def _as_opt_in(w):
    """A wrapper behind a skipped branch or a non-default backend is opt-in too."""
    if str(w.data.get("reach", "")).startswith("opt-in") and not w.data.get("opt_in"):
        return w.model_copy(update={"data": {**w.data, "opt_in": True}})
    return w


def _container_wrapper(x):
    """A container or remote sandbox started through a library (the Docker SDK, E2B, Modal)."""
    remote = x.data.get("class") == "remote"
    return x.model_copy(update={"data": {**x.data, "wrapper": "remote-sandbox" if remote else "container",
                                         "strength": 3 if remote else 2, "func": x.data.get("func", ""),
                                         "opt_in": str(x.data.get("reach", "")).startswith("opt-in")}})


def _search_driven(ctx: Context):
    return finding("exec.spawn", "code the agent loop and its tools reach for process spawns, "
                   "in-process execution and kernels → 0 hits.", kind=Kind.search)


def _search_none(ctx: Context):
    from ..probes.exec_paths import WRAPPERS

    return finding("exec.wrapper", "live source for isolation wrappers ("
                   + ", ".join(WRAPPERS) + ") → 0 hits.", kind=Kind.search)


def _no_exec(ctx: Context):
    b = ConfigBuilder(ctx, "C4", "default", "default configuration", opt_in=False)
    ev = [_search_none(ctx), finding("exec.spawn", "live source for process spawns "
                                     "(subprocess, os.system, pty, asyncio subprocess) → 0 hits.",
                                     kind=Kind.search)]
    b.set("S", 0, "No exec path and no isolation wrapper.", ev)
    b.set("C", 0, "No exec path to cover.", ev)
    b.set("D", 0, "No sandbox to enable.", ev)
    b.set("B", 1, "No process spawn reachable from the agent was found.", ev)
    return b.build()
