"""A factory-built agent: the CLI picks its agent and environment classes from dicts of dotted
paths (`{"local": "pkg.environments.local.LocalEnvironment"}`) by a default the call site passes
(`get_environment(cfg, default_type="local")`), imports them by name, and the loop calls the
environment through a `typing.Protocol` that no environment names as its base. The confirmation
asks through a prompt helper whose caller words the question, on a prompt_toolkit session another
module builds at import time. The near-miss repository keeps every name and shape but decides
nothing: no default key, a helper whose callers ask nothing, a session of the repository's own
class, and an environment that implements only part of the protocol."""

from __future__ import annotations

import pytest

from dids.agent.semantics import matches

from .repos import at, modelled

PYPROJECT = '''[project]
name = "tinyswe"
version = "0.1.0"
dependencies = ["litellm", "prompt_toolkit", "typer"]

[project.scripts]
tiny = "tinyswe.run:app"
'''

README = '''# tinyswe

```bash
pip install tinyswe
tiny -t "fix the failing test"
```
'''

PROTOCOLS = '''from typing import Protocol


class Environment(Protocol):
    def execute(self, action: dict) -> dict: ...

    def serialize(self) -> dict: ...


class Model(Protocol):
    def query(self, messages: list) -> dict: ...
'''

RUN = '''import typer

from tinyswe.agents import get_agent
from tinyswe.environments import get_environment
from tinyswe.models.llm import LlmModel

app = typer.Typer()


@app.command()
def main(task: str = typer.Option("", "-t")):
    model = LlmModel()
    env = get_environment({}, default_type="local")
    agent = get_agent(model, env, {}, default_type="interactive")
    agent.run(task)
'''

AGENTS = '''import copy
import importlib

_AGENT_MAPPING = {
    "default": "tinyswe.agents.default.DefaultAgent",
    "interactive": "tinyswe.agents.interactive.InteractiveAgent",
}


def get_agent_class(spec: str):
    full_path = _AGENT_MAPPING.get(spec, spec)
    module_name, class_name = full_path.rsplit(".", 1)
    return getattr(importlib.import_module(module_name), class_name)


def get_agent(model, env, config: dict, *, default_type: str = ""):
    config = copy.deepcopy(config)
    agent_class = get_agent_class(config.pop("agent_class", default_type))
    return agent_class(model, env, **config)
'''

# "local" comes after 400 characters of other entries: a registry cut short loses it
ENVIRONMENTS = '''import copy
import importlib

_ENVIRONMENT_MAPPING = {
    "docker": "tinyswe.environments.docker.DockerEnvironment",
    "singularity_with_a_long_key": "tinyswe.environments.docker.DockerEnvironment",
    "swerex_docker_with_a_long_key": "tinyswe.environments.docker.DockerEnvironment",
    "bubblewrap": "tinyswe.environments.extra.bubblewrap.BubblewrapEnvironment",
    "another_container_backend_key": "tinyswe.environments.docker.DockerEnvironment",
    "local": "tinyswe.environments.local.LocalEnvironment",
}


def get_environment_class(spec: str):
    full_path = _ENVIRONMENT_MAPPING.get(spec, spec)
    module_name, class_name = full_path.rsplit(".", 1)
    return getattr(importlib.import_module(module_name), class_name)


def get_environment(config: dict, *, default_type: str = ""):
    config = copy.deepcopy(config)
    environment_class = config.pop("environment_class", default_type)
    return get_environment_class(environment_class)(**config)
'''

LOCAL = '''import os
import subprocess


class LocalEnvironment:
    def __init__(self, **kwargs):
        self.timeout = 30

    def execute(self, action: dict) -> dict:
        return {"output": _run(action["command"], os.environ | {"PAGER": "cat"}, self.timeout)}

    def serialize(self) -> dict:
        return {}


def _run(command: str, env: dict, timeout: int) -> str:
    proc = subprocess.Popen(command, shell=True, env=env, stdout=subprocess.PIPE)
    return proc.communicate(timeout=timeout)[0]
'''

DOCKER = '''import subprocess


class DockerEnvironment:
    def __init__(self, image: str = "python:3.12"):
        self.image = image

    def execute(self, action: dict) -> dict:
        out = subprocess.run(["docker", "exec", "box", "bash", "-lc", action["command"]],
                             capture_output=True, env={"PATH": "/usr/bin"})
        return {"output": out.stdout}

    def serialize(self) -> dict:
        return {"image": self.image}
'''

BUBBLEWRAP = '''import subprocess

from pydantic import BaseModel


class BubblewrapConfig(BaseModel):
    executable: str = "bwrap"
    wrapper_args: list[str] = ["--ro-bind", "/usr", "/usr", "--unshare-net"]


class BubblewrapEnvironment:
    def __init__(self, **kwargs):
        self.config = BubblewrapConfig(**kwargs)

    def execute(self, action: dict) -> dict:
        out = subprocess.run([self.config.executable, *self.config.wrapper_args, "bash", "-c",
                              action["command"]], capture_output=True, env={})
        return {"output": out.stdout}

    def serialize(self) -> dict:
        return {}
'''

DEFAULT_AGENT = '''from tinyswe import Environment, Model


class DefaultAgent:
    def __init__(self, model: Model, env: Environment, **kwargs):
        self.model = model
        self.env = env
        self.messages = []

    def run(self, task: str):
        while True:
            self.step()

    def step(self):
        return self.execute_actions(self.query())

    def query(self):
        return self.model.query(self.messages)

    def execute_actions(self, message: dict):
        return [self.env.execute(a) for a in message["actions"]]
'''

INTERACTIVE = '''from tinyswe.agents.default import DefaultAgent
from tinyswe.agents.prompt_user import prompt_session


class InteractiveAgent(DefaultAgent):
    def execute_actions(self, message: dict):
        self._ask_confirmation(message["actions"])
        return super().execute_actions(message)

    def _ask_confirmation(self, actions):
        prompt = f"Execute {len(actions)} action(s)? Enter to confirm, or type a comment to reject "
        answer = self._prompt_user(prompt)
        if answer:
            raise RuntimeError(answer)

    def _prompt_user(self, prompt: str) -> str:
        print(prompt, end="")
        return prompt_session.prompt("")
'''

PROMPT_USER = '''from prompt_toolkit.shortcuts import PromptSession

prompt_session = PromptSession()
'''

LLM = '''import litellm


class LlmModel:
    def query(self, messages: list) -> dict:
        r = litellm.completion(model="gpt-4o", messages=messages)
        return {"actions": [{"command": r.choices[0].message.content}]}
'''

FILES = {
    "pyproject.toml": PYPROJECT, "README.md": README,
    "src/tinyswe/__init__.py": PROTOCOLS, "src/tinyswe/run.py": RUN,
    "src/tinyswe/agents/__init__.py": AGENTS, "src/tinyswe/agents/default.py": DEFAULT_AGENT,
    "src/tinyswe/agents/interactive.py": INTERACTIVE,
    "src/tinyswe/agents/prompt_user.py": PROMPT_USER,
    "src/tinyswe/environments/__init__.py": ENVIRONMENTS,
    "src/tinyswe/environments/local.py": LOCAL, "src/tinyswe/environments/docker.py": DOCKER,
    "src/tinyswe/environments/extra/__init__.py": "",
    "src/tinyswe/environments/extra/bubblewrap.py": BUBBLEWRAP,
    "src/tinyswe/models/__init__.py": "", "src/tinyswe/models/llm.py": LLM,
}

ENV = "src/tinyswe/environments/"
AGENT_DIR = "src/tinyswe/agents/"


@pytest.fixture(scope="module")
def factory(tmp_path_factory):
    return modelled(tmp_path_factory, FILES)


def test_the_default_key_passed_at_the_call_site_picks_the_local_environment(factory):
    sink = factory.sink(ENV + "local.py", "subprocess.Popen(")
    assert sink.reach == "default"
    assert sink.driven  # the loop calls it through the Environment protocol
    docker = factory.sink(ENV + "docker.py", "subprocess.run(")
    # named by the configuration key a user sets to pick it, not by the registry's name
    assert docker.reach == "opt-in:environment_class"
    assert docker.driven


def test_the_agent_registry_key_comes_from_a_lookup_default_in_the_argument(factory):
    g = factory.model.graph
    assert [k for k, _t in g.registries[(AGENT_DIR + "__init__.py", "_AGENT_MAPPING")]] == [
        "default", "interactive"]
    assert factory.model.reach._registry_choice(AGENT_DIR + "__init__.py::<module>",
                                                "_AGENT_MAPPING") == "interactive"
    assert factory.reach(AGENT_DIR + "interactive.py", "def _ask_confirmation") == "default"


def test_a_long_registry_keeps_its_last_entries(factory):
    keys = [k for k, _t in factory.model.graph.registries[(ENV + "__init__.py", "_ENVIRONMENT_MAPPING")]]
    assert keys[-1] == "local" and len(keys) == 6


def test_a_config_class_in_a_module_only_an_opt_in_backend_imports_is_opt_in(factory):
    assert factory.reach(ENV + "extra/bubblewrap.py", 'executable: str = "bwrap"').startswith("opt-in")
    wrappers = [w for w in factory.findings()["exec.wrapper"] if w.data["wrapper"] == "bwrap"]
    assert wrappers and all(str(w.data["reach"]).startswith("opt-in") for w in wrappers)


def test_an_environment_passed_in_by_the_caller_is_the_full_parent_environment(factory):
    spawn = next(s for s in factory.findings()["exec.spawn"]
                 if s.location.path == ENV + "local.py")
    assert spawn.data["env"] == "full"
    docker = next(s for s in factory.findings()["exec.spawn"] if s.location.path == ENV + "docker.py")
    assert docker.data["env"] == "constructed"


def test_a_library_session_built_in_another_module_is_a_prompt(factory):
    got = [(f.path, c.line, c.callee) for f, c, _r in matches(factory.index).get("prompt", ())]
    assert (AGENT_DIR + "interactive.py", factory.line(AGENT_DIR + "interactive.py", "prompt_session.prompt"),
            "prompt_toolkit.shortcuts.PromptSession.prompt") in got


def test_the_gate_is_where_the_caller_words_the_question(factory):
    gates = factory.findings()["approval.gate"]
    assert at(gates) == [(AGENT_DIR + "interactive.py",
                          factory.line(AGENT_DIR + "interactive.py", "answer = self._prompt_user(prompt)"))]
    assert gates[0].data["func"] == "InteractiveAgent._ask_confirmation"


# ------------------------------------------------------------------ the near-miss repository

NEAR_RUN = RUN.replace('get_environment({}, default_type="local")', "get_environment({})")
NEAR_INTERACTIVE = INTERACTIVE.replace(
    'prompt = f"Execute {len(actions)} action(s)? Enter to confirm, or type a comment to reject "',
    'prompt = "Type a comment (/h for help) "').replace("_ask_confirmation", "_read_comment")
# the repository's own session class: not the library's prompt, whatever its method is called
OWN_SESSION = '''class Session:
    def prompt(self, text: str) -> str:
        return text


prompt_session = Session()
'''
NOTES = '''from tinyswe.agents.own_session import prompt_session


def confirm_note(text: str) -> str:
    return prompt_session.prompt("Execute this? Enter to confirm ")
'''
# implements execute but not serialize: not an Environment
NEAR_PARTIAL = '''import subprocess


class HalfEnvironment:
    def execute(self, action: dict) -> dict:
        return {"output": subprocess.run(action["command"], shell=True).stdout}
'''
NEAR = {**FILES, "src/tinyswe/run.py": NEAR_RUN, AGENT_DIR + "interactive.py": NEAR_INTERACTIVE,
        AGENT_DIR + "own_session.py": OWN_SESSION, AGENT_DIR + "notes.py": NOTES,
        ENV + "half.py": NEAR_PARTIAL}


@pytest.fixture(scope="module")
def near(tmp_path_factory):
    return modelled(tmp_path_factory, NEAR)


def test_an_undecided_path_registry_keeps_every_backend_live(near):
    assert near.sink(ENV + "local.py", "subprocess.Popen(").reach == "default"
    assert near.sink(ENV + "docker.py", "subprocess.run(").reach == "default"


def test_a_class_with_part_of_the_protocol_is_not_dispatched_to(near):
    g = near.model.graph
    protocol = "src/tinyswe/__init__.py::Environment"
    assert ENV + "local.py::LocalEnvironment" in g.descendants(protocol)
    assert ENV + "half.py::HalfEnvironment" not in g.descendants(protocol)
    assert not near.sink(ENV + "half.py", "subprocess.run(").driven


def test_a_session_of_the_repositorys_own_class_is_no_prompt(near):
    prompts = [(f.path, c.callee) for f, c, _r in matches(near.index).get("prompt", ())]
    assert not any(p == AGENT_DIR + "notes.py" for p, _c in prompts)


def test_a_helper_whose_callers_ask_nothing_is_no_gate(near):
    prompts = [f.path for f, _c, _r in matches(near.index).get("prompt", ())]
    assert AGENT_DIR + "interactive.py" in prompts  # the prompt itself is still read
    assert near.findings()["approval.gate"] == []


def test_the_loop_whose_body_calls_the_step_is_the_agent_loop(factory):
    # `while True: self.step()` two calls above the model: the turn loop, ahead of the step
    first = factory.model.session.loops[0]
    assert (first.path, first.line, first.kind) == (
        AGENT_DIR + "default.py", factory.line(AGENT_DIR + "default.py", "while True:"), "loop")
    assert any(lp.kind == "step" and lp.node.endswith("DefaultAgent.step")
               for lp in factory.model.session.loops)


def test_a_loop_mapping_over_items_that_calls_the_step_is_not_promoted(tmp_path_factory):
    # `for action in zip(...)`: work mapped over a collection, not the agent's turns
    src = DEFAULT_AGENT.replace("        while True:\n            self.step()",
                                "        for item in zip(self.messages, self.messages):\n            self.step()")
    assert src != DEFAULT_AGENT
    m = modelled(tmp_path_factory, {**FILES, AGENT_DIR + "default.py": src})
    first = m.model.session.loops[0]
    assert first.kind == "step"
