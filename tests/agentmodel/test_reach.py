"""Reach of places (dids.agent.reach): off-path folders and files, backend registries keyed by a
setting, library code nothing reaches, `if __name__ == "__main__":` blocks."""

from __future__ import annotations

import pytest

from dids.agent.reach import offpath_place

from .repos import modelled


@pytest.mark.parametrize("path,off", [
    ("scripts/release.py", True), ("pkg/scripts/gen.py", True), ("benchmarks/run.py", True),
    ("evals/score.py", True), (".github/actions/x.py", True), ("migrations/0001_init.py", True),
    ("enterprise/sso.py", True), ("pkg/legacy/agent.py", True), ("pkg/deprecated/x.py", True),
    ("tools/release/bump.py", True), ("setup.py", True), ("noxfile.py", True),
    ("pkg/build_index.py", True), ("pkg/run_evaluation.py", True), ("conftest.py", True),
    ("helper.py", True),  # a loose top-level script
    ("pkg/agent.py", False), ("src/pkg/tools/shell.py", False), ("main.py", False),
    ("app.py", False), ("cli.py", False), ("pkg/tools/search.py", False),
    ("pkg/sandbox/docker.py", False), ("pkg/oldest.py", False),
])
def test_offpath_place(path, off):
    assert offpath_place(path) is off


RUNTIME = '''from pkg.runtimes import RUNTIMES


class Agent:
    def __init__(self, runtime: str = "docker"):
        self.runtime = runtime

    def start(self):
        return RUNTIMES[self.runtime]()
'''

RUNTIMES = '''import subprocess


class DockerRuntime:
    def __init__(self):
        subprocess.run(["docker", "run", "-d", "img"])


class LocalRuntime:
    def __init__(self):
        subprocess.run(["bash"])


RUNTIMES = {"docker": DockerRuntime, "local": LocalRuntime}
'''

MAIN = '''from pkg.agent import Agent


def helper_for_users():
    return 1


if __name__ == "__main__":
    Agent().start()
'''

FILES = {
    "pyproject.toml": '[project]\nname = "pkg"\n\n[project.scripts]\npkg = "pkg.cli:main"\n',
    "pkg/__init__.py": "", "pkg/agent.py": RUNTIME, "pkg/runtimes.py": RUNTIMES,
    "pkg/cli.py": "from pkg.agent import Agent\n\n\ndef main():\n    Agent().start()\n",
    "pkg/extras.py": MAIN,
    "pkg/unused.py": "import os\n\n\ndef public_api(cmd):\n    os.system(cmd)\n",
}


@pytest.fixture(scope="module")
def m(tmp_path_factory):
    return modelled(tmp_path_factory, FILES)


def test_backend_registry_keyed_by_a_constructor_setting(m):
    assert m.reach("pkg/runtimes.py", '"docker", "run"') == "default"
    assert m.reach("pkg/runtimes.py", '["bash"]') == "opt-in:RUNTIMES"
    g = m.model.reach.opt_guard["pkg/runtimes.py::LocalRuntime"]
    assert g.condition == "RUNTIMES selects 'local' (default 'docker')"


def test_unreached_package_code_is_library_and_script_blocks_off_path(m):
    assert m.reach("pkg/unused.py", "os.system") == "library"
    # pkg/extras.py is imported by nothing: its __main__ block runs only as a program
    assert m.reach("pkg/extras.py", "Agent().start()") == "off-path"
    # the whole module is another entry point (a script): its functions are off the path too
    assert m.reach("pkg/extras.py", "return 1") == "off-path"
    assert ("main-module", "pkg/extras.py") in [(e.kind, e.path) for e in m.model.entries.others]
