"""limits.loop_cap (caps the agent loop enforces, read off the session), limits.model_settable_schema
(tool schemas with limit fields), limits.exec_timeout (timeouts however enforced) and the
KeyboardInterrupt path of limits.cancel: fire on a live agent, silent on near misses."""

from __future__ import annotations

import pytest

from .family import line_of
from .modelled import at, modelled, modelled_fixtures, with_data

LOOP = '''import asyncio
import signal
from concurrent.futures import ThreadPoolExecutor

from openai import OpenAI

from agent.tools import SCHEMA, TOOLS

MAX_STEPS = 30


class StopRun(Exception):
    pass


class Agent:
    def __init__(self):
        self.client = OpenAI()
        self.turns = 0
        self.max_turns = 12
        self.pool = ThreadPoolExecutor()

    def run(self, task: str):
        step = 0
        while step < MAX_STEPS:
            reply = self.client.chat.completions.create(model="m", messages=[task], tools=[SCHEMA])
            self.act(reply)
            step += 1

    def act(self, reply):
        self.turns += 1
        if self.turns >= self.max_turns:
            raise StopRun("turn limit")
        for call in reply.choices[0].message.tool_calls:
            future = self.pool.submit(TOOLS[call.function.name], call.function.arguments)
            future.result(timeout=60)


def main(task: str):
    signal.alarm(600)
    try:
        Agent().run(task)
    except KeyboardInterrupt:
        print("stopped")


async def fetch(coro):
    return await asyncio.wait_for(coro, 10)


def batch(items):
    for i in range(MAX_STEPS):
        items.append(i)
'''

TOOLS = '''import subprocess

SCHEMA = {
    "name": "run_shell",
    "parameters": {"properties": {"command": {"type": "string"}, "timeout": {"type": "integer"}}},
}


def run_shell(command: str, timeout: int = 30) -> str:
    return subprocess.run(command, shell=True, capture_output=True, text=True).stdout


TOOLS = {"run_shell": run_shell}
'''

MAIN = "import sys\n\nfrom agent.loop import main\n\nmain(sys.argv[1])\n"

LIVE = {"agent/__init__.py": "", "agent/__main__.py": MAIN, "agent/loop.py": LOOP,
        "agent/tools.py": TOOLS}

PROSE = '''"""Limit notes.

    while step < MAX_STEPS:
    future.result(timeout=60)
    "timeout": {"type": "integer"}
    except KeyboardInterrupt:
"""
# future.result(timeout=60)
# signal.alarm(600)
DOC = '"timeout": {"type": "integer"} lets the model pick its own timeout'
'''

DECOYS = {
    "agent/__init__.py": "", "agent/__main__.py": "from agent import notes  # noqa\n",
    "agent/notes.py": PROSE,
    "tests/test_loop.py": LOOP + TOOLS, "examples/loop_demo.py": LOOP + TOOLS,
    "docs/limits.md": "Runs stop at `MAX_STEPS`; `future.result(timeout=60)` bounds a tool.\n",
}

live, decoys = modelled_fixtures(LIVE, DECOYS)


def test_loop_cap_in_the_loop_header_with_its_constant_default(live):
    caps = live.findings()["limits.loop_cap"]
    assert with_data(caps, "bound", "value", "where") == [
        ("agent/loop.py", line_of(LOOP, "while step < MAX_STEPS"), "MAX_STEPS", 30, "loop"),
        ("agent/loop.py", line_of(LOOP, "if self.turns >= self.max_turns"), "max_turns", -1, "step"),
    ]  # batch()'s range(MAX_STEPS) is no agent loop
    assert "(default 30)" in caps[0].claim


def test_loop_cap_needs_an_agent_loop(tmp_path_factory):
    m = modelled(tmp_path_factory, {**LIVE, "agent/loop.py": LOOP.replace(
        "reply = self.client.chat.completions.create(model=\"m\", messages=[task], tools=[SCHEMA])",
        "reply = task")})
    assert m.model.session.loops == [] and m.findings()["limits.loop_cap"] == []


def test_schema_limit_fields_the_model_fills(live):
    found = live.findings()["limits.model_settable_schema"]
    assert with_data(found, "name") == [("agent/tools.py", line_of(TOOLS, '"timeout": {"type"'), "timeout")]


def test_exec_timeouts_however_enforced(live):
    assert sorted(at(live.findings()["limits.exec_timeout"])) == [
        ("agent/loop.py", line_of(LOOP, "future.result(timeout=60)")),
        ("agent/loop.py", line_of(LOOP, "signal.alarm(600)")),
        ("agent/loop.py", line_of(LOOP, "asyncio.wait_for(coro, 10)")),
    ]


def test_keyboard_interrupt_is_a_cancel_path(live):
    found = [x for x in live.findings()["limits.cancel"] if x.data["how"] == "interrupt"]
    assert at(found) == [("agent/loop.py", line_of(LOOP, "except KeyboardInterrupt"))]
    assert "main" in found[0].claim


@pytest.mark.parametrize("probe_id", ["limits.loop_cap", "limits.model_settable_schema",
                                      "limits.exec_timeout", "limits.cancel"])
def test_no_finding_in_prose_tests_docs_or_examples(decoys, probe_id):
    assert decoys.findings()[probe_id] == []
