"""A question asked through a chain of wrappers: the executor words it (`q = "Can I run command:
..."`) and calls its agent base's `ask_question(q)`, which hands the question on to its UI's
`ask_question(question)`, declared on a UI base class and implemented by a console UI that
prompts on a prompt_toolkit session. The gate is at the executor's call, before the command
runs; wrappers that do not hand a parameter on, and callers that word no decision, are not."""

from __future__ import annotations

import pytest

from .modelled import at, modelled

UI = '''from prompt_toolkit import PromptSession


class UIBase:
    async def ask_question(self, question: str, *, buttons=None, allow_empty=False):
        raise NotImplementedError


class ConsoleUI(UIBase):
    async def ask_question(self, question: str, *, buttons=None, allow_empty=False):
        print(question)
        for key, label in (buttons or {}).items():
            print(f"  [{key}]: {label}")
        session = PromptSession("> ")
        return await session.prompt_async("")
'''

AGENTS = '''from pkg.ui import UIBase


class BaseAgent:
    def __init__(self, ui: UIBase, llm):
        self.ui = ui
        self.llm = llm

    async def ask_question(self, question: str, *, buttons=None, allow_empty=False):
        """Ask the user; the answer is logged."""
        return await self.ui.ask_question(question, buttons=buttons, allow_empty=allow_empty)

    async def greet(self):
        return await self.ui.ask_question("What is your name?")


class Executor(BaseAgent):
    async def run(self, cmd: str):
        q = f"Can I run command: {cmd}?"
        confirm = await self.ask_question(q, buttons={"yes": "Yes", "no": "No"})
        if confirm != "yes":
            return None
        return await run_command(cmd)

    async def describe(self):
        return await self.ask_question("Describe the app you want to build")


async def run_command(cmd: str):
    import asyncio

    proc = await asyncio.create_subprocess_shell(cmd)
    return await proc.wait()
'''

ORCH = '''from pkg.agents import Executor


class Orchestrator:
    def __init__(self, ui, llm):
        self.executor = Executor(ui, llm)
        self.llm = llm

    async def run(self):
        while True:
            step = await self.llm.acompletion(["next step"])
            await self.executor.describe()
            await self.executor.greet()
            await self.executor.run(step)
'''

MAIN = '''import asyncio

import litellm

from pkg.orchestrator import Orchestrator
from pkg.ui import ConsoleUI


class Llm:
    async def acompletion(self, messages):
        return (await litellm.acompletion(model="gpt-4o", messages=messages)).choices[0]


def main():
    asyncio.run(Orchestrator(ConsoleUI(), Llm()).run())
'''

FILES = {"pyproject.toml": '[project]\nname = "pkg"\n[project.scripts]\npkg = "pkg.main:main"\n',
         "pkg/__init__.py": "", "pkg/ui.py": UI, "pkg/agents.py": AGENTS,
         "pkg/orchestrator.py": ORCH, "pkg/main.py": MAIN}


@pytest.fixture(scope="module")
def wrapped(tmp_path_factory):
    return modelled(tmp_path_factory, FILES)


def test_the_gate_is_where_the_executor_words_the_question_two_wrappers_up(wrapped):
    gates = wrapped.findings()["approval.gate"]
    assert at(gates) == [("pkg/agents.py", wrapped.line("pkg/agents.py", "confirm = await self.ask_question(q"))]
    assert gates[0].data["func"] == "Executor.run"


# A wrapper that words its own question hands nothing on: the question it asks is its own, and
# here it is no decision about an action (the parameter's name alone is not a question).
NO_HAND_ON = AGENTS.replace("return await self.ui.ask_question(question, buttons=buttons, "
                            "allow_empty=allow_empty)",
                            'return await self.ui.ask_question("Anything else?")')


def test_a_wrapper_that_hands_no_parameter_on_is_not_followed(tmp_path_factory):
    m = modelled(tmp_path_factory, {**FILES, "pkg/agents.py": NO_HAND_ON})
    assert at(m.findings()["approval.gate"]) == []


def test_keyword_names_and_variables_are_not_the_question(tmp_path_factory):
    """`allow_empty=allow_empty` holds the gate word "allow", as a name: only string literals
    the caller passes word its question."""
    # (and no name near the call words one: `confirm = ...`, `class Executor` do)
    quiet = AGENTS.replace('q = f"Can I run command: {cmd}?"', 'q = f"{cmd}"').replace(
        "confirm", "answer").replace("Executor", "Worker")
    m = modelled(tmp_path_factory, {**FILES, "pkg/agents.py": quiet,
                                    "pkg/orchestrator.py": ORCH.replace("Executor", "Worker")})
    assert at(m.findings()["approval.gate"]) == []
