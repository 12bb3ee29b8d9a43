"""C9 record family: what the agent keeps of each step, where, and how durably.

Mechanisms, from weakest to strongest, as reviewers rank them:
- `records.console`: each tool call or command printed or logged to the terminal as it runs;
- `records.step`: a structured step/message record appended in the agent loop (in memory);
- `records.transcript`: the conversation or step list written to a file or database;
- `records.event_store`: an event/action store whose add method persists each event;
- `records.trace`: tracing that records each step (LangSmith/Langfuse/OpenTelemetry/...);
- `records.output_flag`: a command-line option that dumps the run's record to a file.
Only code the agent loop reaches counts for the per-step record (a REPL's own history or an
export command is not a record of what the model did).
"""

from __future__ import annotations

import re

from ..agent.semantics import imported_modules, matches
from ..index.pyfacts import calls_by_func, resolve
from ..index.repo import RepoIndex
from .base import finding, probe

_RECORD_LIST = re.compile(r"(messages|history|memory|steps|events|transcript|trajectory|trace|"
                          r"records|turns|conversation|chat_log|log_entries|tool_calls|actions)\b",
                          re.I)
_APPEND = {"append", "extend", "add_message", "add_step", "add_event", "append_step", "record",
           "add", "insert", "push", "put"}
_TOOLISH = re.compile(r"tool|command|\bcmd\b|running|executing|calling|invok|action|observation|"
                      r"function call|step", re.I)
_LOGGER = re.compile(r"^(print|logging\.(info|warning|debug|error)|(\w+\.)*(logger|log|_logger|"
                     r"LOGGER|console|_console)\.(info|warning|debug|error|log|print|rule))$")
# a line logged per call, naming what runs (`f"Running tool {self.name}: {params}"`), not a
# REPL's own message about a slash command
_PER_CALL = re.compile(r"\b(running|executing|calling|invoking|tool)\b[^{}]{0,40}\{", re.I)
# an error or warning message (`print(f"Error running pip install: {e}")`) reports a failure,
# it records no call
_FAILURE = re.compile(r"""^[frbu]*["'](?:\\n|\s)*(?:error|failed|failure|unable|could not|cannot|"""
                      r"""warning|exception)\b""", re.I)
_CONVO = re.compile(r"messages|history|conversation|transcript|chat|events|steps|trajectory", re.I)
_STORE_METHOD = re.compile(r"^(add_event|append_event|record_event|log_event|save_event|"
                           r"write_event|emit|publish|record|append|log_action|record_action)$")
_STORE_CLASS = re.compile(r"(Stream|Store|Log|Logger|Recorder|Journal|Ledger|Trail|History)$")
_OUTPUT_OPTION = re.compile(r"(json[_-]?output|output[_-]?file|save[_-]?(path|to|file|output)|"
                            r"log[_-]?file|transcript|trace[_-]?file|record[_-]?file)", re.I)
_TRACE_DECORATOR = re.compile(r"^(langsmith\.(run_helpers\.)?traceable|langfuse(\.decorators)?\.observe|"
                              r"weave\.op|logfire\.instrument|opentelemetry\.\S+|openlit\.\S+|"
                              r"agentops\.\S+|traceloop\.\S+)")


def _session(index: RepoIndex):
    model = index.agent
    return (model.session, model.graph) if model is not None else (None, None)


def _driven(index: RepoIndex, path: str, line: int, depth: int = 99) -> bool:
    session, graph = _session(index)
    if session is None:
        return True
    d = session.driven.get(graph.node_at(path, line))
    return d is not None and d <= depth


def _loop_functions(index: RepoIndex):
    """(path, qualname) of the agent loops' own functions, or None without a session."""
    session, _ = _session(index)
    if session is None or not session.loops:
        return None
    return {(lp.path, lp.node.split("::", 1)[1]) for lp in session.loops if "::" in lp.node}


@probe("records.step", ("C9",), "Persist each step's record, not only in memory.")
def steps(index: RepoIndex):
    """Structured records appended per step in the agent loop or the functions it calls."""
    loops = _loop_functions(index)
    for facts, c in index.calls_named(_APPEND):
        recv = c.raw.rsplit(".", 1)[0] if "." in c.raw else ""
        if not recv or not _RECORD_LIST.search(recv) or not c.args:
            continue
        if not _driven(index, facts.path, c.line, 4):
            continue
        # a local list outside the agent loop is a copy being shaped (messages formatted,
        # history compacted for the next prompt), not the run's record
        if "." not in recv and loops is not None and (facts.path, c.func) not in loops:
            continue
        yield finding("records.step", f"{c.raw}(...) appends each step's record to "
                      f"{recv} (held in memory).", facts.path, c.line, c.end_line,
                      func=c.func or "", value=c.args[0][:80],
                      structured=not c.args[0].lstrip().startswith(("f\"", "f'", '"', "'")))


@probe("records.console", ("C9",), "Record tool calls durably, not only on the terminal.")
def console(index: RepoIndex):
    """Tool calls and commands printed or logged as the model's actions run."""
    for facts, c in index.calls_where(_LOGGER.match):
        text = " ".join(c.args)
        if not _TOOLISH.search(text) or _FAILURE.match(text) or \
                not _driven(index, facts.path, c.line, 6):
            continue
        per_call = bool(_PER_CALL.search(text))
        yield finding("records.console", f"{c.raw}(...) " + (
                      "prints or logs each tool call as it runs" if per_call else
                      "prints or logs a line about a tool or command as it runs")
                      + " (terminal only).", facts.path, c.line, c.end_line, func=c.func or "",
                      per_call=per_call)


@probe("records.transcript", ("C9",), "Write the record per action, before it runs.")
def transcript(index: RepoIndex):
    """The conversation or step list written to a file or database by live code."""
    hits = [(facts, c, row) for facts, c, row in matches(index).get("persist", ())
            if _CONVO.search(" ".join(c.args + tuple(v for _, v in c.kwargs)) + " " + (c.func or ""))
            or _OWN_RECORD.search(_built_from(index, facts, c))]
    # a function that opens its file and then dumps the record into it: the dump is the record
    dumps = {(facts.path, c.func) for facts, c, row in hits if row.get("mode_arg") is None}
    per_step = _called_per_iteration(index)
    for facts, c, row in hits:
        if row.get("mode_arg") is not None and (facts.path, c.func) in dumps:
            continue
        step = per_step(facts.path, c.line)
        yield finding("records.transcript", f"{c.raw}(...) in {c.func or 'module scope'} writes "
                      "the conversation/step record to storage"
                      + (f", after every iteration of the agent loop ({step})." if step else "."),
                      facts.path, c.line, c.end_line, func=c.func or "", row=row.id,
                      **({"per_step": True, "loop_call": step} if step else {}))


# the record an agent object holds, read whole (`self.messages`), not a setting named after it
# (`self.max_steps`)
_OWN_RECORD = re.compile(r"\bself\.(messages|history|chat_history|conversation|transcript|"
                         r"events|steps|trajectory)\b(?!\s*\()")
_SELF_CALL = re.compile(r"\bself\.(\w+)\(")
_NAMES = re.compile(r"[A-Za-z_]\w*")


def _built_from(index: RepoIndex, facts, c) -> str:
    """The code a persisted value is built by, one step back: what a local the call writes was
    assigned (`data = self.serialize()`), and the code lines of the method of the same class
    that value calls (`def serialize(self): return {"messages": self.messages, ...}`)."""
    if not c.func:
        return ""
    texts = []
    for name in set(_NAMES.findall(" ".join(c.args + tuple(v for _, v in c.kwargs)))):
        a = facts.last_assign(name, c.func, c.line, valued=True)
        if a is not None and a.value:
            texts.append(a.value)
    d = facts.func_at(c.line)
    for m in _SELF_CALL.finditer(" ".join(texts)):
        if d is None or not d.cls:
            break
        meth = next((x for x in facts.defs if x.cls == d.cls and x.name == m.group(1)), None)
        if meth is not None:
            last = min(meth.end_line, meth.line + 60)  # a serializer, not a whole module
            texts += [index.line(facts.path, i) for i in range(meth.line + 1, last + 1)
                      if facts.is_code_line(i)]
    return " ".join(texts)


def _called_per_iteration(index: RepoIndex):
    """PATH, LINE -> the `path:line` of the call in an agent loop's body that reaches the
    function holding LINE directly or through one more call (`while not done: step();
    save_trajectory()`), or None. A write after the loop, or in the call that produces the
    loop's items (`for chunk in self._chat()`), runs once per run or turn, not per step."""
    session, graph = _session(index)
    if session is None or not session.loops:
        return lambda path, line: None
    body: dict[str, str] = {}  # callee node -> the loop-body call that reaches it
    for lp in session.loops:
        if lp.kind != "loop":
            continue
        head_end = lp.line + lp.head.count("\n")
        firsts = [(dst, line) for dst, line, how in graph.edges.get(lp.node, ())
                  if head_end < line <= lp.end_line and how not in _NOT_CALLS]
        for dst, line in firsts:
            where = f"{lp.path}:{line}"
            body.setdefault(dst, where)
            for dst2, _l2, how2 in graph.edges.get(dst, ()):
                if how2 not in _NOT_CALLS:
                    body.setdefault(dst2, where)

    def at(path: str, line: int) -> str | None:
        return body.get(graph.node_at(path, line))

    return at


_NOT_CALLS = ("import", "package", "module", "nested", "decorator")


@probe("records.event_store", ("C9",), "Make the event record tamper-evident and outside the model's reach.")
def event_store(index: RepoIndex):
    """Add/record methods of an event or action store that persist each event they are given."""
    session, graph = _session(index)
    persist_lines = {}
    for facts, c, _row in matches(index).get("persist", ()):
        persist_lines.setdefault(facts.path, []).append(c.line)
    for facts in index.source_py():
        by = calls_by_func(facts)
        for d in facts.defs:
            if not d.cls or not _STORE_METHOD.match(d.name) or \
                    not _STORE_CLASS.search(d.cls.split(".")[-1]):
                continue
            calls = by.get(d.qualname, [])
            writes = [ln for ln in persist_lines.get(facts.path, ()) if d.line <= ln <= d.end_line]
            writes += [c.line for c in calls if re.search(r"(file_store|store|storage|db|session)\.(write|save|put|add|insert|commit)$|\.write$", c.raw)]
            if not writes:
                continue
            first_write = min(writes)
            dispatch = [c.line for c in calls if re.search(r"put|notify|publish|callback|"
                                                          r"_queue|submit|create_task", c.raw)
                        and c.line > first_write]
            yield finding("records.event_store", f"{d.cls.split('.')[-1]}.{d.name} persists each "
                          "event" + (" before it is queued to subscribers." if dispatch else "."),
                          facts.path, d.line, min(d.end_line, d.line + 40),
                          func=d.qualname, before_dispatch=bool(dispatch))


@probe("records.trace", ("C9",), "Turn tracing on by default, outside the model's reach.")
def trace(index: RepoIndex):
    """Tracing of steps and tool calls: tracing decorators on live functions and trace senders."""
    for facts in index.source_py():
        for d in facts.defs:
            for dec in d.decorators:
                name = resolve(dec.split("(")[0].strip(), facts.imports)
                if _TRACE_DECORATOR.match(name):
                    yield finding("records.trace", f"{d.name} is traced by @{dec.split('(')[0]} "
                                  "(inputs and outputs of the call).", facts.path, d.line,
                                  func=d.qualname, sender=name.split(".")[0])
                    break
    for facts, c, row in matches(index).get("telemetry", ()):
        if row.get("trace"):
            yield finding("records.trace", f"{c.raw}(...) records trace spans "
                          f"({row.get('sender')}).", facts.path, c.line, func=c.func or "",
                          sender=str(row.get("sender")))


@probe("records.output_flag", ("C9",), "Write the run record by default, not behind a flag.")
def output_flag(index: RepoIndex):
    """Command-line options that dump the run's record (conversation, tool calls) to a file."""
    for facts in index.source_py():
        mods = imported_modules(facts)
        if not mods & {"typer", "click", "argparse"}:
            continue
        for d in facts.defs:
            for p in d.params:
                if _OUTPUT_OPTION.search(p.name) and p.default is not None and \
                        re.search(r"Option|option|None|^opt_|_opt$", p.default):
                    yield finding("records.output_flag", f"Option {p.name} of {d.name} writes the "
                                  "run's record to a file when given.", facts.path, d.line,
                                  option=p.name, func=d.qualname)
                    yield from _option_writes(facts, d, p.name)
        for c in facts.calls:
            if c.short in ("add_argument", "option") and any(
                    _OUTPUT_OPTION.search(a) for a in c.args[:2]):
                yield finding("records.output_flag", f"{c.raw}({c.args[0][:40]}) adds an option "
                              "that writes the run's record to a file.", facts.path, c.line,
                              option=c.args[0].strip("'\"-"), func=c.func or "")


def _option_writes(facts, d, option: str):
    """The branch of D that writes the record when OPTION is given (`if json_output_file:
    write_json_file(json_output_file, ...)`): where the file is actually written."""
    ident = re.compile(rf"\b{re.escape(option)}\b")
    calls = calls_by_func(facts).get(d.qualname, [])
    for b in facts.blocks:
        if b.func != d.qualname or b.kind not in ("if", "elif") or not ident.search(b.head):
            continue
        writer = next((c for c in calls if b.line < c.line <= b.end_line
                       and any(ident.search(a) for a in c.args + tuple(v for _, v in c.kwargs))),
                      None)
        if writer is None:
            continue
        yield finding("records.output_flag", f"{writer.raw}(...) writes the run's record to "
                      f"{option} when it is given.", facts.path, b.line, writer.end_line or writer.line,
                      option=option, func=d.qualname, site="write")
        return



_DELETE_DEF = re.compile(r"^_?(delete|remove|purge|clear|wipe)_(\w+_)?(conversation|session|history|"
                         r"event|transcript|trajectory|log|audit|record|metadata|trace)s?(_\w+)?$")
_DELETE_CALL = re.compile(r"(^|[._])(delete|remove|rmtree|unlink|purge|drop|truncate)(_\w+)?$")


@probe("records.delete", ("C9",), "Keep the record append-only: no code path deletes it.")
def deletes(index: RepoIndex):
    """Functions that delete conversations, sessions, events or audit records (named for it
    and deleting something in their body): what a record's durability depends on."""
    for facts in index.source_py():
        by = None
        for d in facts.defs:
            if not _DELETE_DEF.match(d.name):
                continue
            if by is None:
                by = calls_by_func(facts)
            calls = by.get(d.qualname, [])
            hit = next((c for c in calls if _DELETE_CALL.search(c.short or "")
                        or any(_DELETE_CALL.search(a.strip()) for a in c.args)), None)
            if hit is None:
                continue
            yield finding("records.delete", f"{d.name} deletes stored records "
                          f"({hit.raw}(...) at line {hit.line}).", facts.path, d.line,
                          min(d.end_line, d.line + 20), func=d.qualname)


_LOG_CONFIG = {"logging.basicConfig", "logging.config.dictConfig", "logging.config.fileConfig",
               "loguru.logger.add", "logging.FileHandler", "logging.handlers.RotatingFileHandler",
               "logging.handlers.TimedRotatingFileHandler", "logging.handlers.WatchedFileHandler"}


@probe("records.log_config", ("C9",), "Send the run's log to durable storage, not only the console.")
def log_config(index: RepoIndex):
    """Where live code configures the run's logging (basicConfig, dictConfig, loguru's add):
    whether log lines of tool calls reach a file or only the terminal."""
    for facts, c in index.calls_where(lambda n: n in _LOG_CONFIG):
        text = " ".join(c.args + tuple(f"{k}={v}" for k, v in c.kwargs))
        if c.kw("filename") or c.short.endswith("FileHandler") or \
                re.search(r"FileHandler|\.(log|txt)\b|sink=|filename", text):
            where = "file"
        elif re.search(r"StreamHandler|RichHandler|stderr|stdout|console", text, re.I):
            where = "terminal"
        else:
            where = ""
        yield finding("records.log_config", f"{c.raw}(...) configures where the run's log "
                      "lines go" + (f" (to {'a file' if where == 'file' else 'the terminal'})."
                                    if where else "."),
                      facts.path, c.line, c.end_line, func=c.func or "", to=where)
