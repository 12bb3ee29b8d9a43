"""A server agent that runs a plan-then-act pipeline per user message, in the shape of a
"software engineer" web app: the code lives in a `src/` directory with no `__init__.py` and is
imported as `src.agents` (a namespace package); a socket handler starts the pipeline; each
sub-agent asks the model through `self.llm.inference(...)`, a wrapper whose provider clients
the code picks at run time; the runner executes the command lines the model planned. Its only
loops map work over items (search queries, planned commands): none is the agent's turns."""

from __future__ import annotations

import pytest

from .repos import modelled

SERVER = '''from flask import Flask
from flask_socketio import SocketIO

from src.agents import Agent

app = Flask(__name__)
socketio = SocketIO(app)


@app.route("/api/data")
def data():
    return {"models": []}


@socketio.on("user-message")
def handle_message(data):
    message = data.get("message")
    agent = Agent(base_model=data.get("base_model"))
    agent.execute(message)


if __name__ == "__main__":
    socketio.run(app)
'''

AGENTS_INIT = "from .agent import Agent\n"

AGENT = '''from src.llm import LLM
from src.agents.runner import Runner


class Planner:
    def __init__(self, base_model):
        self.llm = LLM(base_model)

    def execute(self, prompt):
        return self.llm.inference(prompt)


class Agent:
    def __init__(self, base_model):
        self.planner = Planner(base_model)
        self.runner = Runner(base_model)

    def search_queries(self, queries):
        results = {}
        for query in queries:
            results[query] = self.planner.execute(query)
        return results

    def execute(self, prompt):
        plan = self.planner.execute(prompt)
        self.search_queries([plan])
        self.runner.execute(plan)
'''

RUNNER = '''import json
import subprocess

from src.llm import LLM


class Runner:
    def __init__(self, base_model):
        self.llm = LLM(base_model)

    def validate_response(self, response):
        reply = json.loads(response)
        if "commands" not in reply:
            return False
        return reply["commands"]

    def execute(self, plan):
        response = self.llm.inference(plan)
        commands = self.validate_response(response)
        if commands:
            self.run_code(commands)

    def run_code(self, commands):
        for command in commands:
            subprocess.run(command.split(" "))
'''

LLM = '''import concurrent.futures

from openai import OpenAI


class OpenAi:
    def __init__(self):
        self.client = OpenAI()

    def inference(self, model_id, prompt):
        return self.client.chat.completions.create(model=model_id, messages=[prompt])


class LLM:
    def __init__(self, model_id):
        self.model_id = model_id
        self.models = {"openai": OpenAi()}

    def inference(self, prompt):
        model = self.models["openai"]
        with concurrent.futures.ThreadPoolExecutor() as executor:
            future = executor.submit(model.inference, self.model_id, prompt)
            return future.result(timeout=60)

    def describe(self):
        model = self.models["openai"]
        print(model.inference)
'''

LLM_INIT = "from .llm import LLM\n"

FILES = {
    "README.md": "# Engineer\n\n```bash\npip install -r requirements.txt\npython server.py\n```\n",
    "requirements.txt": "flask\nflask-socketio\nopenai\n",
    "server.py": SERVER,
    "src/agents/__init__.py": AGENTS_INIT,
    "src/agents/agent.py": AGENT,
    "src/agents/runner.py": RUNNER,
    "src/llm/__init__.py": LLM_INIT,
    "src/llm/llm.py": LLM,
}


@pytest.fixture(scope="module")
def engineer(tmp_path_factory):
    return modelled(tmp_path_factory, FILES)


def _targets(m, src):
    return {dst for dst, _line, _how in m.model.graph.edges.get(src, ())}


def test_a_src_namespace_package_resolves_by_its_dotted_path(engineer):
    """`from src.agents import Agent` with no `src/__init__.py`: the import names
    src/agents/__init__.py, which re-exports the class."""
    assert "src/agents/agent.py::Agent" in _targets(engineer, "server.py::handle_message")
    assert "src/agents/agent.py::Agent.execute" in _targets(engineer, "server.py::handle_message")


def test_a_parameter_shadows_the_module_function_of_its_name(engineer):
    """`data.get(...)` in `handle_message(data)` reads the parameter, not the route `data`."""
    assert "server.py::data" not in _targets(engineer, "server.py::handle_message")


def test_a_wrapper_inference_method_asks_the_model(engineer):
    """`self.llm.inference(prompt)`: the sub-agents ask the model through the wrapper, so the
    pipeline is on the model's path and the runner's spawn is model-driven."""
    assert engineer.model.session.loops
    assert engineer.sink("src/agents/runner.py", "subprocess.run(").driven


def test_loops_over_items_only_make_an_event_driven_agent(engineer):
    """The only loops map over items (queries, planned commands): the agent's turn is the
    pipeline each message runs, found as a step, ahead of the item loops."""
    first = engineer.model.session.loops[0]
    assert first.kind == "step"
    assert any(lp.kind == "loop" and lp.items for lp in engineer.model.session.loops)


def test_the_planned_commands_are_the_models_and_a_reply_check_is_no_filter(engineer):
    f = engineer.findings()
    spawn = [x for x in f["exec.spawn"] if x.location.path == "src/agents/runner.py"]
    assert [x.data["handed_in"] for x in spawn] == [True]
    assert f["exec.filter"] == []


def test_a_bound_method_handed_to_an_executor_is_called_there(engineer):
    """`executor.submit(model.inference, ...)` on a local whose class the reader cannot see:
    the wrapper reaches the provider's `inference` by name, as `model.inference(...)` would.
    A bound method passed to a call that runs nothing (`print(model.inference)`) is not."""
    called = engineer.model.graph.called_names.get("src/llm/llm.py::LLM.inference", set())
    assert "inference" in called
    assert "inference" not in engineer.model.graph.called_names.get("src/llm/llm.py::LLM.describe",
                                                                    set())
