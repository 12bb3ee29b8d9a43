"""A monorepo of several Python distributions: the framework the README installs, its CLI, and a
tool collection the framework lists only as an extra (`crew[tools]`). A default install holds
no tool of the collection, so its tools and its remote sandbox are opt-in (the extra), while the
framework's own tool stays on the default path. Near misses: a collection the framework
requires is on the default path; a single-distribution repository has no extras to honour."""

from __future__ import annotations

import pytest

from dids.agent.distributions import installed, optional_roots
from dids.agent.entrypoints import manifests

from .repos import modelled

README = """# crew

```bash
uv pip install crew
crew run
```
"""

CREW_TOML = '''[project]
name = "crew"
version = "1.0"
dependencies = ["crew-cli", "pydantic>=2"]

[project.optional-dependencies]
tools = ["crew-tools==1.0"]
'''

CLI_TOML = '''[project]
name = "crew-cli"
version = "1.0"
dependencies = ["click"]

[project.scripts]
crew = "crew_cli.cli:main"
'''


TOOLS_TOML = '''[project]
name = "crew_tools"
version = "1.0"
dependencies = ["crew", "e2b"]
'''


CLI = '''import click

from crew.agent import Agent


@click.command()
def main():
    Agent().run()
'''

AGENT = '''import litellm

from crew.tools import DelegateTool


class Agent:
    def __init__(self, tools=None):
        self.tools = [DelegateTool()] + list(tools or [])

    def run(self):
        while True:
            reply = litellm.completion(model="gpt-4o", messages=[])
            for call in reply.tool_calls:
                self.tools[0].run(call)
'''

CREW_TOOLS = '''import requests


class BaseTool:
    def run(self, call):
        raise NotImplementedError


class DelegateTool(BaseTool):
    def run(self, call):
        return requests.post("https://peer.invalid", json=call).text
'''

INIT = '''from crew.agent import Agent  # noqa
try:
    import crew_tools  # noqa: the collection, when the extra is installed
except ImportError:
    crew_tools = None
'''

COLLECTION = '''import requests
from e2b_code_interpreter import Sandbox

from crew.tools import BaseTool


class WebFetchTool(BaseTool):
    def run(self, call):
        return requests.get(call["url"]).text


class SandboxTool(BaseTool):
    def run(self, call):
        return Sandbox.create().run_code(call["code"])
'''


def _files(tools_required: bool = False) -> dict[str, str]:
    crew = CREW_TOML.replace('["crew-cli", "pydantic>=2"]', '["crew-cli", "pydantic>=2", "crew-tools"]') \
        if tools_required else CREW_TOML
    return {
        "README.md": README,
        "lib/crew/pyproject.toml": crew, "lib/crew/src/crew/__init__.py": INIT,
        "lib/crew/src/crew/agent.py": AGENT, "lib/crew/src/crew/tools.py": CREW_TOOLS,
        "lib/cli/pyproject.toml": CLI_TOML, "lib/cli/src/crew_cli/__init__.py": "",
        "lib/cli/src/crew_cli/cli.py": CLI,
        "lib/crew-tools/pyproject.toml": TOOLS_TOML,
        "lib/crew-tools/src/crew_tools/__init__.py": "from crew_tools.tools import *  # noqa\n",
        "lib/crew-tools/src/crew_tools/tools.py": COLLECTION,
    }


@pytest.fixture(scope="module")
def mono(tmp_path_factory):
    return modelled(tmp_path_factory, _files())


@pytest.fixture(scope="module")
def required(tmp_path_factory):
    return modelled(tmp_path_factory, _files(tools_required=True))


def _tools(m) -> dict[str, str]:
    return {f.data["name"]: str(f.data.get("reach")) for f in m.findings()["tools.inventory"]}


def test_the_readme_install_line_names_what_a_default_install_holds():
    assert installed("uv pip install crew") == ["crew"]
    assert installed("pip install -U 'crew[tools]>=1.0' ./local") == ["crew"]
    assert installed("python -m pip install aider-install") == ["aider-install"]
    assert installed("npm install crew") == []


def test_a_collection_only_an_extra_installs_is_opt_in(mono):
    assert mono.model.reach.extras == {"lib/crew-tools/": "crew[tools]"}
    tools = _tools(mono)
    assert tools["WebFetchTool"] == tools["SandboxTool"] == "opt-in:crew[tools]"
    assert tools["DelegateTool"] == "default"


def test_opt_in_tools_are_not_the_default_sessions_powerful_tools(mono):
    from dids.criteria.base import Context
    from dids.criteria.common import powerful_tools
    from dids.rubric import load_rubric

    ctx = Context(index=mono.index, findings=mono.findings(), rubric=load_rubric())
    assert [t.data["name"] for t in powerful_tools(ctx)] == ["DelegateTool"]


def test_a_required_collection_stays_on_the_default_path(required):
    assert required.model.reach.extras == {}
    assert _tools(required)["WebFetchTool"] == "default"


def test_one_distribution_has_no_extras_to_honour(mono):
    index = mono.index
    only_root = [p for p in manifests(index) if p == "lib/crew/pyproject.toml"]
    assert optional_roots(index, only_root, ["lib/crew/src/crew/agent.py"], "pip install crew") == {}
