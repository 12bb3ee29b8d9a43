"""A library agent: the README's quick start is a Python snippet (`from smolbot import Agent`,
`Agent(tools=[...]).run("...")`); the constructor's defaults pick an in-process executor and an
`executor_type="docker"` branch is opt-in. The same repository with the snippet passing
`executor_type="docker"` flips which branch is the scored one."""

from __future__ import annotations

import pytest

from .repos import at, modelled

README = '''# smolbot

Tiny code agents.

<!--
```bash
pip install smolbot-legacy
```
-->

```bash
pip install smolbot
```

```python
from smolbot import Agent, WebSearchTool

agent = Agent(tools=[WebSearchTool()]{extra})
agent.run("How many seconds are in a leap year?")
```
'''

INIT = '''from .agents import Agent
from .tools import *
'''

AGENTS = '''from .executors import DockerExecutor, Executor, LocalPythonExecutor
from .models import Model, default_model


class Agent:
    def __init__(self, tools, model: Model | None = None, executor_type: str = "local",
                 max_steps: int = 10):
        self.tools = {t.name: t for t in tools}
        self.model = model or default_model()
        self.executor_type = executor_type
        self.executor = self.create_executor()
        self.max_steps = max_steps

    def create_executor(self) -> Executor:
        if self.executor_type == "docker":
            return DockerExecutor()
        else:
            return LocalPythonExecutor()

    def run(self, task: str):
        memory = [task]
        step = 0
        while step < self.max_steps:
            action = self.model.generate(memory)
            if action.tool:
                memory.append(self.tools[action.tool].forward(action.arguments))
            else:
                memory.append(self.executor(action.code))
            step += 1
        return memory[-1]
'''

EXECUTORS = '''import docker


class Executor:
    def __call__(self, code: str):
        raise NotImplementedError


class LocalPythonExecutor(Executor):
    def __call__(self, code: str):
        namespace = {}
        exec(code, namespace)
        return namespace.get("result")


class DockerExecutor(Executor):
    def __init__(self):
        self.client = docker.from_env()

    def __call__(self, code: str):
        return self.client.containers.run("python:3.12-slim", ["python", "-c", code], remove=True)
'''

MODELS = '''from openai import OpenAI


class Model:
    def __init__(self):
        self.client = OpenAI()

    def generate(self, messages):
        return self.client.chat.completions.create(model="gpt-4o-mini", messages=messages)


def default_model() -> Model:
    return Model()
'''

TOOLS = '''import requests

__all__ = ["Tool", "WebSearchTool"]


class Tool:
    name = "tool"

    def forward(self, *args):
        raise NotImplementedError


class WebSearchTool(Tool):
    name = "web_search"

    def forward(self, query: str) -> str:
        return requests.get("https://search.example.invalid", params={"q": query}).text
'''

BUILD_DOCS = '''import subprocess


def build():
    subprocess.run(["mkdocs", "build"])
'''

EXAMPLE = '''import subprocess

from smolbot import Agent

subprocess.run(["python", "-c", "print(1)"])
Agent(tools=[], executor_type="docker").run("hi")
'''

FILES = {
    "pyproject.toml": '[project]\nname = "smolbot"\nversion = "1.0"\n',
    "README.md": README.replace("{extra}", ""),
    "src/smolbot/__init__.py": INIT, "src/smolbot/agents.py": AGENTS,
    "src/smolbot/executors.py": EXECUTORS, "src/smolbot/models.py": MODELS,
    "src/smolbot/tools.py": TOOLS, "src/smolbot/build_docs.py": BUILD_DOCS,
    "examples/docker_agent.py": EXAMPLE,
}

EX = "src/smolbot/executors.py"


@pytest.fixture(scope="module")
def lib(tmp_path_factory):
    return modelled(tmp_path_factory, FILES)


@pytest.fixture(scope="module")
def docker_lib(tmp_path_factory):
    return modelled(tmp_path_factory, {**FILES, "README.md": README.replace(
        "{extra}", ', executor_type="docker"')})


# ------------------------------------------------------------------ entry points

def test_quick_start_snippet_is_the_scored_entry(lib):
    ep = lib.model.entries
    assert ep.how == "README leading path"
    assert ep.readme.install.text == "pip install smolbot"  # the commented-out block is not
    assert [(e.kind, e.target, e.node) for e in ep.main] == [
        ("readme-snippet", "smolbot.Agent", "src/smolbot/agents.py::Agent"),
        ("readme-snippet", "smolbot.WebSearchTool", "src/smolbot/tools.py::WebSearchTool")]
    assert ep.main[0].line == lib.line("README.md", "agent = Agent(")
    assert "src/smolbot/agents.py::Agent.__init__" in ep.roots
    assert ep.calls == {"run"}  # agent.run(...) on the snippet's instance


def test_star_import_reexport_resolves_the_tool_class(lib):
    assert lib.model.graph.resolve("smolbot.WebSearchTool") == "src/smolbot/tools.py::WebSearchTool"


# ------------------------------------------------------------------ call graph

def test_attribute_types_from_return_annotations_and_or_fallbacks(lib):
    g = lib.model.graph
    run = {(d, how) for d, _l, how in g.edges["src/smolbot/agents.py::Agent.run"]}
    assert ("src/smolbot/models.py::Model.generate", "attr") in run  # model or default_model()
    assert (f"{EX}::Executor.__call__", "attr") in run  # self.create_executor() -> Executor
    assert sorted(g.overrides(f"{EX}::Executor.__call__")) == [
        f"{EX}::DockerExecutor.__call__", f"{EX}::LocalPythonExecutor.__call__"]


# ------------------------------------------------------------------ loop and reach

def test_agent_loop_is_the_while_loop_in_run(lib):
    assert [(lp.node, lp.line, lp.kind, lp.depth) for lp in lib.model.session.loops] == [
        ("src/smolbot/agents.py::Agent.run", lib.line("src/smolbot/agents.py", "while step <"),
         "loop", 0)]


@pytest.mark.parametrize("path,needle,want", [
    (EX, "exec(code, namespace)", "default"),
    (EX, "containers.run", "opt-in:executor_type"),
    (EX, "docker.from_env", "opt-in:executor_type"),
    ("src/smolbot/agents.py", "return DockerExecutor()", "opt-in:executor_type"),
    ("src/smolbot/agents.py", "return LocalPythonExecutor()", "default"),
    # reached by name: the loop calls .forward on a tool the model picks
    ("src/smolbot/tools.py", "requests.get", "default"),
    ("src/smolbot/build_docs.py", "mkdocs", "off-path"),
])
def test_reach_under_the_constructor_defaults(lib, path, needle, want):
    assert lib.reach(path, needle) == want


def test_the_guard_names_the_constructor_setting(lib):
    guard = lib.model.reach.opt_guard[f"{EX}::DockerExecutor"]
    assert (guard.path, guard.line, guard.setting) == (
        "src/smolbot/agents.py", lib.line("src/smolbot/agents.py", 'if self.executor_type == "docker"'),
        "executor_type")


def test_executors_by_isolation_class_and_reach(lib):
    s = lib.model.session
    assert [(x.cls, x.path, x.line, x.driven) for x in s.executors()] == [
        ("inprocess", EX, lib.line(EX, "exec(code"), True)]
    opt = {(x.cls, x.line, x.driven) for x in s.executors(reach="opt-in")}
    assert opt == {("container", lib.line(EX, "docker.from_env"), False),  # the daemon handle
                   ("container", lib.line(EX, "containers.run"), True)}
    assert not any(x.path.startswith("examples/") for x in s.sinks)


def test_snippet_argument_flips_the_backend(docker_lib):
    assert docker_lib.reach(EX, "containers.run") == "default"
    assert docker_lib.reach(EX, "exec(code, namespace)") == "opt-in:executor_type"
    assert [x.cls for x in docker_lib.model.session.executors(driven=True)] == ["container"]


# ------------------------------------------------------------------ probes on this shape

def test_agent_executor_names_each_executor_class(lib):
    found = lib.findings()["agent.executor"]
    assert [(f.location.path, f.location.start_line, f.data["cls"]) for f in found] == [
        (EX, lib.line(EX, "class LocalPythonExecutor"), "inprocess"),
        (EX, lib.line(EX, "class DockerExecutor"), "container")]
    assert found[1].data["reach"] == "opt-in:executor_type"


def test_agent_guard_finding_for_the_backend_branch(lib):
    found = lib.findings()["agent.guard"]
    assert ("src/smolbot/agents.py", lib.line("src/smolbot/agents.py", 'if self.executor_type == "docker"')) \
        in at(found)
    assert {f.data["setting"] for f in found} >= {"executor_type"}


EARLY_RETURN = AGENTS.replace('''            return DockerExecutor()
        else:
            return LocalPythonExecutor()''', '''            return DockerExecutor()
        return LocalPythonExecutor()''')


def test_snippet_argument_flips_the_backend_with_an_early_return(tmp_path_factory):
    m = modelled(tmp_path_factory, {**FILES, "src/smolbot/agents.py": EARLY_RETURN,
                                    "README.md": README.replace("{extra}", ', executor_type="docker"')})
    assert m.reach(EX, "containers.run") == "default"
    assert m.reach("src/smolbot/agents.py", "return LocalPythonExecutor()") != "default"
