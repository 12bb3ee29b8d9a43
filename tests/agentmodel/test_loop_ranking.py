"""Which loop is the agent's: a `for` over a collection the code holds (each guardrail of a
task checked by the model, each chunk of a document summarised) maps work over items and ranks
after the turn loop, even when it sits nearer the entry point; it is still a loop of the session."""

from __future__ import annotations

import pytest

from .repos import modelled

TASK = '''from pkg.executor import Executor
from pkg.guard import check


class Task:
    def __init__(self, guardrails):
        self._guardrails = guardrails

    def run(self, llm):
        out = Executor(llm).invoke("task")
        for guardrail in enumerate(self._guardrails):
            out = check(llm, guardrail, out)
        return out
'''

GUARD = '''def check(llm, guardrail, out):
    return ask(llm, guardrail, out)


def ask(llm, guardrail, out):
    return llm.completion([str(guardrail), out])
'''

EXECUTOR = '''class Executor:
    def __init__(self, llm):
        self.llm = llm

    def invoke(self, task):
        return self._loop(task)

    def _loop(self, task):
        answer = None
        while answer is None or not answer.startswith("FINAL"):
            answer = self.llm.completion([task, answer])
        return answer
'''

MAIN = '''from pkg.task import Task


def main():
    Task([1, 2]).run(object())
'''


@pytest.fixture(scope="module")
def loops(tmp_path_factory):
    m = modelled(tmp_path_factory, {
        "pyproject.toml": '[project]\nname = "pkg"\n[project.scripts]\npkg = "pkg.main:main"\n',
        "pkg/__init__.py": "", "pkg/task.py": TASK, "pkg/guard.py": GUARD,
        "pkg/executor.py": EXECUTOR, "pkg/main.py": MAIN})
    return [(lp.path, lp.head) for lp in m.model.session.loops]


def test_the_turn_loop_ranks_before_a_loop_over_items(loops):
    assert loops[0][0] == "pkg/executor.py"
    assert loops[0][1].startswith("answer is None")


def test_the_loop_over_items_is_still_a_loop_of_the_session(loops):
    assert ("pkg/task.py", "enumerate(self._guardrails)") in loops
