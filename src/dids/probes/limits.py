"""C10 limits family: step/tool-call caps, timeouts, cost ceilings, rate limits, cancel."""

from __future__ import annotations

import re

from ..index.pyfacts import short_name
from ..index.repo import RepoIndex
from .base import Names, finding, probe, settings_named

_CAP_NAME = Names(r"^(?:[A-Z_]*_)?(max_(?:iterations?|steps?|turns?|requests?|tool_calls?|"
                  r"rounds?|loops?|actions?)|step_limit|recursion_limit|iteration_limit|"
                  r"request_limit|tool_calls_limit)$", re.I)
_COST_NAME = Names(r"(max_cost|cost_limit|budget_usd|max_spend|spend_limit|max_budget|"
                   r"total_tokens_limit|token_budget|max_total_tokens)", re.I)
_PROMPT = re.compile(r"^(user_prompt|prompt|instructions|system_prompt|task_prompt)$")
_SELF_RUN = Names(r"goal|budget|continue|extend|session|run_until|limit|autonom", re.I)
_NUM = re.compile(r"^\d[\d_]*(\.\d+)?$")


def _reads(index: RepoIndex, name: str) -> int:
    """Identifier occurrences of `name` across live source, minus nothing: callers subtract defs."""
    return sum(f.idents.get(name, 0) for f in index.source_py())


@probe("limits.cap", ("C10",), "Enforce step and tool-call caps in the main agent loop.")
def caps(index: RepoIndex):
    """Step/tool-call cap settings and fields with numeric defaults, and whether code reads them."""
    seen: dict[str, int] = {}
    for facts in index.source_py():
        for a in facts.assigns:
            target = a.target.split(".")[-1]
            if a.scope_kind == "function" or not _CAP_NAME.match(target):
                continue
            value = (a.value or "").strip()
            m = re.search(r"(?:default\s*=\s*|^|\(\s*)(\d[\d_]*)\b", value) or re.search(
                r"""getenv\([^,]+,\s*["']?(\d+)["']?\s*\)|environ\.get\([^,]+,\s*["']?(\d+)["']?\s*\)""", value)
            if not m:
                continue
            seen[target] = seen.get(target, 0) + 1
            num = next(g for g in m.groups() if g)
            yield finding("limits.cap", f"{target} has a shipped default of {num}.",
                          facts.path, a.line, name=target, value=int(num.replace("_", "")))
        for d in facts.defs:
            for p in d.params:
                if _CAP_NAME.match(p.name) and p.default and _NUM.match(p.default.strip()):
                    yield finding("limits.cap", f"{d.name}() takes {p.name} with default "
                                  f"{p.default}.", facts.path, d.line, name=p.name,
                                  value=int(float(p.default.replace("_", ""))))


@probe("limits.enforced", ("C10",), "Read every declared cap in the loop that runs the agent.")
def enforced(index: RepoIndex):
    """Places where a cap name is compared or handed to a limiter (UsageLimits, range, while)."""
    pat = r"\b(?:self\.|settings\.|config\.|cfg\.)?((?:max_(?:iterations?|steps?|turns?|requests?|tool_calls?|rounds?|loops?))|request_limit|tool_calls_limit|recursion_limit)\b\s*[<>]=?|[<>]=?\s*(?:self\.|settings\.|config\.)?(max_(?:iterations?|steps?|turns?|requests?|tool_calls?|rounds?))\b|UsageLimits\(|range\(\s*(?:self\.)?[A-Za-z_.]*max_(?:iterations?|steps?|turns?)"
    for h in index.live_hits([pat], globs=("*.py",), ignore_case=True, code_only=True):
        if index.role(h.path) != "source":
            continue
        yield finding("limits.enforced", "A step or tool-call cap is applied here.", h.path,
                      h.line)


@probe("limits.timeout", ("C10",), "Bound every command and every agent turn in time.")
def timeouts(index: RepoIndex):
    """timeout= on process spawns and waits, and *_TIMEOUT settings with numeric defaults."""
    from .exec_paths import SPAWN

    for facts, c in index.calls_where(lambda n: n in SPAWN or short_name(n) in (
            "wait_for", "communicate", "wait", "timeout")):
        t = c.kw("timeout")
        if t and t.strip() != "None":
            yield finding("limits.timeout", f"{c.raw}(...) is bounded by timeout={t[:40]}.",
                          facts.path, c.line, scope="command" if c.callee in SPAWN else "wait")
    from ..index.settings import defaults_for

    seen = set()
    for s in index.settings:
        if s.key in seen or not re.search(r"TIMEOUT", s.key, re.I) or not re.search(
                r"AGENT|TURN|RUN|SANDBOX|EXECUT|ACTION|TOOL|COMMAND", s.key, re.I):
            continue
        seen.add(s.key)
        best = defaults_for(settings_named(index, s.key), s.key)[0]
        if best.value and re.match(r"^\d+(\.\d+)?$", best.value):
            unit = "milliseconds" if re.search(r"(_MS|Ms|_MILLIS|Millis)$", best.key) else "seconds"
            yield finding("limits.timeout", f"{best.key} defaults to {best.value} {unit}.",
                          best.path, best.line, scope="setting")


@probe("limits.cost", ("C10",), "Add a token or cost ceiling per run.")
def cost(index: RepoIndex):
    """Token or cost ceilings in live code."""
    for facts in index.source_py():
        for a in facts.assigns:
            # a ceiling of 0 (`float(os.getenv("GLOBAL_COST_LIMIT", "0"))`) is the unset one
            if _COST_NAME.search(a.target) and a.value and \
                    any(float(n) for n in re.findall(r"\d+(?:\.\d+)?", a.value)):
                yield finding("limits.cost", f"{a.target} sets a spend ceiling.", facts.path,
                              a.line)


@probe("limits.cancel", ("C10",), "Make cancel kill the whole process group of in-flight work.")
def cancel(index: RepoIndex):
    """Kill switches: process-group kills and cancellation signals in live code."""
    for facts, c in index.calls_where(lambda n: short_name(n) == "killpg" or
                                      n.endswith((".cancel", ".terminate", ".kill"))):
        if c.short == "killpg":
            yield finding("limits.cancel", "Cancel kills the process group.", facts.path,
                          c.line, how="killpg")
        elif c.func and re.search(r"cancel|stop|abort|interrupt", c.func, re.I):
            yield finding("limits.cancel", f"{c.raw}() stops in-flight work in {c.func}.",
                          facts.path, c.line, how="cancel")
    for facts in index.source_py():  # Ctrl-C handled: the person can stop a run
        for b in facts.blocks:
            if b.kind == "except" and "KeyboardInterrupt" in b.head and b.func:
                yield finding("limits.cancel", f"Ctrl-C (KeyboardInterrupt) stops the run in "
                              f"{b.func}.", facts.path, b.line, how="interrupt")
                break


@probe("limits.model_settable", ("C10",), "Do not let the model choose its own budget.")
def model_settable(index: RepoIndex):
    """Tool functions whose parameters let the model set its own step or turn budget."""
    from .tools import _decorated_tools

    for facts in index.source_py():
        for d, _dec, _ in _decorated_tools(facts):
            # a tool that starts a new agent from a prompt sets that agent's budget, not its caller's
            if any(_PROMPT.match(p.name) for p in d.params):
                continue
            # only tools that steer the caller's own run (goals, budgets, continuations)
            if not _SELF_RUN.search(d.name):
                continue
            for p in d.params:
                if _CAP_NAME.match(p.name):
                    yield finding("limits.model_settable", f"Tool {d.name} lets the model set "
                                  f"{p.name}.", facts.path, d.line, name=p.name)


# the right operand is a lookahead: in a chain (`0 < self.step_limit <= self.n_calls`) it is
# the next comparison's left one
_BOUND = re.compile(r"(?P<a>[\w.\[\]'\"]+)\s*(?P<op><=|>=|<|>)\s*(?=(?P<b>[\w.\[\]'\"]+))")
_LIMIT_WORD = re.compile(r"max|limit|budget|cap\b|ceiling|quota|allowed|remaining", re.I)
_COUNTER_WORD = re.compile(r"step|iter|turn|round|loop|count|call|attempt|n_|num|i\b|idx|depth|"
                           r"tokens|cost|spent|usage|elapsed|current", re.I)


_CONST_BOUND = re.compile(r"(>=|>|<=|<)\s*(?:self\.|cls\.)?(MAX_\w+|\w+_LIMIT|\w*_MAX|max_\w+)\b")


def _last_operand(text: str) -> str:
    """The expression TEXT ends with (`self.state.get("n", {"c": 0})["c"]`), brackets kept
    whole, up to the space or operator before it."""
    depth, i = 0, len(text)
    while i > 0:
        ch = text[i - 1]
        if ch in ")]}":
            depth += 1
        elif ch in "([{":
            if depth == 0:
                break
            depth -= 1
        elif depth == 0 and not (ch.isalnum() or ch in "_.\"'"):
            break
        i -= 1
    return text[i:]


def _bound_of(head: str):
    """(counter, bound) of a comparison of a counter with a limit in HEAD, or None."""
    m = _CONST_BOUND.search(head)
    if m and m.group(1) in (">=", ">"):  # `...counter"] >= MAX_OPERATIONS`: whatever counts
        # the operand just before the comparison, not the conditions joined before it
        left = _last_operand(head[:m.start()].rstrip())
        return (left if left and len(left) <= 80 else "a counter"), m.group(2)
    for m in _BOUND.finditer(head):
        a, b = m.group("a"), m.group("b")
        for counter, bound in ((a, b), (b, a)):
            if (_LIMIT_WORD.search(bound) or _NUM.match(bound)) and _COUNTER_WORD.search(counter) \
                    and not _LIMIT_WORD.search(counter):
                return counter, bound
    m = re.search(r"\brange\(\s*([\w.]+)\s*\)", head)
    if m and (_LIMIT_WORD.search(m.group(1)) or _NUM.match(m.group(1))):
        return "iteration", m.group(1)
    return None


@probe("limits.loop_cap", ("C10",), "Cap the agent loop with a bound the model cannot raise.")
def loop_caps(index: RepoIndex):
    """Caps the agent loop enforces: its own header compares a counter with a bound
    (`while step <= max_steps`, `for _ in range(MAX_STEPS)`), or a branch in the loop or a
    function it calls stops the run when a counter reaches one (`if n >= self.max: raise`)."""
    model = index.agent
    if model is None or not model.session.loops:
        return
    from ..agent.defaults import _UNKNOWN

    from ..agent.ts_view import is_view

    ts = is_view(index)
    defaults = model.reach.defaults
    seen = set()
    for lp in model.session.loops:
        facts = index.py.get(lp.path)
        if facts is None or lp.kind != "loop":
            continue
        b = next((x for x in facts.blocks if x.line == lp.line and x.kind in ("for", "while")), None)
        got = _bound_of(b.head) if b is not None else None
        if got:
            seen.add((lp.path, lp.line))
            value = _shipped(defaults, facts, lp.node.split("::")[1], got[1])
            if _off_at_zero(b.head, got[1], value):
                yield _unset_cap(got, value, lp.path, lp.line,
                                 b.end_line if b.end_line - lp.line < 6 else lp.line, "loop")
                continue
            if ts and _unset_unbounded(b.head, got[1]) and (value is _UNKNOWN or value is None):
                # `while (max === undefined || i < max)`: no bound unless someone sets one
                yield finding("limits.loop_cap", f"The agent loop stops when {got[0]} reaches "
                              f"{got[1]} only when {got[1]} is set; it has no default, so "
                              "unset the loop runs until the model stops.", lp.path, lp.line,
                              b.end_line if b.end_line - lp.line < 6 else lp.line,
                              bound=got[1], value=-1, where="loop", optional=True)
                continue
            yield finding("limits.loop_cap", f"The agent loop stops when {got[0]} reaches "
                          f"{got[1]}" + (f" (default {value})." if value is not _UNKNOWN and
                                         value is not None else "."), lp.path, lp.line,
                          bound=got[1], value=value if isinstance(value, int) else -1, where="loop")
    g = model.graph
    # a graph framework runs the loop itself: its conditional edges' routers decide whether the
    # run goes round again, so a router that ends the run at a bound caps the loop
    routers = _routers(index, g)
    for nid, d in list(model.session.driven.items()) + [(r, 0) for r in routers]:
        if d > 8:
            continue
        node = g.nodes.get(nid)
        if node is None or node.kind != "function":
            continue
        if nid in routers and model.reach.of(node.path, node.line).split(":")[0] == "off-path":
            continue
        facts = index.py.get(node.path)
        if facts is None:
            continue
        for b in facts.blocks:
            if b.func != node.qualname or b.kind not in ("if", "elif", "while") or \
                    (node.path, b.line) in seen:
                continue
            if b.kind != "while" and not set(b.exits) & set("rxb"):
                continue
            got = _bound_of(b.head) or _predicate_bound(facts, node.qualname, b.head)
            # the counter, its bound and where it counts (`IterationFlag.increase`) say steps
            said = got[0] + " " + got[1] + ("" if ts else " " + node.qualname) if got else ""
            if got and not _STEP_WORD.search(said) and (ts or not _SPEND_WORD.search(said)):
                continue  # a retry, length or depth bound inside a step is not a cap on steps
            if got and _LIMIT_WORD.search(got[1]):
                seen.add((node.path, b.line))
                value = _shipped(defaults, facts, node.qualname, got[1])
                if _off_at_zero(b.head, got[1], value):
                    yield _unset_cap(got, value, node.path, b.line, b.end_line, "step")
                    continue
                yield finding("limits.loop_cap", f"The run stops when {got[0]} reaches {got[1]}.",
                              node.path, b.line, b.end_line, bound=got[1],
                              value=value if isinstance(value, int) else -1, where="step")


def _shipped(defaults, facts, func: str, bound: str):
    """The value BOUND ships with: a setting's default, else the literal or environment
    default `__init__` gives a `self.` attribute of any name (`self.cost_limit = float(...)`)."""
    from ..agent.defaults import _UNKNOWN

    value = defaults.value(facts, func, bound)
    return defaults.attr_default(facts, func, bound) if value is _UNKNOWN else value


_PREDICATE = re.compile(r"^\s*(?:not\s+)?(?:await\s+)?(self\.)?(\w+)\(\s*\)\s*$")


def _predicate_bound(facts, qualname: str, head: str):
    """(counter, bound) of a branch that asks a predicate of its own class or module
    (`if self.reached_limit(): raise ...`) which compares a counter with a limit
    (`self._hit_limit = self.current_value >= self.max_value`), or None."""
    m = _PREDICATE.match(head)
    if m is None:
        return None
    owner = qualname.rpartition(".")[0] if m.group(1) else ""
    target = f"{owner}.{m.group(2)}" if owner else m.group(2)
    if facts.function(target) is None:
        return None
    values = [a.value for a in facts.assigns if a.scope == target and a.value]
    values += list(facts.return_values.get(target, ()))
    return next((got for v in values for got in [_bound_of(v)] if got), None)


def _off_at_zero(head: str, bound: str, value) -> bool:
    """Whether HEAD applies BOUND only when it is set (`0 < self.step_limit <= n`, `if
    max_steps and step >= max_steps`, `limit is not None and ...`) and BOUND ships unset (0 or
    None): such a cap binds only once a user configures it."""
    if value not in (0, None) or isinstance(value, bool):
        return False
    b = re.escape(bound)
    return bool(re.search(rf"(?<![\w.])0\s*<\s*{b}(?![\w.])|(?<![\w.]){b}\s*(>\s*0|>=\s*1|is\s+not\s+None"
                          rf"|!=\s*0)(?![\w.])|(?<![\w.]){b}\s+and\b", head))


def _unset_cap(got, value, path: str, line: int, end: int, where: str):
    return finding("limits.loop_cap", f"The run stops when {got[0]} reaches {got[1]} only when "
                   f"{got[1]} is set; it ships as {value!r}, so unset there is no such limit.",
                   path, line, end, bound=got[1], value=-1, where=where, optional=True)


_ROUTE_CALLS = frozenset({"add_conditional_edges"})


def _routers(index: RepoIndex, g) -> list[str]:
    """Call-graph nodes of the functions live code registers as a graph's conditional-edge
    routers (`graph.add_conditional_edges("plan", route_after_plan)`)."""
    out = []
    for facts in index.source_py():
        for c in facts.calls:
            if c.short not in _ROUTE_CALLS:
                continue
            fn = c.kw("path") or (c.args[1] if len(c.args) > 1 else None)
            if not fn or not re.fullmatch(r"[A-Za-z_][\w.]*", fn.strip()):
                continue
            target = g.resolve(fn.strip(), facts.path)
            if target and target not in out:
                out.append(target)
    # and the helpers a router asks (`return _decide(state)`), two calls deep
    frontier = list(out)
    for _ in range(2):
        nxt = []
        for nid in frontier:
            for dst, _line, how in g.edges.get(nid, ()):
                if how not in ("import", "package", "module") and dst not in out and \
                        dst in g.nodes and g.nodes[dst].kind == "function":
                    out.append(dst)
                    nxt.append(dst)
        frontier = nxt
    return out


def _clamped(facts, name: str) -> bool:
    """Whether the module that declares a model-chosen NAME caps it with a bound of its own:
    `min(timeout or DEFAULT, MAX_TIMEOUT)` (then the model picks only below the code's ceiling)."""
    if facts is None:
        return False
    ident = re.compile(rf"\b{re.escape(name)}\b")
    return any(c.short == "min" and len(c.args) >= 2 and any(ident.search(a) for a in c.args)
               and any(re.fullmatch(r"[A-Z][A-Z0-9_]*|\d[\d_.]*|[\w.]*(max|limit)\w*", a.strip(), re.I)
                       for a in c.args if not ident.search(a))
               for c in facts.calls)


_RESULT_SIZE = re.compile(r"max_(results?|keys|items|rows|records|lines|chars|characters|length|len|"
                          r"size|count|topics|hits|entries|pages|bytes|depth|width|height|matches|"
                          r"files|documents|docs|events|logs|spans|traces|metrics)$", re.I)

_STEP_WORD = re.compile(r"iter|step|turn|round|tool_?calls?|toolcalls?|loop|cycle|reflect", re.I)
# what a run spends: a cost or call budget stops the run as a step cap does
_SPEND_WORD = re.compile(r"cost|spend|budget|price|n_calls|num_calls|call_count|requests", re.I)


def _unset_unbounded(head: str, bound: str) -> bool:
    """Whether HEAD lets the loop run on while BOUND is unset (`b === undefined || ...`)."""
    b = re.escape(bound)
    return bool(re.search(rf"{b}\s*(===?\s*(undefined|null)|==\s*null)\s*\|\||!\s*{b}\s*\|\||"
                          rf"\|\|\s*{b}\s*(===?\s*(undefined|null))", head))


_SCHEMA_LIMIT = r"""["'](timeout|max_\w+|budget|time_limit|max_time)["']\s*:\s*(\{|ToolParameter|dict\(|Field\()"""


@probe("limits.model_settable_schema", ("C10",), "Keep limits out of the arguments the model fills.")
def model_settable_schema(index: RepoIndex):
    """Tool argument schemas with a timeout, max_* or budget field: the model sets that limit."""
    for h in index.live_hits([_SCHEMA_LIMIT], globs=("*.py",)):
        m = re.search(_SCHEMA_LIMIT, h.text)
        if m and _RESULT_SIZE.match(m.group(1)):  # how much one call returns, not how long a run is
            continue
        if m and _clamped(index.py.get(h.path), m.group(1)):  # `min(timeout, MAX_TIMEOUT)`
            continue
        yield finding("limits.model_settable", f"A tool's argument schema lets the model choose "
                      f"{m.group(1) if m else 'a limit'}.", h.path, h.line, name=m.group(1) if m else "")


# the model's tool-call arguments, by the names dispatch code and tool bodies give them
_ARGS = r"(?:arguments|args|tool_args|tool_arguments|params|parameters|tool_input|tool_params|inputs?)"
_ARG_SEARCH = _ARGS + r"""\s*(\[|\.get\()\s*["'](timeout|max_|budget|time_limit)"""
# a bare name (`stmt.args` is a workflow's own statement, not the model's call), read, not
# assigned (`params["max_tokens"] = ...` builds a request)
_ARG_LIMIT = re.compile(
    r"(?:^|[^\w.])" + _ARGS + r"""\s*(?:\[\s*["'](?P<a>timeout|max_\w+|budget|time_limit|max_time)"""
    r"""["']\s*\](?!\s*=[^=])|\.get\(\s*["'](?P<b>timeout|max_\w+|budget|time_limit|max_time)["'])""")


@probe("limits.model_settable_arg", ("C10",), "Keep limits out of the arguments the model fills.")
def model_settable_arg(index: RepoIndex):
    """Where code reads a limit out of the model's tool-call arguments (`arguments['timeout']`,
    `params.get("timeout", 60)`) and so runs the action with the bound the model chose: the line
    a reviewer cites, beside the schema field that lets the model fill it."""
    for h in index.live_hits([_ARG_SEARCH], globs=("*.py",)):
        m = _ARG_LIMIT.search(h.text)
        if m is None:
            continue
        name = m.group("a") or m.group("b")
        if _RESULT_SIZE.match(name):  # how much one call returns, not how long a run is
            continue
        if _clamped(index.py.get(h.path), name):  # `min(timeout, MAX_TIMEOUT)`
            continue
        yield finding("limits.model_settable", f"The action runs with the {name} the model put "
                      "in its tool-call arguments.", h.path, h.line, name=name, how="argument")


_SIZE_CMP = re.compile(r"\blen\(\s*(?P<x>[\w.\[\]'\"]+)\s*\)\s*(?:>=|>)\s*(?P<b>[\w.]+)")
# what one run takes (queued deliveries or pending tasks of a relay are not the run's actions)
_RUN_WORD = re.compile(r"action|call|step|plan|turn|iter|request|conversation|session|agent|"
                       r"loop|concurren|budget", re.I)
_TOOL_SET = re.compile(r"(?:^|[._])(?:tools|functions|toolsets)$", re.I)


@probe("limits.size_cap", ("C3", "C10"), "Bound how many tools a run holds and how many actions it takes.")
def size_caps(index: RepoIndex):
    """A collection the run builds compared with a bound and refused or cut when over it:
    `if len(tools) > max_tools: raise`, `if len(plan.actions) > budget: plan.actions =
    plan.actions[:budget]`, `if len(running) >= max_concurrent: return`. A list of tools is the
    tool set's size (C3, `of` = "tools"); actions, calls, tasks or sessions bound the run (C10)."""
    for facts in index.source_py():
        for b in facts.blocks:
            if b.kind not in ("if", "elif") or "len(" not in b.head:
                continue
            m = _SIZE_CMP.search(b.head)
            if m is None:
                continue
            x, bound = m.group("x"), m.group("b")
            if not (_LIMIT_WORD.search(bound) or re.fullmatch(r"[A-Z][A-Z0-9_]+", bound)):
                continue
            cut = any(f"{x}[:{bound}]" in index.line(facts.path, n).replace(" ", "")
                      for n in range(b.line + 1, min(b.end_line, b.line + 6) + 1))
            if not (cut or set(b.exits) & set("rx")):
                continue
            if _TOOL_SET.search(x):
                of = "tools"
            elif _RUN_WORD.search(x + " " + bound):
                of = "run"
            else:  # a message, text or result size: how much, not how many actions
                continue
            what = "cut to" if cut else "refused above"
            yield finding("limits.size_cap", f"{x} is {what} {bound} "
                          + ("(the tools one run may hold)." if of == "tools"
                             else "(actions one run may take)."),
                          facts.path, b.line, b.end_line if b.end_line - b.line < 4 else b.line,
                          bound=bound, of=of, func=b.func or "")


@probe("limits.exec_timeout", ("C10",), "Bound each action's run time.")
def exec_timeouts(index: RepoIndex):
    """Timeouts however enforced: future.result(timeout=...), asyncio.wait_for, signal.alarm,
    timeout decorators."""
    for facts, c in index.calls_named({"result", "wait_for", "alarm", "setitimer", "timeout"}):
        if c.short == "result" and (c.kw("timeout") or c.args):
            ok = True
        elif c.short == "wait_for" and (c.kw("timeout") or len(c.args) >= 2):
            ok = True
        elif c.callee in ("signal.alarm", "signal.setitimer"):
            ok = True
        else:
            ok = c.short == "timeout" and c.callee.startswith(("asyncio", "async_timeout", "anyio"))
        if ok:
            yield finding("limits.exec_timeout", f"{c.raw}(...) bounds how long the action may run.",
                          facts.path, c.line, func=c.func or "")
