"""A command registry the README's run command picks from: `prbot --pr_url URL review`
dispatches `COMMANDS[action](...)` with the action parsed from the command line. The entry the
README names is the scored path; the other commands are behind the choice of another command,
as a reviewer reading the README would score them."""

from __future__ import annotations

import pytest

from .repos import modelled

PYPROJECT = '''[project]
name = "prbot"
version = "0.1.0"

[project.scripts]
prbot = "prbot.cli:run"
'''

CLI = '''import argparse
import asyncio

from prbot.agent import handle_request


def run():
    parser = argparse.ArgumentParser()
    parser.add_argument("--pr_url")
    parser.add_argument("command", nargs="*")
    args = parser.parse_args()
    asyncio.run(handle_request(args.pr_url, args.command))
'''

AGENT = '''from prbot.tools.docs import Docs
from prbot.tools.reviewer import Reviewer

COMMANDS = {
    "review": Reviewer,
    "review_pr": Reviewer,
    "add_docs": Docs,
}


async def handle_request(pr_url, request):
    action, *args = request
    action = action.lstrip("/").lower()
    if action not in COMMANDS:
        return False
    await COMMANDS[action](pr_url, args=args).run()
    return True
'''

TOOL = '''import litellm


class {name}:
    def __init__(self, pr_url, args=None):
        self.pr_url = pr_url

    async def run(self):
        return await self._predict()

    async def _predict(self):
        return await litellm.acompletion(model="m", messages=[{{"role": "user", "content": self.pr_url}}])
'''


def _files(run_line: str) -> dict[str, str]:
    return {"pyproject.toml": PYPROJECT,
            "README.md": f"# prbot\n\n```bash\npip install prbot\n{run_line}\n```\n",
            "prbot/__init__.py": "", "prbot/cli.py": CLI, "prbot/agent.py": AGENT,
            "prbot/tools/__init__.py": "", "prbot/tools/reviewer.py": TOOL.format(name="Reviewer"),
            "prbot/tools/docs.py": TOOL.format(name="Docs")}


@pytest.fixture(scope="module")
def review(tmp_path_factory):
    return modelled(tmp_path_factory, _files("prbot --pr_url https://example.com/pr/1 review"))


@pytest.fixture(scope="module")
def unnamed(tmp_path_factory):
    return modelled(tmp_path_factory, _files("prbot --pr_url https://example.com/pr/1"))


def _reach(m, path: str) -> str:
    return m.model.reach.of(path, m.line(path, "async def run"))


def test_the_command_the_readme_runs_is_the_scored_entry(review):
    assert _reach(review, "prbot/tools/reviewer.py") == "default"
    assert _reach(review, "prbot/tools/docs.py").startswith("opt-in")
    loops = review.model.session.loops
    assert loops and {lp.path for lp in loops} == {"prbot/tools/reviewer.py"}


def test_with_no_command_named_every_entry_stays_live(unnamed):
    assert _reach(unnamed, "prbot/tools/reviewer.py") == "default"
    assert _reach(unnamed, "prbot/tools/docs.py") == "default"
