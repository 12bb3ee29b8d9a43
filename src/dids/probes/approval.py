"""C2 approval family: approval flags and their defaults, prompts, persisted decisions, autonomy
modes, and reversibility (checkpoints, dry runs, undo)."""

from __future__ import annotations

import re

from ..index.pyfacts import code_of
from ..index.repo import RepoIndex
from ..index.settings import defaults_for
from .base import Names, calls_to_defined, finding, line_findings, probe, settings_named

FLAG = Names(r"^(requires?_approval|needs?_approval|require_confirmation|requires_confirmation|"
             r"confirmation_required|ask_before_run|human_approval|approval_required|"
             r"tool_approvals|auto_run|auto_approve|yolo|always_approve)$", re.I)
# flags whose True value means "do not ask"
_INVERTED = Names(r"auto_run|auto_approve|yolo|always_approve", re.I)
_PROMPT_CALL = Names(r"^(input|Confirm\.ask|Prompt\.ask|click\.confirm|typer\.confirm|"
                     r"questionary\.confirm|inquirer\.confirm|rich\.prompt\.Confirm\.ask)$")
# a prompt gates an action when it is about running something the agent chose, not a CLI chore
_PROMPT_CONTEXT = re.compile(r"approv|allow|permi|run this|run the|execut|command|tool|action|code", re.I)
_PROMPT_CHORE = re.compile(r"install|overwrite|remote|wizard|setup|login|config|delete the|reset|"
                           r"upgrade|update available|telemetry|continue\?|feedback|shar(e|ing)|"
                           r"consent|onboard|rating|issue|report|bug|github|crash|exit|quit", re.I)
# the mode word ends the name (`approval_mode`, `yolo_mode`, `AUTO_APPROVE`): where another word
# follows it, the name is about something else (`EVENT_APPROVAL_MODE_SWITCH` names a telemetry
# event, `PRIORITY_YOLO_ALLOW_ALL` a rule's priority); a leading underscore is private state
_MODE_KEY = Names(r"^(?!_)\w*(AUTONOMY|AUTO_LEVEL|AUTO_APPROVE|APPROVAL_MODE|CONFIRMATION_MODE|"
                  r"PERMISSION_MODE|YOLO|TRUST_MODE|AUTO_RUN)(_?(MODE|LEVEL|ENABLED|DEFAULT))?$", re.I)
_ALLOW_ALL = re.compile(r"^(high|full|full_auto|auto|yolo|allow\w*|bypass\w*|never|trust\w*|true|1|on|"
                        r"dangerous\w*|skip\w*)$", re.I)

# a flag's name as a string literal (a dict lookup with a fallback)
_FLAG_LITERAL = Names(r"""^['"]""" + FLAG.pattern.strip("^$").replace("(?i)", "") + r"""['"]$""", re.I)
_FLAG_IN_DECORATOR = re.compile(
    r"\b(requires?_approval|needs?_approval|require_confirmation)\s*=\s*(True|False)")
_FLAG_KWARG = Names(r"^(requires?_approval|needs?_approval)$")
_REGISTERS = Names(r"tool|register|Tool")


@probe("approval.flag", ("C2",), "Default the approval flag to on for powerful tools.")
def flags(index: RepoIndex):
    """Approval flags as parameters, fields and dict lookups, with the default they ship with."""
    for facts in index.source_py():
        for d in facts.defs:
            for p in d.params:
                if FLAG.match(p.name) and p.default is not None:
                    yield _flag(facts.path, d.line, p.name, p.default, f"{d.name}() parameter")
        for a in facts.assigns:
            name = a.target.split(".")[-1]
            if a.scope_kind == "class" and FLAG.match(name) and a.value:
                value = a.value
                m = re.search(r"default\s*=\s*([^,)]+)", value)
                yield _flag(facts.path, a.line, name, m.group(1) if m else value, f"{a.scope} field")
    for facts, c in index.calls_named({"get"}):
        if len(c.args) == 2 and _FLAG_LITERAL.match(c.args[0]):
            yield _flag(facts.path, c.line, c.args[0].strip("'\""), c.args[1],
                        "lookup with a fallback")


def _flag(path, line, name, default, where):
    v = default.strip()
    asks = None
    if v in ("True", "true", "1"):
        asks = not _INVERTED.search(name)
    elif v in ("False", "false", "0", "None", "{}", "dict()", "[]"):
        asks = bool(_INVERTED.search(name)) if v in ("False", "false", "0") else False
    shown = " ".join(v.split())
    shown = shown if len(shown) <= 60 else shown[:57] + "..."  # a column or Field(...) call
    return finding("approval.flag", f"{name} ({where}) defaults to {shown}, so approval is "
                   f"{'on' if asks else 'off' if asks is False else 'undetermined'} by default.",
                   path, line, name=name, default=v, asks=asks)


@probe("approval.registration", ("C2",), "Register powerful tools with approval required.")
def registrations(index: RepoIndex):
    """Tool registrations that pass an approval flag explicitly (True gates; False exempts)."""
    for facts in index.source_py():
        for d in facts.defs:
            for dec in d.decorators:
                m = _FLAG_IN_DECORATOR.search(dec)
                if m:
                    yield finding("approval.registration", f"Tool {d.name} is registered with "
                                  f"{m.group(1)}={m.group(2)}.", facts.path, d.line, tool=d.name,
                                  gated=m.group(2) == "True")
    for facts, c in index.calls_where(_REGISTERS.search):
        for k, v in c.kwargs:
            if _FLAG_KWARG.match(k) and v.strip() in ("True", "False") \
                    and not index.line(facts.path, c.line).lstrip().startswith("@"):
                yield finding("approval.registration", f"{c.raw}(...) registers a tool with "
                              f"{k}={v.strip()}.", facts.path, c.line, tool=c.raw,
                              gated=v.strip() == "True")


@probe("approval.prompt", ("C2",), "Ask a human, showing the exact command, before it runs.")
def prompts(index: RepoIndex):
    """Interactive confirmation prompts (input/Confirm.ask/click.confirm) about running actions."""
    for facts, c in index.calls_where(_PROMPT_CALL.match):
        text = " ".join(c.args + tuple(v for _, v in c.kwargs))
        about_action = _PROMPT_CONTEXT.search(text) or re.search(
            r"approv|confirm|permission", c.func or "", re.I)  # the wording, or its function's name
        if about_action and not _PROMPT_CHORE.search(text + " " + (c.func or "")):
            yield finding("approval.prompt", f"{c.raw}(...) asks the user to confirm in "
                          f"{c.func or 'module scope'}.", facts.path, c.line, func=c.func or "")


@probe("approval.record", ("C2", "C9"), "Persist the exact tool call and who approved it.")
def records(index: RepoIndex):
    """Approval records: classes holding the tool call's arguments and the deciding principal."""
    for facts in index.source_py():
        for cls in facts.classes:
            if not re.search(r"approv|decision|permission", cls.name, re.I):
                continue
            fields = {a.target for a in facts.assigns if a.scope == cls.qualname}
            has_args = any(re.search(r"args|arguments|input|params", f) for f in fields)
            has_actor = any(re.search(r"approved_by|decided_by|approver|reviewer|user_id|actor", f)
                            for f in fields)
            has_tool = any(re.search(r"tool", f) for f in fields)
            if has_args and has_actor and has_tool:
                yield finding("approval.record", f"{cls.name} stores the tool call's arguments and "
                              "who decided.", facts.path, cls.line, cls=cls.name)


@probe("approval.hook", ("C2",), "Route every tool call through one pre-execution gate.")
def hooks(index: RepoIndex):
    """Pre-tool gates that can deny or defer a call (permission decisions, deferred requests)."""
    pat = [r"""["']permissionDecision["']\s*:\s*["'](deny|ask)["']""", r"\bDeferredToolRequests\b",
           r"\bApprovalRequired\b", r"\binterrupt\(\s*\{", r"\bHumanInTheLoop\w*\("]
    yield from line_findings(index, "approval.hook", pat,
                             "A pre-tool gate can deny or defer the call here.")


@probe("approval.mode", ("C2",), "Ship the cautious autonomy mode as the default.")
def modes(index: RepoIndex):
    """Autonomy/approval modes and the value they default to."""
    seen = set()
    for s in index.settings:
        if not _MODE_KEY.search(s.key) or s.key in seen or (s.value is None):
            continue
        seen.add(s.key)
        best = defaults_for(settings_named(index, s.key), s.key)[0]
        v = (best.value or "")
        allow_all = bool(_ALLOW_ALL.match(v.split(".")[-1].strip().strip("'\"")))
        yield finding("approval.mode", f"{best.key} defaults to {v!r}"
                      + (", a mode that runs actions without asking." if allow_all else "."),
                      best.path, best.line, key=best.key, value=v, allow_all=allow_all)


_REVERSIBLE = Names(r"(create|take|save|make|restore)_?checkpoint|restore_?snapshot|"
                    r"dry_?run|\bundo|revert_(change|edit|file|action)", re.I)


@probe("approval.reversibility", ("C2",), "Checkpoint or preview consequential actions.")
def reversibility(index: RepoIndex):
    """Checkpoints, dry runs, previews and undo that something calls."""
    for facts, c in calls_to_defined(index, _REVERSIBLE):
        yield finding("approval.reversibility", f"{c.raw}(...) makes an action reversible "
                              "or previewable.", facts.path, c.line, fn=c.short)


# (`allow_empty=...`, `allow_redirects` name a parameter, not a decision)
_GATE_WORDS = re.compile(r"approv|confirm|allow(?!_)|permi|proceed|run this|execut|\by/n\b|\[y/n\]|"
                         r"\b(can|may|shall) (i|we) run\b|\brun (the )?command\b|"
                         r"yes/no|\(y\)|continue\?|accept|reject|deny", re.I)
_MODEL_CLASS = re.compile(r"(Model|LLM|Llm|Backend|Provider)$")
_STATE_GATE = (r"\b(AWAITING_(USER_)?CONFIRMATION|awaiting_confirmation|PENDING_APPROVAL|"
               r"pending_approval|APPROVAL_REQUIRED|ApprovalRequired|AWAITING_APPROVAL|"
               r"requires_confirmation|NEEDS_APPROVAL|AwaitingApproval|AwaitingConfirmation|"
               r"PendingApproval|WAITING_FOR_PERMISSION|AWAITING_PERMISSION|PENDING_PERMISSION|"
               r"WaitingForPermission|AwaitingPermission)\b")
# a call that moves an action into a state (`state.updateStatus(id, Status.AwaitingApproval,
# ...)`, `setState(State.PENDING_APPROVAL)`): the state's producer, as an assignment is
_STATE_SETTER = re.compile(r"\b(set|update|transition|change|move)\w*(Status|State)\w*\s*\([^()]*$",
                           re.I)


@probe("approval.gate", ("C2", "C5"), "Ask a human, showing the exact action, before it runs.")
def gates(index: RepoIndex):
    """Human decisions on the model's path: a terminal or GUI prompt about running something,
    asked where the agent loop or a tool reaches it (or in a callback they call), and
    state-machine gates that hold an action until a user event (`AWAITING_CONFIRMATION`).
    Prompts that only set the tool up (login, onboarding, configuration) are chores."""
    from ..agent.semantics import matches

    from ..agent.ts_view import is_view

    model = index.agent
    driven = _driven_nodes(index)
    ts = is_view(index)
    handed = None
    for facts, c, row in matches(index).get("prompt", ()):
        if row.get("masked"):
            continue
        text = " ".join(c.args + tuple(v for _, v in c.kwargs))
        if ts:  # a template literal's `${...}` is code (a colour, a name), not the question's words
            text = _INTERPOLATION.sub(" ", text)
        func = c.func or ""
        context = text + " " + func + " " + _nearby(index, facts.path, c.line)
        if not _GATE_WORDS.search(context) and model is not None and \
                not _PROMPT_CHORE.search(text + " " + func):
            # a prompt helper (`_prompt_user(prompt)`) asks what its caller words: the decision
            # is where a caller builds a question about running the action and calls it
            for path, line, caller, raw in _asking_callers(index, model.graph, driven,
                                                           facts.path, c.line):
                yield finding("approval.gate", f"{raw}(...) in {caller} asks the person, through "
                              f"{func}, before the action runs.", path, line, how="prompt",
                              func=caller, in_tool=_in_tool(index, path, line))
            continue
        if not _GATE_WORDS.search(context) or _PROMPT_CHORE.search(text + " " + func):
            continue
        if _answer_returned(index, facts.path, c):
            continue  # a tool that asks the person for information returns the answer: no gate
        if c.cls and _MODEL_CLASS.search(c.cls.split(".")[-1]):
            continue  # a person standing in for the model (a human "model" class) is not a gate
        if model is not None and not _reached_from(model.graph, driven, facts.path, c.line):
            if not ts or driven is None:
                continue
            if handed is None:
                handed = _handed_callbacks(index, driven)
            via = handed.get(model.graph.node_at(facts.path, c.line))
            if via is None:
                continue
            # the decision runs where the loop calls the callback: it takes that call's reach
            yield finding("approval.gate", f"{c.raw}(...) in {func or 'module scope'} asks the "
                          "person before the action runs.", facts.path, c.line, c.end_line,
                          how="prompt", func=func, in_tool=False, reach_at=f"{via[0]}:{via[1]}")
            continue
        yield finding("approval.gate", f"{c.raw}(...) in {func or 'module scope'} asks the person "
                      "before the action runs.", facts.path, c.line, c.end_line, how="prompt",
                      func=func, in_tool=_in_tool(index, facts.path, c.line))
    if ts and driven is not None and model is not None:
        yield from _callback_gates(index, driven)
    if ts:
        yield from _exemptions(index)
    if ts and driven is not None and model is not None:
        yield from _short_circuits(index, driven)
    for h in index.live_hits([_STATE_GATE], globs=("*.py",)):
        text = h.text.strip()
        if re.match(r"^[A-Z_]+\s*=\s*['\"]", text):
            continue  # the enum member's own definition
        before = index.line(h.path, h.line - 1).split(" #", 1)[0].rstrip()
        m = re.search(_STATE_GATE, text)
        head = text[:m.start()] if m else text
        producer = (re.search(r"(?<![=!<>])=\s*(\(\s*)?['\"]?[\w.]*$", head) or
                    (re.match(r"^[\w.]*$", head.strip()) and re.search(r"(?<![=!<>])=\s*\(?$", before))
                    or _STATE_SETTER.search(re.sub(r"[\w.]*$", "", head))) \
            and not re.search(r"==|!=|\bis\b|\bin\b", head)
        if not producer:
            continue  # a test of the state, not the place that holds an action
        if _inside_state_test(index, h.path, h.line):
            continue  # done once the action already is held (`if x.state == AWAITING: notify`)
        in_tool = _in_tool(index, h.path, h.line)
        if model is not None and not in_tool and not _reached_from(model.graph, driven, h.path, h.line):
            continue
        mode = _mode_branch(index, model, h.path, h.line)
        yield finding("approval.gate", "The action is held in an awaiting-confirmation state "
                      "until a user decision resumes it" + (f", in the branch `{mode[1]}` only."
                                                           if mode else "."),
                      h.path, h.line, how="state", in_tool=in_tool,
                      **({"reach_as": f"opt-in:{mode[0]}"} if mode else {}))


# a branch taken for one named choice (`if config["permission_type"].upper() == "RESTRICTED"`,
# `if step.tool_name == "WAIT_FOR_PERMISSION"`): an equality test against a string literal
_MODE_EQ = re.compile(r"""([\w.\[\]'"]+?)(?:\.(?:upper|lower|strip)\(\))?\s*==\s*[rbuRBU]?['"]([\w .()-]{1,60})['"]""")


def _mode_branch(index: RepoIndex, model, path: str, line: int) -> tuple[str, str] | None:
    """(setting, condition) when PATH:LINE runs only in a branch that tests a configured choice
    against a literal (`== "RESTRICTED"`) whose value the shipped defaults do not decide, in its
    own function or at every call of that function: a gate of one mode or one workflow step,
    which a user must choose (the alternative configuration), not the default path."""
    facts = index.py.get(path)
    if facts is None:
        return None
    func = facts.func_at(line)
    hit = _mode_test(index, model, facts, func.qualname if func else None, line)
    if hit or func is None or model is None:
        return hit
    graph = model.graph
    calls = graph._callers_index().get(graph.node_at(path, line), ())
    got = []
    for src, ln in calls:
        node = graph.nodes.get(src)
        caller = index.py.get(node.path) if node is not None else None
        if caller is None or node.kind != "function":
            return None
        test = _mode_test(index, model, caller, node.qualname, ln)
        if test is None:
            return None
        got.append(test)
    return got[0] if got else None


def _mode_test(index, model, facts, func: str | None, line: int) -> tuple[str, str] | None:
    for b in facts.blocks:
        if b.func != func or b.kind not in ("if", "elif") or not (b.line < line <= b.end_line):
            continue
        m = _MODE_EQ.search(b.head)
        if m is None or "!=" in b.head:
            continue
        if model is not None and model.reach.defaults.truth(facts, func, m.group(0)) is not None:
            continue  # the shipped defaults decide it: reach already says which way
        keys = re.findall(r"""\[\s*['"](\w+)['"]\s*\]|\.(\w+)$|^(\w+)$""", m.group(1))
        name = next((k for tup in reversed(keys) for k in tup if k), m.group(1))
        return f"{name}={m.group(2)}", " ".join(m.group(0).split())[:80]
    return None


_LITERAL = re.compile(r"""^[rRbBuUfF]{0,2}['"]""")
_WRAPPER_DEPTH = 3  # prompt helper -> agent's ask_question -> UI's ask_question -> console prompt


def _asking_callers(index: RepoIndex, graph, driven, path: str, line: int):
    """(path, line, function, call) of each model-driven call of the function holding
    PATH:LINE whose function name or preceding lines word a question about running the action
    (`prompt = "Execute 2 action(s)? Enter to confirm"` then `self._prompt(prompt)`).

    The question may be worded further up a chain of wrappers that hand it on (an agent's
    `ask_question(question)` calls its UI's `ask_question(question)`, whose console
    implementation prompts): a caller that words nothing but passes one of its own parameters
    to the call is a wrapper, and its callers are asked in turn. A call on the base method an
    implementation overrides (`self.ui.ask_question` on a `UIBase`) is a call of it."""
    nid = graph.node_at(path, line)
    node = graph.nodes.get(nid)
    if node is None or node.kind != "function":
        return
    level, seen = [nid], {nid}
    for _ in range(_WRAPPER_DEPTH):
        wrappers: list[str] = []
        for target in level:
            for src, ln, caller, call in _calls_of(index, graph, driven, target):
                # the question as the caller words it: its name, the lines before, and the
                # string literals it passes (`allow_empty=allow_empty` words nothing)
                words = " ".join((caller.qualname.rsplit(".", 1)[-1], _nearby(index, caller.path, ln),
                                  *(a for a in call.args + tuple(v for _, v in call.kwargs)
                                    if _LITERAL.match(a))))
                if _PROMPT_CHORE.search(words):
                    continue
                if _GATE_WORDS.search(words):
                    yield caller.path, ln, caller.qualname, call.raw
                elif src not in seen and _hands_on(index, caller, call):
                    seen.add(src)
                    wrappers.append(src)
        level = wrappers


def _calls_of(index: RepoIndex, graph, driven, nid: str):
    """(caller id, line, caller node, call) of every model-driven call of NID, or of the base
    method NID overrides, in source order."""
    node = graph.nodes[nid]
    targets = [nid]
    if node.cls:
        base = graph.method(f"{node.path}::{node.cls}", node.name, skip_self=True)
        if base:
            targets.append(base)
    for target in targets:
        for src, ln in sorted(graph._callers_index().get(target, ())):
            caller = graph.nodes.get(src)
            if caller is None or caller.kind != "function" or (driven is not None and src not in driven):
                continue
            facts = index.py.get(caller.path)
            call = next((c for c in facts.calls if c.line == ln and c.short == node.name), None) \
                if facts is not None else None
            if call is not None:
                yield src, ln, caller, call


def _hands_on(index: RepoIndex, caller, call) -> bool:
    """Whether CALL passes one of CALLER's own parameters on (a wrapper of the prompt)."""
    facts = index.py.get(caller.path)
    d = facts.function(caller.qualname) if facts is not None else None
    if d is None:
        return False
    params = {p.name.lstrip("*") for p in d.params} - {"self", "cls"}
    return any(a.strip() in params for a in call.args + tuple(v for _, v in call.kwargs))


def _inside_state_test(index: RepoIndex, path: str, line: int) -> bool:
    """Whether LINE runs only in a branch that tests for an awaiting-approval state."""
    facts = index.py.get(path)
    if facts is None:
        return False
    return any(b.line <= line <= b.end_line and b.kind in ("if", "elif", "while") and
               re.search(_STATE_GATE, b.head) for b in facts.blocks)


_INTERPOLATION = re.compile(r"\$\{[^{}]*\}")
# a callback the loop is handed through its configuration and calls to ask for a decision
_CALLBACK_PROP = re.compile(r"^(?!on[A-Z_]|handle|emit|notify|publish|dispatch)\w*(?i:approv|confirm|permission)\w*$")
# a property that reads a setting or a state about approvals (`getApprovalMode()`,
# `isConfirmationRequired`, `setApprovalPolicy`) asks nobody
_SETTING_READ = re.compile(r"^(is|has|set|should|can|was)(?=[A-Z_])|(Mode|Modes|Status|State|"
                           r"Level|Policy|Policies|Config|Settings?|Enabled|Required|Type|Kind|"
                           r"Flags?)$")
_PROP_READ = re.compile(r"\.([A-Za-z_$][\w$]*)")
_HANDED_DEPTH = 4


def _asks_by_name(prop: str) -> bool:
    """Whether a property named for approval is a callback that asks (not a setting read)."""
    return bool(_CALLBACK_PROP.match(prop)) and not _SETTING_READ.search(prop)


def _handed_callbacks(index: RepoIndex, driven: set[str]) -> dict[str, tuple[str, int]]:
    """Nodes run by an approval callback the model-driven code is handed (TypeScript): driven
    code reads a property named for approval (`this.config.requestToolApproval`) and calls it;
    a function bound to that property name elsewhere (an object-literal member, or one passed
    by reference under that name) and what it calls within a few steps are reached through it."""
    graph = index.agent.graph
    props = {p: (v[0], v[1]) for p, v in _approval_asks(index, driven).items()}
    if not props:
        return {}
    roots: dict[str, tuple[str, int]] = {}
    for nid, node in graph.nodes.items():
        last = nid.rsplit("::", 1)[-1].rsplit(".", 1)[-1]
        if node.kind == "function" and nid not in driven and last in props:
            roots.setdefault(nid, props[last])
    for src, edges in graph.edges.items():
        for dst, _ln, how in edges:
            last = dst.rsplit("::", 1)[-1].rsplit(".", 1)[-1]
            if how == "ref" and last in props and dst not in driven:
                roots.setdefault(dst, props[last])
    seen, frontier = dict(roots), sorted(roots)
    for _ in range(_HANDED_DEPTH):
        nxt = []
        for nid in frontier:
            for dst, _ln, how in graph.edges.get(nid, ()):
                if dst not in seen and dst not in driven and how in ("call", "nested", "local", "self"):
                    seen[dst] = seen[nid]
                    nxt.append(dst)
        frontier = nxt
    return seen


_DECIDES = re.compile(r"\bapprov\w*|\bdenied\b|\breject\w*|\ballowed\b|\bconfirmed\b", re.I)
_SKIPS = re.compile(r"\bif\s*\(\s*!|skip|\breturn\b|\bthrow\b|===\s*false|!==\s*true", re.I)


def _callback_gates(index: RepoIndex, driven: set[str]):
    """Model-driven code (the tool dispatcher) awaiting an approval callback and skipping the
    action on a refusal (`if (!approval.approved) skip`): the host behind the callback decides."""
    graph = index.agent.graph
    for path, line, func, raw in sorted(_approval_asks(index, driven).values()):
        after = " ".join(index.line(path, i) for i in range(line, line + 8))
        if not (_DECIDES.search(after.split("(", 1)[-1]) and _SKIPS.search(after)):
            continue
        if graph.node_at(path, line) not in driven:
            continue
        yield finding("approval.gate", f"{raw}(...) in {func} waits for an approval decision "
                      "before the tool runs; a refusal skips it.", path, line, how="callback",
                      func=func, in_tool=_in_tool(index, path, line))


_EXEMPT_NAME = re.compile(r"auto_?approv|approv\w*exempt|exempt\w*approv|no_?approval|"
                          r"skip_?approval|without_?approval|safe\w*tool", re.I)
_TOOL_NAME_LIT = re.compile(r"""["'`]([a-z][a-z0-9]*(?:_[a-z0-9]+)+|[a-z]{3,})["'`]""")


def _exemptions(index: RepoIndex):
    """A module-level list of tool names that skip the approval prompt (a "safe" or
    auto-approved list): what stays unattended when approvals are on. `how="exempt"`: not a
    gate, the gate's exceptions."""
    for path in sorted(index.py):
        facts = index.py[path]
        for a in facts.assigns:
            if a.scope_kind != "module" or not a.value or not _EXEMPT_NAME.search(a.target):
                continue
            v = a.value.strip()
            if not v.startswith("["):
                continue
            names = _TOOL_NAME_LIT.findall(v)
            if len(names) < 2 or len(names) < v.count(",") - 1:
                continue  # not a list of names
            end = a.line + v.count("\n")
            yield finding("approval.gate", f"{a.target} lists {len(names)} tools that run without "
                          f"asking even when approvals are on ({', '.join(names[:6])}).", path,
                          a.line, end, how="exempt", tools=",".join(names), in_tool=False)


_IF_HEAD = re.compile(r"^\s*if\s*\((?P<cond>.+)\)\s*\{?\s*(?P<rest>.*)$")
_APPROVED = re.compile(r"^\s*return\s*(\{\s*approved\s*:\s*true\b|true\s*;?\s*$|\{\s*allow(ed)?\s*:\s*true)")


def _short_circuits(index: RepoIndex, driven: set[str]):
    """An approval callback the loop is handed that answers "approved" without asking while a
    switch is set (`if (autoApproveAll) return {approved: true}`). `how="autoapprove"`: not a
    gate, the switch that skips it."""
    graph = index.agent.graph
    props = set(_approval_asks(index, driven))
    for nid, node in sorted(graph.nodes.items()):
        if node.kind != "function" or nid in driven or node.qualname.rsplit(".", 1)[-1] not in props:
            continue
        for ln in range(node.line, min(node.end_line, node.line + 40) + 1):
            m = _IF_HEAD.match(index.line(node.path, ln))
            if not m:
                continue
            rest = m.group("rest") or index.line(node.path, ln + 1)
            if _APPROVED.match(rest if rest.strip().startswith("return") else " " + rest):
                cond = m.group("cond").strip()
                yield finding("approval.gate", f"{node.qualname} answers approved without asking "
                              f"while {cond} holds.", node.path, ln, ln + 2, how="autoapprove",
                              cond=cond, in_tool=False)
                break


def _approval_asks(index: RepoIndex, driven: set[str]) -> dict[str, tuple[str, int, str, str]]:
    """property -> (path, line, function, call) of the first driven call that asks through an
    approval-named callback property (`this.requestToolApproval(...)`, `ask(...)` bound from
    `this.config.requestApproval`)."""
    key = ("_approval_asks",)
    got = index._search_cache.get(key)
    if got is not None:
        return got
    by_path: dict[str, set[str]] = {}
    for nid in driven:
        path, _, qual = nid.partition("::")
        by_path.setdefault(path, set()).add(qual)
    props: dict[str, tuple[str, int, str, str]] = {}
    for path, quals in sorted(by_path.items()):
        facts = index.py.get(path)
        if facts is None:
            continue
        bound: dict[str, str] = {}  # local -> property (`const ask = this.config.requestApproval`)
        for a in facts.assigns:
            if a.scope in quals and a.value:
                ms = [x for x in _PROP_READ.finditer(a.value) if _asks_by_name(x.group(1))]
                if ms and a.value.strip().endswith(ms[-1].group(1)):
                    bound[a.target] = ms[-1].group(1)
        for c in facts.calls:
            if c.func not in quals:
                continue
            prop = bound.get(c.callee)
            if prop is None:
                ms = [x for x in _PROP_READ.finditer(c.callee) if _asks_by_name(x.group(1))]
                prop = ms[-1].group(1) if ms and c.callee.endswith(ms[-1].group(1)) else None
            if prop and prop not in props:
                props[prop] = (path, c.line, c.func or "module scope", c.raw)
    index._search_cache[key] = props
    return props


def _answer_returned(index: RepoIndex, path: str, c) -> bool:
    """Whether a tool's prompt is the tool's whole work: its answer is what the tool returns
    (`return input(f"Bot: {inquire}")`), so the person's reply goes back to the model as the
    tool's result and no action waits on it. A helper that returns a yes/no answer to code
    that checks it (`return input("Run it? [y/n]") == "y"`) is a decision, not this."""
    if not _in_tool(index, path, c.line):
        return False
    code = code_of(index.line(path, c.line)).strip()
    m = re.match(r"^return\s+(await\s+)?(.*)$", code)
    if not m or not m.group(2).startswith(c.raw + "("):
        return False
    asked = " ".join(c.args + tuple(v for _, v in c.kwargs))
    return not re.search(r"==|!=|\bin\b|\bnot\b|startswith", m.group(2)) and \
        not re.search(r"y/n|\[y\]|yes/no|\(y\)", asked, re.I)


def _nearby(index: RepoIndex, path: str, line: int) -> str:
    """The code of LINE and the three lines before it, comments and docstrings left out: a
    comment saying `# ask for confirmation` words no question the person is asked."""
    facts = index.py.get(path) or (index.ts.get(path) if index.may_have_ts() else None)
    prose = facts.prose_lines if facts is not None else frozenset()
    slash = facts is not None and facts.lang != "python"
    return " ".join(code_of(index.line(path, i), slash) for i in range(max(1, line - 3), line + 1)
                    if i not in prose)


def _driven_nodes(index: RepoIndex) -> set[str] | None:
    model = index.agent
    if model is None or not model.session.loops:
        return None
    return set(model.session.driven)


def _reached_from(graph, driven, path: str, line: int) -> bool:
    """Whether PATH:LINE is model-driven code, or a function driven code calls or passes on
    (an approval callback handed to the loop)."""
    if driven is None:
        return True
    nid = graph.node_at(path, line)
    if nid in driven:
        return True
    for src, _ln in graph._callers_index().get(nid, ()):
        if src in driven:
            return True
    return any(src in driven for src, edges in graph.edges.items() if src in driven
               for dst, _l, how in edges if dst == nid and how == "ref")


def _in_tool(index: RepoIndex, path: str, line: int) -> bool:
    """Whether PATH:LINE sits inside a tool's own code (a class or function registered as a
    tool) rather than in the loop or dispatcher every tool passes through."""
    facts = index.py.get(path)
    if facts is None:
        return False
    func = facts.func_at(line)
    if func is None:
        return False
    for dec in func.decorators:
        if re.match(r"^(?:[\w.]*\.)?(tool|function_tool)\b", dec):
            return True
    if func.cls:
        cls = next((c for c in facts.classes if c.qualname == func.cls), None)
        return cls is not None and any(re.search(r"Tool$", b) for b in cls.bases) or \
            bool(re.search(r"Tool$|Command$", func.cls))
    return False


# state about one decision (`approval_requested`, `confirmation_pending`), not a switch
_DECISION_STATE = re.compile(r"request|pending|status|result|given|granted|needed|received", re.I)


@probe("approval.runtime_switch", ("C2", "C5"), "Let no run-time command turn approval off silently.")
def runtime_switches(index: RepoIndex):
    """Live code that turns an approval switch on or off while the agent runs (`session.
    trust_mode = True` in a REPL command, `interpreter.auto_run = True` in a request handler):
    who can flip the gate besides the configuration."""
    from .config_defaults import topic

    for facts in index.source_py():
        for a in facts.assigns:
            if a.scope_kind != "function" or a.scope.endswith("__init__") or "." not in a.target:
                continue
            name = a.target.rsplit(".", 1)[-1]
            value = (a.value or "").strip()
            if value not in ("True", "False") or _DECISION_STATE.search(name) or \
                    topic(name) != "approval":
                continue
            yield finding("approval.runtime_switch", f"{a.target} is set to {value} here, in "
                          f"{a.scope}: approval is switched while the agent runs.", facts.path,
                          a.line, func=a.scope, setting=name)
