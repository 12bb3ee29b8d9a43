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


# An unannotated getter that returns what an annotated factory builds (`def get_chat_model(self):
# return models.get_chat_model(...)`, whose `-> ChatWrapper` says the class): the caller's local
# has that class, so the turn loop reaches the wrapper's model call.
MODELS = '''from litellm import acompletion


class ChatWrapper:
    async def unified_call(self, messages):
        return await acompletion(model="m", messages=messages)


def get_chat_model(name: str) -> ChatWrapper:
    return ChatWrapper()


def get_untyped(name):
    return name
'''

AGENT = '''from pkg import models


class Agent:
    def get_chat_model(self):
        return models.{factory}("m")

    async def call_chat_model(self, messages):
        model = self.get_chat_model()
        return await model.unified_call(messages)

    async def monologue(self):
        while True:
            reply = await self.call_chat_model([])
            if reply:
                break
'''

RUN = '''import asyncio

from pkg.agent import Agent


def main():
    asyncio.run(Agent().monologue())
'''


def _agent_loops(tmp_path_factory, factory: str):
    m = modelled(tmp_path_factory, {
        "pyproject.toml": '[project]\nname = "pkg"\n[project.scripts]\npkg = "pkg.run:main"\n',
        "pkg/__init__.py": "", "pkg/models.py": MODELS, "pkg/run.py": RUN,
        "pkg/agent.py": AGENT.replace("{factory}", factory)})
    return [lp.node for lp in m.model.session.loops if lp.kind == "loop"]


def test_an_unannotated_getter_has_the_class_its_factory_is_annotated_to_return(tmp_path_factory):
    assert _agent_loops(tmp_path_factory, "get_chat_model")[:1] == ["pkg/agent.py::Agent.monologue"]


def test_a_getter_whose_factory_says_nothing_types_nothing(tmp_path_factory):
    assert _agent_loops(tmp_path_factory, "get_untyped") == []
