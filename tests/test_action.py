"""The GitHub Action's gate step, run as the runner would run it (bash, RUNNER_TEMP,
GITHUB_OUTPUT, GITHUB_STEP_SUMMARY), with dids from this checkout."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
PLAIN = ("import os\nimport subprocess\n\n\ndef run(cmd):\n"
         "    return subprocess.run(cmd, shell=True, env=os.environ.copy())\n")


def _gate_step() -> str:
    action = yaml.safe_load((ROOT / "action.yml").read_text())
    (step,) = [s for s in action["runs"]["steps"] if s.get("id") == "gate"]
    return step["run"]


def _exe(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)


@pytest.fixture
def runner(tmp_path):
    """RUNNER_TEMP with a `dids` that is this checkout's CLI, and a `python` on PATH."""
    temp = tmp_path / "runner"
    _exe(temp / "dids-venv" / "bin" / "dids",
         f'#!/bin/sh\nexec "{sys.executable}" -m dids.cli "$@"\n')
    bindir = tmp_path / "bin"
    bindir.mkdir()
    (bindir / "python").symlink_to(sys.executable)

    def run(target: Path, sarif: Path, **inputs: str) -> tuple[int, dict, str]:
        out, summary = tmp_path / "github_output", tmp_path / "summary.md"
        env = {**os.environ, "RUNNER_TEMP": str(temp), "GITHUB_OUTPUT": str(out),
               "GITHUB_STEP_SUMMARY": str(summary), "PATH": f"{bindir}:{os.environ['PATH']}",
               "DIDS_TARGET": str(target), "DIDS_SARIF": str(sarif), "DIDS_MIN_SCORE": "",
               "DIDS_BASELINE": "", "DIDS_NO_REGRESS": "false", "DIDS_BASE": "",
               **{f"DIDS_{k.upper()}": v for k, v in inputs.items()}}
        proc = subprocess.run(["bash", "-e", "-c", _gate_step()], env=env, capture_output=True,
                              text=True, cwd=tmp_path)
        outputs = dict(line.split("=", 1) for line in out.read_text().splitlines())
        return proc.returncode, outputs, summary.read_text()

    run.temp = temp
    return run


def test_gate_error_reaches_the_summary_and_sarif(runner, repo, tmp_path):
    repo.commit({"agent/tool.py": PLAIN, ".dids.toml": "min_scor = 2\n"})
    sarif = tmp_path / "dids.sarif"
    rc, outputs, summary = runner(repo.path, sarif)
    assert rc == 2 and outputs["passed"] == "false" and outputs["exit-code"] == "2"
    assert "stderr:" in summary and "min_scor: unknown key" in summary
    log = json.loads(sarif.read_text())
    assert log["runs"][0]["invocations"][0]["executionSuccessful"] is False


def test_broken_install_still_leaves_a_sarif_file(runner, repo, tmp_path):
    repo.commit({"agent/tool.py": PLAIN})
    _exe(runner.temp / "dids-venv" / "bin" / "dids",
         "#!/bin/sh\necho 'dids: internal error: ImportError: no module named x' >&2\nexit 3\n")
    sarif = tmp_path / "dids.sarif"
    rc, outputs, summary = runner(repo.path, sarif)
    assert rc == 3 and outputs["exit-code"] == "3"
    log = json.loads(sarif.read_text())
    note = log["runs"][0]["invocations"][0]["toolExecutionNotifications"][0]["message"]["text"]
    assert "ImportError" in note and log["runs"][0]["results"] == []
    assert "ImportError" in summary


def test_passing_gate_summary(runner, repo, tmp_path):
    repo.commit({"agent/tool.py": PLAIN})
    sarif = tmp_path / "dids.sarif"
    rc, outputs, summary = runner(repo.path, sarif, min_score="0.1")
    assert rc == 0 and outputs["passed"] == "true"
    assert "### dids gate (exit 0)" in summary and "dids gate: PASSED" in summary
    assert json.loads(sarif.read_text())["runs"][0]["results"]
