"""A CLI agent: a console script runs a typer app whose `run` command builds an Agent; the
Agent's loop asks `self.llm.completion(...)` and dispatches the model's tool calls through a dict
registry to a `subprocess.run` shell tool. Other commands (onboarding), release scripts, legacy
code and CI helpers ship beside it and are not the scored path."""

from __future__ import annotations

import pytest

from .repos import at, modelled

PYPROJECT = '''[project]
name = "clawd"
version = "0.1.0"

[project.scripts]
clawd = "clawd.cli:main"
'''

README = '''# clawd

A terminal coding agent.

```bash
pip install clawd
clawd onboard
clawd run "fix the failing tests"
```

Run `clawd onboard` again to change the model.
'''

INIT = '''"""clawd: a terminal coding agent."""

from .agent import Agent

__all__ = ["Agent"]
'''

CLI = '''import subprocess

import typer

from clawd import Agent
from clawd.llm import LLM

app = typer.Typer()


def git_version() -> str:
    return subprocess.run(["git", "--version"], capture_output=True, text=True).stdout


@app.command()
def run(task: str, max_steps: int = 20):
    git_version()
    agent = Agent(llm=LLM("gpt-4o"), max_steps=max_steps)
    print(agent.run(task))


@app.command()
def onboard():
    from clawd.wizard import wizard

    print("Choose the tool you want to run")
    wizard()


def main():
    app()
'''

AGENT = '''from clawd.llm import LLM
from clawd.tools import TOOLS


class Agent:
    llm: LLM

    def __init__(self, llm, max_steps: int = 20):
        self.llm = llm
        self.max_steps = max_steps
        self.history = []

    def run(self, task: str):
        self.history.append({"role": "user", "content": task})
        for step in range(self.max_steps):
            reply = self.llm.completion(self.history)
            if not reply.tool_calls:
                return reply.content
            for call in reply.tool_calls:
                self.history.append({"role": "tool", "content": self.dispatch(call)})
        return None

    def dispatch(self, call):
        print(f"running tool {call.name}")
        return TOOLS[call.name](**call.arguments)
'''

LLM_PY = '''import litellm


class LLM:
    def __init__(self, model: str):
        self.model = model

    def completion(self, messages):
        return litellm.completion(model=self.model, messages=messages)
'''

TOOLS = '''import os
import subprocess


def run_shell(command: str) -> str:
    if os.getenv("CLAWD_SANDBOX") == "docker":
        return subprocess.run(["docker", "run", "--rm", "alpine", "sh", "-c", command],
                              capture_output=True, text=True).stdout
    return subprocess.run(command, shell=True, capture_output=True, text=True).stdout


def read_file(path: str) -> str:
    with open(path) as fh:
        return fh.read()


TOOLS = {"run_shell": run_shell, "read_file": read_file}
'''

WIZARD = '''import subprocess


def wizard():
    subprocess.run(["pip", "install", "clawd-extras"])
'''

RELEASE = '''import subprocess


def tag(version):
    subprocess.run(["git", "tag", version])


if __name__ == "__main__":
    tag("v0.1.0")
'''

LEGACY = '''import os


def run(cmd):
    os.system(cmd)
'''

CI_BUILD = '''import subprocess

subprocess.check_call(["python", "-m", "build"])
'''

FILES = {
    "pyproject.toml": PYPROJECT, "README.md": README,
    "src/clawd/__init__.py": INIT, "src/clawd/cli.py": CLI, "src/clawd/agent.py": AGENT,
    "src/clawd/llm.py": LLM_PY, "src/clawd/tools.py": TOOLS, "src/clawd/wizard.py": WIZARD,
    "scripts/release.py": RELEASE, "src/clawd/legacy/__init__.py": "",
    "src/clawd/legacy/old_agent.py": LEGACY, "ci/build_wheels.py": CI_BUILD,
}


@pytest.fixture(scope="module")
def cli(tmp_path_factory):
    return modelled(tmp_path_factory, FILES)


# ------------------------------------------------------------------ entry points

def test_readme_run_command_is_the_scored_entry_through_the_console_script(cli):
    ep = cli.model.entries
    assert ep.how == "README leading path"
    assert ep.readme.install.text == "pip install clawd"
    assert [(e.kind, e.target, e.node) for e in ep.main] == [
        ("readme-run", "clawd.cli:main", "src/clawd/cli.py::main")]
    assert ep.main[0].line == cli.line("README.md", 'clawd run "fix')


def test_the_readme_subcommand_is_the_root_and_other_commands_are_excluded(cli):
    ep = cli.model.entries
    assert "src/clawd/cli.py::run" in ep.roots
    assert ep.exclude == {"src/clawd/cli.py::onboard"}  # `clawd onboard` is a chore


# ------------------------------------------------------------------ call graph

def test_reexport_through_package_init_resolves_the_agent_class(cli):
    g = cli.model.graph
    run_edges = {(d, how) for d, _l, how in g.edges["src/clawd/cli.py::run"]}
    assert ("src/clawd/agent.py::Agent", "ctor") in run_edges
    assert ("src/clawd/agent.py::Agent.run", "local") in run_edges


def test_self_attribute_typed_by_class_annotation_reaches_the_model_wrapper(cli):
    g = cli.model.graph
    got = [(d, line, how) for d, line, how in g.edges["src/clawd/agent.py::Agent.run"]
           if d == "src/clawd/llm.py::LLM.completion"]
    assert got == [("src/clawd/llm.py::LLM.completion",
                    cli.line("src/clawd/agent.py", "self.llm.completion"), "attr")]


def test_registry_dispatch_reaches_every_tool(cli):
    g = cli.model.graph
    assert {(d, how) for d, _l, how in g.edges["src/clawd/agent.py::Agent.dispatch"]} == {
        ("src/clawd/tools.py::run_shell", "registry:TOOLS:run_shell"),
        ("src/clawd/tools.py::read_file", "registry:TOOLS:read_file")}


# ------------------------------------------------------------------ agent loop

def test_agent_loop_is_the_for_loop_in_agent_run(cli):
    loops = cli.model.session.loops
    assert [(lp.node, lp.line, lp.kind, lp.depth) for lp in loops] == [
        ("src/clawd/agent.py::Agent.run", cli.line("src/clawd/agent.py", "for step in range"),
         "loop", 0)]
    assert loops[0].llm == (("src/clawd/agent.py", cli.line("src/clawd/agent.py",
                                                             "self.llm.completion")),)


# ------------------------------------------------------------------ reach

@pytest.mark.parametrize("path,needle,want", [
    ("src/clawd/tools.py", "shell=True", "default"),
    ("src/clawd/tools.py", '"docker", "run"', "opt-in:CLAWD_SANDBOX"),
    ("src/clawd/cli.py", '"git", "--version"', "default"),
    ("src/clawd/wizard.py", "pip", "off-path"),  # only `clawd onboard` runs it
    ("scripts/release.py", '"git", "tag"', "off-path"),
    ("src/clawd/legacy/old_agent.py", "os.system", "off-path"),
    ("ci/build_wheels.py", "check_call", "off-path"),
])
def test_reach_of_each_place(cli, path, needle, want):
    assert cli.reach(path, needle) == want


def test_distance_ranks_the_loop_before_the_tool(cli):
    r = cli.model.reach
    loop = r.distance("src/clawd/agent.py", cli.line("src/clawd/agent.py", "for step in range"))
    tool = r.distance("src/clawd/tools.py", cli.line("src/clawd/tools.py", "shell=True"))
    assert loop is not None and tool is not None and loop < tool
    trail = [nid for nid, _line, _how in r.trail("src/clawd/tools.py",
                                                  cli.line("src/clawd/tools.py", "shell=True"))]
    assert trail[-3:] == ["src/clawd/agent.py::Agent.run", "src/clawd/agent.py::Agent.dispatch",
                          "src/clawd/tools.py::run_shell"]


# ------------------------------------------------------------------ exec sinks

def test_the_shell_tool_is_model_driven_and_the_version_check_is_not(cli):
    shell = cli.sink("src/clawd/tools.py", "shell=True")
    assert (shell.cls, shell.reach, shell.driven, shell.row) == ("host", "default", True,
                                                                  "exec:subprocess.run")
    version = cli.sink("src/clawd/cli.py", '"git", "--version"')
    assert (version.reach, version.driven) == ("default", False)
    docker = cli.sink("src/clawd/tools.py", '"docker", "run"')
    assert (docker.reach, docker.driven) == ("opt-in:CLAWD_SANDBOX", True)


def test_off_path_sinks_are_not_in_the_session(cli):
    paths = {s.path for s in cli.model.session.sinks}
    assert paths == {"src/clawd/tools.py", "src/clawd/cli.py"}
    driven = cli.model.session.executors(driven=True)
    assert [(s.path, s.line) for s in driven] == [
        ("src/clawd/tools.py", cli.line("src/clawd/tools.py", "shell=True"))]
    assert [(s.path, s.line) for s in cli.model.session.executors(reach="opt-in")] == [
        ("src/clawd/tools.py", cli.line("src/clawd/tools.py", '"docker", "run"'))]


def test_path_from_the_loop_to_the_shell_tool(cli):
    s, g = cli.model.session, cli.model.graph
    hops = s.path_to(g.node_at("src/clawd/tools.py", cli.line("src/clawd/tools.py", "shell=True")))
    assert hops == [("src/clawd/agent.py::Agent.run", cli.line("src/clawd/agent.py", "self.dispatch(call)")),
                    ("src/clawd/agent.py::Agent.dispatch", cli.line("src/clawd/agent.py", "TOOLS[call.name]"))]


# ------------------------------------------------------------------ probes on this shape

def test_agent_probes_cite_the_loop_the_dispatch_and_the_guard(cli):
    f = cli.findings()
    assert at(f["agent.loop"]) == [("src/clawd/agent.py", cli.line("src/clawd/agent.py", "for step in range"))]
    assert f["agent.loop"][0].data == {**f["agent.loop"][0].data, "loop": "loop", "func": "Agent.run"}
    assert set(at(f["agent.dispatch"])) == {
        ("src/clawd/agent.py", cli.line("src/clawd/agent.py", "self.dispatch(call)")),
        ("src/clawd/agent.py", cli.line("src/clawd/agent.py", "TOOLS[call.name]"))}
    guards = [(g.location.path, g.location.start_line, g.data["setting"]) for g in f["agent.guard"]]
    assert ("src/clawd/tools.py", cli.line("src/clawd/tools.py", "CLAWD_SANDBOX"),
            "CLAWD_SANDBOX") in guards


def test_loop_cap_is_the_loop_header_and_its_bound_has_a_shipped_default(cli):
    f = cli.findings()
    caps = f["limits.loop_cap"]
    assert [(at([c])[0], c.data["bound"], c.data["where"]) for c in caps] == [
        (("src/clawd/agent.py", cli.line("src/clawd/agent.py", "for step in range")),
         "self.max_steps", "loop")]
    # the bound's magnitude comes from the declaration (max_steps: int = 20)
    assert ("max_steps", 20) in {(c.data.get("name"), c.data.get("value")) for c in f["limits.cap"]}


def test_records_of_each_step_and_console_lines_on_the_model_path_only(cli):
    f = cli.findings()
    assert ("src/clawd/agent.py", cli.line("src/clawd/agent.py", '"role": "tool"')) in at(f["records.step"])
    assert at(f["records.console"]) == [
        ("src/clawd/agent.py", cli.line("src/clawd/agent.py", "running tool"))]
    # the onboarding print about "the tool you want to run" is not on the model's path


def test_findings_in_off_path_places_never_decide_a_level(cli):
    f = cli.findings()
    for probe_id, found in f.by_probe.items():
        for x in found:
            assert not x.location or not x.location.path.startswith(
                ("scripts/", "ci/", "src/clawd/legacy/")), (probe_id, x)
    off = {x.location.path for v in f.off_path.values() for x in v if x.location}
    assert "scripts/release.py" in off


def test_a_host_shell_the_model_drives_is_a_channel_to_anyone(cli):
    from dids.criteria.base import Context
    from dids.rubric import load_rubric
    from dids.surface import surface

    out, _tools = surface(Context(index=cli.index, findings=cli.findings(), rubric=load_rubric()))
    assert (out["code_execution"], out["network_egress"], out["external_communication"]) == \
        ("yes", "yes", "yes")
