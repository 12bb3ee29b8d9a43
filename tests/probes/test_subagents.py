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


CLI = {
    "pyproject.toml": '[project]\nname = "orch"\n[project.scripts]\norch = "orch.main:main"\n',
    "orch/__init__.py": "",
    "orch/main.py": '''import litellm

from orch.tools import TOOLS


def main():
    messages = []
    while True:
        reply = litellm.completion(model="m", messages=messages, tools=list(TOOLS))
        for call in reply.tool_calls:
            messages.append(TOOLS[call.name](**call.arguments))
''',
    "orch/tools.py": '''from orch.registry import tool


@tool
def delegate_to_agent(task: str) -> str:
    return task


@tool
def summarize(text: str) -> str:
    return text[:100]


TOOLS = {"delegate_to_agent": delegate_to_agent, "summarize": summarize}
''',
    "orch/registry.py": "def tool(fn):\n    return fn\n",
}


def test_a_default_tool_that_starts_an_agent_puts_sub_agents_on_the_surface(tmp_path_factory):
    from dids.criteria.base import Context
    from dids.rubric import load_rubric
    from dids.surface import surface
    from tests.agentmodel.repos import modelled

    def subs(files):
        m = modelled(tmp_path_factory, files)
        return surface(Context(index=m.index, findings=m.findings(), rubric=load_rubric()))[0]["sub_agents"]

    assert subs(CLI) == "yes"
    renamed = CLI["orch/tools.py"].replace("delegate_to_agent", "lookup_record")
    assert subs({**CLI, "orch/tools.py": renamed}) == "no"
