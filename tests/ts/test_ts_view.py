"""The TypeScript view of a mixed repository holds the TypeScript facts only, including what the
Python index had already built and kept (call groups, the flat call list)."""

from __future__ import annotations

import pytest

from dids.acquire import acquire
from dids.agent.ts_view import ts_view
from dids.index.repo import build_index


def test_view_calls_are_the_typescript_ones_even_after_python_asked(tmp_path_factory):
    from conftest import RepoBuilder

    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("DIDS_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "dids-cache"))
        repo = RepoBuilder(tmp_path_factory.mktemp("mixed") / "repo")
        repo.commit({"pyproject.toml": '[project]\nname = "mixed"\n',
                     "mixed/__init__.py": "", "mixed/run.py": "import os\n\nos.system('ls')\n",
                     "package.json": '{"name": "mixed", "main": "src/index.ts"}\n',
                     "src/index.ts": "import { exec } from 'child_process';\n\nexec('ls');\n"})
        index = build_index(acquire(str(repo.path)))
    assert {f.path for f, _c in index.all_calls()} == {"mixed/run.py"}  # the Python list is built
    view = ts_view(index)
    assert {f.path for f, _c in view.all_calls()} == {"src/index.ts"}
    assert [c.short for _f, c in view.calls_named({"exec"})] == ["exec"]
