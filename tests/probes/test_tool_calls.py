"""agent.tool_call (where the session takes the model's tool call) and the tool-set assembly
context: they fire in functions the agent loop reaches and stay silent on the same shapes in a
REPL command handler, a function no loop calls, tests and examples; a tool's name inside a
prompt string is not the tool."""

from __future__ import annotations

from dids.criteria.base import Context
from dids.criteria.c3_scoping import default_tools
from dids.criteria.toolset import assembly

from .family import line_of
from .modelled import modelled_fixtures

AGENT = '''import json

from openai import OpenAI

from bot.tools import ReadFile, RunShell, WebFetch, validate_tool_arguments


class Bot:
    def __init__(self, browsing: bool = True):
        self.client = OpenAI()
        self.tools = self._tools(browsing)

    def _tools(self, browsing):
        tools = []
        tools.append(RunShell())
        tools.append(ReadFile())
        if browsing:
            tools.append(WebFetch())
        return {t.name: t for t in tools}

    def loop(self, task: str):
        messages = [{"role": "user", "content": task}]
        while len(messages) < 40:
            reply = self.client.chat.completions.create(model="m", messages=messages)
            for tool_call in reply.choices[0].message.tool_calls or []:
                messages.append(self.execute_tool_call(tool_call))
        return messages

    def execute_tool_call(self, tool_call):
        name = tool_call.function.name
        arguments = json.loads(tool_call.function.arguments)
        tool = self.tools[name]
        validate_tool_arguments(tool, arguments)
        return tool.run(**arguments)


def describe(bot):
    hint = """Use RunShell for commands, ReadFile for files and WebFetch for pages."""
    return hint
'''

TOOLS = '''import subprocess

import requests


class Tool:
    name = ""

    def run(self, **kwargs):
        raise NotImplementedError


class RunShell(Tool):
    name = "shell"

    def run(self, command: str):
        return subprocess.run(command, shell=True, capture_output=True).stdout


class ReadFile(Tool):
    name = "read"

    def run(self, path: str):
        return open(path).read()


class WebFetch(Tool):
    name = "fetch"

    def run(self, url: str):
        return requests.get(url).text


def validate_tool_arguments(tool, arguments):
    if not isinstance(arguments, dict):
        raise ValueError("arguments must be an object")
'''

REPL = '''import json

from bot.agent import Bot


def handle_command(bot, line):
    """The person's own commands: not the model's tool calls."""
    tool = bot.tools[line.split()[0]]
    return tool.run(**json.loads(line.split(" ", 1)[1]))


def main():
    bot = Bot()
    while True:
        line = input("> ")
        if line.startswith("/"):
            print(handle_command(bot, line[1:]))
        else:
            print(bot.loop(line))
'''

MAIN = '''from bot.repl import main

main()
'''

LIVE = {"bot/__init__.py": "", "bot/agent.py": AGENT, "bot/tools.py": TOOLS, "bot/repl.py": REPL,
        "bot/__main__.py": MAIN, "tests/test_bot.py": AGENT.replace("class Bot", "class TBot"),
        "examples/demo.py": REPL.replace("handle_command", "demo_command")}

NO_LOOP = '''import json

from bot.tools import RunShell


TOOLS = {"shell": RunShell()}


def replay(tool_call):
    """Replays a recorded call: no agent loop reaches it."""
    tool = TOOLS[tool_call.function.name]
    return tool.run(**json.loads(tool_call.function.arguments))
'''

DECOYS = {"bot/__init__.py": "", "bot/tools.py": TOOLS, "bot/replay.py": NO_LOOP,
          "bot/__main__.py": "from bot.replay import replay\n\nreplay(None)\n"}

live, decoys = modelled_fixtures(LIVE, DECOYS)


def test_the_dispatch_of_the_models_tool_call_is_cited_as_one_span(live):
    found = live.findings()["agent.tool_call"]
    spans = [(f.location.path, f.location.start_line, f.location.end_line) for f in found]
    assert ("bot/agent.py", line_of(AGENT, "name = tool_call.function.name"),
            line_of(AGENT, "return tool.run(**arguments)")) in spans
    claim = next(f.claim for f in found if f.data["func"] == "Bot.execute_tool_call")
    assert "parses the arguments the model wrote" in claim
    assert "looks the tool up by the name the model gave" in claim
    assert "checks the tool call with validate_tool_arguments" in claim


def test_the_persons_repl_command_and_copies_in_tests_and_examples_are_not_tool_calls(live):
    found = live.findings()["agent.tool_call"]
    assert not [f for f in found if f.data["func"] == "handle_command"]
    assert not [f for f in found if f.location.path.startswith(("tests/", "examples/"))]


def test_a_lookup_no_agent_loop_reaches_is_not_cited(decoys):
    assert decoys.findings()["agent.tool_call"] == []


def test_assembly_is_where_the_default_tools_are_put_together(live):
    ctx = Context(live.index, live.findings(), None)
    tools = default_tools(ctx)
    assert {t.data["name"] for t in tools} >= {"RunShell", "ReadFile", "WebFetch"}
    found = assembly(ctx, tools)
    assert [(f.location.path, f.location.start_line) for f in found][:1] == [
        ("bot/agent.py", line_of(AGENT, "tools.append(RunShell())"))]
    assert "3 of the default tools (ReadFile, RunShell, WebFetch)" in found[0].claim
    # the tool names inside the prompt string of describe() are not an assembly
    assert not [f for f in found if f.location.start_line == line_of(AGENT, "hint = ")]


# ---------------------------------------------------------------- agent.tool_result

RESULTS = '''import json

from openai import OpenAI

from bot.tools import run


def loop(task: str):
    messages = [{"role": "user", "content": task}]
    while len(messages) < 30:
        reply = OpenAI().chat.completions.create(model="m", messages=messages)
        for call in reply.choices[0].message.tool_calls or []:
            output = run(call.function.name, json.loads(call.function.arguments))
            messages.append({"role": "tool", "tool_call_id": call.id, "content": output})
        trim(messages)
    return messages


def trim(messages):
    tool_msgs = [m for m in messages if m["role"] == "tool"]
    return sorted(tool_msgs, key=lambda m: count_tokens([{"role": "tool", "content": m["content"]}]))


def count_tokens(messages):
    return sum(len(m["content"]) for m in messages)


def count_tool_tokens(text):
    return count_tokens([{"role": "tool", "content": text}])
'''

RESULT_TOOLS = '''def run(name, args):
    return f"{name}: {args}"
'''

RESULT_FILES = {"bot/__init__.py": "", "bot/agent.py": RESULTS, "bot/tools.py": RESULT_TOOLS,
                "bot/__main__.py": "import sys\n\nfrom bot.agent import loop\n\nloop(sys.argv[1])\n",
                "tests/test_agent.py": RESULTS}


def test_tool_output_returned_to_the_model_is_cited_and_measured_copies_are_not(tmp_path_factory):
    from .modelled import modelled

    m = modelled(tmp_path_factory, RESULT_FILES)
    found = m.findings()["agent.tool_result"]
    assert [(f.location.path, f.location.start_line) for f in found] == [
        ("bot/agent.py", line_of(RESULTS, 'messages.append({"role": "tool"'))]
    assert found[0].claim == "A tool's output is made into a message the model reads here in loop."
    # trim() reads tool messages and builds one only to count it; count_tool_tokens measures


CODE_AGENT = '''from openai import OpenAI

from bot.executor import LocalExecutor


class CodeBot:
    def __init__(self):
        self.python_executor = LocalExecutor()

    def run(self, task: str):
        for _ in range(10):
            code = OpenAI().chat.completions.create(model="m", messages=[task]).choices[0].message.content
            task = self.python_executor(code)
        return task


def preview(executor, code):
    return executor.python_executor(code)
'''

EXECUTOR = '''class LocalExecutor:
    def __call__(self, code):
        return eval(code)
'''


def test_code_handed_to_an_executor_is_cited_only_on_the_loops_path(tmp_path_factory):
    from .modelled import modelled

    m = modelled(tmp_path_factory, {
        "bot/__init__.py": "", "bot/agent.py": CODE_AGENT, "bot/executor.py": EXECUTOR,
        "bot/__main__.py": "import sys\n\nfrom bot.agent import CodeBot\n\nCodeBot().run(sys.argv[1])\n"})
    found = m.findings()["agent.tool_call"]
    assert [(f.location.start_line, f.data["func"]) for f in found] == [
        (line_of(CODE_AGENT, "task = self.python_executor(code)"), "CodeBot.run")]
    assert "hands code or a command on to self.python_executor" in found[0].claim


# ---------------------------------------------------------------- tools.filter

FILTERS = '''EXCLUDED_AGENT_ACTIONS = frozenset({"core.run_python"})


def agent_actions(actions):
    included_actions = [name for name in actions or [] if name not in EXCLUDED_AGENT_ACTIONS]
    return included_actions


def seeds(planned, available_action_names):
    allowed = [a for a in planned if a in available_action_names]
    return allowed


def words(text, stop):
    kept = [w for w in text.split() if w not in stop]
    return kept
'''


def test_tool_lists_filtered_against_named_sets(tmp_path_factory):
    from .modelled import modelled

    m = modelled(tmp_path_factory, {
        "bot/__init__.py": "", "bot/filters.py": FILTERS,
        "bot/__main__.py": "from bot.filters import agent_actions, seeds, words\n\n"
                           "agent_actions([]), seeds([], []), words('', set())\n",
        "tests/test_filters.py": FILTERS})
    all_found = m.findings()["tools.filter"]
    found = [f for f in all_found if f.data.get("site") != "set"]
    assert [(f.location.path, f.location.start_line, f.data["against"]) for f in found] == [
        ("bot/filters.py", line_of(FILTERS, "included_actions ="), "EXCLUDED_AGENT_ACTIONS"),
        ("bot/filters.py", line_of(FILTERS, "allowed = "), "available_action_names")]
    assert found[0].claim == "included_actions drops those named in EXCLUDED_AGENT_ACTIONS here."
    # a stop-word filter is not about tools; the test copy is not live code
    # the named constant is cited where it is defined; a parameter (available_action_names) is not
    sets = [f for f in all_found if f.data.get("site") == "set"]
    assert [(f.location.start_line, f.claim) for f in sets] == [
        (1, "EXCLUDED_AGENT_ACTIONS lists the tools or actions the filter at line "
            f"{line_of(FILTERS, 'included_actions =')} drops.")]


# the graph is handed to a runner the repository does not ship; the one loop dids finds is a
# separate chat loop that never calls the node
GRAPH = '''from openai import OpenAI

from app.nodes import tool_node
from runner import Graph, run_graph


def build_graph():
    graph = Graph()
    graph.add_node("tools", tool_node)
    return graph


def chat():
    client = OpenAI()
    while True:
        client.chat.completions.create(model="m", messages=[{"role": "user", "content": input()}])


def main():
    run_graph(build_graph())
    chat()
'''

NODES = '''TOOLS = []


def tool_node(state):
    """A graph node: the framework runs it, no call in the repository does."""
    tool_map = {tool.name: tool for tool in TOOLS}
    out = []
    for tc in state["messages"][-1].tool_calls:
        fn = tool_map.get(tc["name"])
        out.append(fn.invoke(tc["args"]))
    return {"messages": out}
'''


def test_a_graph_node_looping_over_the_models_tool_calls_is_the_hand_off(tmp_path_factory):
    from .modelled import modelled

    m = modelled(tmp_path_factory, {
        "pyproject.toml": '[project]\nname = "app"\n[project.scripts]\napp = "app.graph:main"\n',
        "app/__init__.py": "", "app/graph.py": GRAPH, "app/nodes.py": NODES,
        "scripts/replay_node.py": NODES.replace("def tool_node", "def replay_node")})
    found = [(f.location.path, f.data["func"]) for f in m.findings()["agent.tool_call"]]
    assert found == [("app/nodes.py", "tool_node")]  # the build script's copy is off the path


EVENT_LOOP = '''from openai import OpenAI

from app.bus import bus


def main():
    client = OpenAI()
    messages = [{"role": "user", "content": "hi"}]
    for _ in range(10):
        reply = client.chat.completions.create(model="m", messages=messages)
        bus.emit(reply)
        for tool_call in reply.choices[0].message.tool_calls or []:
            messages.append(run_tool(tool_call))


TOOLS = {"echo": lambda text: text}


def run_tool(tool_call):
    tool = TOOLS[tool_call.function.name]
    return tool(tool_call.function.arguments)
'''

EVENT_BUS = '''class EventBus:
    def __init__(self):
        self._handlers = {}

    def emit(self, event):
        event_type = type(event)
        handlers = self._handlers.get(event_type, ())
        for h in handlers:
            h(event)


bus = EventBus()
'''


def test_an_event_bus_looking_up_handlers_by_event_type_is_not_a_tool_call(tmp_path_factory):
    from .modelled import modelled

    m = modelled(tmp_path_factory, {
        "pyproject.toml": '[project]\nname = "app"\n[project.scripts]\napp = "app.loop:main"\n',
        "app/__init__.py": "", "app/loop.py": EVENT_LOOP, "app/bus.py": EVENT_BUS})
    # the singleton's emit is reached from the loop
    assert "app/bus.py::EventBus.emit" in {d for d, _l, _h in m.model.graph.edges["app/loop.py::main"]}
    found = [(f.location.path, f.data["func"]) for f in m.findings()["agent.tool_call"]]
    assert ("app/loop.py", "run_tool") in found
    assert not any(path == "app/bus.py" for path, _func in found)
