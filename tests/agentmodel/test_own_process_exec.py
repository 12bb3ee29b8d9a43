"""A terminal agent whose default tools run the model's Python with exec() inside the agent's own
process, while another default tool (a sandboxed browser) creates a remote E2B workspace. The
remote workspace does not hold the interpreter the agent runs in, so C4's default exec path is the
agent's own process (L0), not the remote sandbox. Without the exec tool (the near-miss twin) the
remote sandbox is the default exec path."""

from __future__ import annotations

import pytest

from .repos import modelled

README = '''# pyagent

```bash
pip install pyagent
pyagent "plot the data"
```
'''
PYPROJECT = '''[project]
name = "pyagent"
version = "0.1.0"
dependencies = ["openai", "e2b"]

[project.scripts]
pyagent = "pyagent.cli:main"
'''
CLI = '''import sys

from pyagent.agent import Agent


def main():
    Agent().run(sys.argv[1])
'''
AGENT = '''import json

from openai import OpenAI

from pyagent.tools import TOOLS


class Agent:
    def __init__(self):
        self.client = OpenAI()
        self.messages = []

    def run(self, task: str):
        self.messages.append({"role": "user", "content": task})
        for _ in range(20):
            reply = self.client.chat.completions.create(model="gpt-x", messages=self.messages,
                                                        tools=[])
            calls = reply.choices[0].message.tool_calls or []
            if not calls:
                return reply.choices[0].message.content
            for call in calls:
                result = TOOLS[call.function.name](**json.loads(call.function.arguments))
                self.messages.append({"role": "tool", "content": str(result)})
'''
PYTHON_TOOL = '''def run_python(code: str) -> str:
    scope = {}
    exec(code, scope)
    return str(scope.get("result"))
'''
BROWSER_TOOL = '''from e2b import Sandbox


def browse(url: str) -> str:
    sandbox = Sandbox.create(timeout=60)
    return sandbox.commands.run(f"curl -s {url}").stdout
'''
TOOLS_WITH_EXEC = '''from pyagent.browser import browse
from pyagent.python_tool import run_python

TOOLS = {"python": run_python, "browse": browse}
'''
TOOLS_WITHOUT_EXEC = '''from pyagent.browser import browse

TOOLS = {"browse": browse}
'''


def _files(tools: str) -> dict[str, str]:
    return {"README.md": README, "pyproject.toml": PYPROJECT, "pyagent/__init__.py": "",
            "pyagent/cli.py": CLI, "pyagent/agent.py": AGENT, "pyagent/python_tool.py": PYTHON_TOOL,
            "pyagent/browser.py": BROWSER_TOOL, "pyagent/tools.py": tools}


def _c4_default(tmp_path_factory, tools: str):
    from dids.engine import score_index

    index = modelled(tmp_path_factory, _files(tools)).index
    c4 = next(r for r in score_index(index).criteria if r.id == "C4")
    return next(c for c in c4.assessment.configurations if not c.opt_in)


def test_exec_in_the_agent_process_is_the_default_exec_path(tmp_path_factory):
    cfg = _c4_default(tmp_path_factory, TOOLS_WITH_EXEC)
    s = cfg.dims["S"]
    assert s.level == 0
    first = next(e for e in s.evidence if e.path)
    assert (first.path, first.start_line) == ("pyagent/python_tool.py", 3)


def test_without_it_the_remote_sandbox_is_the_default_exec_path(tmp_path_factory):
    cfg = _c4_default(tmp_path_factory, TOOLS_WITHOUT_EXEC)
    assert cfg.dims["S"].level == 3
