"""A framework whose tools register under a name (`@register_tool("code_interpreter")`, or a
class-level `name = "web_search"`), and whose README hands the agent some of them by that name
(`Assistant(function_list=["code_interpreter"])`): the default session holds the tools named,
not every tool the repository ships. A list passed under another keyword names no tool."""

from __future__ import annotations

import pytest

from .repos import modelled, session_tool_names

README = '''# qa

```bash
pip install qa
```

```python
from qa import Assistant

{snippet}
for reply in bot.run(messages=[{{"role": "user", "content": "plot it"}}]):
    print(reply)
```
'''

AGENT = '''import litellm

from qa.tools import TOOL_REGISTRY


class Assistant:
    def __init__(self, function_list=None, files=None):
        self.tools = {name: TOOL_REGISTRY[name]() for name in function_list or []}

    def run(self, messages):
        while True:
            reply = litellm.completion(model="qwen-max", messages=messages)
            if not reply.tool_calls:
                return reply
            for call in reply.tool_calls:
                yield self.tools[call.name].call(call.arguments)
'''

TOOLS = '''import subprocess

import requests

TOOL_REGISTRY = {}


def register_tool(name):
    def decorator(cls):
        TOOL_REGISTRY[name] = cls
        return cls
    return decorator


class BaseTool:
    def call(self, params):
        raise NotImplementedError


@register_tool("code_interpreter")
class CodeInterpreter(BaseTool):
    def call(self, params):
        return subprocess.run(["python", "-c", params["code"]], capture_output=True).stdout


@register_tool("web_search")
class WebSearch(BaseTool):
    name = "web_search"

    def call(self, params):
        return requests.get("https://search.invalid", params={"q": params["query"]}).text


class Weather(BaseTool):
    name = "weather"

    def call(self, params):
        return requests.get("https://weather.invalid", params={"q": params["city"]}).text


default_searcher = WebSearch()
'''

NAMED = "tools = ['code_interpreter', 'weather']\nbot = Assistant(function_list=tools)"
FILES_ONLY = "bot = Assistant(files=['code_interpreter'])"
INSTANCE = "from qa.tools import default_searcher\nbot = Assistant(function_list=[default_searcher])"


def _files(snippet: str) -> dict[str, str]:
    return {"pyproject.toml": '[project]\nname = "qa"\nversion = "1.0"\n',
            "README.md": README.replace("{snippet}", snippet),
            "qa/__init__.py": "from qa.agent import Assistant  # noqa\n",
            "qa/agent.py": AGENT, "qa/tools.py": TOOLS}


@pytest.fixture(scope="module")
def named(tmp_path_factory):
    return modelled(tmp_path_factory, _files(NAMED))


@pytest.fixture(scope="module")
def instance(tmp_path_factory):
    return modelled(tmp_path_factory, _files(INSTANCE))


@pytest.fixture(scope="module")
def files_only(tmp_path_factory):
    return modelled(tmp_path_factory, _files(FILES_ONLY))


def test_each_tool_class_carries_the_name_it_is_registered_under(named):
    got = {f.data["name"]: f.data.get("alias") for f in named.findings()["tools.inventory"]
           if f.data["registration"] == "subclass" and not f.data.get("base")}
    assert got == {"CodeInterpreter": "code_interpreter", "WebSearch": "web_search",
                   "Weather": "weather"}


def test_the_registered_names_the_snippet_passes_are_the_session_tools(named):
    assert session_tool_names(named) == ["CodeInterpreter", "Weather"]


def test_a_list_under_another_keyword_names_no_tool(files_only):
    assert session_tool_names(files_only) == ["CodeInterpreter", "Weather", "WebSearch"]


def test_an_imported_tool_instance_is_its_class(instance):
    # `from qa.tools import default_searcher` where qa/tools.py holds `default_searcher = WebSearch()`
    assert instance.model.entries.snippet_imports["default_searcher"] == "qa.tools.default_searcher"
    assert session_tool_names(instance) == ["WebSearch"]
