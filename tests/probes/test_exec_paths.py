"""exec.* probes: each must fire on live code and stay silent on the same words elsewhere."""

from __future__ import annotations

from .helpers import probe_findings

SHELL_TOOL = """import os, subprocess

def run_shell(command: str):
    return subprocess.run(command, shell=True, env=os.environ.copy())
"""


def test_spawn_fires_with_shell_and_full_env(repo):
    found = probe_findings(repo, {"agent/tools.py": SHELL_TOOL}, "exec.spawn")
    assert len(found) == 1
    f = found[0]
    assert (f.location.path, f.location.start_line) == ("agent/tools.py", 4)
    assert f.data["shell"] is True and f.data["env"] == "full"


def test_spawn_env_kinds(repo):
    src = """import asyncio, os, subprocess as sp

def _env():
    env = os.environ.copy()
    env.pop("AWS_SECRET_ACCESS_KEY", None)
    return env

def a(cmd):
    sp.Popen(cmd)

def b(cmd):
    env = {**os.environ, "X": "1"}
    sp.run(cmd, env=env)

def c(cmd):
    sp.run(cmd, env={"PATH": "/usr/bin"})

async def d(cmd):
    await asyncio.create_subprocess_exec(*cmd, env=_env())
"""
    found = probe_findings(repo, {"pkg/run.py": src}, "exec.spawn")
    assert [(f.location.start_line, f.data["env"]) for f in found] == [
        (9, "inherit"), (13, "full"), (16, "constructed"), (19, "filtered")]


def test_spawn_near_misses_do_not_fire(repo):
    files = {
        "tests/test_tools.py": SHELL_TOOL,  # tests are not mechanisms
        "examples/demo.py": SHELL_TOOL,  # nor examples
        "docs/guide.md": "subprocess.run(command, shell=True)",
        "agent/notes.py": '"""subprocess.run(cmd, shell=True) is what we used to do."""\n'
                          "# subprocess.run(cmd, shell=True)\nVALUE = 'subprocess.run(cmd)'\n",
    }
    assert probe_findings(repo, files, "exec.spawn") == []


WRAPPED = """import subprocess

def run_jailed(cmd):
    argv = ["nsjail", "--clone_newnet", "--seccomp_string", "ALLOW", "--user", "65534",
            "--", "/bin/sh", "-c", cmd]
    return subprocess.run(argv, env={})
"""


CALLER = "from sandbox.jail import run_jailed\n\ndef tool(cmd):\n    return run_jailed(cmd)\n"


def test_wrapper_and_hardening_fire(repo):
    repo.commit({"sandbox/jail.py": WRAPPED, "agent/tool.py": CALLER})
    from dids.acquire import acquire
    from dids.index.repo import build_index
    from dids.probes import run_probes

    f = run_probes(build_index(acquire(str(repo.path))))
    wrappers = f["exec.wrapper"]
    assert [(w.data["wrapper"], w.data["strength"], w.location.start_line) for w in wrappers] == [
        ("nsjail", 3, 4)]
    assert {h.data["option"] for h in f["exec.hardening"]} >= {
        "network namespace", "seccomp", "non-root uid"}


def test_wrapper_words_in_prose_tests_docs_do_not_fire(repo):
    files = {
        "agent/tools.py": '"""Runs in "nsjail" with seccomp."""\n# argv = ["nsjail", "--"]\n'
                          "def f():\n    return 1\n",
        "tests/test_jail.py": WRAPPED,
        "sandbox/unused.py": WRAPPED,  # nothing calls run_jailed: dead code is not a mechanism
        "docs/security.md": 'We run ["nsjail", "--seccomp"] for every command.',
    }
    # live=False: no entry point imports sandbox/unused.py, so run_jailed is dead code
    assert probe_findings(repo, files, "exec.wrapper", live=False) == []


def test_selector_reads_compose_default_first(repo):
    files = {
        "docker-compose.yml": "services:\n  worker:\n    environment:\n"
                              "      APP_DISABLE_NSJAIL: ${APP_DISABLE_NSJAIL:-true}\n",
        "app/config.py": "import os\nAPP_DISABLE_NSJAIL = os.environ.get('APP_DISABLE_NSJAIL', 'false')\n",
    }
    found = probe_findings(repo, files, "exec.selector")
    assert len(found) == 1
    assert found[0].data["sandbox_on"] is False
    assert found[0].location.path == "docker-compose.yml"
    assert "APP_DISABLE_NSJAIL" in found[0].data["names"]


def test_selector_state_values():
    from dids.probes.exec_paths import selector_state

    assert selector_state("X_DISABLE_NSJAIL", "true") is False
    assert selector_state("X_DISABLE_NSJAIL", "false") is True
    assert selector_state("X_EXECUTOR_BACKEND", "direct") is False
    assert selector_state("X_EXECUTOR_BACKEND", "nsjail") is True
    assert selector_state("AGENT_SANDBOX", "none") is False
    assert selector_state("AGENT_SANDBOX", "docker") is True
    assert selector_state("X_SANDBOX_ENABLED", "0") is False
    assert selector_state("X_NSJAIL_PATH", "/usr/bin/nsjail") is None


BACKEND_CHOICES = '''import subprocess

VALID_SANDBOX_COMMANDS = [
    "docker",
    "podman",
    "runsc",
    "lxc",
]
SCHEMA = {"command": {"enum": ["docker", "podman", "sandbox-exec", "runsc", "lxc"]}}


def check(sandbox: str) -> bool:
    if sandbox == "runsc":
        return True
    return sandbox in VALID_SANDBOX_COMMANDS


def run_jailed(command: str) -> str:
    argv = [
        "nsjail",
        "--config",
        "/etc/jail.cfg",
        "--",
        "sh", "-c", command,
    ]
    return subprocess.run(argv, capture_output=True, text=True).stdout
'''


def test_a_backend_offered_or_compared_is_not_a_wrapper_but_an_argv_element_is(repo):
    """The names in a list or enum of backend choices and a comparison that picks one are
    options, not uses; `"nsjail",` opening an argv list with its flags is a use."""
    found = probe_findings(repo, {"agent/sandbox.py": BACKEND_CHOICES}, "exec.wrapper")
    nsjail = next(i for i, t in enumerate(BACKEND_CHOICES.splitlines(), 1) if t.strip() == '"nsjail",')
    assert [(f.location.start_line, f.data["wrapper"]) for f in found] == [(nsjail, "nsjail")]


HANDED = '''import subprocess


class Terminal:
    def __init__(self, bell_command):
        self.bell_command = bell_command

    def ring(self):
        cmd = self.bell_command
        subprocess.run(cmd, shell=True)  # settings


def run_cmd(command, cwd="."):
    line = f"{command} 2>&1"
    full = ["bash", "-c", line]
    subprocess.run(full, cwd=cwd)  # derived


def run_later(command):
    def go():
        subprocess.run(command, shell=True)  # closure
    return go


def tidy():
    cmd = ["git", "gc"]
    subprocess.run(cmd)  # fixed


def run_planned(commands):
    for command in commands:
        subprocess.run(command.split(" "))  # loop


def prune():
    for cmd in ["git gc", "git prune"]:
        subprocess.run(cmd.split(" "))  # fixed loop
'''


def test_handed_in_follows_locals_and_closures_but_not_settings_or_fixed_commands(repo):
    found = probe_findings(repo, {"agent/run.py": HANDED}, "exec.spawn")
    got = {HANDED.splitlines()[f.location.start_line - 1].rsplit("# ", 1)[-1]: f.data["handed_in"]
           for f in found}
    assert got == {"settings": False, "derived": True, "closure": True, "fixed": False,
                   "loop": True, "fixed loop": False}
