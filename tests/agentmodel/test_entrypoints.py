"""Entry points (dids.agent.entrypoints) and the README's leading path (dids.agent.readme)."""

from __future__ import annotations

import pytest

from dids.agent.entrypoints import _target_of_words
from dids.agent.readme import Command, blocks, is_chore, leading_path, names_program, subcommand

from .repos import modelled


def _cmd(text: str) -> Command:
    return Command(text, 1, text.split())


# ------------------------------------------------------------------ readme.py

def test_blocks_blank_html_comments_and_keep_true_line_numbers():
    text = "# t\n<!--\n```bash\npip install old\n```\n-->\n```sh\npip install new\n```\n"
    got = blocks(text)
    assert [(b.lang, b.line, b.lines) for b in got] == [("sh", 8, ["pip install new"])]


def test_leading_path_takes_first_install_then_runs_past_chores():
    readme = """# x

```console
$ pip install clawd
```

```bash
clawd onboard
clawd --init-config
```

```bash
clawd run "hello" \\
    --model gpt-4o   # the model
clawd serve
```
"""
    lp = leading_path("README.md", readme, {"clawd"})
    assert lp.install.text == "pip install clawd" and lp.install.line == 4
    assert [c.words for c in lp.runs] == [["clawd", "onboard"], ["clawd", "--init-config"],
                                         ["clawd", "run", '"hello"', "--model", "gpt-4o"],
                                         ["clawd", "serve"]]
    assert lp.runs[2].line == 13  # a continued line keeps its first line
    assert [is_chore(c) for c in lp.runs] == [True, True, False, False]
    assert subcommand(lp.runs[2]) == "run" and subcommand(lp.runs[1]) is None


def test_checking_on_a_companion_program_is_no_run_of_the_agent():
    """A feature section before the quick start checks on a scheduled agent (`x-agent status`):
    looking at what runs is a chore, so the path goes on to the program the quick start runs."""
    readme = """# x

```sh
pipx install x
```

```sh
x-agent create ~/my-agent
x-agent install
x-agent status
x-agent logs --follow
```

## Quick start

```sh
x
```
"""
    lp = leading_path("README.md", readme, {"x", "x-agent"})
    assert [is_chore(c) for c in lp.runs] == [True, True, True, True, False]
    assert lp.runs[-1].words == ["x"]
    assert not is_chore(Command("x-agent run", 1, ["x-agent", "run"]))


def test_a_virtual_environment_is_set_up_before_the_install_and_is_neither():
    readme = """# agents

```bash
python -m venv .venv
source .venv/bin/activate  # On Windows: .venv\\Scripts\\activate
uv venv
pip install openai-agents
```

```bash
python examples/hello.py
```
"""
    lp = leading_path("README.md", readme, {"agents"})
    assert lp.install.text == "pip install openai-agents"
    assert [c.words for c in lp.runs] == [["python", "examples/hello.py"]]


def test_installing_the_installer_is_not_the_products_install():
    readme = """# swe

```bash
pip install uv && uvx swe-agent
```

```bash
pip install -U pipx poetry
pip install swe-agent
swe
```
"""
    lp = leading_path("README.md", readme, {"swe", "swe-agent"})
    assert lp.install is None  # `uvx` fetches and runs the product: no install step
    assert [c.words for c in lp.runs] == [["uvx", "swe-agent"]]
    lp = leading_path("README.md", readme.split("```\n\n", 1)[1], {"swe", "swe-agent"})
    assert lp.install.text == "pip install swe-agent"
    assert [c.words for c in lp.runs] == [["swe"]]
    # a package named like a tool but longer is the product
    lp = leading_path("README.md", "```bash\npip install uv-agent\nuv-agent\n```\n", {"uv-agent"})
    assert lp.install.text == "pip install uv-agent"


def test_a_chore_before_the_snippet_does_not_hide_it():
    readme = """# agents

```bash
pip install openai-agents
```

```bash
uv init
```

```python
from agents import Agent, Runner

print(Runner.run_sync(Agent(name="a"), "hi"))
```
"""
    lp = leading_path("README.md", readme, set())
    assert lp.install.text == "pip install openai-agents"
    assert lp.snippet is not None and lp.snippet.line == 12


def test_tooling_folders_are_never_the_main_module():
    from dids.agent.entrypoints import _offpath_dir

    assert _offpath_dir(".agents/skills/final-review/scripts/review.py")
    assert _offpath_dir(".claude/hooks/check.py")
    assert _offpath_dir("pkg/scripts/release.py")
    assert not _offpath_dir("pkg/agent/__main__.py")
    assert not _offpath_dir("run_agent.py")


def test_leading_path_with_a_python_snippet_and_no_programs():
    readme = """```bash
pip install smolbot
```

```pycon
>>> import smolbot
```

```python
from smolbot import Agent
Agent().run("x")
```
"""
    lp = leading_path("README.md", readme)
    assert lp.install.text == "pip install smolbot" and lp.runs == []
    assert lp.snippet is not None and lp.snippet.line == 10  # the pycon session is skipped


def test_docker_run_is_a_run_and_docker_pull_is_an_install():
    lp = leading_path("README.md", "```bash\ndocker pull img\ndocker run -it img\n```\n")
    assert lp.install.text == "docker pull img"
    assert [c.text for c in lp.runs] == ["docker run -it img"]


STEP_LIST = """# Pilot

## Features
- `openai`: the default provider
- `--model NAME`: which model to use

## How to start
1. `git clone https://example.com/pilot.git` (clone the repo)
2. `cd pilot` (go to the repo folder)
3. `python3 -m venv venv` (create a virtual environment)
4. `pip install -r requirements.txt` (install the dependencies)
5. `cp example-config.json config.json` (create `config.json`)
6. `python main.py` (start Pilot)

### PostgreSQL support
```bash
pip install asyncpg psycopg2
```

### List projects
```bash
python main.py --list
```
"""


def test_a_numbered_step_list_is_the_leading_path_and_the_clone_is_not_the_install():
    lp = leading_path("README.md", STEP_LIST)
    line = {text: n for n, text in enumerate(STEP_LIST.splitlines(), 1)}
    assert (lp.install.text, lp.install.line) == (
        "pip install -r requirements.txt", line["4. `pip install -r requirements.txt` (install the dependencies)"])
    assert [(c.text, c.line) for c in lp.runs] == [("python main.py", line["6. `python main.py` (start Pilot)"])]
    # the bullets above define terms; only the step list's commands become blocks
    assert [b.lines for b in blocks(STEP_LIST)][:3] == [
        ["git clone https://example.com/pilot.git"], ["cd pilot"], ["python3 -m venv venv"]]


BULLETS = """# Engineer

## Providers
- `openai chat` and `azure chat` are supported

## Setup
- `pip install engineer`
- `export OPENAI_API_KEY=[your api key]`

## Run
- `engineer projects/my-new-project`
"""


def test_bulleted_steps_count_for_installs_and_the_projects_own_programs():
    lp = leading_path("README.md", BULLETS, {"engineer"})
    assert lp.install.text == "pip install engineer"
    assert [c.text for c in lp.runs] == ["engineer projects/my-new-project"]
    # with no programs known, a bullet's plausible command is no run: bullets list features too
    assert leading_path("README.md", BULLETS).runs == []


def test_a_clone_stays_the_install_when_nothing_installs_after_it():
    lp = leading_path("README.md", "```bash\ngit clone https://x/y.git\ncd y\n./run.sh\n```\n"
                      "```bash\ndocker compose up\n```\n")
    assert lp.install.text == "git clone https://x/y.git"


def test_launchers_run_the_project_only_when_they_name_its_program():
    readme = "```bash\npip install tool\nnpx other-tool\nnpx -y tool --serve\n```\n"
    lp = leading_path("README.md", readme, {"tool"})
    assert [c.text for c in lp.runs] == ["npx -y tool --serve"]


def test_uvx_launch_of_the_project_is_a_run_command():
    lp = leading_path("README.md", "```bash\npip install tool\nuvx tool serve\n```\n", {"tool"})
    assert [c.text for c in lp.runs] == ["uvx tool serve"]


@pytest.mark.parametrize("text,chore", [
    ("clawd onboard", True), ("clawd config set model x", True), ("cd repo", True),
    ("clawd --setup-wizard", True), ("clawd run task", False), ("python -m clawd", False),
    ("clawd", False),
])
def test_is_chore(text, chore):
    assert is_chore(_cmd(text)) is chore


@pytest.mark.parametrize("words,target", [
    ("uvicorn pkg.app:app --port 8000", "pkg.app:app"),
    ("python -m uvicorn pkg.app:create_app() --factory", "pkg.app:create_app"),
    ("python -m pkg.worker --queue q", "pkg.worker"),
    ("python3 main.py --flag", "main.py"),
    ("sh -c 'python -m pkg.server'", "pkg.server"),
    ("tini -- clawd serve", "clawd.cli:main"),
    ("poetry run clawd run", "clawd.cli:main"),
    ("streamlit run ui/app.py", "ui/app.py"),
    ("node server.js", None),
    ("uvx clawd", "clawd.cli:main"),  # a launcher fetches the package and runs its script
    ("uvx clawd@latest run", "clawd.cli:main"),
    ("pipx run clawd", "clawd.cli:main"),
    ("uvx --from clawd-cli clawd", "clawd.cli:main"),
    ("uvx --python 3.12 clawd", "clawd.cli:main"),
    ("uvx ruff check", None),  # another package's program
    ("uvx --from clawd ruff", None),
])
def test_what_a_command_line_runs(words, target):
    assert _target_of_words(words.split(), {"clawd": "clawd.cli:main"}) == target


# ------------------------------------------------------------------ find() on small repos

LANGGRAPH = {
    "langgraph.json": '{"graphs": {"agent": "./src/graphs/agent.py:graph"}, "dependencies": ["."]}\n',
    "src/graphs/__init__.py": "",
    "src/graphs/agent.py": "def build():\n    return 1\n\n\ngraph = build()\n",
}

MAIN_MODULE = {
    "tool/__init__.py": "",
    "tool/__main__.py": "from tool.core import go\n\ngo()\n",
    "tool/core.py": "def go():\n    return 1\n",
    "scripts/dev.py": "if __name__ == '__main__':\n    print(1)\n",
}

SETUP_CFG = {
    "setup.cfg": "[options.entry_points]\nconsole_scripts =\n    helper = helper.main:cli\n",
    "helper/__init__.py": "", "helper/main.py": "def cli():\n    return 1\n",
}

WORKSPACE = {
    "pyproject.toml": '[project]\nname = "mono"\n',
    "libs/cli/pyproject.toml": '[project]\nname = "mono-cli"\n\n[project.scripts]\nmono = "mono_cli.app:run"\n',
    "libs/cli/mono_cli/__init__.py": "", "libs/cli/mono_cli/app.py": "def run():\n    return 1\n",
    "templates/new/pyproject.toml": '[project]\nname = "x"\n\n[project.scripts]\nx = "x.y:z"\n',
}

POETRY_DOCKER = {
    "pyproject.toml": '[tool.poetry]\nname = "svc"\n\n[tool.poetry.scripts]\nsvc-admin = "svc.admin:main"\n',
    "Dockerfile": 'FROM python:3.12\nENTRYPOINT ["python", "-m", "svc.worker"]\n',
    "svc/__init__.py": "", "svc/worker.py": "def loop():\n    return 1\n\n\nloop()\n",
    "svc/admin.py": "def main():\n    return 1\n",
}

SHAPES = {"langgraph": LANGGRAPH, "main_module": MAIN_MODULE, "setup_cfg": SETUP_CFG,
          "workspace": WORKSPACE, "poetry_docker": POETRY_DOCKER}


@pytest.fixture(scope="module")
def shapes(tmp_path_factory):
    return {k: modelled(tmp_path_factory, v) for k, v in SHAPES.items()}


def _main(m):
    return [(e.kind, e.target, e.node) for e in m.model.entries.main]


def test_langgraph_json_names_the_graph_module(shapes):
    m = shapes["langgraph"]
    assert _main(m) == [("langgraph", "src/graphs/agent.py", "src/graphs/agent.py::<module>")]
    assert m.model.entries.main[0].name == "agent"
    assert m.model.reach.of("src/graphs/agent.py", 2) == "default"


def test_package_main_module_is_the_path_when_nothing_else_is_known(shapes):
    m = shapes["main_module"]
    assert _main(m) == [("main-module", "tool/__main__.py", "tool/__main__.py::<module>")]
    assert m.model.entries.how == "modules run as scripts"
    assert ("main-module", "scripts/dev.py") in [(e.kind, e.path) for e in m.model.entries.others]
    assert m.model.reach.of("tool/core.py", 2) == "default"


def test_setup_cfg_console_scripts(shapes):
    m = shapes["setup_cfg"]
    assert _main(m) == [("console-script", "helper.main:cli", "helper/main.py::cli")]
    assert m.model.entries.main[0].line == 3


def test_workspace_members_console_scripts_but_not_templates(shapes):
    m = shapes["workspace"]
    assert _main(m) == [("console-script", "mono_cli.app:run", "libs/cli/mono_cli/app.py::run")]


def test_dockerfile_entrypoint_beats_nothing_and_scripts_become_others(shapes):
    m = shapes["poetry_docker"]
    assert _main(m) == [("docker", "svc.worker", "svc/worker.py::<module>")]
    assert m.model.entries.how == "Docker/compose commands"
    assert [(e.kind, e.target) for e in m.model.entries.others] == [("console-script", "svc.admin:main")]
    assert m.model.reach.of("svc/admin.py", 2) == "off-path"  # reached only from the admin script


@pytest.mark.parametrize("word,named", [
    ("@acme/server-notes", True), ("@acme/server-notes@1.2.0", True), ("server-notes@latest", True),
    ("@acme/other", False), ("@", False),
])
def test_a_launcher_names_a_scoped_package_by_its_name_or_last_segment(word, named):
    assert names_program(word, {"server-notes"}) is named


def test_npx_of_a_scoped_package_is_a_run_command():
    readme = "```sh\nnpx -y @acme/server-notes\n```\n"
    assert [c.text for c in leading_path("README.md", readme, {"server-notes"}).runs] == \
        ["npx -y @acme/server-notes"]
