"""A pipeline runs the functions a module-level collection names, through a loop variable
(`for step in STEPS[config]: step(ai, dbs)`): the call graph gives that call an edge to each
function the collection names, so the steps' model calls and actions are on the path."""

from __future__ import annotations

import pytest

from .repos import modelled

STEPS = '''import subprocess
from enum import Enum


class Config(str, Enum):
    DEFAULT = "default"
    EXECUTE = "execute"


def gen_code(ai, dbs):
    return ai.llm.completion(["write the code"])


def execute(ai, dbs):
    if input("run it? ") == "y":
        subprocess.run(["bash", "run.sh"])


def unlisted(ai, dbs):
    return ai.llm.completion(["never"])


STEPS = {
    Config.DEFAULT: [gen_code, execute],
    Config.EXECUTE: [execute],
}

NAMES = ["gen_code", "execute"]
'''

MAIN = '''from pkg.steps import NAMES, STEPS, Config


def main(ai, dbs, config=Config.DEFAULT):
    steps = STEPS[config]
    for step in steps:
        step(ai, dbs)


def by_name(ai, dbs):
    for step in NAMES:
        step(ai, dbs)
'''


@pytest.fixture(scope="module")
def piped(tmp_path_factory):
    return modelled(tmp_path_factory, {
        "pyproject.toml": '[project]\nname = "pkg"\n[project.scripts]\npkg = "pkg.main:main"\n',
        "pkg/__init__.py": "", "pkg/steps.py": STEPS, "pkg/main.py": MAIN})


def _calls(m, src):
    return {dst for dst, _line, how in m.model.graph.edges.get(src, ()) if how == "call"}


def test_the_loop_variable_runs_each_function_the_collection_names(piped):
    assert _calls(piped, "pkg/main.py::main") >= {"pkg/steps.py::gen_code", "pkg/steps.py::execute"}


def test_the_pipeline_loop_is_the_agent_loop(piped):
    assert piped.model.session.loops[0].node == "pkg/main.py::main"


def test_a_collection_of_names_as_strings_runs_nothing(piped):
    assert _calls(piped, "pkg/main.py::by_name") == set()


def test_a_function_the_collection_does_not_name_is_not_called(piped):
    assert "pkg/steps.py::unlisted" not in _calls(piped, "pkg/main.py::main")
