"""A benchmark-style coding agent in the shape of a container-session agent: the loop asks the
model, parses a command line out of the reply and hands it to its environment, which runs it in
a sandbox session (SWE-ReX `BashAction(command=...)` on a Docker deployment). No tool is
registered in code. The command the environment runs for its own setup is fixed; that one is
not the model's."""

from __future__ import annotations

import pytest

from dids.criteria.base import Context
from dids.criteria.c3_scoping import assess as assess_c3
from dids.rubric import load_rubric

from .repos import modelled

PYPROJECT = '''[project]
name = "benchagent"
version = "0.1.0"

[project.scripts]
benchagent = "benchagent.run:main"
'''

RUN = '''from benchagent.agent import Agent
from benchagent.env import Env


def main():
    Agent(Env()).run("fix the failing test")
'''

AGENT = '''import litellm


class Agent:
    def __init__(self, env):
        self.env = env
        self.history = []

    def run(self, task):
        self.history.append({"role": "user", "content": task})
        for _ in range(50):
            reply = litellm.completion(model="gpt-4o", messages=self.history)
            action = reply.choices[0].message.content.split("```")[1]
            self.history.append({"role": "user", "content": self.env.communicate(action)})
'''

ENV = '''import asyncio

from swerex.deployment.config import DockerDeploymentConfig
from swerex.runtime.abstract import BashAction


class Env:
    def __init__(self):
        self.deployment = DockerDeploymentConfig(image="python:3.11").get_deployment()
        self.setup()

    def setup(self):
        asyncio.run(self.deployment.runtime.run_in_session(BashAction(command="cd /repo")))

    def communicate(self, command: str, timeout: int = 30) -> str:
        out = asyncio.run(self.deployment.runtime.run_in_session(
            BashAction(command=command, timeout=timeout)))
        return out.output
'''

FILES = {"pyproject.toml": PYPROJECT, "benchagent/__init__.py": "", "benchagent/run.py": RUN,
         "benchagent/agent.py": AGENT, "benchagent/env.py": ENV}


@pytest.fixture(scope="module")
def bench(tmp_path_factory):
    return modelled(tmp_path_factory, FILES)


def test_the_session_command_is_handed_in_and_the_setup_command_is_not(bench):
    got = {f.location.start_line: f.data["handed_in"] for f in bench.findings()["sem.exec"]
           if f.data.get("row", "").endswith("BashAction") or "BashAction" in f.claim}
    assert got == {bench.line("benchagent/env.py", 'BashAction(command="cd /repo")'): False,
                   bench.line("benchagent/env.py", "BashAction(command=command"): True}


def test_commands_the_model_writes_into_a_sandbox_session_are_scoped_as_raw_commands(bench):
    """No tool is registered, but the loop hands the model's command lines to a container
    session: tool scoping is assessed (raw commands, nothing checks them) on that executor, and
    the blast radius is the disposable container, not the host."""
    ctx = Context(index=bench.index, findings=bench.findings(), rubric=load_rubric())
    got = assess_c3(ctx)
    assert got.assessed
    default = got.configurations[0]
    assert (default.dims["S"].level, default.dims["C"].level, default.dims["B"].level) == (0, 0, 1)
    first = default.dims["S"].evidence[0]
    assert (first.path, first.start_line) == ("benchagent/env.py",
                                              bench.line("benchagent/env.py", "BashAction(command=command"))


def test_a_fixed_setup_command_alone_is_no_model_command(tmp_path_factory):
    """The container runs only a command the code fixes: the model is left with no action
    (the no-tool levels), not with raw commands."""
    env = ENV.replace("BashAction(command=command, timeout=timeout)", 'BashAction(command="ls")')
    m = modelled(tmp_path_factory, {**FILES, "benchagent/env.py": env})
    ctx = Context(index=m.index, findings=m.findings(), rubric=load_rubric())
    got = assess_c3(ctx)
    default = got.configurations[0]
    assert [default.dims[d].level for d in "SCDB"] == [2, 2, 2, 2]
    assert "no tools" in got.summary
    assert all(e.path != "benchagent/env.py" for e in default.dims["S"].evidence)


def test_with_no_tool_the_ungated_command_executor_is_the_c2_evidence(bench):
    from dids.criteria.c2_approval import assess as assess_c2

    ctx = Context(index=bench.index, findings=bench.findings(), rubric=load_rubric())
    default = assess_c2(ctx).configurations[0]
    assert default.dims["S"].level == 0
    first = default.dims["S"].evidence[0]
    assert (first.path, first.start_line) == ("benchagent/env.py",
                                              bench.line("benchagent/env.py", "BashAction(command=command"))
