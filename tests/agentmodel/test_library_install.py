"""What a README that installs a package presents, in the shapes of framework repositories:

- `pip install <the package>` and nothing run after it: the package is a library. A module's
  `if __name__ == "__main__"` demo (a dataset loader) is not how its users run it, and a
  sample `langgraph.json` of the CLI's examples is not the product's deployment.
- in a monorepo, the workspace distributions the installed one neither requires nor pulls in
  through an extra (the deploy CLI beside the library) are off the scored path.
- a README that serves the graphs (`uvx --from "langgraph-cli[inmem]" --with-editable .
  langgraph dev`) runs what langgraph.json names; an evaluation script a later block runs
  (`python tests/run_evaluate.py`) is never the path.

Near misses: a README that runs something after the install keeps it as the path; a repository
with no README install keeps its `__main__` module; the installed distribution's own console
script still is the path."""

from __future__ import annotations

import pytest

from dids.engine import score_index

from .repos import modelled

LIB_README = "# kit\n\n## Installation\n\n```bash\npip install -U kit\n```\n"

LIBRARY = {
    "README.md": LIB_README,
    "pyproject.toml": '[project]\nname = "kit"\ndependencies = ["kit-core"]\n',
    "kit/__init__.py": "from kit.predict import Predict\n",
    "kit/predict.py": "class Predict:\n    def forward(self, q):\n        return q\n",
    "kit/datasets/__init__.py": "",
    "kit/datasets/hotpot.py": ("def load():\n    return []\n\n\n"
                               "if __name__ == '__main__':\n    print(load())\n"),
    "libs/core/pyproject.toml": '[project]\nname = "kit-core"\n',
    "libs/core/kit_core/__init__.py": "", "libs/core/kit_core/base.py": "def base():\n    return 1\n",
    "libs/cli/pyproject.toml": ('[project]\nname = "kit-cli"\n\n[project.scripts]\n'
                                'kit-deploy = "kit_cli.cli:main"\n'),
    "libs/cli/kit_cli/__init__.py": "",
    "libs/cli/kit_cli/cli.py": ("import subprocess\n\n\ndef main():\n"
                                "    subprocess.run(['docker', 'build', '.'])\n"),
    "libs/cli/examples/langgraph.json": '{"graphs": {"agent": "./graph.py:graph"}}\n',
    "libs/cli/examples/graph.py": "graph = 1\n",
    "libs/cli/js-examples/langgraph.json": '{"graphs": {"agent": "./src/graph.ts:graph"}}\n',
    "libs/cli/js-examples/src/graph.ts": "export const graph = 1;\n",
    "kit/counterexamples/__init__.py": "", "kit/counterexamples/find.py": "def find():\n    return 1\n",
}

# near miss: the README runs something after the install
RUN_README = dict(LIBRARY, **{"README.md": LIB_README.replace(
    "pip install -U kit\n", "pip install -U kit\npython -m kit.datasets.hotpot\n")})

# near miss: no README install at all keeps the package's `__main__` module
NO_README = {k: v for k, v in LIBRARY.items() if k != "README.md" and not k.startswith("libs/cli")}

# near miss: the installed distribution declares its own console script
OWN_SCRIPT = dict(LIBRARY, **{"pyproject.toml": ('[project]\nname = "kit"\n\n[project.scripts]\n'
                                                 'kit = "kit.predict:main"\n'),
                              "kit/predict.py": "def main():\n    return 1\n"})

SERVE_README = """# research agent

1. Install:
```bash
git clone https://github.com/x/research.git
uv sync
```

2. Launch the agent with the LangGraph server:
```bash
uvx --refresh --from "langgraph-cli[inmem]" --with-editable . --python 3.11 langgraph dev --allow-blocking
```

## Evaluation
```bash
python tests/run_evaluate.py
```
"""

SERVED = {
    "README.md": SERVE_README,
    "pyproject.toml": '[project]\nname = "research"\n',
    "langgraph.json": '{"graphs": {"Deep Researcher": "./src/research/agent.py:graph"}}\n',
    "src/research/__init__.py": "",
    "src/research/agent.py": "def build():\n    return 1\n\n\ngraph = build()\n",
    "tests/run_evaluate.py": "def main():\n    return 1\n\n\nmain()\n",
}

SHAPES = {"library": LIBRARY, "run": RUN_README, "no_readme": NO_README, "own_script": OWN_SCRIPT,
          "served": SERVED}


@pytest.fixture(scope="module")
def shapes(tmp_path_factory):
    return {k: modelled(tmp_path_factory, v) for k, v in SHAPES.items()}


def _main(m):
    return [(e.kind, e.target) for e in m.model.entries.main]


def test_a_readme_that_only_installs_the_package_presents_a_library(shapes):
    m = shapes["library"]
    assert _main(m) == []
    assert m.model.entries.how == "library (the README installs the package and runs nothing)"
    # the dataset module's demo block and the CLI example's graph are neither the path
    assert ("main-module", "kit/datasets/hotpot.py") in [(e.kind, e.target)
                                                        for e in m.model.entries.others]
    assert m.model.reach.of("kit/predict.py", 2) == "library"
    report = score_index(m.index)
    assert report.scored_configuration.startswith(
        "“pip install -U kit” (scored as a library: the README installs the package and runs "
        "nothing)")


def test_prefixed_example_folders_are_examples(shapes):
    index = shapes["library"].index
    assert index.role("libs/cli/js-examples/langgraph.json") == "example"
    assert index.role("libs/cli/js-examples/src/graph.ts") == "example"
    assert index.role("kit/counterexamples/find.py") == "source"  # no separator: a word


def test_workspace_distributions_the_installed_one_does_not_hold_are_off_path(shapes):
    m = shapes["library"]
    assert m.model.reach.of("libs/cli/kit_cli/cli.py", 5) == "off-path"
    assert m.model.reach.of("libs/core/kit_core/base.py", 2) == "library"  # a requirement


def test_a_run_after_the_install_stays_the_path(shapes):
    assert _main(shapes["run"]) == [("readme-run", "kit.datasets.hotpot")]


def test_without_a_readme_install_the_main_module_is_the_path(shapes):
    assert ("main-module", "kit/datasets/hotpot.py") in _main(shapes["no_readme"])


def test_the_installed_distributions_own_console_script_is_the_path(shapes):
    m = shapes["own_script"]
    assert ("console-script", "kit.predict:main") in _main(m)
    assert m.model.entries.how == "console scripts"


def test_a_langgraph_server_run_serves_the_graphs_of_langgraph_json(shapes):
    m = shapes["served"]
    main = _main(m)
    assert ("langgraph", "src/research/agent.py") in main
    assert all("run_evaluate" not in t for _k, t in main)
    assert m.model.entries.how == "README leading path"
    assert m.model.reach.of("src/research/agent.py", 2) == "default"
