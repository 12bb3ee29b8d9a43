"""approval.gate reads the question a prompt asks from code, never from comments: a bare
`input("> ")` under `# ask for confirmation` asks nothing about the action, while the same call
under a worded question (`question = "Run this command? [y/N]"`) is the gate."""

from __future__ import annotations

from dids.index.pyfacts import code_of

from .family import line_of
from .modelled import modelled_fixtures, with_data

LOOP = '''import litellm

from bot.tools import TOOLS


class Agent:
    def run(self, task: str):
        messages = [task]
        while True:
            reply = litellm.completion(model="m", messages=messages)
            for call in reply.tool_calls:
                messages.append(TOOLS[call.name](call.arguments))
'''

WORDED = '''import subprocess


def run_shell(command: str) -> str:
    question = f"Run this command? {command} [y/N] "
    if input(question) != "y":
        return "denied"
    return subprocess.run(command, shell=True, capture_output=True, text=True).stdout


TOOLS = {"run_shell": run_shell}
'''

COMMENTED = '''import subprocess


def run_shell(command: str) -> str:
    # ask the user to confirm before we run it
    print(command)
    reply = input("> ")  # approve?
    return subprocess.run(reply or command, shell=True, capture_output=True, text=True).stdout


TOOLS = {"run_shell": run_shell}
'''

MAIN = '''import sys

from bot.loop import Agent

Agent().run(sys.argv[1])
'''


def _repo(tools: str) -> dict[str, str]:
    return {"bot/__init__.py": "", "bot/__main__.py": MAIN, "bot/loop.py": LOOP,
            "bot/tools.py": tools}


live, decoys = modelled_fixtures(_repo(WORDED), _repo(COMMENTED))


def test_a_prompt_under_a_worded_question_is_a_gate(live):
    assert with_data(live.findings()["approval.gate"], "how") == [
        ("bot/tools.py", line_of(WORDED, "if input(question)"), "prompt")]


def test_comments_near_a_bare_prompt_word_no_question(decoys):
    assert decoys.findings()["approval.gate"] == []


def test_code_of_drops_trailing_comments_outside_strings():
    assert code_of('x = input("#1 > ")  # approve?') == 'x = input("#1 > ")  '
    assert code_of("ok = ask('it\\'s # here') # confirm") == "ok = ask('it\\'s # here') "
    assert code_of("const q = `run ${cmd}? // y/n`; // approve", slash=True) == \
        "const q = `run ${cmd}? // y/n`; "
    assert code_of("url = 'http://x'  # c", slash=False) == "url = 'http://x'  "
