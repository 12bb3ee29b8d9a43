"""Context citations (criteria/context.py): the settings the cited code reads come first, and
credential factories that more of the code calls come before one-off clients."""

from __future__ import annotations

from dids.criteria.base import Context
from dids.criteria.context import _by_fan_in, augment
from dids.models import (ConfigurationAssessment, CriterionAssessment, DimensionAssessment,
                         Evidence)
from dids.probes.base import finding
from dids.probes.runner import run_probes

from agentmodel.repos import modelled

AGENT = '''from dataclasses import dataclass

import boto3


@dataclass
class AgentConfig:
    enable_sound: bool = False
    enable_browsing: bool = True
    enable_shell: bool = True


class Agent:
    def __init__(self, config: AgentConfig):
        self.config = config

    def get_tools(self):
        tools = []
        if self.config.enable_browsing:
            tools.append("browser")
        return tools


def make_client(service: str):
    return boto3.client(service)


def logs():
    return make_client("logs")


def metrics():
    return make_client("cloudwatch")


def once():
    return boto3.client("s3")
'''

FILES = {"bot/__init__.py": "", "bot/agent.py": AGENT,
         "bot/__main__.py": "from bot.agent import Agent, AgentConfig, logs, metrics, once\n\n"
                            "Agent(AgentConfig()).get_tools()\nlogs()\nmetrics()\nonce()\n"}


def _setting(m, name):
    line = m.line("bot/agent.py", f"    {name}: bool")
    return finding("config.default", f"Setting {name} is defined here.", "bot/agent.py", line,
                   setting=name, topic="tools")


def test_the_setting_the_cited_code_reads_comes_first(tmp_path_factory):
    m = modelled(tmp_path_factory, FILES)
    ctx = Context(m.index, run_probes(m.index), None)
    settings = [_setting(m, n) for n in ("enable_sound", "enable_shell", "enable_browsing")]
    ctx._pools = {"set:tools": settings}
    cited = finding("tools.inventory", "The tool set is put together here.", "bot/agent.py",
                    m.line("bot/agent.py", "tools = []"))
    dim = DimensionAssessment(level=1, summary="s", next_level="n",
                              evidence=(Evidence.of(cited, "D", "default"),))
    cfg = ConfigurationAssessment(name="default", label="default", opt_in=False,
                                  dims={d: dim for d in "SCDB"})
    got = augment(ctx, CriterionAssessment(criterion="C3", assessed=True, summary="",
                                           configurations=(cfg,)))
    claims = [e.claim for e in got.configurations[0].dims["S"].evidence[1:]]
    assert claims[0] == "Setting enable_browsing is defined here."  # read in get_tools
    assert claims[1:] == ["Setting enable_sound is defined here.",
                          "Setting enable_shell is defined here."]  # then in their own order


def test_credential_factories_most_code_calls_come_first(tmp_path_factory):
    m = modelled(tmp_path_factory, FILES)
    ctx = Context(m.index, run_probes(m.index), None)
    once = finding("identity.ambient", "boto3.client(...) in once.", "bot/agent.py",
                   m.line("bot/agent.py", 'boto3.client("s3")'))
    factory = finding("identity.ambient", "boto3.client(...) in make_client.", "bot/agent.py",
                      m.line("bot/agent.py", "boto3.client(service)"))
    assert [x.claim for x in _by_fan_in(ctx, [once, factory, once])] == [
        "boto3.client(...) in make_client.", "boto3.client(...) in once."]
    # make_client has two callers, once() one; the repeated line is cited once


def test_one_of_each_kind_before_a_second_of_any():
    from dids.criteria.context import _round_robin

    assert _round_robin([[1, 2, 3], [], ["a"], ["x", "y"]]) == [1, "a", "x", 2, "y", 3]


def test_first_of_each_key_before_the_repeats():
    from dids.criteria.context import _first_per

    found = ["a.py:1", "a.py:2", "b.py:1", "a.py:3", "c.py:9", "b.py:2"]
    assert _first_per(found, lambda x: x.split(":")[0]) == [
        "a.py:1", "b.py:1", "c.py:9", "a.py:2", "a.py:3", "b.py:2"]


def test_guards_are_grouped_by_the_topic_of_the_setting_they_test():
    from dids.criteria.context import _guards_by_topic

    guards = [finding("agent.guard", f"Branch on {s}.", "bot/agent.py", n, setting=s)
              for n, s in ((3, "executor_type"), (5, "confirmation_mode"), (7, "colour"))]
    got = _guards_by_topic(guards)
    assert [g.data["setting"] for g in got["guard:sandbox"]] == ["executor_type"]
    assert [g.data["setting"] for g in got["guard:approval"]] == ["confirmation_mode"]
    assert sum(len(v) for v in got.values()) == 2  # colour is about nothing a criterion judges
