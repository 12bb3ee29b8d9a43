"""C5 for a session that gives the model no tools (a reviewer bot, a summariser: code pastes
untrusted content into the prompt and posts the reply): injected text can steer only the text
the model writes, so the design is structural (L2 on every dimension), as C3 already says; the
same pipeline that hands the model a shell tool is not."""

from __future__ import annotations

import pytest

from dids.engine import score_target

REVIEWER = '''import requests
from openai import OpenAI


def fetch_diff(url: str) -> str:
    return requests.get(url).text


def review(pr_urls: list[str]) -> list[str]:
    client = OpenAI()
    out = []
    for url in pr_urls:
        diff = fetch_diff(url)
        prompt = "Review this pull request diff:\\n" + diff
        reply = client.chat.completions.create(model="m", messages=[{"role": "user", "content": prompt}])
        out.append(reply.choices[0].message.content)
    return out
'''

SHELL = '''import subprocess

from openai import OpenAI


def run(task: str) -> str:
    client = OpenAI()
    while True:
        reply = client.chat.completions.create(model="m", messages=[task])
        command = reply.choices[0].message.content
        if not command:
            return task
        task = subprocess.run(command, shell=True, capture_output=True, text=True).stdout
'''

MAIN = '''import sys

from bot.review import review

if __name__ == "__main__":
    print(review(sys.argv[1:]))
'''

MAIN_SHELL = MAIN.replace("from bot.review import review", "from bot.review import run as review")


def _score(tmp_path_factory, review_py: str, main: str):
    from conftest import RepoBuilder

    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("DIDS_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "dids-cache"))
        repo = RepoBuilder(tmp_path_factory.mktemp("bot") / "repo")
        repo.commit({"bot/__init__.py": "", "bot/review.py": review_py, "bot/main.py": main})
        report = score_target(str(repo.path))
    return {c.id: c for c in report.criteria}


def test_a_session_without_tools_is_structurally_bounded(tmp_path_factory):
    got = _score(tmp_path_factory, REVIEWER, MAIN)
    c5, c3 = got["C5"], got["C3"]
    assert (c5.levels.S, c5.levels.C, c5.levels.D, c5.levels.B) == (2, 2, 2, 2)
    assert c5.assessment.configurations[0].dims["S"].summary.startswith(
        "Structural: the model is given no tools")
    assert c3.levels.S == 2  # C3 reads the same session the same way


def test_the_same_loop_running_what_the_model_writes_is_not(tmp_path_factory):
    c5 = _score(tmp_path_factory, SHELL, MAIN_SHELL)["C5"]
    assert c5.levels.S == 0


KERNEL = '''from jupyter_client import BlockingKernelClient


class Executor:
    def __init__(self, connection_file: str):
        self.client = BlockingKernelClient(connection_file=connection_file)

    def run(self, code: str):
        return self.client.execute(code)
'''


def test_a_package_interpreter_the_graph_does_not_reach_is_no_toolless_session(tmp_path_factory):
    """Roles wired by name leave the loop without a reached tool, but the package runs code
    through a kernel of its own: C3 takes it as the agent's action, and C5 must not call the
    session structurally safe."""
    from conftest import RepoBuilder

    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("DIDS_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "dids-cache"))
        repo = RepoBuilder(tmp_path_factory.mktemp("bot") / "repo")
        repo.commit({"bot/__init__.py": "", "bot/review.py": REVIEWER, "bot/main.py": MAIN,
                     "bot/kernel.py": KERNEL})
        got = {c.id: c for c in score_target(str(repo.path)).criteria}
    assert got["C3"].levels.S == 0 and got["C5"].levels.S < 2
