"""A framework whose only console script is an operator CLI (it talks to a running server and
asks no model), while the package a user imports holds the agent: the scripts are not the scored
path, the package is scored as a library, and a demo module run as a script does not put the
library it imports off the path. Its database client's `client.query(...)` is no model call.
The twin whose console script does run the agent keeps the script as the scored path."""

from __future__ import annotations

import pytest

from dids.agent.session import _ask_verdict

from .repos import modelled

PYPROJECT = '''[project]
name = "agentkit"
version = "1.0.0"
dependencies = ["openai", "httpx", "boto3"]

[project.scripts]
agentkit = "agentkit.ctl:main"
'''
README = "# agentkit\n\nBuild agents with agentkit.\n"
CTL = '''import sys

import httpx


def main():
    print(httpx.get("http://localhost:7777/status").json())
'''
CTL_RUNS_AGENT = '''import sys

from agentkit.agent import Agent


def main():
    Agent().run(sys.argv[1])
'''
AGENT = '''from openai import OpenAI


class Agent:
    def __init__(self):
        self.client = OpenAI()

    def run(self, task: str):
        messages = [{"role": "user", "content": task}]
        while True:
            reply = self.client.chat.completions.create(model="m", messages=messages)
            if not reply.choices[0].message.tool_calls:
                return reply.choices[0].message.content
            messages.append({"role": "tool", "content": "done"})
'''
STORE = '''import boto3


class DynamoStore:
    def __init__(self):
        self.client = boto3.client("dynamodb")

    def sessions(self):
        items, response = [], self.client.query(TableName="sessions")
        while "LastEvaluatedKey" in response:
            response = self.client.query(TableName="sessions", ExclusiveStartKey=response["LastEvaluatedKey"])
            items.extend(response["Items"])
        return items
'''
DEMO = '''from agentkit.agent import Agent

if __name__ == "__main__":
    Agent().run("demo")
'''


def _files(ctl: str) -> dict[str, str]:
    return {"pyproject.toml": PYPROJECT, "README.md": README, "agentkit/__init__.py": "",
            "agentkit/ctl.py": ctl, "agentkit/agent.py": AGENT, "agentkit/store.py": STORE,
            "agentkit/demo.py": DEMO}


@pytest.fixture(scope="module")
def operator_repo(tmp_path_factory):
    return modelled(tmp_path_factory, _files(CTL))


@pytest.fixture(scope="module")
def operator_cli(operator_repo):
    return operator_repo.index.agent


def test_the_card_says_why_the_package_is_scored_as_a_library(operator_repo):
    from dids.engine import score_index

    sentence = score_index(operator_repo.index).scored_configuration
    assert sentence.startswith("The console scripts reach none of the package's model calls")
    assert "agent loop at agentkit/agent.py:10" in sentence


def test_a_console_script_that_asks_no_model_is_not_the_scored_path(operator_cli):
    assert operator_cli.entries.main == [] and operator_cli.entries.how.startswith("library")


def test_the_library_is_not_put_off_path_by_a_demo_script(operator_cli):
    assert operator_cli.reach.of("agentkit/agent.py", 11) == "library"


def test_the_library_loop_is_the_agent_loop_not_the_pagination_loop(operator_cli):
    first = operator_cli.session.loops[0]
    assert (first.path, first.line) == ("agentkit/agent.py", 10)
    assert not any(lp.path == "agentkit/store.py" for lp in operator_cli.session.loops)


def test_a_console_script_that_runs_the_agent_stays_the_scored_path(tmp_path_factory):
    model = modelled(tmp_path_factory, _files(CTL_RUNS_AGENT)).index.agent
    assert [e.target for e in model.entries.main] == ["agentkit.ctl:main"]
    assert model.reach.of("agentkit/agent.py", 11) == "default"


@pytest.mark.parametrize("raw, verdict", [
    ("self.client.query", 0), ("client.stream", 0), ("self.provider.create", 0),
    ("self.client.chat", 2), ("client.invoke", 2), ("self.llm.query", 2), ("self.model.stream", 2),
    ("llm", 1),
])
def test_generic_verbs_on_a_client_handle_do_not_ask_a_model(raw, verdict):
    assert _ask_verdict(raw) == verdict
