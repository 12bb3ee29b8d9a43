"""Sub-agent family: tools or fields through which an agent starts or hands off to other agents."""

from __future__ import annotations

import re

from ..index.repo import RepoIndex
from .base import Names, finding, probe

_DELEGATE = Names(r"agent|delegate|handoff|subtask|sub_task|worker", re.I)
_PROMPT = re.compile(r"^(prompt|user_prompt|task|instructions|query|goal)$")
_FIELD = re.compile(r"^(managed_agents|sub_agents|subagents|handoffs|delegates)$")
# the name of a tool that starts another agent, read where no parameter can be checked (the
# TypeScript tools the surface line sees): a verb with "agent", or a delegation word
DELEGATE_TOOL = re.compile(r"(spawn|invoke|run|start|call|launch|create|new)_?(sub_?)?agent|"
                           r"sub_?agent|delegat|handoff|subtask|teammate", re.I)


@probe("agents.sub", ("C2", "C10"), "Give sub-agents the parent's gates and one shared budget.")
def sub_agents(index: RepoIndex):
    """Tools that start another agent from a prompt, and agent fields listing sub-agents."""
    from .tools import _decorated_tools

    for facts in index.source_py():
        for d, _dec, _ in _decorated_tools(facts):
            if _DELEGATE.search(d.name) and any(_PROMPT.match(p.name) for p in d.params):
                yield finding("agents.sub", f"Tool {d.name} starts another agent from a prompt.",
                              facts.path, d.line, how="tool")
        for a in facts.assigns:
            if a.scope_kind in ("class", "function") and _FIELD.match(a.target.split(".")[-1]):
                yield finding("agents.sub", f"{a.target} holds the agents this one can delegate to.",
                              facts.path, a.line, how="field")
