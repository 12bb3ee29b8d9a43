"""A local bound to what a method of the same class returns has the class the method is
annotated to return, a `Union[...]`/`X | None` member included (`agent = self.create_agent(r)`
with `-> Union[List[BaseAgent], BaseAgent]`): the orchestrator's `await agent.run()` reaches
every agent's `run`, and its loop is the agent loop."""

from __future__ import annotations

import pytest

from .repos import modelled

AGENTS = '''class BaseAgent:
    async def run(self):
        raise NotImplementedError


class CodeMonkey(BaseAgent):
    def __init__(self, llm):
        self.llm = llm

    async def run(self):
        return await self.llm.acompletion(["write code"])
'''

ORCH = '''from typing import List, Optional, Union

from pkg.agents import BaseAgent, CodeMonkey


class Orchestrator:
    def __init__(self, llm):
        self.llm = llm

    def create_agent(self, prev) -> {ann}:
        return CodeMonkey(self.llm)

    async def run(self):
        response = None
        while True:
            agent = self.create_agent(response)
            response = await agent.run()
            if response == "done":
                break
'''

MAIN = '''import asyncio

from pkg.orchestrator import Orchestrator


def main(llm):
    asyncio.run(Orchestrator(llm).run())
'''


def _loops(tmp_path_factory, ann: str):
    m = modelled(tmp_path_factory, {
        "pyproject.toml": '[project]\nname = "pkg"\n[project.scripts]\npkg = "pkg.main:main"\n',
        "pkg/__init__.py": "", "pkg/agents.py": AGENTS, "pkg/main.py": MAIN,
        "pkg/orchestrator.py": ORCH.replace("{ann}", ann)})
    return [lp.node for lp in m.model.session.loops]


@pytest.mark.parametrize("ann", ["BaseAgent", "Union[List[BaseAgent], BaseAgent]",
                                 "Optional[BaseAgent]", "BaseAgent | None", "None | BaseAgent"])
def test_the_orchestrator_loop_reaches_the_agents_it_creates(tmp_path_factory, ann):
    assert _loops(tmp_path_factory, ann)[:1] == ["pkg/orchestrator.py::Orchestrator.run"]


def test_a_factory_annotated_with_a_container_only_types_nothing(tmp_path_factory):
    assert "pkg/orchestrator.py::Orchestrator.run" not in _loops(tmp_path_factory, "List[BaseAgent]")
