"""The card's identity: the name (project, URL or path; never a mirror's folder), "What it is"
(the description, else the README's first real sentence), commit date and review date."""

from __future__ import annotations

import json
from datetime import date

import pytest

from dids.identity import name_from_address, readme_sentence
from make_fixture_repo import git

HOLMES = """<div align="center">
  <h1 align="center">HolmesGPT</h1>
  <p align="center"><a href="https://x"><img src="badge.svg"/></a>
  <img alt="PyPI" src="https://img.shields.io/pypi/v/holmesgpt"></p>
</div>

HolmesGPT is an AI agent for investigating problems in your cloud. It finds the root cause fast.

## Features
"""
BADGES = """[![CI](https://github.com/o/r/actions/workflows/ci.yml/badge.svg)](https://x)
[![PyPI](https://img.shields.io/pypi/v/r.svg)](https://pypi.org/project/r)

# Agent Zero

> [!NOTE]
> Read the docs.

A personal, organic **agentic** framework that grows and learns with you. More text here.
"""
SETEXT = """Aider
=====

* bullet one

```bash
pip install aider
```

Aider lets you pair program with LLMs, to edit code in your local git repository.
"""
RST = """.. image:: https://img.shields.io/badge/x.svg
   :target: https://x

|build| |docs|

Qwen-Agent
==========

Qwen-Agent is a framework for developing LLM applications based on the `Qwen <https://x>`_ models.
"""


@pytest.mark.parametrize("text,kind,expected", [
    (HOLMES, "md", "HolmesGPT is an AI agent for investigating problems in your cloud."),
    (BADGES, "md", "A personal, organic agentic framework that grows and learns with you."),
    (SETEXT, "md", "Aider lets you pair program with LLMs, to edit code in your local git "
                   "repository."),
    (RST, "rst", "Qwen-Agent is a framework for developing LLM applications based on the Qwen "
                 "models."),
    ("# Title\n\n![logo](x.png)\n", "md", None),
    ("", "md", None),
])
def test_readme_first_real_sentence(text, kind, expected):
    assert readme_sentence(text, kind) == expected


@pytest.mark.parametrize("url,name", [
    ("https://github.com/Aider-AI/aider", "aider"), ("https://github.com/o/r.git/", "r"),
    ("git@github.com:o/letta.git", "letta"), ("/src/work/smolagents", "smolagents"),
])
def test_name_from_address(url, name):
    assert name_from_address(url) == name


def _card_head(cli, *args) -> list[str]:
    return cli("score", *args).stdout.splitlines()[:5]


def test_name_and_description_from_the_project(cli, repo):
    repo.commit({"pyproject.toml": '[project]\nname = "ticket-bot"\ndescription = ""\n',
                 "README.md": HOLMES, "agent/tool.py": "import subprocess\n"})
    head = _card_head(cli, str(repo.path))
    assert head[0] == "# Defense-in-Depth Score: ticket-bot"
    # an empty description falls through to the README, HTML header skipped
    assert head[3] == ("**What it is:** HolmesGPT is an AI agent for investigating problems in "
                       "your cloud.")


def test_a_local_mirror_never_names_the_card(cli, repo, tmp_path):
    """A clone whose origin is a local folder (…/mirror/repo) is named and addressed by its own
    path; a network origin is kept."""
    repo.commit({"agent/tool.py": "import subprocess\n", "package.json": '{"description": '
                 '"A TypeScript coding agent."}\n'})
    mine = tmp_path / "gemini-cli"
    git(tmp_path, "clone", "-q", str(repo.path), str(mine))  # origin: <tmp>/repo
    data = json.loads(cli("score", str(mine), "--format", "json").stdout)
    assert data["name"] == "gemini-cli" and data["repo"]["url"] == str(mine)
    assert cli("score", str(mine)).stdout.splitlines()[3] == \
        "**What it is:** A TypeScript coding agent."
    git(mine, "remote", "set-url", "origin", "https://github.com/google-gemini/gemini-cli.git")
    data = json.loads(cli("score", str(mine), "--format", "json").stdout)
    assert data["repo"]["url"] == "https://github.com/google-gemini/gemini-cli.git"
    assert data["name"] == "gemini-cli"


def test_subdirectory_target_names_the_repository(cli, repo):
    repo.commit({"agent/tool.py": "import subprocess\n"})
    proc = cli("score", str(repo.path / "agent"), "--format", "json")
    data = json.loads(proc.stdout)
    assert data["name"] == repo.path.name and data["repo"]["url"] == str(repo.path)
    assert f"inside the repository {repo.path}: dids scores the whole repository" in proc.stderr


def test_commit_date_and_review_date_are_separate(cli, sample_repo):
    head = _card_head(cli, str(sample_repo))
    today = date.today().isoformat()
    assert f"· **Commit date:** 2026-01-01 · **Reviewed:** {today}" in head[2]
    data = json.loads(cli("score", str(sample_repo), "--format", "json",
                          "--reviewed", "2030-05-06").stdout)
    assert (data["commit_date"], data["reviewed"]) == ("2026-01-01", "2030-05-06")
