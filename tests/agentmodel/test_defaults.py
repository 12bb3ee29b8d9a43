"""Which branches the shipped defaults take (dids.agent.defaults): settings, configuration
classes, constructor switches, entry-function parameters, argparse options, `sys.argv` checks."""

from __future__ import annotations

from textwrap import dedent

import pytest

from dids.agent.defaults import Defaults
from dids.index.configs import Setting
from dids.index.pyfacts import extract

SRC = dedent('''
    import argparse
    import os
    import sys

    from pydantic import Field

    MODE = "safe"


    class AgentConfig:
        confirmation_mode: bool = False
        runtime = Field(default="docker")


    class State:
        auto_approve = True


    class Agent:
        def __init__(self, executor_type="local", sandbox=None):
            self.executor_type = executor_type
            self.sandbox = sandbox or "none"
            self.state = State()

        def run(self, config, role):
            return 0

        def pick(self):
            if self.executor_type == "local":
                a = 1
            elif self.executor_type == "docker":
                b = 2
            else:
                c = 3
            if self.executor_type == "e2b":
                d = 4
            if self.executor_type == "e2b" and start():
                e = 5
            return a, b, c, d, e


    def main(debug: bool = False):
        parser = argparse.ArgumentParser()
        parser.add_argument("--yolo", action="store_true")
        parser.add_argument("--no-color", action="store_false")
        parser.add_argument("--backend", default="local")
        parser.add_argument("--model")
        args = parser.parse_args()
        return args, debug
    ''').lstrip()

PATH = "agent/core.py"


@pytest.fixture(scope="module")
def facts():
    return extract(PATH, SRC.encode())


def _defaults(facts, overrides=None, roots=frozenset()):
    settings = [Setting("MODE", "safe", PATH, 7, "code", var="MODE"),
                Setting("TELEMETRY", "on", ".env.example", 1, "env-example"),
                Setting("USE_SANDBOX", None, PATH, 1, "code")]
    return Defaults({PATH: facts}, settings, overrides, roots)


@pytest.fixture(scope="module")
def d(facts):
    return _defaults(facts)


@pytest.mark.parametrize("func,cond,want", [
    # constructor switches bound to self from an __init__ parameter default
    ("Agent.run", 'self.executor_type == "e2b"', False),
    ("Agent.run", 'self.executor_type == "local"', True),
    ("Agent.run", 'self.executor_type != "local"', False),
    ("Agent.run", 'self.executor_type in ("e2b", "modal")', False),
    ("Agent.run", 'self.executor_type not in ("e2b", "modal")', True),
    ("Agent.run", '(self.executor_type == "e2b")', False),
    ("Agent.run", 'self.executor_type.lower() == "LOCAL"', True),
    ("Agent.run", 'self.sandbox == "none"', True),  # `sandbox or "none"`: the fallback
    # configuration classes and their Field(default=...)
    ("Agent.run", "config.confirmation_mode", False),
    ("Agent.run", "not config.confirmation_mode", True),
    ("Agent.run", 'config.runtime == "docker"', True),
    # a setting-like field of any class read through self
    ("Agent.run", "self.state.auto_approve", True),
    # environment lookups: no default is None, a default is a literal
    ("Agent.run", 'os.getenv("USE_SANDBOX")', False),
    ("Agent.run", 'os.environ.get("X_MODE", "on") == "on"', True),
    # module constants and shipped settings
    ("Agent.run", 'MODE == "safe"', True),
    ("Agent.run", 'TELEMETRY == "off"', False),
    # data is unknown: the branch is taken
    ("Agent.run", 'role == "user"', None),
    ("Agent.run", "reply.tool_calls", None),
    # boolean structure
    ("Agent.run", 'self.executor_type == "e2b" or config.confirmation_mode', False),
    ("Agent.run", 'self.executor_type == "local" or role == "user"', True),
    ("Agent.run", 'self.executor_type == "e2b" and role == "user"', False),
    ("Agent.run", 'self.executor_type == "local" and role == "user"', None),
    # argparse options: store_true is False, store_false True, no default None
    ("main", "args.yolo", False),
    ("main", "args.no_color", True),
    ("main", 'args.backend == "local"', True),
    ("main", "args.model is None", True),
    # a flag on the command line is not given by default
    ("main", '"--verbose" in sys.argv', False),
    ("main", '"--verbose" not in sys.argv', True),
    # an entry function's own parameter is unknown unless it is a root
    ("main", "debug", None),
])
def test_truth_under_the_shipped_defaults(d, facts, func, cond, want):
    assert d.truth(facts, func, cond) is want


def test_entry_function_parameters_count_when_it_is_a_root(facts):
    d = _defaults(facts, roots={(PATH, "main")})
    assert d.truth(facts, "main", "debug") is False
    assert d.truth(facts, "main", "not debug") is True


def test_readme_snippet_arguments_override_constructor_defaults(facts):
    d = _defaults(facts, overrides={"executor_type": '"e2b"'})
    assert d.truth(facts, "Agent.run", 'self.executor_type == "e2b"') is True
    assert d.truth(facts, "Agent.run", 'self.executor_type == "local"') is False


def _line(needle):
    hits = [i for i, t in enumerate(SRC.splitlines(), 1) if needle in t]
    assert len(hits) == 1, needle
    return hits[0]


def test_guard_at_walks_if_elif_else_chains(d):
    assert d.guard_at(PATH, "Agent.pick", _line("a = 1")) is None
    g = d.guard_at(PATH, "Agent.pick", _line("b = 2"))
    assert (g.line, g.setting, g.label()) == (_line('elif self.executor_type == "docker"'),
                                              "executor_type", "opt-in:executor_type")
    g = d.guard_at(PATH, "Agent.pick", _line("c = 3"))
    assert g is not None and g.line == _line("else:") and g.condition.startswith("else of ")
    g = d.guard_at(PATH, "Agent.pick", _line("d = 4"))
    assert (g.line, g.setting) == (_line('if self.executor_type == "e2b":'), "executor_type")


def test_guard_at_short_circuit_on_the_condition_line(d):
    g = d.guard_at(PATH, "Agent.pick", _line("and start()"))
    assert g is not None and g.setting == "executor_type"
    assert d.guard_at(PATH, "Agent.pick", _line("return a, b")) is None


def test_a_different_default_moves_the_guard(facts):
    d = _defaults(facts, overrides={"executor_type": '"docker"'})
    assert d.guard_at(PATH, "Agent.pick", _line("b = 2")) is None
    assert d.guard_at(PATH, "Agent.pick", _line("a = 1")) is not None
    assert d.guard_at(PATH, "Agent.pick", _line("c = 3")) is not None
