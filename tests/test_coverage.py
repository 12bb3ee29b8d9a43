"""What dids could not assess is said (stderr, card, JSON) and lowers confidence, never scored
as if the repository lacked the mechanisms."""

from __future__ import annotations

import json

_AGENT = '''import subprocess


def run_shell(cmd: str) -> str:
    return subprocess.run(cmd, shell=True, capture_output=True, text=True).stdout


TOOLS = {"shell": run_shell}


class Agent:
    def __init__(self, client):
        self.client = client

    def run(self, task: str) -> str:
        messages = [{"role": "user", "content": task}]
        for _ in range(10):
            reply = self.client.chat.completions.create(model="m", messages=messages)
            call = reply.choices[0].message.tool_calls[0]
            messages.append({"role": "tool", "content": TOOLS[call.function.name](call.function.arguments)})
        return ""
'''

_TS = "export function f(x: number): number { return x + 1 }\n"


def _score(cli, path, *extra):
    proc = cli("score", str(path), "--format", "json", "--no-cache", *extra)
    return json.loads(proc.stdout), proc.stderr


def test_a_readme_only_repository_is_not_assessed_not_scored_high(cli, repo):
    repo.commit({"README.md": "# an agent\n\nComing soon.\n"})
    data, err = _score(cli, repo.path)
    assert "could not assess" in err and "No Python source file was parsed" in err
    assert data["could_not_assess"] and data["score"] == 0.0
    assert all(not c["levels"] and c["confidence"] == "Low" for c in data["criteria"])
    card = cli("score", str(repo.path), "--no-cache").stdout
    assert "**Could not assess:** No Python source file was parsed" in card
    assert "not a finding about the repository" in card


def test_an_unparsed_language_is_named(cli, repo):
    repo.commit({"main.go": "package main\nfunc main() {}\n", "agent/loop.go": "package agent\n"})
    data, _ = _score(cli, repo.path)
    assert "Go (2 files)" in data["could_not_assess"][0]


def test_a_typescript_agent_with_a_python_side_folder_is_partial(cli, repo):
    files = {f"src/mod{i}.ts": _TS for i in range(6)}
    files["scripts/helper.py"] = "def main():\n    print('hi')\n"
    files["helper/tool.py"] = "def f(x):\n    return x\n"
    repo.commit(files)
    data, err = _score(cli, repo.path)
    reasons = " ".join(data["could_not_assess"])
    assert "Most of the product's source is TypeScript/JavaScript (6 files)" in reasons
    assert "No agent loop, tool or executor was found" in reasons
    assert "could not assess" in err
    assert all(c["confidence"] == "Low" for c in data["criteria"])
    assert any(c["levels"] for c in data["criteria"])  # still scored, as a part


def test_a_frontend_beside_a_python_agent_is_not_a_gap(cli, repo):
    files = {f"frontend/src/c{i}.tsx": _TS for i in range(8)}
    files["agent/core.py"] = _AGENT
    files["agent/__init__.py"] = "from .core import Agent\n"
    files["README.md"] = "# demo\n\n```python\nfrom agent import Agent\nAgent(client).run('hi')\n```\n"
    repo.commit(files)
    data, err = _score(cli, repo.path)
    assert data["could_not_assess"] == [] and "could not assess" not in err
    assert data["agent"]["loops"], "the Python agent loop is found"


def test_bounds_that_leave_most_files_unread_are_said(cli, repo):
    files = {f"pkg/m{i}.py": f"X{i} = {i}\n" for i in range(20)}
    files["agent/core.py"] = _AGENT
    repo.commit(files)
    data, _ = _score(cli, repo.path, "--max-files", "3")
    assert any("left unread by the size and count bounds" in r for r in data["could_not_assess"])
