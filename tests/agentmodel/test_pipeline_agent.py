"""A plan-then-act pipeline run as `python -m planact`: one planner model call returns the plan,
then a loop over its steps asks the model which tool each step needs and runs it: built-in
actions through a dict literal, plugin tools through a registry their `@tool` decorator fills.
argparse options and a `"--trace" in sys.argv` check decide which branches the defaults take."""

from __future__ import annotations

import pytest

from .repos import at, modelled

README = '''# planact

```
pip install -e .
python -m planact "summarise the repo" --workdir .
```
'''

MAIN = '''import argparse
import sys

from planact.pipeline import Pipeline


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("task")
    parser.add_argument("--workdir", default=".")
    parser.add_argument("--dry-run", action="store_true")
    parser.add_argument("--executor", default="shell")
    args = parser.parse_args()
    if "--trace" in sys.argv:
        from planact.tracing import enable_tracing

        enable_tracing()
    pipeline = Pipeline(workdir=args.workdir)
    if args.dry_run:
        print(pipeline.plan(args.task))
        return
    if args.executor == "docker":
        pipeline.use_docker()
    pipeline.execute(args.task)


main()
'''

PIPELINE = '''import subprocess

from openai import OpenAI

from planact import tools  # noqa: F401  (registers the plugin tools)
from planact.builtins import BUILTINS
from planact.registry import REGISTRY


class Pipeline:
    def __init__(self, workdir: str):
        self.workdir = workdir
        self.client = OpenAI()

    def plan(self, task: str) -> list[str]:
        reply = self.client.chat.completions.create(
            model="gpt-4o", messages=[{"role": "user", "content": f"Plan: {task}"}])
        return reply.choices[0].message.content.splitlines()

    def choose(self, step: str):
        reply = self.client.chat.completions.create(
            model="gpt-4o", messages=[{"role": "user", "content": step}])
        return reply.choices[0].message.tool_calls[0]

    def use_docker(self):
        subprocess.run(["docker", "pull", "python:3.12"])

    def execute(self, task: str):
        results = []
        for step in self.plan(task):
            call = self.choose(step)
            if call.function.name in BUILTINS:
                results.append(BUILTINS[call.function.name](call.function.arguments))
            else:
                results.append(REGISTRY[call.function.name](call.function.arguments))
        return results
'''

BUILTINS = '''import subprocess


def run_python(code: str) -> str:
    return subprocess.run(["python", "-c", code], capture_output=True, text=True).stdout


def note(text: str) -> str:
    return text


BUILTINS = {"run_python": run_python, "note": note}
'''

REGISTRY = '''REGISTRY = {}


def tool(fn):
    REGISTRY[fn.__name__] = fn
    return fn
'''

TOOLS = '''import subprocess

from planact.registry import tool


@tool
def shell(command: str) -> str:
    return subprocess.check_output(command, shell=True, text=True)
'''

TRACING = '''from opentelemetry import trace


def enable_tracing():
    return trace.get_tracer("planact")
'''

EVAL = '''import subprocess


def evaluate():
    subprocess.run(["python", "-m", "planact", "task"])
'''

FILES = {
    "pyproject.toml": '[project]\nname = "planact"\nversion = "0.1"\n', "README.md": README,
    "planact/__init__.py": "", "planact/__main__.py": MAIN, "planact/pipeline.py": PIPELINE,
    "planact/builtins.py": BUILTINS, "planact/registry.py": REGISTRY, "planact/tools.py": TOOLS,
    "planact/tracing.py": TRACING, "scripts/eval_pipeline.py": EVAL,
}

P = "planact/pipeline.py"


@pytest.fixture(scope="module")
def pipe(tmp_path_factory):
    return modelled(tmp_path_factory, FILES)


def test_python_dash_m_runs_the_package_main(pipe):
    ep = pipe.model.entries
    assert [(e.kind, e.target, e.node) for e in ep.main] == [
        ("readme-run", "planact", "planact/__main__.py::<module>")]
    assert ep.roots == ["planact/__main__.py::<module>"]


def test_agent_loop_is_the_loop_over_plan_steps(pipe):
    loops = pipe.model.session.loops
    assert [(lp.node, lp.line, lp.kind, lp.depth) for lp in loops] == [
        ("planact/pipeline.py::Pipeline.execute", pipe.line(P, "for step in self.plan"), "loop", 1)]
    # the body's own model call (choose) makes it an agent loop at one call's distance; the
    # model calls it reaches are the planner's and the chooser's
    sites = [i for i, t in enumerate(PIPELINE.splitlines(), 1) if "completions.create(" in t]
    assert loops[0].llm and set(loops[0].llm) <= {(P, ln) for ln in sites}


@pytest.mark.parametrize("path,needle,want", [
    ("planact/__main__.py", "enable_tracing()", "opt-in:trace"),  # "--trace" in sys.argv
    ("planact/__main__.py", "print(pipeline.plan", "opt-in:dry_run"),  # store_true is False
    ("planact/__main__.py", "pipeline.use_docker()", "opt-in:executor"),  # default "shell"
    ("planact/__main__.py", "pipeline.execute(args.task)", "default"),
    ("planact/tracing.py", "get_tracer", "opt-in:trace"),
    (P, '"docker", "pull"', "opt-in:executor"),
    ("planact/builtins.py", '"python", "-c"', "default"),
    ("planact/tools.py", "shell=True", "default"),  # its module is imported for registration
    ("scripts/eval_pipeline.py", '"-m", "planact"', "off-path"),
])
def test_reach_under_argparse_and_argv_defaults(pipe, path, needle, want):
    assert pipe.reach(path, needle) == want


def test_builtin_action_from_the_dict_registry_is_model_driven(pipe):
    sink = pipe.sink("planact/builtins.py", '"python", "-c"')
    assert (sink.cls, sink.reach, sink.driven) == ("host", "default", True)
    assert pipe.model.session.path_to(
        pipe.model.graph.node_at("planact/builtins.py", sink.line))[-1] == (
        "planact/pipeline.py::Pipeline.execute", pipe.line(P, "BUILTINS[call.function.name]"))


def test_orchestrator_chore_behind_an_option_is_not_model_driven(pipe):
    sink = pipe.sink(P, '"docker", "pull"')
    assert not sink.driven


def test_orchestrator_chore_behind_an_option_is_opt_in(pipe):
    sink = pipe.sink(P, '"docker", "pull"')
    assert (sink.reach, sink.driven) == ("opt-in:executor", False)


def test_decorator_registered_tool_is_model_driven(pipe):
    sink = pipe.sink("planact/tools.py", "shell=True")
    assert sink.driven


def test_agent_dispatch_cites_the_hand_off_to_the_builtin(pipe):
    found = pipe.findings()["agent.dispatch"]
    assert (P, pipe.line(P, "BUILTINS[call.function.name]")) in at(found)
    assert all(x.location.path == P for x in found)
