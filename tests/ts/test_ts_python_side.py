"""A TypeScript product with Python beside it: Python nobody on the scored path reaches is
package API (`library`) only inside the scored package's directories; a bot that maintains the
repository from a top-level folder is off the path, and nothing in it is credited."""

from __future__ import annotations

import pytest

from tests.agentmodel.repos import modelled

BOT = """import subprocess


def open_pr(command: str):
    return subprocess.run(command, shell=True, timeout=600)
"""
HELPER = """import subprocess


def render(path: str):
    return subprocess.run(["pandoc", path], timeout=30)
"""
INDEX = """import { spawn } from "node:child_process";

export function main(): void {
  spawn("git", ["status"]);
}

main();
"""
FILES = {
    "README.md": "# acme\n\n```\nnpm install -g acme-cli\n```\n",
    "package.json": '{"name": "acme-mono", "private": true, "workspaces": ["packages/*"]}\n',
    "packages/cli/package.json": '{"name": "acme-cli", "version": "1.0.0", "bin": {"acme": "dist/index.js"}}\n',
    "packages/cli/src/index.ts": INDEX,
    "packages/cli/py/helper.py": HELPER,
    "tools/pr-bot/workflow/run.py": BOT,
}


@pytest.fixture(scope="module")
def m(tmp_path_factory):
    return modelled(tmp_path_factory, FILES)


def test_python_outside_the_scored_package_is_off_the_path(m):
    assert m.index.agent.ts is not None  # the Node package is the scored path
    reach = m.index.agent.reach
    assert reach.of("tools/pr-bot/workflow/run.py", 5) == "off-path"
    assert reach.of("packages/cli/py/helper.py", 5) == "library"
