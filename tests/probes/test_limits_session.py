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


# ------------------------------------------- graph routers and limits the model cannot lift

GRAPH = '''from langgraph.graph import END, StateGraph
from openai import OpenAI

from pipe.routing import route_after_review, route_by_mode
from pipe.tools import SCHEMA

MAX_ROUNDS = 4


def plan(state):
    return {"plan": OpenAI().chat.completions.create(model="m", messages=[state["task"]],
                                                     tools=[SCHEMA])}


def review(state):
    return {"rounds": state.get("rounds", 0) + 1}


def build():
    graph = StateGraph(dict)
    graph.add_node("plan", plan)
    graph.add_node("review", review)
    graph.add_conditional_edges("plan", route_by_mode, {"review": "review", "end": END})
    graph.add_conditional_edges("review", route_after_review, {"again": "plan", "done": END})
    return graph.compile()


pipeline = build()
'''

# the run goes through a wrapper that only holds the compiled graph: no call edge reaches the
# routers, which the graph framework calls itself
RUN = '''from openai import OpenAI

from pipe.graph import pipeline


class Investigation:
    def __init__(self, runner=pipeline):
        self.runner = runner

    def start(self, task):
        return self.runner.invoke({"task": task})


def main(task):
    while True:
        if task.startswith("/investigate"):
            print(Investigation().start(task))
        else:
            print(OpenAI().chat.completions.create(model="m", messages=[task]))
        task = input("> ")
'''

ROUTING = '''MAX_ROUNDS = 4


def route_by_mode(state):
    if state.get("mode") == "quick":
        return "end"
    return "review"


def route_after_review(state):
    return _decide(state)


def _decide(state):
    rounds = state.get("rounds", 0)
    if rounds >= MAX_ROUNDS:
        return "done"
    return "again"
'''

SIZE_TOOLS = '''SCHEMA = {
    "name": "search_logs",
    "parameters": {"properties": {
        "query": {"type": "string"},
        "max_results": {"type": "integer"},
        "timeout": {"type": "integer"},
    }},
}

MAX_TIMEOUT = 120


def search_logs(query: str, max_results: int = 10, timeout: int | None = None):
    effective = min(timeout or 30, MAX_TIMEOUT)
    return query, max_results, effective
'''

GRAPH_LIVE = {"pipe/__init__.py": "", "pipe/graph.py": GRAPH, "pipe/routing.py": ROUTING,
              "pipe/tools.py": SIZE_TOOLS,
              "pipe/run.py": RUN,
              "pipe/__main__.py": "import sys\n\nfrom pipe.run import main\n\nmain(sys.argv[1])\n"}


@pytest.fixture(scope="module")
def graph(tmp_path_factory):
    return modelled(tmp_path_factory, GRAPH_LIVE)


def test_a_graph_router_that_ends_the_run_at_a_bound_caps_the_loop(graph):
    caps = graph.findings()["limits.loop_cap"]
    assert with_data(caps, "bound") == [
        ("pipe/routing.py", line_of(ROUTING, "if rounds >= MAX_ROUNDS"), "MAX_ROUNDS")]
    # the mode router compares a setting, not a counter with a bound


def test_result_sizes_and_clamped_limits_are_not_limits_the_model_sets(graph, tmp_path_factory):
    assert graph.findings()["limits.model_settable_schema"] == []
    unclamped = {**GRAPH_LIVE, "pipe/tools.py": SIZE_TOOLS.replace("min(timeout or 30, MAX_TIMEOUT)",
                                                                   "timeout or 30")}
    found = modelled(tmp_path_factory, unclamped).findings()["limits.model_settable_schema"]
    assert with_data(found, "name") == [("pipe/tools.py", line_of(SIZE_TOOLS, '"timeout": {"type"'),
                                         "timeout")]  # max_results is a result size either way


# ------------------------------------------- limits read out of the model's tool-call arguments

DISPATCH = '''import json
import subprocess

MAX_TIMEOUT = 600


def run_shell(call):
    arguments = json.loads(call.function.arguments)
    seconds = float(arguments["timeout"]) if "timeout" in arguments else 30
    return subprocess.run(arguments["command"], shell=True, timeout=seconds)


def run_query(params: dict):
    wait = params.get("timeout", 60)
    return subprocess.run(["q", params["query"]], timeout=wait)


def build_request(params: dict, stmt):
    params["max_tokens"] = 512  # the request the code builds, not the model's arguments
    rows = params.get("max_results", 10)  # how much one call returns
    loops = stmt.args.get("max_iterations", 100)  # a workflow's own statement
    return params, rows, loops


HANDLERS = {"shell": run_shell, "query": run_query, "build": build_request}
'''


def test_limits_read_from_tool_call_arguments(tmp_path_factory):
    m = modelled(tmp_path_factory, {**LIVE, "agent/dispatch.py": DISPATCH})
    found = m.findings()["limits.model_settable_arg"]
    assert with_data(found, "name") == [
        ("agent/dispatch.py", line_of(DISPATCH, 'float(arguments["timeout"])'), "timeout"),
        ("agent/dispatch.py", line_of(DISPATCH, 'params.get("timeout", 60)'), "timeout"),
    ]
    assert "the model put in its tool-call arguments" in found[0].claim


def test_argument_limits_clamped_or_in_prose_do_not_fire(tmp_path_factory):
    clamped = DISPATCH.replace('wait = params.get("timeout", 60)',
                               'wait = min(params.get("timeout", 60), MAX_TIMEOUT)')
    m = modelled(tmp_path_factory, {**LIVE, "agent/dispatch.py": clamped.replace(
        'seconds = float(arguments["timeout"]) if "timeout" in arguments else 30', "seconds = 30")})
    assert m.findings()["limits.model_settable_arg"] == []
    prose = {**DECOYS, "agent/notes2.py": '"""params.get("timeout", 60)"""\n# arguments["timeout"]\n',
             "tests/test_dispatch.py": DISPATCH, "docs/d.md": 'arguments["timeout"]\n'}
    assert modelled(tmp_path_factory, prose).findings()["limits.model_settable_arg"] == []
