"""`dids diff` and the re-audit log on a scripted history built at test time."""

from __future__ import annotations

import json
import re
import subprocess

import pytest

from dids.acquire import acquire
from dids.diff import LineMapper

TOOL_SHELL = ("import os\nimport subprocess\n\n\n"
              "def run(cmd):\n    return subprocess.run(cmd, shell=True, env=os.environ.copy())\n")
TOOL_BWRAP = ("import os\nimport subprocess\n\n\n"
              "def run(cmd):\n"
              "    argv = ['bwrap', '--unshare-net', '--ro-bind', '/', '/', '--', 'sh', '-c', cmd]\n"
              "    return subprocess.run(argv, env={'PATH': '/usr/bin'})\n")
MASK = ("import re\n\n\n"
        "def mask_secrets(text):\n    return re.sub(r'sk-[A-Za-z0-9]+', '***', text)\n")


def logger(name: str, masked: bool = True) -> str:
    call = "mask_secrets(msg)" if masked else "msg"
    return ("import logging\n\nfrom agent.redact import mask_secrets\n\n"
            "log = logging.getLogger(__name__)\n\n\n"
            f"def {name}(msg):\n    log.info({call})\n")


def main_py(b_module: str = "b") -> str:
    """Callers, so that no helper above is dead code."""
    return (f"from agent.a import report_a\nfrom agent.{b_module} import report_b\n"
            "from agent.c import report_c\nfrom agent.tool import run\n\n\n"
            "def main(msg):\n    report_a(msg)\n    report_b(msg)\n    report_c(msg)\n"
            "    return run(msg)\n")


@pytest.fixture
def history(repo):
    """base → sandbox (C4 rises) → move (code only shifts) → rename → unmask (C8 falls)."""
    c = {}
    c["base"] = repo.commit({"agent/redact.py": MASK, "agent/tool.py": TOOL_SHELL,
                             "agent/a.py": logger("report_a"), "agent/b.py": logger("report_b"),
                             "agent/c.py": logger("report_c"), "agent/main.py": main_py()},
                            "base")
    c["sandbox"] = repo.commit({"agent/tool.py": TOOL_BWRAP}, "add a bubblewrap sandbox")
    c["move"] = repo.commit({
        "agent/tool.py": TOOL_BWRAP.replace("def run", "def helper():\n    return 1\n\n\ndef run"),
        "agent/a.py": "\n\n\n" + logger("report_a")}, "move code down")
    subprocess.run(["git", "mv", "agent/b.py", "agent/beta.py"], cwd=repo.path, check=True,
                   capture_output=True)
    c["rename"] = repo.commit({"agent/main.py": main_py("beta")}, "rename b.py")
    c["unmask"] = repo.commit({"agent/a.py": "\n\n\n" + logger("report_a", masked=False),
                               "agent/beta.py": logger("report_b", masked=False),
                               "agent/c.py": logger("report_c", masked=False)}, "drop masking")
    repo.c = c
    return repo


def diff_json(cli, repo, a: str, b: str) -> dict:
    data = json.loads(cli("diff", str(repo.path), "--from", repo.c[a], "--to", repo.c[b],
                          "--format", "json").stdout)
    assert data["schema"] == "dids.diff/1"
    assert data["from"]["commit"] == repo.c[a] and data["to"]["commit"] == repo.c[b]
    assert data["score_delta"] == round(data["to"]["score"] - data["from"]["score"], 1)
    for ch in data["changes"]:
        assert {"criterion", "dimension", "from", "to", "added_evidence",
                "removed_evidence"} <= set(ch)
        assert ch["from"] != ch["to"]
    return data


def diff_md(cli, repo, a: str, b: str) -> str:
    return cli("diff", str(repo.path), "--from", repo.c[a], "--to", repo.c[b]).stdout


def change(data: dict, criterion: str, dim: str) -> dict:
    found = [c for c in data["changes"] if (c["criterion"], c["dimension"]) == (criterion, dim)]
    assert len(found) == 1, data["changes"]
    return found[0]


def where(items: list[dict]) -> set[tuple]:
    return {(e["probe"], e["path"], e["start_line"]) for e in items}


def test_sandbox_commit_raises_c4(cli, history):
    data = diff_json(cli, history, "base", "sandbox")
    s = change(data, "C4", "S")
    assert (s["from"], s["to"]) == (0, 3)
    assert ("exec.wrapper", "agent/tool.py", 6) in where(s["added_evidence"])
    assert ("exec.spawn", "agent/tool.py", 6) in where(s["removed_evidence"])
    assert all(e["path"] != "agent/tool.py" or e["start_line"] == 6
               for e in s["removed_evidence"])
    b = change(data, "C4", "B")
    assert b["from"] == 0 and b["to"] >= 1
    assert data["score_delta"] > 0
    md = diff_md(cli, history, "base", "sandbox")
    assert "### C4 S L0 → L3 (rises)" in md
    assert "| C4 | Code-execution isolation | S | L0 | L3 |" in md
    assert "**Added:** `agent/tool.py:6` — Isolation wrapper bwrap is named in live code here" in md
    assert "**Removed:** `agent/tool.py:6`" in md


def test_move_only_commit_reports_nothing(cli, history):
    data = diff_json(cli, history, "sandbox", "move")
    assert data["changes"] == [] and data["score_delta"] == 0
    md = diff_md(cli, history, "sandbox", "move")
    assert "No criterion or dimension changed level between these commits." in md
    assert "**Added:**" not in md and "**Removed:**" not in md


def test_rename_only_commit_reports_nothing(cli, history):
    data = diff_json(cli, history, "move", "rename")
    assert data["changes"] == [] and data["score_delta"] == 0
    assert data["renames"] == [{"from": "agent/b.py", "to": "agent/beta.py"}]
    md = diff_md(cli, history, "move", "rename")
    assert "No criterion or dimension changed level" in md
    assert "- agent/b.py → agent/beta.py" in md


def test_removed_redaction_lowers_c8(cli, history):
    data = diff_json(cli, history, "rename", "unmask")
    s = change(data, "C8", "S")
    # what is left is the bwrap sandbox started with a built environment: the agent's keys are
    # out of the command's reach, the one lesser protection (L1)
    assert s["from"] >= 2 and s["to"] == 1
    c = change(data, "C8", "C")
    assert c["to"] == 1
    # removed evidence is cited where it was, in the FROM commit (context one dimension shows
    # is not repeated by the next, so the two dimensions together hold it)
    assert where(c["removed_evidence"]) | where(s["removed_evidence"]) >= {("secrets.masking", "agent/a.py", 12),
                                            ("secrets.masking", "agent/beta.py", 9),
                                            ("secrets.masking", "agent/c.py", 9),
                                            # the masking function itself, now called nowhere
                                            ("secrets.replacement", "agent/redact.py", 4)}
    # the decisive one first: the sandbox that keeps the keys out
    assert [(e["kind"], e["path"]) for e in c["added_evidence"]][:1] == [("verified", "agent/tool.py")]
    assert not any(ch["criterion"] == "C4" for ch in data["changes"])
    assert data["score_delta"] < 0
    md = diff_md(cli, history, "rename", "unmask")
    assert re.search(r"### C8 S L\d → L1 \(falls\)", md)
    assert "**Removed:** `agent/beta.py:9` — mask_secrets(...) masks values in report_b." in md


def test_moved_and_renamed_evidence_is_not_a_change(cli, history):
    """Across base..rename C8 coverage rises (the leaky spawn went); the masking calls that moved
    down (a.py) or to a renamed file (b.py → beta.py) are the same evidence."""
    data = diff_json(cli, history, "base", "rename")
    c = change(data, "C8", "C")
    assert c["to"] > c["from"]
    for e in c["added_evidence"] + c["removed_evidence"]:
        assert e["probe"] != "secrets.masking", e
    assert ("exec.spawn", "agent/tool.py", 6) in where(c["removed_evidence"])
    md = diff_md(cli, history, "base", "rename")
    assert "**Unchanged (moved):** `agent/a.py:9` → `agent/a.py:12`; `agent/b.py:9` → " \
           "`agent/beta.py:9`" in md


def test_line_mapper(history):
    snap = acquire(str(history.path))
    m = LineMapper(snap.git_dir, history.c["base"], history.c["rename"])
    assert m.map("agent/a.py", 9, 9) == ("agent/a.py", 12, 12)  # three lines inserted above
    assert m.map("agent/b.py", 9, 9) == ("agent/beta.py", 9, 9)  # renamed
    assert m.map("agent/c.py", 9, 9) == ("agent/c.py", 9, 9)  # untouched
    assert m.map("agent/tool.py", 6, 6) is None  # the spawn itself changed
    assert m.map("agent/tool.py", 1, 2) == ("agent/tool.py", 1, 2)  # imports above it did not
    m2 = LineMapper(snap.git_dir, history.c["sandbox"], history.c["move"])
    assert m2.map("agent/tool.py", 7, 7) == ("agent/tool.py", 11, 11)
    assert m2.map("agent/tool.py", 2, 6) is None  # lines inserted inside the span


def _reaudit(card: str) -> list[str]:
    part = card.split("## Re-audit log\n", 1)[1].split("\n## ", 1)[0]
    return [line for line in part.splitlines() if line.startswith("- ")]


def test_reaudit_log_from_previous_report(cli, history, tmp_path):
    prev = tmp_path / "prev.json"
    prev.write_text(cli("score", str(history.path), "--commit", history.c["base"],
                        "--format", "json").stdout)
    old = json.loads(prev.read_text())
    card = cli("score", str(history.path), "--commit", history.c["sandbox"], "--previous",
               str(prev), "--no-cache", "--reviewed", "2026-02-03").stdout
    (entry,) = _reaudit(card)
    assert entry.startswith(f"- 2026-02-03 vs {history.c['base'][:7]} (score {old['score']:.1f} → ")
    assert "C4 S L0→L3" in entry and "C8" in entry


FIRST_AUDIT = ("- First audit: no earlier report of this repository was given "
               "(`--previous REPORT.json` compares with one).")


def test_card_does_not_depend_on_the_cache(cli, history, tmp_path, monkeypatch):
    """Earlier commits in the local cache never enter the card: two machines, one commit, one
    card. A card with no --previous says it is a first audit (not "No changes.")."""
    cli("score", str(history.path), "--commit", history.c["base"])
    cli("score", str(history.path), "--commit", history.c["rename"])  # cached, an ancestor
    warm = cli("score", str(history.path), "--reviewed", "2026-02-03").stdout
    monkeypatch.setenv("DIDS_CACHE_DIR", str(tmp_path / "another-machine"))
    cold = cli("score", str(history.path), "--reviewed", "2026-02-03").stdout
    assert warm == cold
    assert _reaudit(warm) == [FIRST_AUDIT]
    assert _reaudit(cli("score", str(history.path), "--no-cache").stdout) == [FIRST_AUDIT]


def test_reaudit_no_level_change(cli, history, tmp_path):
    prev = tmp_path / "prev.json"
    prev.write_text(cli("score", str(history.path), "--commit", history.c["move"],
                        "--format", "json").stdout)
    card = cli("score", str(history.path), "--commit", history.c["rename"], "--previous",
               str(prev)).stdout
    assert _reaudit(card)[0].endswith("no level changed.")


def test_bad_previous_and_bad_rev(cli, history, tmp_path):
    bad = tmp_path / "x.json"
    bad.write_text("{}")
    proc = cli("score", str(history.path), "--previous", str(bad), check_rc=2)
    assert "not a dids report" in proc.stderr and "Traceback" not in proc.stderr
    proc = cli("diff", str(history.path), "--from", "nope", "--to", "HEAD", check_rc=2)
    assert "unknown commit" in proc.stderr
    proc = cli("diff", str(history.path), "--to", "HEAD", check_rc=2)
    assert "--from" in proc.stderr
