"""A framework whose tools are toolkit methods wrapped as `FunctionTool(self.method)`, and whose
README hands the agent a tool through a snippet variable (`search = SearchToolkit().search_web`).
The default session holds what the snippet names (through its variables), not every toolkit
method the repository ships; a snippet passing `SearchToolkit().get_tools()` holds that
toolkit's tools."""

from __future__ import annotations

import pytest

from .repos import modelled, session_tool_names

README = '''# kit

```bash
pip install kit
```

```python
from kit import ChatAgent
from kit.toolkits import SearchToolkit

{snippet}
agent.step("What is kit?")
```
'''

AGENT = '''import litellm


class ChatAgent:
    def __init__(self, tools=None):
        self.tools = {t.__name__: t for t in tools or []}

    def step(self, message):
        while True:
            reply = litellm.completion(model="gpt-4o", messages=[message])
            if not reply.tool_calls:
                return reply
            for call in reply.tool_calls:
                self.tools[call.name](**call.arguments)
'''

TOOLKITS = '''import subprocess

import requests

from kit.function_tool import FunctionTool


class SearchToolkit:
    def search_web(self, query: str) -> str:
        return requests.get("https://search.invalid", params={"q": query}).text

    def search_news(self, query: str) -> str:
        return requests.get("https://news.invalid", params={"q": query}).text

    def get_tools(self):
        return [FunctionTool(self.search_web), FunctionTool(self.search_news)]


class TerminalToolkit:
    def run(self, command: str) -> str:
        return subprocess.run(command, shell=True, capture_output=True, text=True).stdout

    def get_tools(self):
        return [FunctionTool(self.run)]
'''

FUNCTION_TOOL = '''class FunctionTool:
    def __init__(self, func):
        self.func = func
'''

ONE = "search = SearchToolkit().search_web\nagent = ChatAgent(tools=[search])"
KIT = "agent = ChatAgent(tools=SearchToolkit().get_tools())"


def _files(snippet: str) -> dict[str, str]:
    return {"pyproject.toml": '[project]\nname = "kit"\nversion = "1.0"\n',
            "README.md": README.replace("{snippet}", snippet),
            "kit/__init__.py": "from kit.agent import ChatAgent  # noqa\nfrom kit import toolkits  # noqa\n",
            "kit/agent.py": AGENT, "kit/toolkits.py": TOOLKITS,
            "kit/function_tool.py": FUNCTION_TOOL}


@pytest.fixture(scope="module")
def one(tmp_path_factory):
    return modelled(tmp_path_factory, _files(ONE))


@pytest.fixture(scope="module")
def kit(tmp_path_factory):
    return modelled(tmp_path_factory, _files(KIT))


def test_every_toolkit_method_wrapped_as_a_tool_is_in_the_inventory(one):
    got = sorted((f.data["name"], f.data["owner"]) for f in one.findings()["tools.inventory"]
                 if f.data["registration"] == "call")
    assert got == [("run", "TerminalToolkit"), ("search_news", "SearchToolkit"),
                   ("search_web", "SearchToolkit")]


def test_the_snippet_variable_names_the_one_tool_the_session_holds(one):
    assert one.model.entries.snippet_values["search"] == "SearchToolkit().search_web"
    assert session_tool_names(one) == ["search_web"]


def test_a_named_toolkit_gives_the_session_its_own_tools(kit):
    assert session_tool_names(kit) == ["search_news", "search_web"]
