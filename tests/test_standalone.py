"""The project stands alone: a clone with nothing beside it runs the suite (no `../shared`)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# a path into a sibling of the checkout, however it is spelled
_OUTSIDE = re.compile(r"\.\./shared|[\"']shared[\"']|parents\[2\]")


def _project_files() -> list[str]:
    out = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=ROOT,
                         capture_output=True, check=True).stdout
    return [p for p in out.decode().split("\0") if p and (ROOT / p).is_file()]


def test_no_test_reads_outside_the_project():
    offenders = []
    for rel in _project_files():
        if rel.startswith(("tests/", "scripts/")) and rel.endswith(".py") \
                and rel != "tests/test_standalone.py":
            for n, line in enumerate((ROOT / rel).read_text().splitlines(), 1):
                if _OUTSIDE.search(line):
                    offenders.append(f"{rel}:{n}: {line.strip()}")
    assert offenders == []


def test_scorer_tables_pass_in_a_lone_copy(tmp_path):
    """The scorer tests, run from a copy of the project in an empty directory."""
    clone = tmp_path / "alone" / "dids"
    for rel in _project_files():
        dest = clone / rel
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / rel, dest)
    env = {**os.environ, "PYTHONPATH": str(clone / "src")}
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           "tests/test_scoring.py"], cwd=clone, env=env, capture_output=True,
                          text=True)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    assert not (tmp_path / "alone" / "shared").exists()
