"""A pair-programming agent in the shape of a terminal coder: the coder holds its terminal as
`self.io` (handed to its constructor, type unknown to a static reader) and asks
`self.io.confirm_ask(...)` before it runs a command the model proposed. The confirmation method
is the only one of that name in the repository, so it is what runs; the terminal also rings a
bell through a command from its settings, which is not the model's executor."""

from __future__ import annotations

import pytest

from dids.criteria.base import Context
from dids.criteria.c4_isolation import assess as assess_c4
from dids.rubric import load_rubric

from .repos import modelled

PYPROJECT = '''[project]
name = "pairc"
version = "0.1.0"

[project.scripts]
pairc = "pairc.main:main"
'''

MAIN = '''from pairc.coder import Coder
from pairc.io import Terminal


def main():
    io = Terminal(bell_command="notify-send done")
    Coder(io).run()
'''

CODER = '''import litellm

from pairc.run_cmd import run_cmd


class Coder:
    def __init__(self, io):
        self.io = io
        self.messages = []

    def run(self):
        while True:
            reply = litellm.completion(model="gpt-4o", messages=self.messages)
            self.messages.append(reply)
            for command in reply.commands:
                self.run_shell(command)

    def run_shell(self, command):
        if not self.io.confirm_ask("Run shell command?", subject=command):
            return
        self.messages.append(run_cmd(command))
'''

IO = '''import subprocess


class Terminal:
    def __init__(self, bell_command=None):
        self.bell_command = bell_command

    def ring_bell(self):
        if self.bell_command:
            subprocess.run(self.bell_command, shell=True)

    def confirm_ask(self, question, subject=None):
        self.ring_bell()
        return input(question + " (y/n) ").strip().lower() == "y"
'''

RUN_CMD = '''import subprocess


def run_cmd(command):
    return subprocess.Popen(command, shell=True, stdout=subprocess.PIPE).communicate()[0]
'''

FILES = {"pyproject.toml": PYPROJECT, "pairc/__init__.py": "", "pairc/main.py": MAIN,
         "pairc/coder.py": CODER, "pairc/io.py": IO, "pairc/run_cmd.py": RUN_CMD}

# near miss: a second class defines confirm_ask, so the call's target is not known
RECORDER = '''class Recorder:
    def confirm_ask(self, question, subject=None):
        return input(question)
'''


@pytest.fixture(scope="module")
def pair(tmp_path_factory):
    return modelled(tmp_path_factory, FILES)


@pytest.fixture(scope="module")
def ambiguous(tmp_path_factory):
    return modelled(tmp_path_factory, {**FILES, "pairc/recorder.py": RECORDER,
                                       "pairc/main.py": MAIN + "\nfrom pairc.recorder import Recorder  # noqa\n"})


def test_the_only_method_of_the_name_is_what_the_loop_drives(pair):
    session = pair.model.session
    assert "pairc/io.py::Terminal.confirm_ask" in session.driven
    assert "pairc/coder.py::Coder.run_shell" in session.inner
    # the innermost step's own reach is not widened by the guess
    assert "pairc/io.py::Terminal.confirm_ask" not in session.inner


def test_the_confirmation_is_a_gate_on_the_model_path(pair):
    gates = pair.findings()["approval.gate"]
    assert [(f.location.path, f.location.start_line) for f in gates] == [
        ("pairc/io.py", pair.line("pairc/io.py", "return input("))]


def test_a_name_two_classes_define_is_left_open(ambiguous):
    assert "pairc/io.py::Terminal.confirm_ask" not in ambiguous.model.session.driven
    assert ambiguous.findings()["approval.gate"] == []


def test_a_spawn_of_a_handed_in_command_is_marked_and_a_settings_command_is_not(pair):
    spawns = {f.location.path: f.data["handed_in"] for f in pair.findings()["exec.spawn"]}
    assert spawns == {"pairc/run_cmd.py": True, "pairc/io.py": False}


def test_the_model_executor_is_the_decisive_c4_evidence_before_the_bell(pair):
    ctx = Context(index=pair.index, findings=pair.findings(), rubric=load_rubric())
    default = assess_c4(ctx).configurations[0]
    first = default.dims["B"].evidence[0]
    assert (first.path, first.start_line) == ("pairc/run_cmd.py",
                                              pair.line("pairc/run_cmd.py", "Popen"))


def test_command_lines_the_model_writes_are_scoped_as_raw_commands(pair):
    """No tool is registered, but the loop hands the model's command lines to a host executor:
    tool scoping is assessed (raw commands, nothing checks them), not left unassessed."""
    from dids.criteria.c3_scoping import assess as assess_c3

    ctx = Context(index=pair.index, findings=pair.findings(), rubric=load_rubric())
    got = assess_c3(ctx)
    assert got.assessed
    default = got.configurations[0]
    assert (default.dims["S"].level, default.dims["C"].level, default.dims["B"].level) == (0, 0, 0)
    first = default.dims["S"].evidence[0]
    assert (first.path, first.start_line) == ("pairc/run_cmd.py", pair.line("pairc/run_cmd.py", "Popen"))
