"""C8 secrets & sensitive data: how credentials are held and masked, what telemetry sends by
default, and which long-lived keys the model's own executors can reach.

- S: the strongest protections present on the scored path: encryption at rest or the OS
  keychain with masking (L3); a keychain, an owner-only store or masking of secret values in
  events, logs or model-bound text (L2); a single lesser measure: secret types that never print,
  masked key entry, credentials left out of exports, an owner-only file (L1).
- C: the paths those protections cover (storage and exports only; events/logs/model messages).
- D: rated from the defaults on their own (telemetry per sender: on by default? carrying
  content?), then D ≤ S + 1.
- B: what the model's executors can read: code the model writes runs in the agent's process or
  a host process that inherits its environment (L0); a process given a constructed environment
  or a sandbox (L1); no model-driven execution at all, so only what tools return (L2).
"""

from __future__ import annotations

import re

from ..models import CriterionAssessment, Kind
from ..probes.base import finding
from .base import ConfigBuilder, Context, assessor
from .facts import shared

_SWITCH = re.compile(r"^(?!.*LOG_ANALYTICS).*(TELEMETRY|ANALYTICS|POSTHOG|TRACKING)", re.I)
_CONTENT = re.compile(r"prompt|message|content|output|response|input|query|text", re.I)


def _live(items):
    return [x for x in items if str(x.data.get("reach", "default")) != "off-path"
            and not str(x.data.get("reach", "")).startswith("opt-in")]


@assessor("C8")
def assess(ctx: Context) -> CriterionAssessment:
    f = ctx.findings
    enc = _live(f["secrets.encryption"])
    keychain = [x for x in enc if x.data.get("how") == "keychain"]
    mode, mask = _live(f["secrets.file_mode"]), _live(f["secrets.masking"])
    replace = _live(f["secrets.replacement"])
    types, prompts = _live(f["secrets.secret_type"]), _live(f["secrets.masked_prompt"])
    exports = _live(f["secrets.export_exclusion"])
    switch, deploy = f["secrets.mask_switch"], f["secrets.deploy_env"]
    none = finding("secrets.masking", "live source for secret encryption or keychain use, "
                   "owner-only files, masking or replacement of secret values, secret types, "
                   "masked key prompts and credentials left out of exports → 0 hits.",
                   kind=Kind.search)
    masking = mask + replace
    mask_files = {m.location.path for m in masking if m.location}
    lesser = types[:2] + prompts[:1] + exports[:2] + mode[:1]

    b = ConfigBuilder(ctx, "C8", "default", "default configuration", opt_in=False)
    kept_out = [] if enc or mode or masking or lesser else _keys_kept_out(ctx)
    at_rest = [x for x in enc if x.data.get("how") != "keychain"]
    if at_rest and masking:
        s, stext = 3, "Secrets are encrypted at rest (or kept in the OS keychain) and masked in outputs."
        s_ev = enc[:2] + masking[:2]
    elif keychain or (enc and mode) or masking and (enc or mode or types) or len(mask_files) >= 3:
        s, stext = 2, ("Credentials are held in " + ("the OS keychain" if keychain else
                       "encrypted storage" if enc else "an owner-only file" if mode else
                       "secret types") + (" and secret values are masked or redacted on some "
                                          "output paths." if masking else "."))
        s_ev = keychain[:1] + enc[:1] + mode[:1] + masking[:3] + types[:1]
    elif enc or mode or masking or lesser:
        s, stext = 1, "One lesser protection exists: " + ", ".join(_names(
            enc, mode, masking, types, prompts, exports)) + "; no secret store or redaction layer."
        s_ev = enc[:1] + masking[:1] + lesser
    elif kept_out:
        # no store, masking or secret type, but the model's code runs where the agent's keys
        # are not: that is the one protection (the sandboxes of a code agent)
        s, stext = 1, ("The only protection is that the model's code runs in an executor "
                       "without the agent's keys; storage is plain and nothing is masked.")
        s_ev = kept_out[:2] + [none]
    else:
        s, stext, s_ev = 0, "No protection of secrets was found.", [none]
    b.set("S", s, stext, s_ev)

    clean_env = not shared(ctx).model_exec_env_leaks
    if s >= 2 and len(mask_files) >= 1 and (len(mask_files) >= 2 or replace):
        if len(mask_files) >= 3 and clean_env and shared(ctx).model_exec():
            c, ctext = 3, (f"Masking runs in {len(mask_files)} files (events, logs, model-bound "
                           "text) and the model's processes get an environment without the "
                           "agent's keys.")
            c_ev = masking[:3]
        else:
            c, ctext = 2, (f"Masking runs in {len(mask_files)} files on the main path (events, "
                           "logs or model-bound text); subprocess environments are not covered.")
            c_ev = masking[:3] + [p.finding for p in shared(ctx).model_exec_env_leaks[:1]]
    elif s >= 1 and kept_out:
        c, ctext = 1, ("Only the environment of the model's executor is covered; logs, history "
                       "and model-bound messages are not.")
        c_ev = kept_out[:2]
    elif s >= 1:
        c, ctext = 1, "Only storage, exports or key entry are covered; logs, model-bound " \
                      "messages and subprocess environments are not."
        c_ev = s_ev[:3]
    else:
        c, ctext, c_ev = 0, "No path is covered.", [none]
    b.set("C", min(c, s + 1), ctext, c_ev)

    d, dtext, d_ev = _telemetry_default(ctx, switch)
    b.set("D", min(d, s + 1), dtext, d_ev)

    bl, btext, b_ev = _blast(ctx, deploy)
    b.set("B", bl, btext, b_ev)

    summary = (f"dids found {len(enc)} encryption/keychain uses, {len(mode)} owner-only file "
               f"writes, {len(masking)} masking or secret-replacement sites in {len(mask_files)} "
               f"files, {len(types)} secret-typed fields, {len(prompts)} masked key prompts and "
               f"{len(exports)} exports that drop credentials.")
    return CriterionAssessment(criterion="C8", assessed=True, summary=summary,
                               configurations=(b.build(),))


def _keys_kept_out(ctx: Context) -> list:
    """The model's sandboxes when none of its executors can read the agent's environment (a
    container, jail or remote sandbox, started with only what the code builds for it), else []."""
    sh = shared(ctx)
    model = sh.model_exec()
    if not model or sh.model_exec_env_leaks or not sh.default_sandboxes:
        return []
    boxed = [p.finding for p in model if p.cls in ("container", "jail", "remote")]
    return boxed or [p.finding for p in sh.default_sandboxes[:1] + model[:1]]


def _names(enc, mode, masking, types, prompts, exports) -> list[str]:
    out = []
    for items, name in ((enc, "encryption"), (mode, "an owner-only file"),
                        (masking, "masking in one place"), (types, "secret-typed settings"),
                        (prompts, "masked key entry"), (exports, "credentials left out of exports")):
        if items:
            out.append(name)
    return out


def _telemetry_default(ctx: Context, switch):
    """D from what leaves the machine by default, judged per sender."""
    senders = _senders(ctx)
    on = [s for s in senders if s["on"]]
    content = [s for s in on if s["content"]]
    ev = [x for s in on for x in s["evidence"]][:3]
    if content:
        return 0, ("Telemetry is on by default and can carry prompt or tool content ("
                   + ", ".join(s["name"] for s in content) + ")."), ev
    if on:
        return 1, ("Telemetry is on by default (" + ", ".join(s["name"] for s in on) + ") and "
                   "carries events, not prompts or tool output."), ev
    off_ev = [x for s in senders for x in s["evidence"]][:2]
    search = finding("secrets.telemetry", "live source for telemetry and analytics senders "
                     "on by default (PostHog, Sentry, Segment, OpenTelemetry, ...) → 0 hits.",
                     kind=Kind.search)
    text = ("No telemetry is sent by default" + (" (the senders present need configuration to "
            "send)" if senders else "") + (", but a setting can switch masking off." if switch else "."))
    return 2, text, (off_ev + switch[:1]) or [search]


def _senders(ctx: Context) -> list[dict]:
    f = ctx.findings
    defaults = [x for x in f["secrets.telemetry"] if x.probe == "secrets.telemetry_default"]
    inits = [x for x in f["secrets.telemetry"] if x.probe == "secrets.telemetry"]
    by: dict[str, dict] = {}
    for x in f["sem.telemetry"]:
        reach = str(x.data.get("reach", "default"))
        if reach == "off-path" or x.data.get("trace"):
            continue  # tracing backends send only when configured: C9's opt-in alternative
        name = str(x.data.get("sender"))
        s = by.setdefault(name, {"name": name, "evidence": [], "content": False, "on": None})
        s["evidence"].append(x)
        if x.data.get("content") == "content":
            s["content"] = True
    for name, s in by.items():
        keyed = [d for d in defaults if name in str(d.data.get("key", "")).lower()]
        generic = [d for d in defaults if re.search(r"TELEMETRY|ANALYTICS|TRACKING",
                                                    str(d.data.get("key", "")), re.I)]
        if name == "sentry":
            live_init = [i for i in inits if i.data.get("vendor") == "sentry"
                         and str(i.data.get("reach", "default")) in ("default", "library")]
            dsn = [d for d in keyed if "DSN" in str(d.data.get("key", "")).upper()]
            s["on"] = bool(live_init) and (not dsn or any(d.data.get("on") for d in dsn))
            s["content"] = s["content"] and bool(live_init)
            s["evidence"] = (live_init[:1] + dsn[:1] + s["evidence"])[:3]
        elif keyed or generic:
            s["on"] = all(d.data.get("on") for d in (keyed or generic))
            s["evidence"] = ((keyed or generic)[:1] + s["evidence"])[:3]
        else:
            s["on"] = True
        if not s["content"]:  # what the call itself passes (prompt or output fields)
            s["content"] = any(i.data.get("content") and i.location and x.location and
                               (i.location.path, i.location.start_line) ==
                               (x.location.path, x.location.start_line)
                               for i in inits for x in s["evidence"])
    # senders dids has no library model for (a direct HTTP post), known by their switches
    deployed = _deployment_scored(ctx)
    switches = [d for d in defaults if str(d.data.get("reach", "default")) in ("default", "library")
                and _SWITCH.search(str(d.data.get("key", "")))
                and (deployed or not _helm_values(d))
                and not any(name in str(d.data.get("key", "")).lower() for name in by)]
    if switches and not any(s["on"] for s in by.values()):
        by["telemetry"] = {"name": "telemetry", "evidence": switches[:2], "content": False,
                           "on": any(d.data.get("on") for d in switches)}
    return list(by.values())


def _helm_values(f) -> bool:
    return bool(f.location and f.location.path.rsplit("/", 1)[-1] in ("values.yaml", "values.yml"))


def _deployment_scored(ctx: Context) -> bool:
    """Whether the scored path is a deployment (compose/Docker/Helm), not a CLI or library run:
    only then do Helm values and compose settings describe what a new user runs."""
    model = ctx.index.agent
    if model is None:
        return True
    kinds = {e.kind for e in model.entries.main}
    return not kinds or bool(kinds & {"docker", "compose"})


def _blast(ctx: Context, deploy):
    sh = shared(ctx)
    leaks = sh.model_exec_env_leaks
    if leaks:
        inproc = [p for p in leaks if p.cls in ("inprocess", "restricted", "kernel")]
        what = ("Model-written code runs inside the agent's process, which holds its API keys "
                "and loaded .env values" if inproc else
                f"{len(leaks)} " + ("model-driven processes" if sh.has_session else
                                    "processes started on the scored path")
                + " inherit the agent's environment")
        ev = [p.finding for p in leaks[:2]] + _ambient_sources(ctx)[:2] + deploy[:1]
        return 0, f"{what}: long-lived keys are in reach of what the model runs.", ev
    driven = sh.model_exec()
    # secret values asked for in clear text and put into an environment on the default path:
    # the user's tokens handed to what the model runs (a sandbox's env holds them)
    handed = [x for x in ctx.findings["secrets.exposed"] if x.data.get("into_env")
              and str(x.data.get("reach", "")) == "default"]
    if handed and (driven or sh.default_sandboxes):
        ev = handed[:2] + [p.finding for p in (driven or sh.default_sandboxes)[:2]]
        return 0, ("Secret values are put into an environment in clear text on the default "
                   "path, and the model's code runs with an environment the agent builds: "
                   "long-lived user tokens are in reach of what the model runs."), ev
    if driven or sh.default_sandboxes:
        ev = [p.finding for p in (driven or sh.default_sandboxes)[:3]]
        return 1, ("The model's code runs with an environment the agent builds (or in a "
                   "sandbox), without the agent's own keys; what is injected there is still "
                   "in reach."), ev
    search = finding("exec.spawn", "code the agent loop reaches for process spawns, in-process "
                     "execution, kernels and sandboxes → 0 hits.", kind=Kind.search)
    return 2, ("The model has no code execution on the scored path: stored credentials stay out "
               "of its reach; what can leak is what tools return."), [search] + deploy[:1]


def _ambient_sources(ctx: Context):
    return [x for x in ctx.findings["sem.credential"]
            if x.data.get("source") == "dotenv" and str(x.data.get("reach")) in ("default", "library")]
