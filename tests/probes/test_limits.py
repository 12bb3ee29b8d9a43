"""limits.* probes: caps, where they are enforced, timeouts, cost ceilings, cancel, model budgets."""

from __future__ import annotations

import pytest

from .helpers import probe_findings


def _line(src: str, needle: str) -> int:
    """1-based line of the only line of src containing needle."""
    hits = [i for i, t in enumerate(src.splitlines(), 1) if needle in t]
    assert len(hits) == 1, (needle, hits)
    return hits[0]


# ---------------------------------------------------------------- limits.cap

CAPS = '''from pydantic import Field
from pydantic_settings import BaseSettings

MAX_STEPS = 25


class AgentSettings(BaseSettings):
    max_iterations: int = 30
    max_tool_calls: int = Field(default=50, description="tool calls per run")
    recursion_limit: int = Field(100)
    max_tokens: int = 4096
    max_turns: int | None = None


def run_agent(task: str, max_turns: int = 10, temperature: float = 0.2):
    max_steps = 99
    return task, max_steps
'''


def test_cap_fires_on_module_class_and_param_defaults(repo):
    found = probe_findings(repo, {"agent/settings.py": CAPS}, "limits.cap")
    assert [(f.location.path, f.location.start_line, f.data["name"], f.data["value"])
            for f in found] == [
        ("agent/settings.py", _line(CAPS, "MAX_STEPS = 25"), "MAX_STEPS", 25),
        ("agent/settings.py", _line(CAPS, "max_iterations"), "max_iterations", 30),
        ("agent/settings.py", _line(CAPS, "max_tool_calls"), "max_tool_calls", 50),
        ("agent/settings.py", _line(CAPS, "recursion_limit"), "recursion_limit", 100),
        ("agent/settings.py", _line(CAPS, "def run_agent"), "max_turns", 10),
    ]
    # max_tokens is not a step cap, max_turns=None has no number, and the function-local
    # max_steps = 99 is not a shipped setting


def test_cap_fires_on_env_fallback_default(repo):
    src = 'import os\n\nMAX_STEPS = int(os.getenv("AGENT_MAX_STEPS", "25"))\n'
    found = probe_findings(repo, {"agent/config.py": src}, "limits.cap")
    assert [(f.location.start_line, f.data["name"], f.data["value"]) for f in found] == [
        (3, "MAX_STEPS", 25)]


def test_cap_near_misses_do_not_fire(repo):
    files = {
        "tests/test_settings.py": CAPS,
        "examples/agent_settings.py": CAPS,
        "docs/config.md": "Set `MAX_STEPS = 25` to cap the loop.\n",
        "agent/notes.py": '"""Caps.\n\nMAX_STEPS = 25\nmax_turns: int = 10\n"""\n'
                          "# MAX_STEPS = 25\n"
                          "HELP = 'MAX_STEPS = 25 caps the loop'\n",
    }
    assert probe_findings(repo, files, "limits.cap") == []


# ----------------------------------------------------------- limits.enforced

LOOP = '''from pydantic_ai.usage import UsageLimits

MAX_STEPS = 20


class Agent:
    def __init__(self, max_steps: int = 20, max_turns: int = 8, max_requests: int = 30):
        self.max_steps = max_steps
        self.max_turns = max_turns
        self.max_requests = max_requests

    def run(self, task):
        steps = 0
        while True:
            if steps >= self.max_steps:
                break
            steps += 1

    async def run_model(self, prompt):
        limits = UsageLimits(request_limit=self.max_requests)
        return await self.model.run(prompt, usage_limits=limits)

    def plan(self):
        for _ in range(MAX_STEPS):
            self.think()

    def delegate(self, task):
        return Runner.run(
            self.sub_agent,
            task,
            max_turns=self.max_turns,
        )
'''


def test_enforced_fires_on_comparison_limiter_and_range(repo):
    found = probe_findings(repo, {"agent/loop.py": LOOP}, "limits.enforced")
    assert [(f.location.path, f.location.start_line) for f in found] == [
        ("agent/loop.py", _line(LOOP, "if steps >= self.max_steps:")),
        ("agent/loop.py", _line(LOOP, "UsageLimits(request_limit")),
        ("agent/loop.py", _line(LOOP, "range(MAX_STEPS)")),
    ]


def test_enforced_does_not_fire_on_pass_through(repo):
    src = '''class Worker:
    def __init__(self, max_turns: int = 8):
        self.max_turns = max_turns

    def delegate(self, task):
        return Runner.run(self.agent, task, max_turns=self.max_turns,)

    def settings(self) -> dict:
        return {"max_steps": self.max_steps, "max_turns": self.max_turns}
'''
    assert probe_findings(repo, {"agent/worker.py": src}, "limits.enforced") == []


def test_enforced_near_misses_do_not_fire(repo):
    files = {
        "tests/test_loop.py": LOOP,
        "examples/loop.py": LOOP,
        "docs/loop.md": "The loop stops when `steps >= self.max_steps`.\n",
        "agent/notes.py": '"""Loop.\n\n    if steps >= self.max_steps:\n        break\n"""\n'
                          "# if steps >= self.max_steps: break\n"
                          "#     limits = UsageLimits(request_limit=5)\n",
    }
    assert probe_findings(repo, files, "limits.enforced") == []


def test_enforced_ignores_string_constant(repo):
    src = 'STOP_REASON = "stopped because steps >= max_steps"\n'
    assert probe_findings(repo, {"agent/messages.py": src}, "limits.enforced") == []


def test_enforced_ignores_trailing_comment(repo):
    src = "def step(n):\n    n += 1  # TODO: stop once n >= max_steps\n    return n\n"
    assert probe_findings(repo, {"agent/step.py": src}, "limits.enforced") == []


# ------------------------------------------------------------ limits.timeout

RUNNER = '''import asyncio
import os
import subprocess

import requests

AGENT_TIMEOUT = 600
HTTP_TIMEOUT = 10
TOOL_TIMEOUT = int(os.getenv("TOOL_TIMEOUT", "120"))


async def run_tool(cmd):
    proc = await asyncio.create_subprocess_exec(*cmd, stdout=asyncio.subprocess.PIPE)
    out, _ = await asyncio.wait_for(proc.communicate(), timeout=TOOL_TIMEOUT)
    return out


def run_cmd(cmd):
    return subprocess.run(cmd, timeout=30, capture_output=True)


def run_forever(cmd):
    return subprocess.run(cmd, timeout=None)


def fetch(url):
    return requests.get(url, timeout=HTTP_TIMEOUT)
'''


def test_timeout_fires_on_spawn_wait_and_settings(repo):
    files = {
        "agent/runner.py": RUNNER,
        ".env.example": "SANDBOX_TIMEOUT=300\nLOG_LEVEL=info\n",
        "docker-compose.yml": "services:\n  agent:\n    environment:\n"
                              "      COMMAND_TIMEOUT: ${COMMAND_TIMEOUT:-60}\n",
    }
    found = probe_findings(repo, files, "limits.timeout")
    assert [(f.location.path, f.location.start_line, f.data["scope"]) for f in found] == [
        (".env.example", 1, "setting"),
        ("agent/runner.py", _line(RUNNER, "AGENT_TIMEOUT = 600"), "setting"),
        ("agent/runner.py", _line(RUNNER, "TOOL_TIMEOUT = int"), "setting"),
        ("agent/runner.py", _line(RUNNER, "asyncio.wait_for"), "wait"),
        ("agent/runner.py", _line(RUNNER, "timeout=30"), "command"),
        ("docker-compose.yml", 4, "setting"),
    ]
    claims = " ".join(f.claim for f in found)
    assert "SANDBOX_TIMEOUT defaults to 300" in claims
    assert "COMMAND_TIMEOUT defaults to 60" in claims
    assert "TOOL_TIMEOUT defaults to 120" in claims
    assert "HTTP_TIMEOUT" not in claims  # not about agent/tool/command work


def test_timeout_near_misses_do_not_fire(repo):
    files = {
        "tests/test_runner.py": RUNNER,
        "examples/runner.py": RUNNER,
        "tests/.env.test": "AGENT_TIMEOUT=600\n",
        ".env.example": "# AGENT_TIMEOUT=600\n",
        "agent/notes.py": '"""Commands run as subprocess.run(cmd, timeout=30)."""\n'
                          "# subprocess.run(cmd, timeout=30)\n"
                          "HINT = 'subprocess.run(cmd, timeout=30)'\n",
    }
    assert probe_findings(repo, files, "limits.timeout") == []


def test_timeout_ignores_env_file_under_docs(repo):
    files = {"docs/.env.example": "AGENT_TIMEOUT=600\n"}
    assert probe_findings(repo, files, "limits.timeout") == []


# --------------------------------------------------------------- limits.cost

COST = '''from pydantic import BaseModel, Field

MAX_COST_USD = 5.0
MAX_COST_DOC = None


class Budget(BaseModel):
    max_budget: float = Field(default=10.0)
    cost_limit: float | None = None


class Tracker:
    def __init__(self):
        self.token_budget = 200_000
        self.max_tokens = 4096
'''


def test_cost_fires_on_numeric_ceilings(repo):
    found = probe_findings(repo, {"agent/budget.py": COST}, "limits.cost")
    assert [(f.location.path, f.location.start_line, f.claim) for f in found] == [
        ("agent/budget.py", _line(COST, "MAX_COST_USD"), "MAX_COST_USD sets a spend ceiling."),
        ("agent/budget.py", _line(COST, "max_budget"), "max_budget sets a spend ceiling."),
        ("agent/budget.py", _line(COST, "token_budget"),
         "self.token_budget sets a spend ceiling."),
    ]


def test_cost_near_misses_do_not_fire(repo):
    files = {
        "tests/test_budget.py": COST,
        "examples/budget.py": COST,
        "docs/budget.md": "MAX_COST_USD = 5.0\n",
        "agent/notes.py": '"""Budget.\n\nMAX_COST_USD = 5.0\n"""\n# max_budget = 10.0\n'
                          "HELP = 'set max_budget = 10.0 to cap spend'\n",
    }
    assert probe_findings(repo, files, "limits.cost") == []


# ------------------------------------------------------------- limits.cancel

CANCEL = '''import os
import signal


class Runner:
    def cancel(self):
        os.killpg(os.getpgid(self.proc.pid), signal.SIGTERM)

    async def stop(self):
        self.task.cancel()

    def cleanup(self):
        self.proc.kill()

    def on_interrupt(self):
        self.proc.terminate()
'''


def test_cancel_fires_on_killpg_and_cancel_paths(repo):
    found = probe_findings(repo, {"agent/runner.py": CANCEL}, "limits.cancel")
    assert [(f.location.path, f.location.start_line, f.data["how"]) for f in found] == [
        ("agent/runner.py", _line(CANCEL, "os.killpg"), "killpg"),
        ("agent/runner.py", _line(CANCEL, "self.task.cancel()"), "cancel"),
        ("agent/runner.py", _line(CANCEL, "self.proc.terminate()"), "cancel"),
    ]
    assert "Runner.stop" in found[1].claim
    # self.proc.kill() in cleanup() is not on a cancel path


def test_cancel_near_misses_do_not_fire(repo):
    files = {
        "tests/test_runner.py": CANCEL,
        "examples/runner.py": CANCEL,
        "docs/cancel.md": "Cancel calls os.killpg(pgid, signal.SIGTERM).\n",
        "agent/notes.py": '"""Cancel uses os.killpg(pgid, SIGTERM)."""\n'
                          "def stop():\n    # self.task.cancel()\n"
                          "    return 'os.killpg(pgid, 15)'\n",
    }
    assert probe_findings(repo, files, "limits.cancel") == []


# ----------------------------------------------------- limits.model_settable

BUDGET_TOOLS = '''from pydantic_ai import Agent

agent = Agent("openai:gpt-4o")


@agent.tool
def extend_budget(ctx, max_steps: int) -> str:
    return "ok"


@agent.tool_plain
def noop() -> None:
    return None


@agent.tool
def set_goal(ctx, goal: str, max_iterations: int = 20) -> str:
    return goal


@agent.tool
def run_subagent_session(ctx, user_prompt: str, max_turns: int = 5) -> str:
    return user_prompt


@agent.tool
def continue_with(ctx, prompt: str, max_steps: int = 5) -> str:
    return prompt


@agent.tool
def browse(ctx, url: str, max_steps: int = 5) -> str:
    return url


@agent.tool
def search_limit(ctx, query: str, max_results: int = 5) -> str:
    return query


def extend_session(max_turns: int) -> None:
    return None
'''


def test_model_settable_fires_on_self_budget_tools(repo):
    found = probe_findings(repo, {"agent/tools.py": BUDGET_TOOLS}, "limits.model_settable")
    assert [(f.location.path, f.location.start_line, f.data["name"]) for f in found] == [
        ("agent/tools.py", _line(BUDGET_TOOLS, "def extend_budget"), "max_steps"),
        ("agent/tools.py", _line(BUDGET_TOOLS, "def set_goal"), "max_iterations"),
    ]
    # run_subagent_session/continue_with start a new agent from a prompt; browse is not
    # about the caller's own run; search_limit has no step cap; extend_session is no tool


def test_model_settable_near_misses_do_not_fire(repo):
    files = {
        "tests/test_tools.py": BUDGET_TOOLS,
        "examples/tools.py": BUDGET_TOOLS,
        "docs/tools.md": "@agent.tool\ndef extend_budget(ctx, max_steps: int): ...\n",
        "agent/notes.py": '"""Never write:\n\n@agent.tool\ndef extend_budget(ctx, max_steps: int):\n'
                          '    ...\n"""\n# @agent.tool\n# def set_goal(ctx, max_turns: int): ...\n'
                          "SNIPPET = '@tool\\ndef extend_budget(max_steps: int): ...'\n",
    }
    assert probe_findings(repo, files, "limits.model_settable") == []


def test_a_cap_in_a_joined_condition_names_only_its_counter():
    # the claim "The run stops when <counter> reaches <bound>" quotes the counter compared,
    # not the conditions and line breaks joined before it
    from dids.probes.limits import _bound_of

    head = ("self.max_usage_count is not None\n"
            "            and self.current_usage_count >= self.max_usage_count")
    assert _bound_of(head) == ("self.current_usage_count", "max_usage_count")
    assert _bound_of('state["steps"] >= MAX_STEPS') == ('state["steps"]', "MAX_STEPS")
    # a chain: `0 <` only says a zero limit is no limit; the counter is on the right
    assert _bound_of("0 < self.config.step_limit <= self.n_calls") == (
        "self.n_calls", "self.config.step_limit")
    assert _bound_of("0 < self.config.step_limit") is None  # no counter compared
    got = _bound_of('self.state.get("ops", {"counter": 0})["counter"] >= MAX_OPERATIONS')
    assert got == ('self.state.get("ops", {"counter": 0})["counter"]', "MAX_OPERATIONS")
