"""End-to-end: the real CLI on fixture repositories made at test time."""

from __future__ import annotations

import json
import re
from pathlib import Path

SNAPSHOT = Path(__file__).parent / "snapshots" / "sample-agent.md"
REQUIRED_CRITERION = {"id", "title", "levels", "raw", "cap", "score", "counted", "confidence",
                      "configurations", "evidence"}
SURFACE_KEYS = {"code_execution", "filesystem_write", "network_egress", "external_credentials",
                "persistent_memory", "untrusted_input", "third_party_extensions", "sub_agents",
                "external_communication"}


def test_json_contract(cli, sample_repo):
    out = cli("score", f"file://{sample_repo}", "--format", "json").stdout
    data = json.loads(out)
    assert data["schema"] == "dids.report/1"
    assert data["repo"]["url"] == f"file://{sample_repo}"
    assert re.fullmatch(r"[0-9a-f]{40}", data["repo"]["commit"])
    assert isinstance(data["score"], float) and data["band"] == "Minimal"
    assert [c["id"] for c in data["criteria"]] == [f"C{i}" for i in range(1, 11)]
    for c in data["criteria"]:
        assert REQUIRED_CRITERION <= set(c), c["id"]
        assert c["confidence"] in ("High", "Medium", "Low")
        for cfg in c["configurations"]:
            assert {"name", "opt_in", "levels", "raw", "cap"} <= set(cfg)
        for e in c["evidence"]:
            assert {"dimension", "configuration", "path", "start_line", "end_line", "kind",
                    "claim"} <= set(e)
            assert e["kind"] in ("verified", "inferred", "search")
    assert set(data["surface"]) == SURFACE_KEYS
    c4 = data["criteria"][3]
    assert c4["levels"] and c4["counted"] in ("default", "alt")
    assert data["tools"] is not None


def test_markdown_card_matches_snapshot(cli, sample_repo):
    out = cli("score", str(sample_repo), "--repo-url", "https://example.invalid/sample-agent").stdout
    if not SNAPSHOT.exists():  # first run writes it; the committed file is the reference
        SNAPSHOT.parent.mkdir(exist_ok=True)
        SNAPSHOT.write_text(out)
    assert out == SNAPSHOT.read_text()


def test_card_has_every_section(cli, sample_repo):
    out = cli("score", str(sample_repo)).stdout
    for marker in ("# Defense-in-Depth Score:", "**Repo:**", "**Commit:**", "**Reviewed:**",
                   "**What it is:**", "**Category:**", "**Scored configuration:**",
                   "**Agent surface (default):**", "## Score:", "| # | Criterion | S | C | D | B |",
                   "## Critical gaps", "## Criterion details", "## Rule-of-Two check",
                   "## Highest-impact improvements", "## Re-audit log", "## Limitations",
                   "*To reach the next level:*", "← counted"):
        assert marker in out, marker
    for i in range(1, 11):
        assert f"\n### C{i} " in out


def test_commit_option_scores_older_code(cli, repo):
    weak = repo.commit({"agent/tool.py": "import subprocess, os\n\n"
                        "def run(cmd):\n    return subprocess.run(cmd, shell=True, env=os.environ)\n"})
    repo.commit({"agent/tool.py": "import subprocess\n\n"
                 "def run(cmd):\n    return subprocess.run(['bwrap', '--unshare-net', '--ro-bind', "
                 "'/', '/', '--', 'sh', '-c', cmd], env={'PATH': '/usr/bin'})\n"})
    head = json.loads(cli("score", str(repo.path), "--format", "json").stdout)
    old = json.loads(cli("score", str(repo.path), "--commit", weak, "--format", "json").stdout)
    assert old["repo"]["commit"] == weak != head["repo"]["commit"]
    assert old["criteria"][3]["levels"]["S"] == 0
    assert head["criteria"][3]["levels"]["S"] == 3
    assert head["criteria"][3]["score"] > old["criteria"][3]["score"]


def _one_line_error(proc):
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, proc.stderr
    return lines[0]


def test_not_a_repo(cli, tmp_path):
    assert "not a git repository" in _one_line_error(cli("score", str(tmp_path), check_rc=None))


def test_missing_path(cli, tmp_path):
    assert "no such" in _one_line_error(cli("score", str(tmp_path / "nope"), check_rc=None))


def test_unknown_commit(cli, sample_repo):
    msg = _one_line_error(cli("score", str(sample_repo), "--commit", "deadbeef", check_rc=None))
    assert "unknown commit" in msg


def test_unreachable_url(cli):
    msg = _one_line_error(cli("score", "https://127.0.0.1:9/none.git", check_rc=None))
    assert msg.startswith("dids: error:")


def test_empty_repo(cli, repo):
    assert "no commits" in _one_line_error(cli("score", str(repo.path), check_rc=None))


def test_unknown_format(cli, sample_repo):
    _one_line_error(cli("score", str(sample_repo), "--format", "xml", check_rc=None))
