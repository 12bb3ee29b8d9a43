"""approval.gate (human decisions on the model's path) and exec.filter (command validators and
preambles in front of model-driven spawns), with the agent model built: they fire where the loop
or its tools reach them and stay silent on chores, human "model" classes, code the loop never
reaches, state tests, validators after the spawn, and tests/examples."""

from __future__ import annotations

from .family import line_of
from .modelled import at, modelled_fixtures, with_data

LLM = '''import litellm


class LLM:
    def completion(self, messages):
        return litellm.completion(model="m", messages=messages)
'''

LOOP = '''import enum

from bot.llm import LLM
from bot.tools import TOOLS

DANGEROUS = {"run_shell", "run_script"}


class AgentState(enum.Enum):
    RUNNING = "running"
    AWAITING_CONFIRMATION = "awaiting_confirmation"


class Agent:
    llm: LLM

    def __init__(self):
        self.llm = LLM()
        self.state = AgentState.RUNNING

    def run(self, task: str):
        messages = [task]
        while True:
            reply = self.llm.completion(messages)
            for call in reply.tool_calls:
                if self.state == AgentState.AWAITING_CONFIRMATION:
                    continue
                if call.name in DANGEROUS and not self.approve(call):
                    self.state = AgentState.AWAITING_CONFIRMATION
                    continue
                self.tidy()
                messages.append(TOOLS[call.name](call.arguments))

    def approve(self, call) -> bool:
        answer = input(f"Allow {call.name} to run {call.arguments}? [y/N] ")
        return answer == "y"

    def tidy(self):
        if input("Overwrite the config file? [y/N] ") == "y":
            return True
        return False


def onboarding():
    return input("Approve the plan and proceed? ")
'''

HUMAN = '''class HumanModel:
    def completion(self, messages):
        return input("Approve or reject the next action: ")
'''

TOOLS = '''import subprocess

import click

from pydantic import BaseModel


class Args(BaseModel):
    command: str


def validate_command(command: str) -> None:
    if "rm -rf" in command:
        raise PermissionError(command)


def is_allowed(command: str) -> bool:
    return not command.startswith("sudo")


def tool(fn):
    return fn


@tool
def run_shell(command: str) -> str:
    validate_command(command)
    return subprocess.run(command, shell=True, capture_output=True, text=True).stdout


def _spawn(command: str):
    return subprocess.Popen(command, shell=True)


@tool
def run_script(command: str):
    if not is_allowed(command):
        raise PermissionError(command)
    if not click.confirm(f"Execute {command}?"):
        return None
    return _spawn(command)


@tool
def run_checked(raw: dict):
    args = Args.model_validate(raw)
    out = subprocess.run(args.command, shell=True)
    validate_command(args.command)
    return out


def validate_response(reply: dict) -> dict:
    if "commands" not in reply:
        raise ValueError(reply)
    return reply


@tool
def run_planned(reply: dict):
    plan = validate_response(reply)
    for command in plan["commands"]:
        subprocess.run(command, shell=True)


TOOLS = {"run_shell": run_shell, "run_script": run_script, "run_checked": run_checked,
         "run_planned": run_planned}
'''

PREAMBLE = '''import socket
import subprocess


def _blocked(*args, **kwargs):
    raise PermissionError("blocked in the sandboxed interpreter")


socket.socket = _blocked
subprocess.Popen = _blocked
'''

MAIN = '''import sys

from bot import human, preamble  # noqa: F401
from bot.loop import Agent

Agent().run(sys.argv[1])
'''

LIVE = {"bot/__init__.py": "", "bot/__main__.py": MAIN, "bot/llm.py": LLM, "bot/loop.py": LOOP,
        "bot/human.py": HUMAN, "bot/tools.py": TOOLS, "bot/preamble.py": PREAMBLE}

SINGLE_PATCH = '''import socket


def fake_socket(*args):
    return None


socket.socket = fake_socket
'''

DECOYS = {
    "bot/__init__.py": "", "bot/__main__.py": "from bot import patch  # noqa\n",
    "bot/patch.py": SINGLE_PATCH,
    "tests/test_tools.py": TOOLS + PREAMBLE, "examples/loop_demo.py": LOOP + TOOLS,
    "docs/gates.md": 'input("Allow this command? [y/N]")\n\nsocket.socket = blocked\n',
}

live, decoys = modelled_fixtures(LIVE, DECOYS)


def test_gate_prompts_on_the_model_path_and_in_tools(live):
    assert with_data(live.findings()["approval.gate"], "how", "in_tool") == [
        ("bot/loop.py", line_of(LOOP, "self.state = AgentState.AWAITING_CONFIRMATION"), "state", False),
        ("bot/loop.py", line_of(LOOP, 'input(f"Allow'), "prompt", False),
        ("bot/tools.py", line_of(TOOLS, "click.confirm("), "prompt", True),
    ]
    # not gates: the config-overwrite chore, the HumanModel's prompt (a person playing the
    # model), onboarding() that the loop never reaches, the state test and the enum member


def test_filter_validators_in_the_spawning_function_and_its_caller(live):
    found = with_data(live.findings()["exec.filter"], "how", "func")
    assert ("bot/tools.py", line_of(TOOLS, "    validate_command(command)"), "validator", "run_shell") in found
    assert ("bot/tools.py", line_of(TOOLS, "if not is_allowed("), "validator", "run_script") in found
    f = next(x for x in live.findings()["exec.filter"] if x.data.get("func") == "run_script")
    assert (f.data["spawn_path"], f.data["spawn_line"]) == ("bot/tools.py", line_of(TOOLS, "subprocess.Popen"))


def test_filter_preamble_replacing_process_and_network_functions(live):
    found = [x for x in live.findings()["exec.filter"] if x.data["how"] == "preamble"]
    assert [(x.location.path, x.location.start_line, x.location.end_line) for x in found] == [
        ("bot/preamble.py", line_of(PREAMBLE, "socket.socket ="), line_of(PREAMBLE, "subprocess.Popen ="))]


def test_filter_ignores_model_validate_reply_checks_and_checks_after_the_spawn(live):
    """`validate_response(reply)` checks the shape of the model's reply, not what its commands
    would do; a check after the spawn guards nothing."""
    assert not [x for x in live.findings()["exec.filter"]
                if x.data.get("func") in ("run_checked", "run_planned")]
    assert len(live.findings()["exec.filter"]) == 3


def test_no_gate_or_filter_in_tests_docs_examples_or_a_single_test_double(decoys):
    f = decoys.findings()
    assert f["approval.gate"] == [] and f["exec.filter"] == []
