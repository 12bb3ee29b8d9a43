"""Which loop is the agent's: a `for` over a collection the code holds (each guardrail of a
task checked by the model, each chunk of a document summarised) maps work over items and ranks
after the turn loop, even when it sits nearer the entry point; it is still a loop of the session."""

from __future__ import annotations

import pytest

from .repos import modelled

TASK = '''from pkg.executor import Executor
from pkg.guard import check


class Task:
    def __init__(self, guardrails):
        self._guardrails = guardrails

    def run(self, llm):
        out = Executor(llm).invoke("task")
        for guardrail in enumerate(self._guardrails):
            out = check(llm, guardrail, out)
        return out
'''

GUARD = '''def check(llm, guardrail, out):
    return ask(llm, guardrail, out)


def ask(llm, guardrail, out):
    return llm.completion([str(guardrail), out])
'''

EXECUTOR = '''class Executor:
    def __init__(self, llm):
        self.llm = llm

    def invoke(self, task):
        return self._loop(task)

    def _loop(self, task):
        answer = None
        while answer is None or not answer.startswith("FINAL"):
            answer = self.llm.completion([task, answer])
        return answer
'''

MAIN = '''from pkg.task import Task


def main():
    Task([1, 2]).run(object())
'''


@pytest.fixture(scope="module")
def repo(tmp_path_factory):
    return modelled(tmp_path_factory, {
        "pyproject.toml": '[project]\nname = "pkg"\n[project.scripts]\npkg = "pkg.main:main"\n',
        "pkg/__init__.py": "", "pkg/task.py": TASK, "pkg/guard.py": GUARD,
        "pkg/executor.py": EXECUTOR, "pkg/main.py": MAIN})


@pytest.fixture(scope="module")
def loops(repo):
    return [(lp.path, lp.head) for lp in repo.model.session.loops]


def test_the_turn_loop_ranks_before_a_loop_over_items(loops):
    assert loops[0][0] == "pkg/executor.py"
    assert loops[0][1].startswith("answer is None")


def test_the_loop_over_items_is_still_a_loop_of_the_session(loops):
    assert ("pkg/task.py", "enumerate(self._guardrails)") in loops


def test_the_loop_findings_cite_the_turn_loop_first_though_the_other_is_nearer(repo):
    # the loop over guardrails is one call nearer the entry point; the evidence a criterion
    # cites first is still the loop the session ranks first
    found = repo.findings()["agent.loop"]
    assert [(f.location.path, f.data["order"]) for f in found] == [
        ("pkg/executor.py", 0), ("pkg/task.py", 1)]
    assert found[0].data["dist"] > found[1].data["dist"]


# --- loops in a tool's own body, a client's retry loop, items of any shape ---------------------

TOOL_BASE_SRC = '''class BaseTool:
    def execute(self, args):
        return self._execute(**args)
'''

IMPROVE = '''from pkg.tool_base import BaseTool


class FileTool(BaseTool):
    pass


class ImproveCodeTool(FileTool):
    def _execute(self, file_names, llm):
        for name in file_names:
            llm.chat_completion([name])
'''

CLIENT = '''import time


class Client:
    def __call__(self, messages):
        while True:
            try:
                return self._request(messages)
            except ConnectionError:
                time.sleep(1)
                continue

    def _request(self, messages):
        return self.llm.completion(messages)
'''

AGENT = '''from pkg.client import Client
from pkg.improve import ImproveCodeTool


class Agent:
    def __init__(self):
        self.client = Client()
        self.tool = ImproveCodeTool()

    def run(self, task):
        self.tool.execute({"file_names": [task], "llm": self.client})
        done = False
        while not done:
            reply = self.client([task])
            done = self.dispatch(reply)

    def dispatch(self, reply):
        return reply == "FINAL"
'''

# the loops over items, of the tool and of the client sit nearer the entry point than the turn loop
RUN = '''from pkg.agent import Agent
from pkg.client import Client
from pkg.improve import ImproveCodeTool


def check(config, llm):
    for llm_config in config.all_llms():
        llm.completion([llm_config])


def main(config, llm):
    check(config, llm)
    ImproveCodeTool()._execute(["a.py"], Client())
    Agent().run("task")
'''


@pytest.fixture(scope="module")
def ranked(tmp_path_factory):
    m = modelled(tmp_path_factory, {
        "pyproject.toml": '[project]\nname = "pkg"\n[project.scripts]\npkg = "pkg.run:main"\n',
        "pkg/__init__.py": "", "pkg/tool_base.py": TOOL_BASE_SRC, "pkg/improve.py": IMPROVE,
        "pkg/client.py": CLIENT, "pkg/agent.py": AGENT, "pkg/run.py": RUN})
    return m.model.session.loops


def test_the_turn_loop_ranks_before_tool_bodies_retries_and_items(ranked):
    assert [(lp.node, lp.head) for lp in ranked][0] == ("pkg/agent.py::Agent.run", "not done")


def test_a_loop_in_a_tool_class_along_the_hierarchy_is_the_tools_work(ranked):
    tool = next(lp for lp in ranked if lp.path == "pkg/improve.py")
    assert tool.in_tool and ranked.index(tool) == len(ranked) - 1


def test_a_loop_that_continues_after_a_failed_model_call_is_a_retry(ranked):
    retry = next(lp for lp in ranked if lp.path == "pkg/client.py")
    assert retry.retry and not retry.in_tool


def test_a_for_over_a_call_or_subscript_maps_items(ranked):
    check = next(lp for lp in ranked if lp.node == "pkg/run.py::check")
    assert check.items and not check.retry


def test_a_counted_for_or_one_over_steps_is_a_turn_loop():
    from dids.agent.session import _over_items
    from dids.index.pyfacts import Block

    def block(head, target="x", kind="for"):
        return Block(kind, 1, 2, head, "f", target=target)

    assert _over_items(block('outputs["intermediate_steps"]'))
    assert _over_items(block("enumerate(intermediate_steps)", "i, (action, obs)"))
    assert not _over_items(block("range(self.max_steps)", "i"))
    assert not _over_items(block("itertools.count()", "i"))
    assert not _over_items(block("agent.run_iter()", "step"))
    assert not _over_items(block("not done", kind="while"))


def test_a_handler_that_raises_is_no_retry(tmp_path_factory):
    files = {
        "pyproject.toml": '[project]\nname = "pkg"\n[project.scripts]\npkg = "pkg.run:main"\n',
        "pkg/__init__.py": "", "pkg/run.py": '''def main(llm):
    while True:
        try:
            reply = llm.completion(["next"])
        except ConnectionError:
            raise
        if reply == "FINAL":
            break
'''}
    m = modelled(tmp_path_factory, files)
    (loop,) = m.model.session.loops
    assert not loop.retry and not loop.items and not loop.in_tool




def test_loops_only_in_tool_bodies_leave_the_agent_event_driven(tmp_path_factory):
    """The agent's step runs once per event (a queued task); its only loops are a tool's."""
    files = {
        "pyproject.toml": '[project]\nname = "pkg"\n[project.scripts]\npkg = "pkg.run:main"\n',
        "pkg/__init__.py": "", "pkg/tool_base.py": TOOL_BASE_SRC, "pkg/improve.py": IMPROVE,
        "pkg/run.py": '''from pkg.improve import ImproveCodeTool


class StepHandler:
    def execute_step(self, llm):
        reply = llm.chat_completion(["next"])
        return ImproveCodeTool().execute({"file_names": [reply], "llm": llm})


def main(llm):
    handler = StepHandler()
    handler.execute_step(llm)
'''}
    m = modelled(tmp_path_factory, files)
    loops = m.model.session.loops
    assert (loops[0].kind, loops[0].node) == ("step", "pkg/run.py::main")
    assert [(lp.kind, lp.in_tool) for lp in loops[1:]] == [("loop", True)]



def test_the_entry_functions_own_restart_loop_ranks_after_the_loop_it_calls(tmp_path_factory):
    files = {
        "pyproject.toml": '[project]\nname = "pkg"\n[project.scripts]\npkg = "pkg.run:main"\n',
        "pkg/__init__.py": "", "pkg/run.py": '''class Coder:
    def __init__(self, llm):
        self.llm = llm

    def run(self):
        done = False
        while not done:
            done = self.llm.completion(["next"]) == "FINAL"


def main(llm):
    coder = Coder(llm)
    while True:
        try:
            return coder.run()
        except ValueError:
            pass
'''}
    loops = modelled(tmp_path_factory, files).model.session.loops
    assert [lp.node for lp in loops] == ["pkg/run.py::Coder.run", "pkg/run.py::main"]
