"""records.* probes (C9): what the agent keeps of each step. Per-step records count only where
the agent loop reaches them; writers of the conversation, event stores, tracing and output
options count in live code. Each fires on the live agent and stays silent on near misses."""

from __future__ import annotations

import pytest

from .family import line_of
from .modelled import at, modelled, modelled_fixtures, with_data

LOOP = '''import json
import logging

from openai import OpenAI

from agent.events import EventStream
from agent.tools import TOOLS

logger = logging.getLogger(__name__)


class Agent:
    def __init__(self):
        self.client = OpenAI()
        self.messages = []
        self.stream = EventStream("events.jsonl")

    def run(self, task: str):
        self.messages.append({"role": "user", "content": task})
        while True:
            reply = self.client.chat.completions.create(model="m", messages=self.messages)
            calls = reply.choices[0].message.tool_calls
            if not calls:
                return reply
            for call in calls:
                self.handle(call)

    def handle(self, call):
        logger.info("calling tool %s", call.function.name)
        try:
            result = TOOLS[call.function.name](call.function.arguments)
        except KeyError:
            logger.error(f"Error running tool {call.function.name}: no such tool")
            raise
        self.messages.append({"role": "tool", "content": result})
        self.stream.add_event({"tool": call.function.name, "result": result})

    def save(self, path: str):
        with open(path, "w") as fh:
            json.dump(self.messages, fh)
'''

EVENTS = '''import json


class EventStream:
    def __init__(self, path: str):
        self.path = path
        self._queue = []

    def add_event(self, event: dict):
        with open(self.path, "a") as fh:
            json.dump(event, fh)
        self._queue.append(event)
        self.notify(event)

    def notify(self, event):
        return event


class EventLog:
    def record(self, event):
        self.items = [event]
'''

TOOLS = '''import subprocess

from langsmith import traceable


@traceable
def run_shell(command: str) -> str:
    return subprocess.run(command, shell=True, capture_output=True, text=True).stdout


TOOLS = {"run_shell": run_shell}
'''

CLI = '''import argparse
import json

from agent.loop import Agent


def settings_menu(history):
    history.append("settings")
    print("Pick the tool to configure")
    with open("settings.json", "w") as fh:
        json.dump({"theme": "dark"}, fh)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("task")
    parser.add_argument("--output-file")
    parser.add_argument("--output-format", default="text")
    args = parser.parse_args()
    if args.task == "settings":
        settings_menu([])
        return
    agent = Agent()
    agent.run(args.task)
    if args.output_file:
        agent.save(args.output_file)


if __name__ == "__main__":
    main()
'''

TRACING = '''import sentry_sdk
from opentelemetry import trace

tracer = trace.get_tracer("agent")
sentry_sdk.init(dsn="")
'''

LIVE = {
    "pyproject.toml": '[project]\nname = "agent"\n\n[project.scripts]\nagent = "agent.cli:main"\n',
    "agent/__init__.py": "", "agent/loop.py": LOOP, "agent/events.py": EVENTS,
    "agent/tools.py": TOOLS, "agent/cli.py": CLI, "agent/tracing.py": TRACING,
}

PROSE = '''"""Record notes.

    self.messages.append({"role": "tool"})
    logger.info("calling tool %s", name)
    json.dump(self.messages, fh)
"""
import json

# self.messages.append({"role": "tool", "content": result})
# print("running tool", name)
# json.dump(self.messages, fh)
NOTE = "json.dump(self.messages, fh) after each tool call"


def _never_called(messages, fh):
    """Dead code: nothing references this function."""
    json.dump(messages, fh)
'''

DECOYS = {
    "pyproject.toml": LIVE["pyproject.toml"], "agent/__init__.py": "",
    "agent/cli.py": "from agent import notes  # noqa\n\n\ndef main():\n    return 0\n",
    "agent/notes.py": PROSE,
    "tests/test_loop.py": LOOP + EVENTS, "examples/demo.py": LOOP + TOOLS,
    "docs/records.md": "Each step is kept with `json.dump(self.messages, fh)` and `@traceable`.\n",
    "scripts/dump_history.py": "import json\n\n\ndef dump(messages):\n    json.dump(messages, open('m', 'w'))\n",
}

live, decoys = modelled_fixtures(LIVE, DECOYS)

RECORDS = ["records.step", "records.console", "records.transcript", "records.event_store",
           "records.trace", "records.output_flag"]


def test_step_records_appended_where_the_loop_reaches_them(live):
    assert at(live.findings()["records.step"]) == [
        ("agent/loop.py", line_of(LOOP, 'self.messages.append({"role": "user"')),
        ("agent/loop.py", line_of(LOOP, 'self.messages.append({"role": "tool"')),
    ]  # settings_menu's history.append is the menu's, not the model's
    assert live.findings()["records.step"][1].data["structured"] is True


def test_console_lines_about_tool_calls_on_the_model_path(live):
    assert at(live.findings()["records.console"]) == [
        ("agent/loop.py", line_of(LOOP, "logger.info("))]


def test_transcript_writes_of_the_conversation(live):
    found = live.findings()["records.transcript"]
    assert with_data(found, "func", "row", "reach") == [
        ("agent/events.py", line_of(EVENTS, "json.dump(event, fh)"), "EventStream.add_event",
         "persist:json.dump", "default"),
        ("agent/loop.py", line_of(LOOP, "json.dump(self.messages"), "Agent.save", "persist:json.dump",
         "opt-in:output_file"),  # agent.save() runs only `if args.output_file`
    ]  # json.dump of the settings is not a record


CHAT_LOG = '''from pathlib import Path


class Console:
    def __init__(self, root: str):
        self.chat_history_file = Path(root) / ".chat.history.md"
        self.prompt_file = Path(root) / ".prompt.txt"

    def append_chat_history(self, text: str) -> None:
        with self.chat_history_file.open("a", encoding="utf-8") as f:
            f.write(text + "\\n")

    def read_chat_history(self) -> str:
        with self.chat_history_file.open(encoding="utf-8") as f:
            return f.read()

    def save_prompt(self, text: str) -> None:
        with open(self.prompt_file, "w") as f:
            f.write(text)
'''


def test_a_conversation_appended_to_a_file_is_a_transcript(tmp_path_factory):
    main = ("from cli.io import Console\n\n\ndef main():\n    c = Console('.')\n"
            "    c.append_chat_history('hi')\n    c.read_chat_history()\n    c.save_prompt('x')\n")
    m = modelled(tmp_path_factory, {
        "pyproject.toml": '[project]\nname = "cli"\n\n[project.scripts]\ncli = "cli.main:main"\n',
        "cli/__init__.py": "", "cli/io.py": CHAT_LOG, "cli/main.py": main})
    # the read of the history and the prompt file (no conversation named) are no transcript
    assert with_data(m.findings()["records.transcript"], "func", "row") == [
        ("cli/io.py", line_of(CHAT_LOG, 'open("a"'), "Console.append_chat_history", "persist:open")]


STEPPER = '''import json

from openai import OpenAI


class Stepper:
    def __init__(self):
        self.client = OpenAI()
        self.trajectory = []
        self.history = []

    def step(self):
        reply = self.client.chat.completions.create(model="m", messages=self.trajectory)
        self.trajectory.append({"action": reply.choices[0].message.content})
        return reply.choices[0].finish_reason == "stop"

    def save_trajectory(self):
        with open("run.traj", "w") as f:
            json.dump(self.trajectory, f)

    def save_history(self):
        with open("history.json", "w") as f:
            json.dump(self.history, f)

    def run(self):
        done = False
        while not done:
            done = self.step()
            self.save_trajectory()
        self.save_history()
'''


def test_a_transcript_written_in_the_loop_body_is_saved_after_every_iteration(tmp_path_factory):
    main = "from cli.stepper import Stepper\n\n\ndef main():\n    Stepper().run()\n"
    m = modelled(tmp_path_factory, {
        "pyproject.toml": '[project]\nname = "cli"\n\n[project.scripts]\ncli = "cli.main:main"\n',
        "cli/__init__.py": "", "cli/stepper.py": STEPPER, "cli/main.py": main})
    got = {f.data["func"]: f.data.get("loop_call") for f in m.findings()["records.transcript"]}
    # the history is written once, after the loop: no per-step record
    assert got == {"Stepper.save_trajectory": f"cli/stepper.py:{line_of(STEPPER, 'self.save_trajectory()')}",
                   "Stepper.save_history": None}


def test_event_store_persists_before_dispatch(live):
    assert with_data(live.findings()["records.event_store"], "func", "before_dispatch") == [
        ("agent/events.py", line_of(EVENTS, "def add_event"), "EventStream.add_event", True)]
    # EventLog.record keeps the event in memory only


def test_trace_decorators_and_trace_senders(live):
    assert with_data(live.findings()["records.trace"], "sender") == [
        ("agent/tools.py", line_of(TOOLS, "def run_shell"), "langsmith"),
        ("agent/tracing.py", line_of(TRACING, "get_tracer"), "opentelemetry"),
    ]  # sentry_sdk.init sends errors, not traces of each step


def test_output_flag(live):
    assert with_data(live.findings()["records.output_flag"], "option") == [
        ("agent/cli.py", line_of(CLI, '"--output-file"'), "output-file")]  # --output-format is not


def test_no_record_finding_in_prose_tests_docs_examples_dead_code_or_scripts(decoys):
    f = decoys.findings()
    assert {p: f[p] for p in RECORDS} == {p: [] for p in RECORDS}
    # the release-style script's dump is seen, but only as off-path evidence
    assert at(f.off_path["records.transcript"]) == [("scripts/dump_history.py", 5)]


TYPER_CLI = '''import json
from typing import Optional

import typer

app = typer.Typer()


def write_json_file(path, obj):
    with open(path, "w") as f:
        json.dump(obj, f)


@app.command()
def ask(prompt: str, json_output_file: Optional[str] = typer.Option(None, help="save the run")):
    result = {"prompt": prompt}
    if json_output_file:
        write_json_file(json_output_file, result)


@app.command()
def chat(prompt: str, save_to: Optional[str] = typer.Option(None)):
    if save_to:
        print("saving is not supported yet")  # the option is read but nothing is written to it


if __name__ == "__main__":
    app()
'''


def test_output_option_and_the_branch_that_writes_it(tmp_path_factory):
    m = modelled(tmp_path_factory, {"agent/__init__.py": "", "agent/cli.py": TYPER_CLI})
    found = m.findings()["records.output_flag"]
    writes = [x for x in found if x.data.get("site") == "write"]
    assert with_data(writes, "option") == [
        ("agent/cli.py", line_of(TYPER_CLI, "if json_output_file:"), "json_output_file")]
    assert writes[0].location.end_line == line_of(TYPER_CLI, "write_json_file(json_output_file, result)")
    assert {x.data["option"] for x in found} == {"json_output_file", "save_to"}  # save_to: no write


DELETES = '''import shutil


class FileConversationStore:
    def __init__(self, file_store):
        self.file_store = file_store

    def delete_metadata(self, conversation_id: str) -> None:
        self.file_store.delete(f"sessions/{conversation_id}")

    def delete_cache(self, key: str) -> None:
        self.file_store.delete(key)  # a cache, not a record

    def clear_history(self) -> None:
        self.history = []  # named for it, but nothing stored is deleted


def remove_session_logs(path: str) -> None:
    shutil.rmtree(path)


STORE = (FileConversationStore, remove_session_logs)
'''


def test_code_paths_that_delete_stored_records(tmp_path_factory):
    m = modelled(tmp_path_factory, {"agent/__init__.py": "", "agent/store.py": DELETES,
                                    "agent/__main__.py": "from agent.store import STORE\n"})
    found = m.findings()["records.delete"]
    assert sorted((f.data["func"], f.location.start_line) for f in found) == [
        ("FileConversationStore.delete_metadata", line_of(DELETES, "def delete_metadata")),
        ("remove_session_logs", line_of(DELETES, "def remove_session_logs"))]
    one = next(f for f in found if f.data["func"] == "remove_session_logs")
    assert one.claim == (f"remove_session_logs deletes stored records (shutil.rmtree(...) at "
                         f"line {line_of(DELETES, 'shutil.rmtree(path)')}).")


LOGCFG = '''import logging
import sys

from rich.logging import RichHandler


def init_logging(verbose: bool) -> None:
    logging.basicConfig(level=logging.INFO, handlers=[RichHandler(show_path=False)])


def init_file_logging(path: str) -> None:
    logging.basicConfig(filename=path, level=logging.DEBUG)


def quiet() -> None:
    logging.getLogger("httpx").setLevel(logging.WARNING)  # a level, not where lines go


SETUP = (init_logging, init_file_logging, quiet)
'''


def test_where_the_run_log_goes(tmp_path_factory):
    m = modelled(tmp_path_factory, {"agent/__init__.py": "", "agent/log.py": LOGCFG,
                                    "agent/__main__.py": "from agent.log import SETUP\n"})
    found = m.findings()["records.log_config"]
    assert sorted((f.location.start_line, f.claim) for f in found) == [
        (line_of(LOGCFG, "handlers=[RichHandler"), "logging.basicConfig(...) configures where "
                                                    "the run's log lines go (to the terminal)."),
        (line_of(LOGCFG, "filename=path"), "logging.basicConfig(...) configures where the run's "
                                            "log lines go (to a file).")]


SERIALIZED = '''import json
from pathlib import Path

from openai import OpenAI


class Agent:
    def __init__(self):
        self.client = OpenAI()
        self.messages = []
        self.cost = 0.0

    def serialize(self) -> dict:
        return {"info": {"cost": self.cost}, "messages": self.messages}

    def usage(self) -> dict:
        return {"cost": self.cost}

    def save(self, path: Path) -> None:
        data = self.serialize()
        path.write_text(json.dumps(data))

    def save_usage(self, path: Path) -> None:
        data = self.usage()
        path.write_text(json.dumps(data))

    def run(self):
        while True:
            reply = self.client.chat.completions.create(model="m", messages=self.messages)
            self.messages.append({"role": "assistant", "content": reply.choices[0].message.content})
            self.save(Path("run.json"))
            self.save_usage(Path("usage.json"))
'''


def test_a_record_built_by_a_method_that_returns_the_messages_is_a_transcript(tmp_path_factory):
    # `data = self.serialize()` then `path.write_text(json.dumps(data))`: the written value is
    # what serialize returns, the message list; a value of other fields only is no transcript
    main = "from cli.agent import Agent\n\n\ndef main():\n    Agent().run()\n"
    m = modelled(tmp_path_factory, {
        "pyproject.toml": '[project]\nname = "cli"\n\n[project.scripts]\ncli = "cli.main:main"\n',
        "cli/__init__.py": "", "cli/agent.py": SERIALIZED, "cli/main.py": main})
    got = {f.data["func"]: f.data.get("loop_call") for f in m.findings()["records.transcript"]}
    assert got == {"Agent.save": f"cli/agent.py:{line_of(SERIALIZED, 'self.save(Path')}"}


def test_a_record_of_settings_named_after_steps_is_no_transcript(tmp_path_factory):
    # `"max_steps": self.max_steps` names the step budget, not the steps taken
    src = SERIALIZED.replace('"messages": self.messages', '"max_steps": self.max_steps')
    main = "from cli.agent import Agent\n\n\ndef main():\n    Agent().run()\n"
    m = modelled(tmp_path_factory, {
        "pyproject.toml": '[project]\nname = "cli"\n\n[project.scripts]\ncli = "cli.main:main"\n',
        "cli/__init__.py": "", "cli/agent.py": src, "cli/main.py": main})
    assert m.findings()["records.transcript"] == []


# the loop logs each tool call through loguru, which the package sends to a log file as well as
# the terminal: the lines are on disk as each action runs (C9 B1); to the terminal alone, not
LOGURU = '''import sys

from loguru import logger as _logger


def define_log_level(name: str = "run"):
    _logger.remove()
    _logger.add(sys.stderr, level="INFO")
    _logger.add(f"logs/{name}.log", level="DEBUG")
    return _logger


logger = define_log_level()
'''

LOGGED_LOOP = '''from openai import OpenAI

from agent.logger import logger
from agent.tools import TOOLS


def run(task):
    client = OpenAI()
    while True:
        reply = client.chat.completions.create(model="m", messages=[task])
        for call in reply.choices[0].message.tool_calls:
            logger.info(f"Running tool {call.function.name} with args {call.function.arguments}")
            TOOLS[call.function.name](call.function.arguments)
'''

TOOL_FILE = "def shell(args):\n    return args\n\n\nTOOLS = {\"shell\": shell}\n"
LOGGED_MAIN = "import sys\n\nfrom agent.loop import run\n\nrun(sys.argv[1])\n"


@pytest.mark.parametrize("to_file", [True, False])
def test_tool_call_log_lines_sent_to_a_file_are_a_record_flushed_per_action(tmp_path_factory,
                                                                            to_file):
    from dids.criteria.base import Context, assess_all
    from dids.rubric import load_rubric

    logger_py = LOGURU if to_file else LOGURU.replace(
        '    _logger.add(f"logs/{name}.log", level="DEBUG")\n', "")
    m = modelled(tmp_path_factory, {"agent/__init__.py": "", "agent/__main__.py": LOGGED_MAIN,
                                    "agent/logger.py": logger_py, "agent/loop.py": LOGGED_LOOP,
                                    "agent/tools.py": TOOL_FILE})
    ctx = Context(index=m.index, findings=m.findings(), rubric=load_rubric())
    dims = next(a for a in assess_all(ctx) if a.criterion == "C9").configurations[0].dims
    assert (dims["S"].level, dims["B"].level) == ((1, 1) if to_file else (1, 0))
    if to_file:
        first = dims["B"].evidence[0]
        assert (first.probe, first.start_line) == (
            "records.log_config", line_of(LOGURU, '_logger.add(f"logs/{name}.log"'))
        assert "log file" in dims["S"].summary
