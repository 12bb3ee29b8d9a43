"""agent.* probes (facts of the session model): agent.loop, agent.dispatch, agent.guard and
agent.executor fire on a live agent and stay silent on loops that are not agent loops (retries,
streams, loops without a model call), on tests/examples, and on script guards."""

from __future__ import annotations

import pytest


from .family import line_of
from .modelled import at, modelled, modelled_fixtures, with_data

AGENT = '''import os

import anthropic

from bot.shell import Shell


class Bot:
    def __init__(self, sandbox: str = "none"):
        self.client = anthropic.Anthropic()
        self.shell = Shell()
        self.sandbox = sandbox
        self.max_retries = 3

    def ask(self, messages):
        for attempt in range(self.max_retries):
            try:
                return self.client.messages.create(model="m", max_tokens=100, messages=messages)
            except TimeoutError:
                continue
        return None

    def loop(self, task: str):
        messages = [task]
        while len(messages) < 50:
            reply = self.ask(messages)
            for block in reply.content:
                if block.type == "tool_use":
                    messages.append(self.act(block.input["command"]))
        return messages

    def act(self, command: str):
        if self.sandbox == "firejail":
            return self.shell.jailed(command)
        return self.shell.run(command)


def cleanup(paths):
    for p in paths:
        os.remove(p)
'''

SHELL = '''import subprocess


class Shell:
    def run(self, command: str):
        return subprocess.run(command, shell=True, capture_output=True).stdout

    def jailed(self, command: str):
        return subprocess.run(["firejail", "sh", "-c", command], capture_output=True).stdout


def lint():
    for path in ["a.py", "b.py"]:
        subprocess.run(["ruff", path])
'''

MAIN = '''import sys

from bot.agent import Bot
from bot.shell import lint

if __name__ == "__main__":
    lint()
    Bot().loop(sys.argv[1])
'''

LIVE = {"bot/__init__.py": "", "bot/agent.py": AGENT, "bot/shell.py": SHELL, "bot/__main__.py": MAIN}

FRAMEWORK = '''from pydantic_ai import Agent

agent = Agent("openai:gpt-4o")


def main():
    return agent.run_sync("hello")
'''

NO_LOOP = '''import subprocess

from openai import OpenAI


def summarise(text: str):
    return OpenAI().chat.completions.create(model="m", messages=[{"role": "user", "content": text}])


def build_all(targets):
    for t in targets:
        subprocess.run(["make", t])


if __name__ == "__main__":
    build_all(["a"])
'''

DECOYS = {
    "app/__init__.py": "", "app/__main__.py": "from app.framework import main\n\nmain()\n",
    "app/framework.py": FRAMEWORK, "app/no_loop.py": NO_LOOP,
    "tests/test_bot.py": AGENT, "examples/bot_demo.py": AGENT + SHELL,
}

live, decoys = modelled_fixtures(LIVE, DECOYS)


def test_agent_loop_is_the_while_loop_not_the_retry_loop(live):
    assert with_data(live.findings()["agent.loop"], "loop", "func") == [
        ("bot/agent.py", line_of(AGENT, "while len(messages) < 50"), "loop", "Bot.loop")]
    assert "through 1 call(s)" in live.findings()["agent.loop"][0].claim
    assert not any("max_retries" in lp.head for lp in live.model.session.loops)


RETRY_BY_TARGET = AGENT.replace("for attempt in range(self.max_retries):", "for attempt in range(3):")


def test_retry_loop_named_by_its_target_is_not_an_agent_loop(tmp_path_factory):
    m = modelled(tmp_path_factory, {**LIVE, "bot/agent.py": RETRY_BY_TARGET})
    assert [lp.node for lp in m.model.session.loops] == ["bot/agent.py::Bot.loop"]
    assert m.findings()["agent.dispatch"] != []


def test_dispatch_cites_the_hand_offs_to_the_shell(live):
    assert set(at(live.findings()["agent.dispatch"])) == {
        ("bot/agent.py", line_of(AGENT, "self.act(block.input")),
        ("bot/agent.py", line_of(AGENT, "return self.shell.run(command)")),
    }  # lint()'s fixed ruff run is not on the model's path; the jailed branch is opt-in


def test_guard_names_the_sandbox_setting_but_never_the_script_guard(live):
    found = with_data(live.findings()["agent.guard"], "setting")
    assert found == [("bot/agent.py", line_of(AGENT, 'if self.sandbox == "firejail"'), "sandbox")]


def test_executor_is_the_class_holding_the_model_driven_spawns(live):
    assert with_data(live.findings()["agent.executor"], "cls") == [
        ("bot/shell.py", line_of(SHELL, "class Shell"), "host")]
    sinks = {(s.line, s.driven, s.reach) for s in live.model.session.sinks}
    assert (line_of(SHELL, "shell=True"), True, "default") in sinks
    assert (line_of(SHELL, '"ruff"'), False, "default") in sinks  # a fixed lint command


def test_the_jailed_spawn_behind_the_sandbox_setting_is_opt_in(live):
    assert live.reach("bot/shell.py", '"firejail"') == "opt-in:sandbox"


def test_framework_run_is_the_loop_and_one_shot_calls_are_not(decoys):
    f = decoys.findings()
    assert with_data(f["agent.loop"], "loop", "func") == [
        ("app/framework.py", line_of(FRAMEWORK, "run_sync"), "framework", "main")]
    # no exec sink is model-driven: a build loop with no model call drives nothing
    assert f["agent.dispatch"] == [] and f["agent.executor"] == []
    assert not [x for p in ("agent.loop", "agent.guard") for x in f[p]
                if x.location.path.startswith(("tests/", "examples/"))]
