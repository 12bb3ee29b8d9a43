"""Shared test helpers: fixture git repos made at test time, and the real CLI."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))

from make_fixture_repo import ENV, git, make  # noqa: E402


@pytest.fixture(autouse=True)
def _cache(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("DIDS_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "dids-cache"))


class RepoBuilder:
    """A git repository built commit by commit from dicts of file contents."""

    def __init__(self, path: Path):
        self.path = path
        path.mkdir(parents=True, exist_ok=True)
        git(path, "init", "-q")

    def commit(self, files: dict[str, str | None], message: str = "change") -> str:
        for rel, text in files.items():
            p = self.path / rel
            if text is None:
                p.unlink()
                continue
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(text)
        git(self.path, "add", "-A")
        git(self.path, "commit", "-q", "--allow-empty", "-m", message)
        return subprocess.run(["git", "rev-parse", "HEAD"], cwd=self.path, env=ENV,
                              capture_output=True, text=True, check=True).stdout.strip()


@pytest.fixture
def repo(tmp_path):
    return RepoBuilder(tmp_path / "repo")


@pytest.fixture
def sample_repo(tmp_path):
    dest = tmp_path / "sample-agent"
    make(ROOT / "fixtures" / "sample-agent", dest)
    return dest


def run_cli(*args: str, check_rc: int | None = 0) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run([sys.executable, "-m", "dids.cli", *args], capture_output=True,
                          text=True, env={**os.environ}, cwd=ROOT)
    if check_rc is not None:
        assert proc.returncode == check_rc, proc.stderr
    return proc


@pytest.fixture
def cli():
    return run_cli
