"""agents.sub: tools that start another agent, and fields listing delegate agents."""

from __future__ import annotations

from .family import line_of
from .helpers import probe_findings

SRC = '''from agent.registry import tool


class Orchestrator:
    managed_agents = []


@tool
def delegate_to_agent(task: str) -> str:
    return run_child(task)


@tool
def summarize(text: str) -> str:
    return text[:100]
'''


def test_sub_agents_fire_on_delegating_tools_and_fields(repo):
    found = probe_findings(repo, {"agent/orchestrator.py": SRC, "agent/registry.py":
                                  "def tool(fn):\n    return fn\n"}, "agents.sub")
    assert [(f.location.start_line, f.data["how"]) for f in found] == [
        (line_of(SRC, "managed_agents = []"), "field"),
        (line_of(SRC, "def delegate_to_agent"), "tool"),
    ]


def test_sub_agents_near_misses(repo):
    files = {
        "tests/test_orchestrator.py": SRC,
        "docs/agents.md": "Use delegate_to_agent(task) and managed_agents.",
        "agent/notes.py": '"""managed_agents = [] lists delegates."""\n# def delegate_to_agent(task)\n',
    }
    assert probe_findings(repo, files, "agents.sub") == []
