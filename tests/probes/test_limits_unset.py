"""Caps that bind only once set: a loop guarded `0 < self.config.step_limit <= self.n_calls` (or
`if limit and n >= limit`) whose limit ships as 0 or None is no default ceiling, but the one
configuration a user turns on (optional); the same guard over a limit that ships set is a cap.
A spend ceiling read from the environment with "0" as its default is no ceiling; C10 counts a
cost ceiling with timeouts as several limits."""

from __future__ import annotations

import pytest

from dids.agent.defaults import _UNKNOWN, _env_default

from .family import line_of
from .modelled import modelled, with_data

AGENT = '''import os
import subprocess

from openai import OpenAI


class AgentConfig:
    step_limit: int = {step}
    cost_limit: float = 3.0
    wall_limit: int | None = None


class Stats:
    def __init__(self):
        self.cost = 0.0
        self.global_cost_limit = float(os.getenv("GLOBAL_COST_LIMIT", "0"))

    def add(self, cost):
        self.cost += cost
        if 0 < self.global_cost_limit < self.cost:
            raise RuntimeError("over budget")


class Agent:
    def __init__(self):
        self.config = AgentConfig()
        self.client = OpenAI()
        self.stats = Stats()
        self.n_calls = 0

    def run(self, task):
        while True:
            self.step(task)

    def step(self, task):
        if 0 < self.config.step_limit <= self.n_calls or 0 < self.config.cost_limit <= self.stats.cost:
            raise RuntimeError("limits exceeded")
        if self.config.wall_limit and self.n_calls >= self.config.wall_limit:
            raise RuntimeError("wall")
        self.n_calls += 1
        reply = self.client.chat.completions.create(model="m", messages=[task])
        self.stats.add(reply.usage.cost)
        subprocess.run(reply.choices[0].message.content, shell=True, timeout=30)
'''

MAIN = "import sys\n\nfrom agent.loop import Agent\n\nAgent().run(sys.argv[1])\n"


def _repo(tmp_path_factory, step: str):
    return modelled(tmp_path_factory, {"agent/__init__.py": "", "agent/__main__.py": MAIN,
                                       "agent/loop.py": AGENT.replace("{step}", step)})


@pytest.fixture(scope="module")
def unset(tmp_path_factory):
    return _repo(tmp_path_factory, "0")


@pytest.fixture(scope="module")
def set_(tmp_path_factory):
    return _repo(tmp_path_factory, "40")


def test_a_cap_that_ships_as_zero_is_optional(unset):
    caps = unset.findings()["limits.loop_cap"]
    step = line_of(AGENT, "if 0 < self.config.step_limit")
    wall = line_of(AGENT, "if self.config.wall_limit and")
    budget = line_of(AGENT, "if 0 < self.global_cost_limit")
    got = {(ln, b): opt for _p, ln, b, opt in with_data(caps, "bound", "optional")}
    assert got[(step, "self.config.step_limit")] is True
    assert got[(wall, "self.config.wall_limit")] is True  # None: unset
    assert got[(budget, "self.global_cost_limit")] is True  # float(os.getenv(..., "0"))
    assert "ships as 0" in next(c.claim for c in caps if c.location.start_line == step)


def test_the_same_guard_over_a_limit_that_ships_set_is_a_cap(set_):
    caps = set_.findings()["limits.loop_cap"]
    step = line_of(AGENT, "if 0 < self.config.step_limit")
    assert [(b, opt) for _p, ln, b, opt in with_data(caps, "bound", "optional") if ln == step] == \
        [("self.config.step_limit", None)]


def test_a_spend_ceiling_that_defaults_to_zero_is_none(unset):
    cost = [(f.location.start_line, f.claim) for f in unset.findings()["limits.cost"]]
    assert cost == [(line_of(AGENT, "cost_limit: float = 3.0"), "cost_limit sets a spend ceiling.")]


def test_c10_counts_a_cost_ceiling_and_timeouts_as_several_limits(unset):
    from dids.criteria.base import Context, assess_all
    from dids.rubric import load_rubric

    ctx = Context(index=unset.index, findings=unset.findings(), rubric=load_rubric())
    c10 = next(a for a in assess_all(ctx) if a.criterion == "C10")
    cfg = c10.configurations[0]
    assert cfg.dims["S"].level == 2
    assert cfg.dims["S"].summary.startswith("A cost ceiling and timeouts are enforced")
    assert cfg.dims["S"].evidence[0].probe == "limits.cost"


@pytest.mark.parametrize("text,value", [
    ('float(os.getenv("LIMIT", "0"))', 0), ('int(os.environ.get("N", "25"))', 25),
    ('os.getenv("N")', None), ('os.getenv("MODE", "fast")', "fast"),
    ("load_limit()", _UNKNOWN), ('float(read("LIMIT", "0"))', _UNKNOWN)])
def test_environment_defaults_with_their_cast(text, value):
    assert _env_default(text) == value


# a cap asked through a predicate of the flag's own class (`if self.reached_limit(): raise`,
# where reached_limit compares the counter with the maximum), and a token budget that trims
# the prompt inside a step (a length bound, no cap on the run)
FLAGS = '''from openai import OpenAI


class IterationFlag:
    def __init__(self, max_value: int = 100):
        self.current_value = 0
        self.max_value = max_value

    def reached_limit(self) -> bool:
        self._hit = self.current_value >= self.max_value
        return self._hit

    def step(self):
        if self.reached_limit():
            raise RuntimeError("maximum iteration reached")
        self.current_value += 1


def trim(messages, max_tokens: int = 4000):
    tail_tokens = 0
    for m in messages:
        tail_tokens += len(m)
        if tail_tokens > max_tokens:
            return messages[-5:]
    return messages


class Controller:
    def __init__(self):
        self.flag = IterationFlag()
        self.client = OpenAI()

    def run(self, task):
        while True:
            self.flag.step()
            self.client.chat.completions.create(model="m", messages=trim([task]))
'''

FLAGS_MAIN = "import sys\n\nfrom agent.flags import Controller\n\nController().run(sys.argv[1])\n"


def test_a_cap_asked_through_a_predicate_and_no_cap_from_a_token_trim(tmp_path_factory):
    m = modelled(tmp_path_factory, {"agent/__init__.py": "", "agent/__main__.py": FLAGS_MAIN,
                                    "agent/flags.py": FLAGS})
    caps = m.findings()["limits.loop_cap"]
    assert [(ln, b) for _p, ln, b in with_data(caps, "bound")] == [
        (line_of(FLAGS, "if self.reached_limit():"), "max_value")]
    assert "self.current_value reaches max_value" in caps[0].claim
