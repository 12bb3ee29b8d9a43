"""exec_env.env_builds: the assignment that builds the environment a model-driven executor is
handed (`my_env = os.environ.copy()` above `Popen(..., env=my_env)`), not an inline literal, not a
same-named variable of another function."""

from __future__ import annotations

from dids.criteria.base import Context
from dids.criteria.exec_env import env_builds
from dids.criteria.facts import shared
from dids.probes.runner import run_probes

from agentmodel.repos import modelled

AGENT = '''import os
import subprocess

from openai import OpenAI


def run_command(command: str):
    my_env = os.environ.copy()
    my_env["PYTHONIOENCODING"] = "utf-8"
    return subprocess.Popen(command, shell=True, env=my_env).wait()


def run_fixed(command: str):
    return subprocess.run(command, shell=True, env={"PATH": "/usr/bin"})


def other():
    my_env = {}
    return my_env


def loop(task: str):
    while True:
        reply = OpenAI().chat.completions.create(model="m", messages=[task])
        run_command(reply.choices[0].message.content)
        run_fixed(reply.choices[0].message.content)
'''

FILES = {"bot/__init__.py": "", "bot/agent.py": AGENT,
         "bot/__main__.py": "import sys\n\nfrom bot.agent import loop\n\nloop(sys.argv[1])\n"}


def test_the_env_built_above_the_spawn_is_cited(tmp_path_factory):
    m = modelled(tmp_path_factory, FILES)
    ctx = Context(m.index, run_probes(m.index), None)
    found = env_builds(ctx, shared(ctx).exec_paths)
    line = m.line("bot/agent.py", "my_env = os.environ.copy()")
    assert [(f.location.path, f.location.start_line) for f in found] == [("bot/agent.py", line)]
    assert "my_env = os.environ.copy()" in found[0].claim
    # run_fixed's inline dict needs no second citation; other()'s my_env is another variable
