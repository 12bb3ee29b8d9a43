"""Facts several criteria share, computed once per report from the session and the findings.

- **exec paths**: every place that runs code or a command (process spawns, in-process exec,
  the restricted interpreter, kernels, containers, remote sandboxes), with its isolation class,
  the environment it passes, whether the model drives it (the agent loop reaches it) and its
  reach. C1, C4 and C8 judge what the *model's* executors can reach, not an installer's spawn.
- **telemetry senders**: each sender with whether it is on by default and what it carries
  (C8 D, C9).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from ..models import Finding

_CLASS_RANK = {"inprocess": 0, "host": 0, "kernel": 0, "restricted": 1, "filtered": 1,
               "container": 2, "browser": 2, "jail": 3, "remote": 3}


@dataclass(frozen=True)
class ExecPath:
    finding: Finding
    cls: str  # inprocess | host | kernel | restricted | container | remote | browser | jail
    env: str  # inherit | full | filtered | constructed | process (shares the agent's) | unknown
    driven: bool  # the agent loop reaches it
    reach: str  # default | library | opt-in:<setting>

    @property
    def opt_in(self) -> bool:
        return self.reach.startswith("opt-in")

    @property
    def holds_agent_env(self) -> bool:
        """Whether code run here can read the agent process's environment and credentials."""
        return self.cls in ("inprocess", "restricted", "kernel") or \
            (self.cls == "host" and self.env in ("inherit", "full", "filtered", "unknown"))


class Shared:
    def __init__(self, ctx):
        self.ctx = ctx
        self._tier: dict[int, int] = {}

    @cached_property
    def has_session(self) -> bool:
        model = self.ctx.index.agent
        return model is not None and bool(model.session.loops)

    def _driven(self, f: Finding) -> int:
        """2: a tool or the innermost agent loop reaches it; 1: only an outer loop does (a
        REPL around the agent also runs the person's own commands); 0: neither."""
        model = self.ctx.index.agent
        if model is None or not model.session.loops or f.location is None:
            return 2  # no loop found: every live exec path may be the model's
        nid = model.graph.node_at(f.location.path, f.location.start_line)
        if nid in model.session.inner or nid in self.tool_driven:
            return 2
        return 1 if nid in model.session.driven else 0

    @cached_property
    def tool_driven(self) -> set[str]:
        """Nodes the registered tools reach: the model calls a tool, the tool calls these."""
        return reached_from_tools(self.ctx, self.ctx.findings["tools.inventory"])

    @cached_property
    def exec_paths(self) -> list[ExecPath]:
        f = self.ctx.findings
        out: list[ExecPath] = []
        seen: set[tuple[str, int]] = set()

        def add(x: Finding, cls: str, env: str) -> None:
            if x.location is None:
                return
            key = (x.location.path, x.location.start_line)
            if key in seen:
                return
            seen.add(key)
            tier = self._driven(x)
            self._tier[id(x)] = tier
            out.append(ExecPath(x, cls, env, tier > 0, str(x.data.get("reach", "default"))))

        for x in f["exec.restricted"]:
            add(x, "restricted", "process")
        for x in f["exec.wrapper"]:
            strength = int(x.data.get("strength", 2))
            add(x, "remote" if x.data.get("wrapper") == "remote-sandbox" else
                ("jail" if strength >= 3 else "container"), "constructed")
        for x in f["exec.spawn"]:  # first: a spawn's finding carries the environment it passes
            add(x, "host", str(x.data.get("env", "unknown")))
        for x in f["sem.exec"]:
            if x.data.get("role") == "daemon":
                continue  # the orchestrator's docker handle is not where model code runs
            cls = str(x.data.get("class", "host"))
            add(x, cls, "process" if cls in ("inprocess", "kernel") else "unknown")
        return out

    def model_exec(self, *, opt_in: bool = False, browser: bool = False) -> list[ExecPath]:
        """Exec paths the model drives on the scored path (or, with OPT_IN, behind a setting):
        reached from a tool or the innermost agent loop (else, when none is, from an outer
        loop), running a command the code does not fix. Script run in a browser page counts
        only with BROWSER: it holds no process, file or key of the agent's (C4 and the surface
        line ask about it; what the model's processes can read or rewrite does not)."""
        cands = [p for p in self.exec_paths if p.driven and p.opt_in == opt_in
                 and not p.finding.data.get("fixed") and (browser or p.cls != "browser")]
        best = [p for p in cands if self._tier.get(id(p.finding), 2) == 2]
        return sorted(best or cands, key=lambda p: self.exec_rank(p.finding))

    def exec_rank(self, x: Finding) -> tuple[int, int]:
        """Sort key of a spawn as evidence: what a tool or the innermost loop drives first, then
        what an outer loop drives, then the orchestrator's own; within each, a command the
        caller hands in (the model's, passed down to an executor) before one the code reads
        from its own settings (a notification command run when the agent rings a bell), and a
        command line through a shell (what a model writes) before an argv list."""
        if not self._tier:
            self.exec_paths  # noqa: B018 (fills _tier)
        return (-self._tier.get(id(x), 0), 0 if x.data.get("handed_in") else 1,
                0 if x.data.get("shell") else 1)

    @cached_property
    def model_commands(self) -> list[ExecPath]:
        """Model-driven executors of commands the caller hands in (the model's command lines),
        on the host or in a sandbox: what runs when no tool is registered."""
        return [p for p in self.model_exec() if p.cls in ("host", "container", "jail", "remote")
                and p.finding.data.get("handed_in")]

    @cached_property
    def package_interpreters(self) -> list[ExecPath]:
        """Code executors of the package's own on the scored path (a kernel, or an in-process
        interpreter handed its code): where no loop is found to reach a tool, they stand in for
        the agent's action (roles wired by name from a registry the call graph does not follow)."""
        return [p for p in self.exec_paths if not p.opt_in and p.reach in ("default", "library")
                and (p.cls == "kernel" or (p.cls in ("inprocess", "restricted")
                                           and p.finding.data.get("handed_in")))]

    @cached_property
    def model_exec_env_leaks(self) -> list[ExecPath]:
        """Model-driven exec paths whose code can read the agent's environment."""
        return [p for p in self.model_exec() if p.holds_agent_env]

    @cached_property
    def default_sandboxes(self) -> list[ExecPath]:
        """Container, jail or remote executors on the scored path (not behind a setting)."""
        return [p for p in self.exec_paths if not p.opt_in and p.cls in ("container", "jail", "remote")]


def reached_from_tools(ctx, tools) -> set[str]:
    """Call-graph nodes TOOLS (tool findings) reach: a tool's function or class and its methods,
    and what they call, transitively (bounded)."""
    model = ctx.index.agent
    if model is None:
        return set()
    g = model.graph
    seeds = set()
    for t in tools:
        if t.location is None or t.data.get("disabled"):
            continue
        nid = g.node_at(t.location.path, t.location.start_line)
        seeds.add(nid)
        node = g.nodes.get(nid)
        if node is not None and node.kind == "class":
            seeds.update(g.methods.get(nid, {}).values())
    out, stack = set(seeds), list(seeds)
    while stack:
        nid = stack.pop()
        for dst, _line, how in g.edges.get(nid, ()):
            if how in ("import", "package", "module") or dst in out:
                continue
            out.add(dst)
            stack.append(dst)
            if len(out) > 20_000:
                return out
    return out


def shared(ctx) -> Shared:
    got = getattr(ctx, "_shared", None)
    if got is None:
        got = Shared(ctx)
        ctx._shared = got
    return got


def gate_state(ctx) -> dict:
    """The human decisions on the model's path (C2 and C5 share them): default gates, whether
    one sits at the chokepoint every tool passes, and opt-in ones."""
    sh = shared(ctx)
    got = getattr(sh, "_gates", None)
    if got is not None:
        return got
    gates = [g for g in ctx.findings["approval.gate"] if str(g.data.get("reach", "default")) != "off-path"]
    exempt = [g for g in gates if g.data.get("how") == "exempt"]
    bypass = [g for g in gates if g.data.get("how") == "autoapprove"]
    gates = [g for g in gates if g.data.get("how") not in ("exempt", "autoapprove")]
    on = [g for g in gates if str(g.data.get("reach", "default")) == "default"] if sh.has_session \
        else [g for g in gates if str(g.data.get("reach", "default")) in ("default", "library")]
    opt = [g for g in gates if str(g.data.get("reach", "")).startswith("opt-in")]
    triggers = [g for g in gates if g.data.get("in_tool") and g.data.get("how") == "state"
                and not str(g.data.get("reach", "")).startswith("opt-in")]
    chokepoint = [g for g in on if not g.data.get("in_tool")] if not triggers else []
    got = {"all": gates, "on": on, "opt": opt, "triggers": triggers, "chokepoint": chokepoint,
           "exempt": exempt, "bypass": bypass}
    sh._gates = got
    return got


def toolless_loops(ctx) -> list:
    """The agent loops on the scored path when the default session gives the model nothing to
    act with (no tool, no model-driven executor, no command it writes that code runs): the code
    decides what is done with each reply. Empty otherwise."""
    from .c3_scoping import default_tools

    sh = shared(ctx)
    if default_tools(ctx) or sh.model_exec(browser=True) or sh.model_commands or \
            sh.package_interpreters:
        return []
    return [x for x in ctx.findings["agent.loop"]
            if str(x.data.get("reach", "default")).split(":")[0] in ("default", "library")]


def read_only_surface(ctx) -> bool:
    """Whether the default session's tools only read (no exec, file writes or shells; a ticket
    or two may be opened) and the model writes no code that runs."""
    from .c3_scoping import caps, default_tools

    tools = default_tools(ctx)
    code = [p for p in shared(ctx).model_exec() if p.cls in ("restricted", "inprocess", "kernel")]
    writes = [t for t in tools if caps(t) & {"exec", "fs_write", "external_comm", "shell"}]
    return bool(tools) and not code and not any(caps(t) & {"exec", "fs_write", "shell"} for t in tools) \
        and len(writes) <= 2 and len(tools) > 2 * len(writes)
