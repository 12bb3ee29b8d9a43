"""The default session: the agent loop(s), what the model drives from them, and its executors.

- An **agent loop** is a `for`/`while` loop whose body calls a language model, directly or
  through a few calls (`while step < max_steps: self._step()` → `self.model.generate()`),
  on the scored path.
- **Model-driven** code is what the loops reach in the call graph: the tool dispatch and what
  the tools call. An exec sink there runs what the model chose; one elsewhere (a version check at
  start-up, a build step) is an orchestrator chore.
- **Executors** are the exec sinks of the library models on the scored path, by isolation class
  (host, in-process, kernel, container, remote sandbox, browser), model-driven or not, with the
  opt-in ones (another backend, a mode) apart.
"""

from __future__ import annotations

import re
from collections import deque
from dataclasses import dataclass, field

from ..index.pyfacts import Block
from .callgraph import MODULE, CallGraph
from .reach import Reach
from .semantics import matches

_LOOP_DEPTH = 6  # calls between a loop body and the model call it makes
_DRIVEN_DEPTH = 14


@dataclass(frozen=True)
class Loop:
    node: str  # the function holding the loop
    path: str
    line: int
    end_line: int
    head: str
    llm: tuple[tuple[str, int], ...]  # the model calls it reaches (path, line)
    depth: int  # calls from the loop body to the nearest model call
    kind: str = "loop"  # loop | framework (a library runs it) | step (event-driven: one step per call)
    items: bool = False  # a `for` over a collection or a stream, not over turns
    in_tool: bool = False  # in a tool's own body: the tool's work, not the agent's turn loop
    retry: bool = False  # goes round again when the model call fails: the client's retry loop

    def label(self) -> str:
        return f"{self.path}:{self.line}"


@dataclass(frozen=True)
class Sink:
    kind: str  # exec | network | ...
    cls: str  # isolation class for exec
    path: str
    line: int
    callee: str
    reach: str
    driven: bool  # reached from an agent loop
    row: str


@dataclass
class Session:
    loops: list[Loop] = field(default_factory=list)
    driven: dict[str, int] = field(default_factory=dict)  # node -> calls from the nearest loop
    inner: dict[str, int] = field(default_factory=dict)  # reached from the innermost loops
    parent: dict[str, tuple[str, int]] = field(default_factory=dict)  # node -> (caller, line)
    sinks: list[Sink] = field(default_factory=list)

    def path_to(self, nid: str, limit: int = 12) -> list[tuple[str, int]]:
        """The calls from an agent loop to NID: (caller node, call line), loop first."""
        out: list[tuple[str, int]] = []
        seen = set()
        while nid in self.parent and nid not in seen and len(out) < limit:
            seen.add(nid)
            src, line = self.parent[nid]
            out.append((src, line))
            nid = src
        out.reverse()
        return out

    def executors(self, cls: str | None = None, *, reach: str = "default",
                  driven: bool | None = None) -> list[Sink]:
        out = []
        for s in self.sinks:
            if s.kind != "exec" or (cls and s.cls != cls):
                continue
            r = s.reach.split(":")[0]
            if reach == "default" and r not in ("default", "library"):
                continue
            if reach == "opt-in" and r != "opt-in":
                continue
            if driven is not None and s.driven != driven:
                continue
            out.append(s)
        return out

    def is_driven(self, graph: CallGraph, path: str, line: int) -> bool:
        return graph.node_at(path, line) in self.driven


def build(index, graph: CallGraph, reach: Reach) -> Session:
    sem = matches(index)
    session = Session()
    on_path = ("default", "library")
    llm_sites = [(f.path, c.line) for f, c, _r in sem.get("llm", ())
                 if reach.of(f.path, c.line).split(":")[0] in on_path]
    llm_sites += _asks(index, reach, set(llm_sites))
    framework = [(f.path, c.line, c.func) for f, c, _r in sem.get("agent_loop", ())
                 if reach.of(f.path, c.line).split(":")[0] in on_path]
    rev = _callers(graph) if llm_sites or framework else {}
    session.loops = _loops(index, graph, reach, llm_sites + [(p, ln) for p, ln, _f in framework],
                           rev)
    for path, line, func in framework:  # the framework's run call is the loop itself
        nid = graph.node_at(path, line)
        if not any(lp.node == nid for lp in session.loops):
            session.loops.append(Loop(nid, path, line, line, "framework run", ((path, line),), 0,
                                      kind="framework"))
    # A near, non-tool loop makes the agent loop-driven, unless every loop maps work over
    # items (`for query in queries: ask(query)`): then none is the agent's turns, and the agent
    # is event-driven (a pipeline run per message).
    turns = any(lp.kind == "framework" or not lp.items for lp in session.loops)
    strong = [lp for lp in session.loops if turns and (lp.kind == "framework" or
                                                       (lp.depth <= 1 and not lp.in_tool))]
    steps = _steps(index, graph, reach, llm_sites, rev)
    if not strong:  # event-driven agents: one model step per event
        # unless a loop's own body calls the step (`while True: self.step()`): that loop is the
        # agent's turn loop, the step what each turn runs
        driving = [lp for lp in session.loops if lp.kind == "loop" and _TURN_HEAD.search(lp.head)
                   and _calls_step(graph, lp, steps)]
        session.loops = driving[:1] + steps + [lp for lp in session.loops if lp not in driving[:1]]
    else:  # a loop was found, but a function named as the agent's step still drives the model
        session.loops += [st for st in steps if "step" in st.node.rsplit(".", 1)[-1].lower()
                          and not any(lp.node == st.node for lp in session.loops)][:1]
    # The model drives what the innermost loops reach: a REPL or UI loop around the agent loop
    # also runs the person's own commands, which are not the model's.
    real = [lp for lp in session.loops if lp.kind in ("loop", "framework")]
    depth = min((lp.depth for lp in real), default=None)
    seeds = [lp for lp in real if lp.depth == depth] if strong else \
        [lp for lp in session.loops if lp.kind == "step"] or session.loops
    # what any loop reaches (the call graph cannot always see the inner loop's dispatch), and
    # the calls from the innermost loops, which evidence follows to the model's executors
    session.driven, _ = _driven(graph, reach, session.loops, by_name=True)
    session.inner, session.parent = _driven(graph, reach, seeds)
    for kind in ("exec",):
        for facts, call, row in sem.get(kind, ()):
            r = reach.of(facts.path, call.line)
            if r == "off-path":
                continue
            nid = graph.node_at(facts.path, call.line)
            session.sinks.append(Sink(kind, str(row.get("class", "")), facts.path, call.line,
                                      call.callee, r, nid in session.driven, row.id))
    return session


def _callers(graph: CallGraph) -> dict[str, list[tuple[str, int]]]:
    """The callers of each node by call edges, overriding methods included (virtual dispatch):
    dst -> [(src, line)]. Built once per session for both the loop and the step search."""
    rev: dict[str, list[tuple[str, int]]] = {}
    for src, edges in graph.edges.items():
        for dst, line, how in edges:
            if how in ("import", "package", "module", "nested", "decorator"):
                continue
            rev.setdefault(dst, []).append((src, line))
            for o in graph.overrides(dst):
                rev.setdefault(o, []).append((src, line))
    return rev


def _loops(index, graph: CallGraph, reach: Reach, llm_sites, rev) -> list[Loop]:
    if not llm_sites:
        return []
    dist, sites_of = _model_distance(graph, llm_sites, rev)
    found: list[Loop] = []
    tool_classes: dict[str, bool] = {}
    for nid, d in dist.items():
        node = graph.nodes.get(nid)
        if node is None or node.kind != "function":
            continue
        facts = index.py.get(node.path)
        if facts is None:
            continue
        blocks = [b for b in facts.blocks if b.func == node.qualname and b.kind in ("for", "while")]
        if not blocks:
            continue
        if reach.of(node.path, node.line).split(":")[0] not in ("default", "library"):
            continue
        for b in blocks:
            if _RETRY.search(b.head) or _retry_count(b) or \
                    _calls_in_head(b, sites_of.get(nid, []), node.path):
                continue  # a retry loop around the call, or a stream of its chunks
            depth = _body_depth(graph, nid, b, dist, sites_of.get(nid, []))
            if depth is not None:
                found.append(Loop(nid, node.path, b.line, b.end_line, b.head,
                                  tuple(sites_of.get(nid, [])[:3]), depth,
                                  items=_over_items(b),
                                  in_tool=_in_tool(index, graph, node, tool_classes),
                                  retry=_retries_call(facts, b, graph, nid, dist,
                                                      sites_of.get(nid, []))))
    # the outermost loops first, nearest the entry points. A loop in a tool's own body (a tool
    # that asks the model per file) is the tool's work; a loop whose handler retries the
    # failed model call is the client's; a `for` over a collection the code holds (`for
    # guardrail in self._guardrails`) or over a stream maps work over items: all come after
    # the `while` and counted loops that are the agent's turns. (A retry loop still holds
    # the model call: where the model's answer is handled is what it reaches.)
    found.sort(key=lambda lp: (lp.in_tool, lp.retry, lp.items, _rank_distance(reach, lp),
                               lp.depth, lp.path, lp.line))
    return _drop_nested(found)


def _rank_distance(reach: Reach, lp: Loop) -> int:
    """Calls from the entry points to LP, for ranking loops nearest first. Off the reached
    graph ranks last; so does a loop in the entry function itself (`main`'s REPL or restart
    loop around the agent), after the loops it calls into."""
    return reach.distance(lp.path, lp.line) or 999


# a `for` over turns: a counter (`range(max_steps)`, `itertools.count()`) or a loop variable or
# iterable named as steps or turns (`for step in agent.run_steps()`; `intermediate_steps` is a
# collection of past ones)
_COUNTED = re.compile(r"^(?:itertools\.)?(?:range|count)\(")
_TURN_WORD = re.compile(r"\b_?(?:steps?|turns?|iterations?|iters?|rounds?)\b", re.I)


def _over_items(b: Block) -> bool:
    """Whether the loop B maps work over items: a `for` over a collection or a stream
    (`enumerate(self._guardrails)`, `config.all_llms()`, `outputs["files"]`), not over turns."""
    head = b.head.strip()
    if ";" in head:  # a C-style `for (let i = 0; i < max; i++)` counts turns
        return False
    return b.kind == "for" and not _COUNTED.match(head) and \
        not _TURN_WORD.search(b.target) and not _TURN_WORD.search(head)


# a class whose base is named as a tool's (`class ImproveCodeTool(BaseTool)`)
TOOL_BASE = re.compile(r"(?:^|\.)(BaseTool|Tool|StructuredTool|FunctionTool|AsyncTool)$")


def _in_tool(index, graph: CallGraph, node, memo: dict[str, bool]) -> bool:
    """Whether NODE is a method of a tool class: one named as a tool base (`BaseTool` itself)
    or whose base, along the repository's hierarchy, is."""
    if not node.cls:
        return False
    cid = f"{node.path}::{node.cls}"
    if cid not in memo:
        memo[cid] = False
        for c in graph.mro(cid):
            path, _sep, qual = c.partition("::")
            facts = index.py.get(path)
            if TOOL_BASE.search(qual.rsplit(".", 1)[-1]) or facts and any(
                    k.qualname == qual and any(TOOL_BASE.search(b.split("[")[0]) for b in k.bases)
                    for k in facts.classes):
                memo[cid] = True
                break
    return memo[cid]


def _retries_call(facts, b: Block, graph: CallGraph, nid: str, dist: dict[str, int],
                  own_sites) -> bool:
    """Whether loop B retries its model call: the call sits in a `try` of the loop whose
    handler goes round again (`except RateLimitError: sleep(); continue`)."""
    inner = [x for x in facts.blocks if x.func == b.func and b.line < x.line <= b.end_line]
    loops = [x for x in inner if x.kind in ("for", "while")]
    handlers = [e for e in inner if e.kind == "except" and "c" in e.exits and
                not any(lp.line < e.line <= lp.end_line for lp in loops)]  # `continue`s b
    if not handlers:
        return False
    calls = [ln for p, ln in own_sites if p == facts.path and b.line <= ln <= b.end_line]
    calls += [ln for dst, ln, how in graph.edges.get(nid, ())
              if b.line <= ln <= b.end_line and how not in ("import", "package", "module", "nested")
              and any(dist.get(t, 99) <= dist.get(nid, 0) for t in [dst] + graph.overrides(dst))]
    for t in inner:
        if t.kind != "try":
            continue
        mine = [e for e in handlers if t.line < e.line <= t.end_line]
        if mine and any(t.line <= ln < min(e.line for e in mine) for ln in calls):
            return True
    return False


_RETRY = re.compile(r"attempt|retr|tries|backoff", re.I)
# `for attempt in range(3)`: a counted loop whose variable names an attempt (the iterable
# alone says nothing: range(3))
_RETRY_TARGET = re.compile(r"^_?(?:\w+_)?(?:attempts?|retry|retries|tries|try)(?:_\w+)?$", re.I)


def _retry_count(b) -> bool:
    return b.kind == "for" and bool(_RETRY_TARGET.match(b.target.strip())) and \
        b.head.strip().startswith("range(")
# methods of a class that holds a model call and that callers use to ask the model
_ASK = re.compile(r"^(a?completion|complete|a?generate\w*|a?chat\w*|a?invoke|call|__call__|query|ask|"
                  r"predict|respond|run_llm|call_llm|llm_call|a?inference|a?infer)$")


_ASKER = re.compile(r"(^|\.)(_?llm|_?model|_?client|chat_model|_?lm|provider|llm_client|model_backend|"
                    r"_?backend|\w+_llm|llm_\w+)(?:\.(\w+))?$")


_HANDLE = re.compile(r"client|provider|backend")


def _asks(index, reach: Reach, known) -> list[tuple[str, int]]:
    """Calls that ask a model through an object the code names as one (`self.llm.completion(...)`,
    `interpreter.llm.run(...)`, `self.model.generate(...)`): model calls whose client class the
    static reader cannot see."""
    out = []
    # the regexes' verdict per distinct call text: 0 not an ask, 1 the model object called
    # itself, 2 an asking method of it (a repository has far fewer texts than calls)
    verdicts: dict[str, int] = {}
    for facts, c in index.all_calls():
        verdict = verdicts.get(c.raw)
        if verdict is None:
            verdict = verdicts[c.raw] = _ask_verdict(c.raw)
        if verdict == 0:
            continue
        if verdict == 1 and not (c.args or c.kwargs):  # llm(messages, tools=...) asks; llm() not
            continue
        if (facts.path, c.line) in known:
            continue
        if reach.of(facts.path, c.line).split(":")[0] in ("default", "library"):
            out.append((facts.path, c.line))
    return out


def _ask_verdict(raw: str) -> int:
    m = _ASKER.search(raw)
    if not m:
        return 0
    method = m.group(3)
    if method is None:
        # the object itself called (`llm(messages)`, `self.model(prompt)`); a client, provider
        # or backend called bare is a factory or a context (`with backend(name, timeout=t)`)
        return 0 if _HANDLE.search(m.group(2)) else 1
    if _HANDLE.search(m.group(2)) and method in _CLIENT_VERBS:
        # a client, provider or backend is as often a database, HTTP or RPC one: on such a
        # handle a model's own verbs ask (`client.chat(...)`, LangChain's `client.invoke(p)`),
        # the verbs every client has do not (`client.query(...)`, `client.stream("GET", u)`)
        return 0
    return 2 if _ASK.match(method) or method in ("run", "stream", "create") else 0


# verbs a database, HTTP or RPC client has as much as a model client
_CLIENT_VERBS = frozenset({"query", "stream", "create", "call", "__call__"})


def _calls_in_head(b: Block, sites, path: str) -> bool:
    """Whether a model call sits in the loop's own header (`for chunk in client.create(...)`)."""
    head_lines = b.head.count("\n") + 1
    return any(p == path and b.line <= ln < b.line + head_lines for p, ln in sites)


def _model_distance(graph: CallGraph, llm_sites, rev):
    """Calls from each function to the nearest model call (callers walked backwards), and the
    model calls it leads to. The asking methods of a class that wraps the model client
    (`LLM.completion`, `Model.generate`) count as model calls themselves."""
    dist: dict[str, int] = {}
    sites_of: dict[str, list[tuple[str, int]]] = {}
    queue: deque[str] = deque()

    def seed(nid: str, site) -> None:
        sites_of.setdefault(nid, []).append(site)
        if nid not in dist:
            dist[nid] = 0
            queue.append(nid)

    for path, line in llm_sites:
        nid = graph.node_at(path, line)
        seed(nid, (path, line))
        node = graph.nodes.get(nid)
        if node is not None and node.cls:
            for name, mid in graph.methods.get(f"{node.path}::{node.cls}", {}).items():
                if _ASK.match(name):
                    seed(mid, (path, line))
    while queue:
        nid = queue.popleft()
        if dist[nid] >= _LOOP_DEPTH:
            continue
        for src, _line in rev.get(nid, ()):
            if src not in dist:
                dist[src] = dist[nid] + 1
                sites_of.setdefault(src, sites_of.get(nid, []))
                queue.append(src)
    return dist, sites_of


def _steps(index, graph: CallGraph, reach: Reach, llm_sites, rev) -> list[Loop]:
    """No loop around the model call (an event-driven agent: one step per event): the nearest
    functions on the scored path that ask the model through one or two calls stand for it.
    REV: the callers of each node (_callers)."""
    dist, sites_of = _model_distance(graph, llm_sites, rev)
    out = []
    tool_classes: dict[str, bool] = {}
    for nid, d in dist.items():
        node = graph.nodes.get(nid)
        if node is None or node.kind != "function" or d not in (1, 2):
            continue
        if reach.of(node.path, node.line) != "default":
            continue
        out.append(Loop(nid, node.path, node.line, node.end_line, "one step per event",
                        tuple(sites_of.get(nid, [])[:3]), d, kind="step",
                        in_tool=_in_tool(index, graph, node, tool_classes)))
    # a caller of another step (the route that hands each event to the handler's step) is
    # not a step of its own
    nearer = {lp.node for lp in out if lp.depth == 1}
    out = [lp for lp in out if lp.depth == 1 or
           not any(src == lp.node for n in nearer for src, _line in rev.get(n, ()))]
    # a function called per step (`_step`, `run_step`) first, then the nearest the model call;
    # a tool's own method (a tool that asks the model) last
    out.sort(key=lambda lp: (lp.in_tool, "step" not in lp.node.rsplit(".", 1)[-1].lower(), lp.depth,
                             _rank_distance(reach, lp), lp.path, lp.line))
    return out[:3]


def _body_depth(graph: CallGraph, nid: str, b: Block, dist: dict[str, int],
                own_sites) -> int | None:
    """Calls from the loop body B of NID to the nearest model call, or None if it makes none."""
    best = None
    for path, line in own_sites:
        if path == graph.nodes[nid].path and b.line <= line <= b.end_line:
            best = 0
    for dst, line, how in graph.edges.get(nid, ()):
        if not (b.line <= line <= b.end_line) or how in ("import", "package", "module", "nested"):
            continue
        for t in [dst] + graph.overrides(dst):
            d = dist.get(t)
            if d is not None and (best is None or d + 1 < best):
                best = d + 1
    return best


def _drop_nested(loops: list[Loop]) -> list[Loop]:
    """A loop inside another loop of the same function is the same agent loop."""
    out = []
    for lp in loops:
        if any(o.node == lp.node and o.line <= lp.line and lp.end_line <= o.end_line for o in out):
            continue
        out.append(lp)
    return out


# the head of a loop over turns (`while True`, `while not self.done`, `for step in range(n)`),
# not a map over items (`for patch in zip(...)`)
_TURN_HEAD = re.compile(r"^\s*(True|1)\s*$|^\s*not\b|step|turn|iter|round|done|finish|stop|"
                        r"running|range\(", re.I)


def _calls_step(graph: CallGraph, lp: Loop, steps: list[Loop]) -> bool:
    """Whether a call in LP's body (past its head) reaches one of STEPS' functions directly (an
    override of it included)."""
    step_nodes = {st.node for st in steps}
    if not step_nodes:
        return False
    head_end = lp.line + lp.head.count("\n")
    for dst, line, how in graph.edges.get(lp.node, ()):
        if not head_end < line <= lp.end_line or how in ("import", "package", "module", "nested"):
            continue
        if dst in step_nodes or any(o in step_nodes for o in graph.overrides(dst)):
            return True
    return False


def _driven(graph: CallGraph, reach: Reach, loops: list[Loop], by_name: bool = False):
    """Nodes the agent loops reach by calls (not imports), with their distance, and the call
    (caller, line) each was first reached through. BY_NAME: a call on a receiver of unknown
    class reaches the one method of that name the repository defines (the loops' whole reach;
    the innermost loop's stays on resolved calls, so what the model's own step runs is never
    widened by a guess)."""
    dist: dict[str, int] = {}
    parent: dict[str, tuple[str, int]] = {}
    queue: deque[str] = deque()
    unique = _unique_methods(graph) if by_name else {}
    for lp in loops:
        if lp.node not in dist:
            dist[lp.node] = 0
            queue.append(lp.node)
    while queue:
        nid = queue.popleft()
        d = dist[nid]
        if d >= _DRIVEN_DEPTH:
            continue
        for dst, line, how in graph.edges.get(nid, ()):
            if how in ("import", "package", "module") or dst.endswith(MODULE):
                continue
            if not reach._follow(nid, line, how):
                continue
            targets = [dst] + graph.overrides(dst)
            if graph.nodes[dst].kind == "class":  # constructing runs __init__ (and __call__ later)
                targets += [m for m in (graph.method(dst, "__init__"), graph.method(dst, "__call__"))
                            if m]
            for t in targets:
                if t not in dist:
                    dist[t] = d + 1
                    parent[t] = (nid, line)
                    queue.append(t)
        # `self.io.confirm_ask(...)` on a receiver of unknown class: the one live method of that
        # name anywhere in the repository is what runs. A name two classes define stays open.
        at = graph.called_at.get(nid, {})
        for name in at:  # (the names in source order: a set's order changes per process)
            t = unique.get(name)
            if t is None or t in dist or t not in reach.dist:
                continue
            lines = [ln for ln in at.get(name, ()) if reach._follow(nid, ln, "call")]
            if lines:
                dist[t] = d + 1
                parent[t] = (nid, lines[0])
                queue.append(t)
    return dist, parent


def _unique_methods(graph: CallGraph) -> dict[str, str]:
    """Method name -> its node, for the names exactly one class of the repository defines."""
    seen: dict[str, str | None] = {}
    for methods in graph.methods.values():
        for name, mid in methods.items():
            if name.startswith("__"):
                continue
            seen[name] = mid if name not in seen else None
    return {name: mid for name, mid in seen.items() if mid is not None}
