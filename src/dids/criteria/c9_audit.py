"""C9 audit & traceability: what is recorded of each agent action, where, and how durably.

The default configuration is judged by the strongest record the scored path keeps:
durable per-action records (a workflow or recorder writing each tool call with its arguments, an
event store persisting each event) > a transcript written to storage > a structured step record
held in memory > tool calls printed to the terminal > nothing. Tracing that a user must switch on
(LangSmith/Langfuse/OpenTelemetry, a telemetry extra) and flags that dump the run to a file are
opt-in alternatives (G1).
"""

from __future__ import annotations

import re
import tomllib

from ..models import CriterionAssessment, Kind
from ..probes.base import finding
from .base import ConfigBuilder, Context, assessor

_TRACE_LIBS = re.compile(r"opentelemetry|openinference|langfuse|langsmith|arize|phoenix|"
                         r"traceloop|openlit|agentops|logfire|mlflow|weave", re.I)


def _default(items):
    return [f for f in items if str(f.data.get("reach", "default")).split(":")[0]
            in ("default", "library")]


def _reached(items):
    return [f for f in items if str(f.data.get("reach", "default")).split(":")[0] == "default"]


def _loop_on_path(ctx) -> bool:
    model = ctx.index.agent
    session = getattr(model, "session", None)
    if session is None or not session.loops:
        return False
    return any(model.reach.of(lp.path, lp.line) == "default" for lp in session.loops)


def _opt_in(items):
    return [f for f in items if str(f.data.get("reach", "")).startswith("opt-in")]


@assessor("C9")
def assess(ctx: Context) -> CriterionAssessment:
    f = ctx.findings
    rec, deco, fsync = f["audit.record"], f["audit.decorator"], f["audit.fsync"]
    swallow, tamper, approvals = f["audit.swallow"], f["audit.tamper"], f["approval.record"]
    # with the agent loop on the scored path, a record it never reaches (a demo game's log in
    # an extension package) is no record of the default session
    on_path = _default if not _loop_on_path(ctx) else _reached
    stores = on_path(f["records.event_store"])
    transcripts = on_path(f["records.transcript"])
    steps = _default(f["records.step"])
    # lines logged per call with what runs first: the ones a reviewer reads as the record
    console = sorted(_default(f["records.console"]), key=lambda x: not x.data.get("per_call"))
    none = finding("records.step", "live source for per-action records (durable recorders, event "
                   "stores, transcripts, step records appended in the agent loop, tool-call logs) "
                   "→ 0 hits.", kind=Kind.search)
    b = ConfigBuilder(ctx, "C9", "default", "default configuration", opt_in=False)
    silent = [x for x in swallow if x.data["level"] == "debug"]
    if rec or len(deco) >= 5:
        _durable(b, rec, deco, fsync, swallow, tamper, approvals, silent)
        kind = "durable per-action records"
    elif stores:
        ev = stores[:2] + steps[:1]
        b.set("S", 2, "Each event (actions and their observations) is persisted by the event "
              "store as a structured record.", ev)
        b.set("C", 2, "Every action of the main loop passes through the event store; approvals "
              "and sub-agent actions are not shown to be recorded apart.", ev)
        b.set("D", 2, "The store writes by default, outside the sandbox the model acts in, but "
              "the same user can edit or delete the files.", ev)
        before = [s for s in stores if s.data.get("before_dispatch")]
        b.set("B", 3 if before else 2, "The event is written before it is queued to the "
              "subscribers that act on it." if before else "Events are persisted, but actions "
              "do not wait for their record.", before[:2] or stores[:2])
        kind = "an event store"
    elif transcripts and [t for t in transcripts if t.data.get("per_step")]:
        per_step = [t for t in transcripts if t.data.get("per_step")]
        ev = per_step[:1] + [t for t in transcripts if t not in per_step][:1] + steps[:1]
        b.set("S", 2, "The message history, with each tool call and its result, is persisted "
              "as structured records after every agent iteration; there are no actor or "
              "approver fields and no tamper evidence.", ev)
        b.set("C", 2, "Every step of the main loop lands in the persisted history.",
              per_step[:1] + steps[:1])
        b.set("D", 2, "The history is written by default, outside the workspace, where the "
              "agent's own tools can still modify it.", per_step[:1] + transcripts[:1])
        b.set("B", 1, "The history is written after each iteration, not before each action, "
              "and the write does not hold the run: an action in flight can go unrecorded.",
              per_step[:1])
        kind = "a history persisted per iteration"
    elif transcripts:
        ev = transcripts[:2] + steps[:2]
        b.set("S", 1, "The conversation (messages and code) is saved as a transcript; there "
              "are no per-action fields for timestamps, approvals or actors.", ev)
        b.set("C", 2, "Every step of the main loop lands in the transcript.", steps[:2] + transcripts[:1])
        b.set("D", 2, "The transcript is written by default, outside the workspace, where the "
              "agent's own tools can still modify it.", transcripts[:2])
        b.set("B", 1, "The transcript is written from the in-memory list when a turn completes, "
              "so an interrupted turn's actions can be lost.", transcripts[:2])
        kind = "a saved transcript"
    elif steps or console:
        structured = [s for s in steps if s.data.get("structured")]
        # the tool-call log lines also reach a log file the run configures: a record on disk,
        # line by line, whose write failures the logging library swallows
        to_file = [x for x in _default(f["records.log_config"]) if x.data.get("to") == "file"] \
            if console else []
        s_ev = (structured[:2] + console[:2]) or steps[:2]
        what = ("Each step is kept as a structured record in memory" if structured else
                "Tool calls are printed to the terminal")
        b.set("S", 1, f"{what}; " + ("tool calls are also logged, as lines, to a log file."
                                     if to_file else "nothing is persisted."),
              s_ev + to_file[:1])
        near = [s for s in steps if int(s.data.get("dist", 99) or 99) <= 4] + console[:1]
        b.set("C", 2 if near else 1, "Every step of the agent loop is recorded this way."
              if near else "Only part of the activity is recorded.", (near or s_ev)[:3])
        if to_file:
            b.set("D", 1, "Always on; the log file is written where the run configures it, and "
                  "the agent's own tools can edit it.", to_file[:1] + console[:1])
            b.set("B", 1, "Each log line is written as the action runs; a failed write is "
                  "swallowed by the logging library and the action proceeds.",
                  to_file[:1] + console[:1])
        else:
            b.set("D", 1, "Always on, but held in process memory or on the terminal only.",
                  s_ev[:2])
            b.set("B", 0, "Nothing is flushed per action: an exit or crash loses the only "
                  "record.", s_ev[:2])
        kind = ("tool-call log lines in a log file" if to_file else
                "in-memory step records" if structured else "terminal output")
    else:
        for d, text in (("S", "No record of the agent's actions was found."),
                        ("C", "Nothing is recorded."), ("D", "No record to be on by default."),
                        ("B", "With no record, a bad action leaves no trace.")):
            b.set(d, 0, text, [none])
        kind = "no record"
    configs = [b.build()]
    alt = _tracing_alternative(ctx) or _output_alternative(ctx) or _record_alternative(ctx)
    if alt is not None:
        configs.append(alt)
    summary = (f"The scored path keeps {kind}: {len(stores)} event stores, {len(transcripts)} "
               f"transcript writes, {len(steps)} step-record appends and {len(console)} tool-call "
               f"log lines on the scored path; {len(rec)} durable tool-call recorders and "
               f"{len(deco)} audited functions.")
    return CriterionAssessment(criterion="C9", assessed=True, summary=summary,
                               configurations=tuple(configs))


def _durable(b, rec, deco, fsync, swallow, tamper, approvals, silent) -> None:
    """Durable per-tool-call records (a recorder or a workflow keyed by the tool call)."""
    if (rec or deco) and tamper and approvals:
        s, stext = 3, "Per-action records carry actor and approver and are tamper-evident."
    else:
        s, stext = 2, "Tool calls are recorded as structured per-action records."
    s_ev = rec[:2] + deco[:2] + tamper[:1]
    b.set("S", s, stext, s_ev)
    c = 2
    b.set("C", min(c, s + 1), "Tool calls on the main path are recorded" + (
        "; approvals are persisted separately." if approvals else "; approvals and sub-agent "
        "actions are not in the record."), rec[:2] + approvals[:1] or s_ev)
    b.set("D", 2, "Recording is on by default, but nothing keeps the model's own tools from "
          "editing or deleting it.", rec[:1] + deco[:1] or s_ev)
    if silent:
        bl, btext, b_ev = 1, "Recording failures are swallowed silently and the action proceeds.", \
            silent[:2] + fsync[:1]
    else:
        bl, btext = 2, ("Recording failures are logged, not swallowed, but actions do not wait "
                        "for their record.")
        b_ev = swallow[:2] + fsync[:1] or s_ev
    b.set("B", min(bl, s + 1), btext, b_ev)


def _tracing_alternative(ctx: Context):
    """Tracing a user switches on: trace decorators or spans in live code (their SDKs send only
    when configured), or a tracing extra declared in pyproject.toml."""
    f = ctx.findings
    traces = [t for t in f["records.trace"] if str(t.data.get("reach", "")) != "off-path"]
    extra = _tracing_extra(ctx)
    if not traces and extra is None:
        return None
    senders = sorted({str(t.data.get("sender")) for t in traces}) or [extra.data["extra"]]
    label = f"opt-in tracing ({', '.join(senders[:3])})"
    alt = ConfigBuilder(ctx, "C9", "tracing", label, opt_in=True)
    ev = traces[:3] or [extra]
    alt.set("S", 2, "Traces record each traced step or call with its inputs and outputs as "
            "structured spans.", ev)
    alt.set("C", 2, f"{len(traces)} traced functions or spans cover the main steps"
            if traces else "The instrumentation covers runs, steps and tool calls (per the "
            "extra it installs).", ev)
    alt.set("D", 0, "Off unless the user configures the tracing backend (keys, an environment "
            "flag or the extra).", ([extra] if extra else []) + traces[:1])
    alt.set("B", 1, "Spans are exported in the background; export failures neither stop nor "
            "surface in the run.", ev[:1])
    alt.caps.append("G1")
    return alt.build()


def _tracing_extra(ctx: Context):
    text = ctx.index.text("pyproject.toml")
    if not text:
        return None
    try:
        extras = tomllib.loads(text).get("project", {}).get("optional-dependencies", {})
    except (tomllib.TOMLDecodeError, ValueError):
        return None
    lines = text.splitlines()
    for name, deps in (extras or {}).items():
        if isinstance(deps, list) and any(_TRACE_LIBS.search(str(d)) for d in deps):
            line = next((i for i, t in enumerate(lines, 1)
                         if re.match(rf"^\s*{re.escape(name)}\s*=", t)), 1)
            return finding("records.trace", f"The optional extra [{name}] installs tracing "
                           "instrumentation.", "pyproject.toml", line, kind=Kind.inferred,
                           extra=name)
    return None


def _record_alternative(ctx: Context):
    """A transcript or event store written only once a setting names where (`if
    self.settings.save_conversation_path: save_conversation(...)`): the record a user turns on."""
    f = ctx.findings
    recs = _opt_in(f["records.event_store"]) + _opt_in(f["records.transcript"])
    if not recs:
        return None
    setting = str(recs[0].data["reach"]).split(":", 1)[1]
    per_step = [x for x in recs if x.data.get("per_step") or x.probe == "records.event_store"]
    alt = ConfigBuilder(ctx, "C9", "record", f"opt-in record ({setting} set)", opt_in=True)
    ev = (per_step or recs)[:2]
    alt.set("S", 2 if per_step else 1, "Each step's messages and actions are written to "
            "storage as structured records." if per_step else "The conversation is saved as a "
            "transcript; there are no per-action fields for approvals or actors.", ev)
    alt.set("C", 2, "Every step of the agent loop lands in the record.", ev)
    alt.set("D", 0, f"Written only when {setting} is set; off by default.", ev[:1])
    alt.set("B", 1 if per_step else 0, "Written as each step completes; a failed write is not "
            "shown to stop the action." if per_step else "Written once a turn or run ends, so an "
            "interrupted run's actions can be lost.", ev[:1])
    alt.caps.append("G1")
    return alt.build()


def _output_alternative(ctx: Context):
    flags = [x for x in ctx.findings["records.output_flag"]
             if str(x.data.get("reach", "")) != "off-path"]
    if not flags:
        return None
    # the branch that writes the file first: the option alone writes nothing
    flags.sort(key=lambda x: x.data.get("site") != "write")
    alt = ConfigBuilder(ctx, "C9", "output-file", f"opt-in --{str(flags[0].data['option']).replace('_', '-')}",
                        opt_in=True)
    alt.set("S", 2, "The run's full record (tool calls with their arguments and results) is "
            "written to a file.", flags[:2])
    alt.set("C", 2, "Covers every tool call of the run.", flags[:1])
    alt.set("D", 0, "Written only when the option is given.", flags[:1])
    alt.set("B", 0, "Written once after the run, not per action.", flags[:1])
    alt.caps.append("G1")
    return alt.build()
