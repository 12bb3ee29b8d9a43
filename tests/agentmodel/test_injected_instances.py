"""Instances a dependency-injection container builds (`injector.get(Planner)`,
`injector.create_object(Planner, {...})`) have the class they are asked for: a session whose
roles come from a container reaches the roles' model calls, and its turn loop is found."""

from __future__ import annotations

import pytest

from .repos import modelled

PLANNER = '''class Planner:
    def __init__(self, llm):
        self.llm = llm

    def reply(self, memory):
        return self.llm.chat_completion(memory)


class Critic:
    def reply(self, memory):
        return "ok"
'''

SESSION = '''from pkg.planner import Planner


class Session:
    def __init__(self, session_injector, handlers):
        self.planner = session_injector.{how}
        self.other = handlers.get(Planner)

    def send(self, message):
        memory = [message]
        while True:
            post = self.{role}.reply(memory)
            if post == "done":
                break
'''

RUN = '''from pkg.session import Session


def main(injector, handlers):
    Session(injector, handlers).send("hi")
'''


def _loops(tmp_path_factory, how: str, role: str = "planner"):
    m = modelled(tmp_path_factory, {
        "pyproject.toml": '[project]\nname = "pkg"\n[project.scripts]\npkg = "pkg.run:main"\n',
        "pkg/__init__.py": "", "pkg/planner.py": PLANNER, "pkg/run.py": RUN,
        "pkg/session.py": SESSION.format(how=how, role=role)})
    return [(lp.node, lp.kind) for lp in m.model.session.loops]


@pytest.mark.parametrize("how", ["get(Planner)", 'create_object(Planner, {"workers": []})'])
def test_the_container_builds_the_class_it_is_asked_for(tmp_path_factory, how):
    assert ("pkg/session.py::Session.send", "loop") in _loops(tmp_path_factory, how)


def test_a_dict_looked_up_by_a_class_holds_no_instance_of_it(tmp_path_factory):
    # `handlers.get(Planner)`: a handler keyed by the class, not a Planner
    loops = _loops(tmp_path_factory, "get(Planner)", role="other")
    assert ("pkg/session.py::Session.send", "loop") not in loops
