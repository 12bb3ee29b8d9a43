"""Test doubles shipped inside the package (`llm/mock.py`, `class FakeModel`) are off the scored
path however near the entry points they sit: a mock model's replay loop is not the agent loop."""

from __future__ import annotations

import pytest

from dids.agent.reach import is_test_double

from .repos import modelled

PYPROJECT = '[project]\nname = "tw"\nversion = "1.0"\n\n[project.scripts]\ntw = "tw.cli:main"\n'

CLI = '''from tw.llm import BACKENDS


def main(backend: str = "openai"):
    llm = BACKENDS[backend]()
    llm.chat("plan the task")
'''

LLM_INIT = '''from tw.llm.mock import MockLLM
from tw.llm.openai_llm import OpenAILLM

BACKENDS = {"openai": OpenAILLM, "mock": MockLLM}
'''

OPENAI_LLM = '''import openai


class OpenAILLM:
    def chat(self, task):
        messages = [task]
        while True:
            reply = openai.chat.completions.create(model="gpt-4o", messages=messages)
            messages.append(reply)
            if not reply.choices[0].message.tool_calls:
                return reply
'''

MOCK = '''import openai


class MockLLM:
    def chat(self, task):
        for cached in self.recorded:
            reply = openai.chat.completions.create(model="gpt-4o", messages=[cached])
            yield reply
'''

FILES = {"pyproject.toml": PYPROJECT, "tw/__init__.py": "", "tw/cli.py": CLI,
         "tw/llm/__init__.py": LLM_INIT, "tw/llm/openai_llm.py": OPENAI_LLM, "tw/llm/mock.py": MOCK}


@pytest.fixture(scope="module")
def tw(tmp_path_factory):
    return modelled(tmp_path_factory, FILES)


def test_the_mock_models_loop_is_not_the_agent_loop(tw):
    assert [lp.node for lp in tw.model.session.loops] == ["tw/llm/openai_llm.py::OpenAILLM.chat"]
    assert tw.reach("tw/llm/mock.py", "for cached in") == "off-path"
    assert tw.reach("tw/llm/openai_llm.py", "while True") == "default"


@pytest.mark.parametrize("path,cls,want", [
    ("pkg/llm/mock.py", None, True), ("pkg/fake_client.py", None, True),
    ("pkg/clients_stub.py", None, True), ("pkg/models.py", "FakeModel", True),
    ("pkg/models.py", "MockingBird", False), ("pkg/mockup/ui.py", None, False),
    ("pkg/models.py", "Model", False), ("pkg/dummy_data.py", None, True),
])
def test_what_is_a_test_double(path, cls, want):
    class Node:  # the two fields test_double reads
        kind = "function"

    node = Node()
    node.cls = cls
    assert is_test_double(path, node if cls else None) is want
