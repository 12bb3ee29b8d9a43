"""Model calls through an object the code names as one: the model object called with the
request (`llm(messages)`, `self.model(prompt)`) asks the model; a client, provider or backend
called bare builds something or opens a context (`with backend(name, timeout=t):`), so a loop
around it is no agent loop."""

from __future__ import annotations

import pytest

from .repos import modelled

LOCKS = '''_backend = None


def set_backend(factory):
    global _backend
    _backend = factory


def run_all(tasks):
    backend = _backend
    for name in tasks:
        with backend(name, timeout=5):
            print(name)
'''

AGENT = '''def solve(llm, task: str, max_steps: int = 8):
    messages = [task]
    for _ in range(max_steps):
        reply = llm(messages)
        messages.append(reply)
        if "DONE" in reply:
            return reply
'''

MAIN = '''from pkg.agent import solve
from pkg.locks import run_all


def main():
    run_all(["a", "b"])
    solve(lambda m: "DONE", "task")
'''


@pytest.fixture(scope="module")
def m(tmp_path_factory):
    return modelled(tmp_path_factory, {
        "pyproject.toml": '[project]\nname = "pkg"\n[project.scripts]\npkg = "pkg.main:main"\n',
        "pkg/__init__.py": "", "pkg/locks.py": LOCKS, "pkg/agent.py": AGENT, "pkg/main.py": MAIN})


def test_the_model_object_called_with_the_request_is_the_agent_loop(m):
    loops = [(lp.path, lp.head) for lp in m.index.agent.session.loops]
    assert ("pkg/agent.py", "range(max_steps)") in loops


def test_a_backend_called_bare_is_no_model_call(m):
    assert not [lp for lp in m.index.agent.session.loops if lp.path == "pkg/locks.py"]
