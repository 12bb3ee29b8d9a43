#!/usr/bin/env python3
"""Turn a fixture directory into a git repository with one deterministic commit.

usage: make_fixture_repo.py SRC_DIR DEST_DIR
Fixtures are kept as plain files in the project; this gives them the git history dids reads.
"""

import os
import shutil
import subprocess
import sys
from pathlib import Path

ENV = {
    **os.environ,
    "GIT_AUTHOR_NAME": "dids fixtures", "GIT_AUTHOR_EMAIL": "fixtures@example.invalid",
    "GIT_COMMITTER_NAME": "dids fixtures", "GIT_COMMITTER_EMAIL": "fixtures@example.invalid",
    "GIT_AUTHOR_DATE": "2026-01-01T00:00:00Z", "GIT_COMMITTER_DATE": "2026-01-01T00:00:00Z",
    "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull,
}


def git(dest: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "init.defaultBranch=main", "-c", "core.hooksPath=/dev/null",
                    *args], cwd=dest, env=ENV, check=True, capture_output=True)


def make(src: Path, dest: Path, message: str = "fixture") -> None:
    if dest.exists():
        shutil.rmtree(dest)
    shutil.copytree(src, dest)
    git(dest, "init", "-q")
    git(dest, "add", "-A")
    git(dest, "commit", "-q", "-m", message)


if __name__ == "__main__":
    make(Path(sys.argv[1]), Path(sys.argv[2]))
