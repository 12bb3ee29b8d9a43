"""memory.user_config (the agent's own folder in the operator's home, and whether entries there
define tools), memory.dotenv_commands (environment settings naming a command or MCP server) and
memory.repo_config's home-folder exception: fire on live code, silent on near misses."""

from __future__ import annotations

import pytest

from .family import line_of
from .modelled import at, modelled_fixtures, with_data

HOME = '''import os
from pathlib import Path

import yaml

CONFIG_DIR = Path.home() / ".clawd"
SSH_KEY = os.path.expanduser("~/.ssh/id_ed25519")


def load_toolsets():
    data = yaml.safe_load((CONFIG_DIR / "config.yaml").read_text())
    return data.get("toolsets", []), data.get("mcp_servers", {})


def global_rules():
    return Path.home() / ".claude/settings.json"


def project_rules(root):
    return Path(root) / ".mcp.json"


def config_files(git_root):
    # the project's own settings file first, then the operator's
    project = Path(git_root) / ".clawd.conf.yml"
    operator = Path.home() / ".clawd.conf.yml"
    return [project, operator]


def state_file(git_root):
    return Path(git_root) / ".clawd.cache.json"
'''

PLAIN_HOME = '''import os

STATE = os.path.expanduser("~/.notes-cache")


def cache_dir():
    return STATE
'''

ENV = '''import os

SHELL_CMD = os.getenv("CLAWD_SHELL_CMD", "bash")
MCP_URL = os.environ.get("MCP_SERVER_URL")
EDITOR_BIN = "vim"
LOG_LEVEL = os.getenv("LOG_LEVEL", "info")


def python_exe():
    return os.environ.get("CLAWD_PYTHON_EXECUTABLE", "python3")
'''

MAIN = '''from agent import env, home, state

print(home.load_toolsets(), home.global_rules(), home.project_rules("."), env.python_exe(),
      home.config_files("."), home.state_file("."),
      env.SHELL_CMD, env.MCP_URL, env.EDITOR_BIN, env.LOG_LEVEL, home.SSH_KEY, state.cache_dir())
'''

LIVE = {"agent/__init__.py": "", "agent/__main__.py": MAIN, "agent/home.py": HOME,
        "agent/env.py": ENV, "agent/state.py": PLAIN_HOME}

PROSE = '''"""Config notes.

    CONFIG_DIR = Path.home() / ".clawd"
    os.getenv("CLAWD_SHELL_CMD")
"""
# CONFIG_DIR = Path.home() / ".clawd"
# SHELL_CMD = os.getenv("CLAWD_SHELL_CMD")
DOC = 'Entries under Path.home() / ".clawd" define toolsets'
'''

DECOYS = {
    "agent/__init__.py": "", "agent/__main__.py": "from agent import notes  # noqa\n",
    "agent/notes.py": PROSE,
    "tests/test_home.py": HOME + ENV, "examples/home_demo.py": HOME + ENV,
    "docs/config.md": "Put toolsets in `~/.clawd/config.yaml`; set `CLAWD_SHELL_CMD`.\n",
}

live, decoys = modelled_fixtures(LIVE, DECOYS)


def test_user_config_folder_and_whether_its_entries_define_tools(live):
    assert with_data(live.findings()["memory.user_config"], "defines") == [
        ("agent/home.py", line_of(HOME, 'CONFIG_DIR = Path.home() / ".clawd"'), True),
        ("agent/state.py", line_of(PLAIN_HOME, "expanduser"), False),
    ]  # ~/.ssh is another tool's folder


def test_dotenv_commands_read_from_the_environment(live):
    assert with_data(live.findings()["memory.dotenv_commands"], "key") == [
        ("agent/env.py", line_of(ENV, "CLAWD_SHELL_CMD"), "CLAWD_SHELL_CMD"),
        ("agent/env.py", line_of(ENV, "MCP_SERVER_URL"), "MCP_SERVER_URL"),
        ("agent/env.py", line_of(ENV, "CLAWD_PYTHON_EXECUTABLE"), "CLAWD_PYTHON_EXECUTABLE"),
    ]  # EDITOR_BIN is a constant in code, LOG_LEVEL names no command


def test_repo_config_is_the_project_file_not_the_home_one(live):
    assert at(live.findings()["memory.repo_config"]) == [
        ("agent/home.py", line_of(HOME, '".mcp.json"')),
        ("agent/home.py", line_of(HOME, 'Path(git_root) / ".clawd.conf.yml"'))]
    # the same file in the home folder is the operator's; a cache file is no configuration


@pytest.mark.parametrize("probe_id", ["memory.user_config", "memory.dotenv_commands",
                                      "memory.repo_config"])
def test_no_finding_in_prose_tests_docs_or_examples(decoys, probe_id):
    assert decoys.findings()[probe_id] == []
