"""tools.inventory: decorated tools and Tool subclasses in live code, with capabilities."""

from __future__ import annotations

import pytest

from .helpers import probe_findings


def _line(src: str, needle: str) -> int:
    """1-based line of the only line of src containing needle."""
    hits = [i for i, t in enumerate(src.splitlines(), 1) if needle in t]
    assert len(hits) == 1, (needle, hits)
    return hits[0]


TOOLS = '''import os
import subprocess
from pathlib import Path

import httpx
from langchain_core.tools import BaseTool, tool

from .app import agent, slack_client


@tool
def fetch_page(url: str) -> str:
    """Fetch a web page and return its text."""
    return httpx.get(url, timeout=10).text


@tool(requires_approval=True)
def run_command(command: str, cwd: str = ".") -> str:
    return subprocess.run(command, shell=True, cwd=cwd, capture_output=True, text=True).stdout


@agent.tool
def save_note(ctx, path, text: str) -> None:
    Path(path).write_text(text)


@tool
def whoami() -> str:
    return os.getenv("GITHUB_TOKEN", "")[:4]


@tool
def add(a: int, b: int) -> int:
    return a + b


def helper(x):
    return subprocess.run(x)


class SlackPoster(BaseTool):
    name: str = "slack"

    def _run(self, channel: str, text: str):
        return slack_client.chat_postMessage(channel=channel, text=text)
'''


def test_inventory_fires_on_decorated_tools_and_subclasses(repo):
    found = probe_findings(repo, {"agent/tools.py": TOOLS}, "tools.inventory")
    got = [(f.location.path, f.location.start_line, f.data["name"], f.data["registration"],
            f.data["capabilities"], f.data["typed"], f.data["approval"]) for f in found]
    assert got == [
        ("agent/tools.py", _line(TOOLS, "def fetch_page"), "fetch_page", "decorator", "network",
         True, None),
        ("agent/tools.py", _line(TOOLS, "def run_command"), "run_command", "decorator", "exec,shell",
         True, "True"),
        ("agent/tools.py", _line(TOOLS, "def save_note"), "save_note", "decorator", "fs_write",
         False, None),
        ("agent/tools.py", _line(TOOLS, "def whoami"), "whoami", "decorator", "credentials",
         True, None),
        ("agent/tools.py", _line(TOOLS, "def add"), "add", "decorator", "read_only", True, None),
        ("agent/tools.py", _line(TOOLS, "class SlackPoster"), "SlackPoster", "subclass",
         "external_comm", True, None),
    ]
    by_name = {f.data["name"]: f for f in found}
    assert by_name["run_command"].data["params"] == "command:str,cwd:str"
    assert by_name["save_note"].data["params"] == "ctx:?,path:?,text:str"
    assert "helper" not in by_name  # undecorated functions are not tools


def test_inventory_approval_false_and_open_for_write(repo):
    src = '''from agents import function_tool


@function_tool(needs_approval=False)
def append_log(path: str, line: str) -> None:
    with open(path, "a") as fh:
        fh.write(line)


@function_tool
def read_log(path: str) -> str:
    with open(path, "r") as fh:
        return fh.read()
'''
    found = probe_findings(repo, {"pkg/log_tools.py": src}, "tools.inventory")
    assert [(f.location.start_line, f.data["name"], f.data["capabilities"], f.data["approval"])
            for f in found] == [
        (_line(src, "def append_log"), "append_log", "fs_write", "False"),
        (_line(src, "def read_log"), "read_log", "read_only", None),
    ]


def test_inventory_near_misses_do_not_fire(repo):
    files = {
        "tests/test_tools.py": TOOLS,  # tests are not mechanisms
        "examples/demo_tools.py": TOOLS,  # nor examples
        "docs/tools.md": "```python\n@tool\ndef fetch_page(url: str) -> str: ...\n```\n",
        "agent/notes.py": '"""Register tools like this:\n\n@tool\ndef fetch_page(url): ...\n"""\n'
                          "# @tool\n# def run_command(cmd): ...\n"
                          "SNIPPET = '@tool\\ndef run_command(cmd): ...'\n",
    }
    assert probe_findings(repo, files, "tools.inventory") == []


def test_inventory_ignores_lookalike_decorators_and_bases(repo):
    src = '''import functools

from pydantic import BaseModel

from .registry import tools_registry, app


@tools_registry
def listed(x: int) -> int:
    return x


@functools.lru_cache
def cached_tool(x: int) -> int:
    return x


@app.post("/tool")
def endpoint(body: dict) -> dict:
    return body


class ToolConfig(BaseModel):
    name: str


class ToolResult(BaseModel):
    output: str
'''
    assert probe_findings(repo, {"agent/registry_use.py": src}, "tools.inventory") == []


def test_inventory_fires_on_tool_plain(repo):
    src = """from pydantic_ai import Agent

agent = Agent("openai:gpt-4o")


@agent.tool_plain
def roll_die() -> str:
    return "4"
"""
    found = probe_findings(repo, {"agent/dice.py": src}, "tools.inventory")
    assert [(f.location.start_line, f.data["name"]) for f in found] == [(7, "roll_die")]


REGISTERED = '''import subprocess

import requests


def run_cmd(command: str) -> str:
    return subprocess.run(command, shell=True, capture_output=True).stdout


def lookup(city: str) -> str:
    return requests.get("https://weather.invalid", params={"q": city}).text


registry.register(run_cmd)
agent.add_tool(lookup)
SCHEMA = [{"type": "function", "function": {"name": "lookup"}}]
send(SCHEMA)
'''


def test_inventory_fires_on_register_calls_and_function_schemas(repo):
    found = probe_findings(repo, {"agent/wiring.py": REGISTERED}, "tools.inventory")
    got = [(f.location.start_line, f.data["name"], f.data["registration"], f.data["capabilities"])
           for f in found]
    assert got == [
        (_line(REGISTERED, "registry.register(run_cmd)"), "run_cmd", "call", "exec,shell"),
        (_line(REGISTERED, "agent.add_tool(lookup)"), "lookup", "call", "network"),
        (_line(REGISTERED, "SCHEMA = "), "lookup", "schema", "read_only"),
    ]


SCHEMA_DICTS = '''BASH_TOOL = {
    "type": "function",
    "function": {
        "name": "bash",
        "description": "Execute a bash command",
        "parameters": {"type": "object", "properties": {"command": {"type": "string"}}},
    },
}

UNNAMED = {
    "type": "function",
    "function": {
        "description": "a schema whose name is filled in later",
        "parameters": {"type": "object", "properties": {}},
        "name": "never_read_past_the_parameters",
    },
}

completion(model="m", tools=[BASH_TOOL, UNNAMED])
'''


def test_a_function_schema_dict_is_the_tool_it_names(repo):
    # the name the schema gives the model is the tool, and what it does is read from it; a
    # schema whose name comes only after its parameters (or never) stays an unnamed schema
    found = probe_findings(repo, {"agent/schemas.py": SCHEMA_DICTS}, "tools.inventory")
    got = [(f.location.start_line, f.data["name"], f.data["capabilities"], f.data.get("named"))
           for f in found]
    assert got == [
        (_line(SCHEMA_DICTS, "BASH_TOOL = {") + 1, "bash", "exec,shell", True),
        (_line(SCHEMA_DICTS, "UNNAMED = {") + 1,
         f"schema@agent/schemas.py:{_line(SCHEMA_DICTS, 'UNNAMED = {') + 1}", "read_only", None),
    ]


IMPORTED_TOOL = {
    "agent/tools.py": "import subprocess\n\n\ndef run_cmd(command: str) -> str:\n"
                      "    return subprocess.run(command, shell=True).stdout\n",
    "agent/wiring.py": "from agent.tools import run_cmd\n\n\ndef wire(agent):\n"
                       "    agent.add_tool(run_cmd)\n",
}


def test_register_call_resolves_an_imported_function(repo):
    found = probe_findings(repo, IMPORTED_TOOL, "tools.inventory")
    assert [(f.location.path, f.data["name"], f.data["registration"]) for f in found] == [
        ("agent/wiring.py", "run_cmd", "call")]


def test_register_calls_that_hand_no_function_to_a_model(repo):
    """atexit.register(cleanup) runs cleanup at exit; add_tool(tool) in a loop passes a
    parameter, not the unrelated module-level `tool` another file defines."""
    files = {
        "agent/cleanup.py": "import atexit\nimport shutil\n\n\ndef cleanup() -> None:\n"
                            "    shutil.rmtree('/tmp/x')\n\n\natexit.register(cleanup)\n",
        "agent/helpers.py": "def tool(name: str) -> str:\n    return name\n",
        "agent/agent.py": "class Agent:\n    def add_tools(self, tools):\n"
                          "        for tool in tools:\n            self.add_tool(tool)\n\n"
                          "    def add_one(self, tool):\n        self.register(tool)\n",
    }
    assert probe_findings(repo, files, "tools.inventory") == []


TOOLKIT = {
    "agent/toolkits.py": "import requests\n\nfrom agent.function_tool import FunctionTool\n\n\n"
                         "class SearchToolkit:\n"
                         "    def search_web(self, query: str) -> str:\n"
                         "        return requests.get('https://search.invalid', params={'q': query}).text\n\n"
                         "    def describe(self) -> str:\n        return 'search'\n\n"
                         "    def get_tools(self):\n"
                         "        return [FunctionTool(self.search_web), FunctionTool(name='describe')]\n",
    "agent/function_tool.py": "class FunctionTool:\n    def __init__(self, func=None, name=None):\n"
                              "        self.func = func\n",
}


def test_a_tool_object_built_around_a_toolkit_method(repo):
    """FunctionTool(self.search_web) makes the method a tool, owned by its toolkit; a tool
    object built without a function (FunctionTool(name=...)) hands over no function."""
    found = [f for f in probe_findings(repo, TOOLKIT, "tools.inventory")
             if f.data["registration"] == "call"]
    assert [(f.location.path, f.data["name"], f.data["registration"], f.data["owner"],
             f.data["capabilities"]) for f in found] == [
        ("agent/toolkits.py", "search_web", "call", "SearchToolkit", "network")]


SPECS = {
    "agent/tools/base.py": "class ToolSpec:\n    def __init__(self, name, desc='', execute=None):\n"
                           "        self.execute = execute\n",
    "agent/tools/shell.py": "import subprocess\n\nfrom agent.tools.base import ToolSpec\n\n\n"
                            "def execute_shell(code: str) -> str:\n"
                            "    return subprocess.run(code, shell=True, capture_output=True).stdout\n\n\n"
                            "tool = ToolSpec(name='shell', desc='Runs commands.', execute=execute_shell)\n"
                            "docs = ToolSpec(name='docs', desc='Describes the tools.')\n",
}


def test_a_tool_spec_built_around_its_execute_function(repo):
    """A repository's own spec class (`ToolSpec(name=..., execute=fn)`, as gptme declares its
    tools) makes FN a tool; a spec without a function hands none over."""
    found = [f for f in probe_findings(repo, SPECS, "tools.inventory")
             if f.data["registration"] == "call"]
    assert [(f.location.path, f.location.start_line, f.data["name"], f.data["capabilities"])
            for f in found] == [("agent/tools/shell.py", 10, "execute_shell", "exec,shell")]


def test_register_call_near_misses(repo):
    files = {
        "tests/test_wiring.py": REGISTERED,
        "agent/notes.py": '"""registry.register(run_cmd) wires the tool."""\n'
                          "# agent.add_tool(lookup)\n"
                          "UNUSED = [{'type': 'function'}]\n",
    }
    assert probe_findings(repo, files, "tools.inventory") == []
