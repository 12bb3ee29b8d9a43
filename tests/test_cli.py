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
    out = cli("score", str(sample_repo), "--repo-url", "https://example.invalid/sample-agent",
              "--reviewed", "2026-01-02").stdout
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


# --- conventions: --version, -h, -q/-v/--debug, -o -, format from the -o name ---------------

def _run_in(cwd, *args, env=None):
    """The CLI in CWD (run_cli works in the project root: an `-o -` bug would write there)."""
    import os
    import subprocess
    import sys

    return subprocess.run([sys.executable, "-m", "dids.cli", *args], capture_output=True,
                          text=True, cwd=cwd, env={**os.environ, **(env or {})})


def test_version_and_short_help(cli):
    from dids import __version__

    assert cli("--version").stdout == f"dids {__version__}\n"
    assert "Usage: dids" in cli("-h").stdout
    score_help = cli("score", "-h").stdout
    assert "md|json|sarif" in score_help  # the choices are listed
    assert "-q" in score_help and "--verbose" in score_help and "--debug" in score_help
    no_cache = next(line for line in score_help.splitlines() if "--no-cache" in line)
    assert "<bool>" not in no_cache


def test_python_dash_m_dids_is_the_cli():
    import subprocess
    import sys

    from dids import __version__

    proc = subprocess.run([sys.executable, "-m", "dids", "--version"], capture_output=True, text=True)
    assert (proc.returncode, proc.stdout) == (0, f"dids {__version__}\n")


def test_no_arguments_prints_help_and_no_empty_error(cli):
    proc = cli(check_rc=2)
    assert "Usage: dids" in proc.stdout and "usage error" not in proc.stderr


def test_output_dash_is_stdout(sample_repo, tmp_path):
    proc = _run_in(tmp_path, "score", str(sample_repo), "-o", "-", "--format", "json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["schema"] == "dids.report/1"
    assert not (tmp_path / "-").exists() and proc.stderr == ""


def test_format_follows_the_output_name(sample_repo, tmp_path):
    for name, check in (("card.sarif", lambda t: json.loads(t)["version"] == "2.1.0"),
                        ("card.json", lambda t: json.loads(t)["schema"] == "dids.report/1"),
                        ("card.md", lambda t: t.startswith("# Defense-in-Depth Score:"))):
        proc = _run_in(tmp_path, "score", str(sample_repo), "-o", name)
        assert proc.returncode == 0, proc.stderr
        assert check((tmp_path / name).read_text()), name
        assert f"written to {name}" in proc.stderr
    proc = _run_in(tmp_path, "score", str(sample_repo), "-o", "x.sarif", "--format", "md")
    assert proc.returncode == 2 and "names a sarif file but --format is md" in proc.stderr
    assert not (tmp_path / "x.sarif").exists()
    proc = _run_in(tmp_path, "gate", str(sample_repo), "-o", "g.sarif")
    assert proc.returncode == 2 and "--sarif FILE" in proc.stderr


def test_quiet_and_verbose(sample_repo, tmp_path):
    quiet = _run_in(tmp_path, "score", str(sample_repo), "-q", "-o", "c.md")
    assert quiet.returncode == 0 and quiet.stderr == ""
    loud = _run_in(tmp_path, "score", str(sample_repo), "-v", "--no-cache", "--format", "json")
    assert loud.returncode == 0, loud.stderr
    for stage in ("index and parse done in", "probes and assessors done in", "finished in"):
        assert stage in loud.stderr, loud.stderr
    assert json.loads(loud.stdout)["schema"] == "dids.report/1"  # stdout stays the report


def test_debug_shows_the_traceback_of_an_internal_error(sample_repo):
    import subprocess
    import sys

    from dids import HOMEPAGE

    code = ("import sys, dids.engine as engine\n"
            "def boom(*a, **k):\n    raise RuntimeError('boom')\n"
            "engine.score_target = boom\n"
            "from dids.cli import main\n"
            "sys.argv = ['dids', 'score', sys.argv[1], *sys.argv[2:]]\nmain()\n")
    plain = subprocess.run([sys.executable, "-c", code, str(sample_repo)], capture_output=True,
                           text=True)
    assert plain.returncode == 3 and "Traceback" not in plain.stderr
    assert f"{HOMEPAGE}/issues" in plain.stderr and "--debug" in plain.stderr
    debug = subprocess.run([sys.executable, "-c", code, str(sample_repo), "--debug"],
                           capture_output=True, text=True)
    assert debug.returncode == 3
    assert "Traceback (most recent call last)" in debug.stderr and "RuntimeError: boom" in debug.stderr
    assert debug.stderr.rstrip().splitlines()[-1].startswith("dids: internal error:")


def test_explain_prints_the_trail_of_one_criterion(cli, sample_repo):
    text = cli("explain", "c4", str(sample_repo)).stdout
    assert text.startswith("C4 ")
    assert "Configuration " in text and "S (strength) = L" in text and "B (blast radius) = L" in text
    # the decisive citation of each level comes first, with its location, kind and placement
    first = re.search(r"  S \(strength\).*?\n(?:      next level.*\n)?    1\. decisive \[(\w+)\] (\S+):", text)
    assert first and first.group(1) in ("verified", "inferred", "search")
    assert first.group(2).startswith("agent/tools.py")
    assert "reach " in text
    # a compose file is not parsed source: no reach is claimed for it
    compose = text.split("docker-compose.yml:5", 1)[1].split("\n", 2)[1]
    assert "reach" not in compose
    data = json.loads(cli("explain", "4", str(sample_repo), "--format", "json").stdout)
    assert data["criterion"] == "C4"
    assert [d["dimension"] for d in data["configurations"][0]["dimensions"]] == ["S", "C", "D", "B"]
    counted = [c for c in data["configurations"] if c["counted"]]
    assert len(counted) == 1
    # the trail explains the levels the report counts, not some other configuration's
    report = json.loads(cli("score", str(sample_repo), "--format", "json", "--no-cache").stdout)
    c4 = report["criteria"][3]
    assert {d["dimension"]: d["level"] for d in counted[0]["dimensions"]} == c4["levels"]


def test_explain_refuses_an_unknown_criterion_before_cloning(cli, tmp_path):
    proc = cli("explain", "C11", str(tmp_path / "nowhere"), check_rc=2)
    assert "unknown criterion" in proc.stderr
