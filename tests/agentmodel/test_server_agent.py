"""A server agent: the README runs `docker compose up`; compose starts uvicorn on a FastAPI app
whose event endpoint hands each event to a handler that asks the model once per event (no loop
of its own) and runs the chosen command in a remote E2B sandbox (a library-model row). A modal
backend is opt-in through an environment variable; a dev compose file, a dev server module and a
CI Dockerfile ship beside it."""

from __future__ import annotations

import pytest

from .repos import at, modelled

README = '''# opsbot

An incident bot that answers alerts.

```bash
git clone https://example.invalid/opsbot && cd opsbot
docker compose up
```
'''

COMPOSE = '''services:
  api:
    build: .
    command: uvicorn opsbot.server:app --host 0.0.0.0 --port 8000
    environment:
      - OPSBOT_API_TOKEN=changeme
'''

COMPOSE_DEV = '''services:
  api:
    build: .
    command: python -m opsbot.devserver
'''

SERVER = '''from fastapi import FastAPI

from opsbot.handler import EventHandler

app = FastAPI()
handler = EventHandler()


@app.post("/events")
async def events(event: dict):
    return await handler.on_event(event)
'''

HANDLER = '''import anthropic

from opsbot.sandbox import RemoteRunner


class EventHandler:
    runner: RemoteRunner

    def __init__(self):
        self.client = anthropic.Anthropic()
        self.runner = RemoteRunner()

    async def on_event(self, event: dict):
        return self.step(event)

    def step(self, event: dict):
        reply = self.client.messages.create(model="claude-x", max_tokens=1024,
                                            messages=[{"role": "user", "content": str(event)}])
        action = reply.content[0].input
        return self.runner.execute(action["command"])
'''

SANDBOX = '''import os

import modal
from e2b import Sandbox


class RemoteRunner:
    def execute(self, command: str):
        if os.getenv("OPSBOT_BACKEND") == "modal":
            box = modal.Sandbox.create("bash", "-c", command)
            return box.stdout.read()
        sandbox = Sandbox.create(timeout=60)
        return sandbox.commands.run(command)
'''

DEVSERVER = '''import subprocess


def main():
    subprocess.run(["uvicorn", "opsbot.server:app", "--reload"])


if __name__ == "__main__":
    main()
'''

CI_BUILD = '''import subprocess

subprocess.run(["python", "-m", "build"])
'''

FILES = {
    "pyproject.toml": '[project]\nname = "opsbot"\nversion = "0.3"\n',
    "README.md": README, "docker-compose.yml": COMPOSE, "docker-compose.dev.yml": COMPOSE_DEV,
    "Dockerfile": 'FROM python:3.12-slim\nCOPY . /app\nCMD ["uvicorn", "opsbot.server:app"]\n',
    "ci/Dockerfile": 'FROM python:3.12\nCMD ["python", "ci/build.py"]\n',
    "opsbot/__init__.py": "", "opsbot/server.py": SERVER, "opsbot/handler.py": HANDLER,
    "opsbot/sandbox.py": SANDBOX, "opsbot/devserver.py": DEVSERVER, "ci/build.py": CI_BUILD,
}


@pytest.fixture(scope="module")
def srv(tmp_path_factory):
    return modelled(tmp_path_factory, FILES)


def test_compose_and_dockerfile_commands_are_the_scored_entries(srv):
    ep = srv.model.entries
    assert ep.how == "README leading path"
    kinds = [(e.kind, e.path, e.target) for e in ep.main]
    assert kinds == [("readme-run", "README.md", "docker"),
                     ("docker", "Dockerfile", "opsbot.server:app"),
                     ("compose", "docker-compose.yml", "opsbot.server:app")]
    # the app object is a module attribute: its module is the root
    assert ep.roots == ["opsbot/server.py::<module>"]
    assert ep.main[2].line == srv.line("docker-compose.yml", "command:")
    # the .dev compose variant and the CI image are not the shipped deployment
    assert not any("devserver" in e.target or e.path.startswith("ci/") for e in ep.main)


def test_module_run_as_a_script_is_another_entry(srv):
    others = [(e.kind, e.path) for e in srv.model.entries.others]
    assert ("main-module", "opsbot/devserver.py") in others


def test_event_driven_step_stands_for_the_loop(srv):
    loops = srv.model.session.loops
    assert [(lp.node, lp.kind, lp.depth) for lp in loops] == [
        ("opsbot/handler.py::EventHandler.on_event", "step", 1)]
    assert loops[0].llm == (("opsbot/handler.py", srv.line("opsbot/handler.py", "messages.create")),)


def test_module_level_instance_method_is_reached_from_the_route(srv):
    # `handler.on_event(...)`: the receiver is the module singleton `handler = EventHandler()`,
    # so the route handler calls the method itself (entry app -> route -> on_event)
    r = srv.model.reach
    assert r.of("opsbot/handler.py", srv.line("opsbot/handler.py", "async def on_event")) == "default"
    assert r.parent["opsbot/handler.py::EventHandler.on_event"][0] == "opsbot/server.py::events"
    assert r.parent["opsbot/handler.py::EventHandler.on_event"][2] == "local"


def test_remote_sandbox_row_is_the_model_driven_executor(srv):
    e2b = srv.sink("opsbot/sandbox.py", "Sandbox.create(timeout=60)")
    assert (e2b.cls, e2b.reach, e2b.driven, e2b.row) == ("remote", "default", True,
                                                          "exec:Sandbox.create")
    modal = srv.sink("opsbot/sandbox.py", "modal.Sandbox.create")
    assert (modal.cls, modal.reach, modal.driven, modal.row) == (
        "remote", "opt-in:OPSBOT_BACKEND", True, "exec:modal.Sandbox.create")
    # the sandbox the step creates and the command it runs there (the model's, handed in)
    run = srv.sink("opsbot/sandbox.py", "sandbox.commands.run(command)")
    assert (run.cls, run.reach, run.row) == ("remote", "default", "exec:commands.run")
    assert [s.line for s in srv.model.session.executors(driven=True)] == [e2b.line, run.line]


@pytest.mark.parametrize("path,needle,want", [
    ("opsbot/handler.py", "messages.create", "default"),
    ("opsbot/devserver.py", "--reload", "off-path"),  # another entry point's code
    ("ci/build.py", '"-m", "build"', "off-path"),
    ("opsbot/sandbox.py", "box.stdout.read()", "opt-in:OPSBOT_BACKEND"),
])
def test_reach_of_each_place(srv, path, needle, want):
    assert srv.reach(path, needle) == want


def test_path_from_the_step_to_the_sandbox(srv):
    s, g = srv.model.session, srv.model.graph
    nid = g.node_at("opsbot/sandbox.py", srv.line("opsbot/sandbox.py", "Sandbox.create(timeout=60)"))
    assert s.path_to(nid) == [
        ("opsbot/handler.py::EventHandler.on_event", srv.line("opsbot/handler.py", "self.step(event)")),
        ("opsbot/handler.py::EventHandler.step", srv.line("opsbot/handler.py", "self.runner.execute"))]


def test_agent_probes_on_the_server(srv):
    f = srv.findings()
    assert [(x.location.path, x.data["loop"]) for x in f["agent.loop"]] == [
        ("opsbot/handler.py", "step")]
    assert at(f["agent.executor"]) == [("opsbot/sandbox.py", srv.line("opsbot/sandbox.py", "class RemoteRunner"))]
    assert f["agent.executor"][0].data["cls"] == "remote"
    assert ("opsbot/sandbox.py", srv.line("opsbot/sandbox.py", "OPSBOT_BACKEND")) in at(f["agent.guard"])
    assert [x.data["key"] for x in f["secrets.deploy_env"]] == ["OPSBOT_API_TOKEN"]


def test_code_run_in_a_remote_sandbox_is_no_channel_to_people(srv):
    """The surface's external communication: tools that message people, or code the model runs
    unfiltered on the host (which can mail or post anywhere); a remote sandbox is neither."""
    from dids.criteria.base import Context
    from dids.rubric import load_rubric
    from dids.surface import surface

    out, _tools = surface(Context(index=srv.index, findings=srv.findings(), rubric=load_rubric()))
    assert (out["code_execution"], out["external_communication"]) == ("yes", "no")
