"""A tool whose work is to ask the person a question (`ask_human`) returns the answer to the
model: no action waits on it, so it is no approval gate, even where its words read like one (`to proceed`). A
tool that asks before it acts, or returns a yes/no decision to code that checks it, is one."""

from __future__ import annotations

from .family import line_of
from .modelled import at, modelled

TOOLS = '''import subprocess

from agent.registry import tool


@tool
def ask_human(inquire: str) -> str:
    return input(f"""The assistant needs your input to proceed: {inquire}\\nYou: """).strip()


@tool
def shell(command: str) -> str:
    if input(f"Execute {command}? [y/n] ") != "y":
        return "denied"
    return subprocess.run(command, shell=True, capture_output=True, text=True).stdout


@tool
def confirm_execution(command: str) -> bool:
    return input(f"Execute {command}? [y/n] ") == "y"
'''

REGISTRY = '''def tool(fn):
    return fn
'''

LOOP = '''from openai import OpenAI

from agent.tools import ask_human, confirm_execution, shell

TOOLS = {"ask_human": ask_human, "shell": shell, "confirm_execution": confirm_execution}


def run(task):
    client = OpenAI()
    while True:
        reply = client.chat.completions.create(model="m", messages=[task])
        for call in reply.choices[0].message.tool_calls:
            TOOLS[call.function.name](**call.function.arguments)
'''

MAIN = "import sys\\n\\nfrom agent.loop import run\\n\\nrun(sys.argv[1])\\n"


def test_a_question_tool_is_no_gate_and_a_decision_is(tmp_path_factory):
    m = modelled(tmp_path_factory, {"agent/__init__.py": "", "agent/__main__.py": MAIN,
                                    "agent/tools.py": TOOLS, "agent/loop.py": LOOP,
                                    "agent/registry.py": REGISTRY})
    gates = [g for g in m.findings()["approval.gate"] if g.data.get("how") == "prompt"]
    assert sorted(at(gates)) == [
        ("agent/tools.py", line_of(TOOLS, 'if input(f"Execute {command}? [y/n] ") != "y"')),
        ("agent/tools.py", line_of(TOOLS, 'return input(f"Execute {command}? [y/n] ") == "y"')),
    ]
