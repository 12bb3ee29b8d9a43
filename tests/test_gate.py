"""`dids gate`: thresholds, baselines, waivers, suppression comments and configuration errors,
end to end through the real CLI on repositories built at test time."""

from __future__ import annotations

import json
import re

import pytest

from dids.gate.gaps import gap_instances, multiset_diff, normalize

SANDBOXED = ("import subprocess\n\n\n"
             "def run(cmd):\n"
             "    return subprocess.run(['bwrap', '--unshare-net', '--ro-bind', '/', '/', '--', "
             "'sh', '-c', cmd], env={'PATH': '/usr/bin'})\n")
PLAIN = ("import os\n"
         "import subprocess\n\n\n"
         "def run(cmd):\n"
         "    return subprocess.run(cmd, shell=True, env=os.environ.copy())\n")  # spawn: line 6

WAIVER = """
[[waivers]]
criterion = "C4"
dimension = "B"
reason = "accepted-risk"
justification = "The CI runner VM holds no credentials."
owner = "@alice"
expires = {expires}
"""


def _gate(cli, repo, *args, rc):
    proc = cli("gate", str(repo.path), *args, check_rc=None)
    assert proc.returncode == rc, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr
    return proc.stdout


def _one_line(proc) -> str:
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr
    lines = [x for x in proc.stderr.splitlines() if x.strip()]
    assert len(lines) == 1, proc.stderr
    return lines[0]


def test_passing_gate(cli, repo):
    repo.commit({"agent/tool.py": SANDBOXED,
                 ".dids.toml": "min_score = 0.5\nmin_criteria = { C4 = 0.5 }\n"})
    out = _gate(cli, repo, rc=0)
    assert out.startswith("dids gate: PASSED")
    assert "Configuration: .dids.toml at the gated commit" in out
    assert "All checks passed." in out


def test_failing_threshold(cli, repo):
    repo.commit({"agent/tool.py": PLAIN})
    out = _gate(cli, repo, "--min-score", "9.5", rc=1)
    assert out.startswith("dids gate: FAILED (1 check failed)")
    assert "FAIL   score " in out and "is under the minimum 9.5" in out
    data = json.loads(_gate(cli, repo, "--min-score", "9.5", "--format", "json", rc=1))
    assert data["schema"] == "dids.gate/1" and data["passed"] is False
    assert [c["check"] for c in data["checks"]] == ["min_score"]


def test_failing_per_criterion_minimum(cli, repo):
    repo.commit({"agent/tool.py": PLAIN, ".dids.toml": "min_criteria = { C4 = 0.5 }\n"})
    out = _gate(cli, repo, rc=1)
    assert "FAIL   C4 Code-execution isolation scores 0.00, under its minimum 0.50 " \
           "(S L0 C L0 D L0 B L0)" in out
    assert "C4 S L0: exec.spawn `agent/tool.py:6`" in out


def test_regression_against_baseline(cli, repo, tmp_path):
    good = repo.commit({"agent/tool.py": SANDBOXED})
    base = tmp_path / "base.json"
    cli("score", str(repo.path), "--format", "json", "-o", str(base))
    assert _gate(cli, repo, "--baseline", str(base), rc=0).startswith("dids gate: PASSED")

    head = repo.commit({"agent/tool.py": PLAIN}, "drop the sandbox")
    out = _gate(cli, repo, "--baseline", str(base), rc=1)
    assert f"Baseline: {base} (commit {good[:12]}" in out
    assert "FAIL   C4 S fell from L3 to L0 (Code-execution isolation; criterion score 0.70 → " \
           "0.00) against the baseline" in out
    assert "FAIL   C4 B fell from L2 to L0" in out
    # each cited line says which commit it belongs to
    assert f"removed (lines of baseline {good[:12]}): exec.wrapper `agent/tool.py:5` Isolation " \
           "wrapper bwrap is named in live code here" in out
    assert f"added (lines of {head[:12]}): exec.spawn `agent/tool.py:6` subprocess.run(...) in " \
           "run with a shell passes a full copy of the parent environment." in out
    assert "+ C4 exec.spawn `agent/tool.py:6`" in out  # new gap evidence, Semgrep-style match
    assert re.search(rf"New gap evidence since the baseline: [1-9]\d* \(lines of {head[:12]}\)", out)

    data = json.loads(_gate(cli, repo, "--baseline", str(base), "--format", "json", rc=1))
    c4s = next(c for c in data["checks"] if (c["criterion"], c["dimension"]) == ("C4", "S"))
    assert (c4s["check"], c4s["status"], c4s["from"], c4s["to"]) == ("regression", "fail", 3, 0)
    assert c4s["removed_evidence"][0]["probe"] == "exec.wrapper"

    # --no-regress without a file compares with the parent commit
    out = _gate(cli, repo, "--no-regress", rc=1)
    assert f"Baseline: commit {good[:12]}" in out and "FAIL   C4 S fell from L3 to L0" in out


def test_moved_lines_are_not_a_regression(cli, repo, tmp_path):
    repo.commit({"agent/tool.py": PLAIN})
    base = tmp_path / "base.json"
    cli("score", str(repo.path), "--format", "json", "-o", str(base))
    repo.commit({"agent/tool.py": '"""Tools."""\n\n# shifted\n' + PLAIN})
    out = _gate(cli, repo, "--baseline", str(base), rc=0)
    assert "New gap evidence since the baseline: 0" in out
    assert "Gap evidence gone since the baseline: 0" in out


def test_first_commit_has_no_parent_baseline(cli, repo):
    repo.commit({"agent/tool.py": PLAIN})
    msg = _one_line(cli("gate", str(repo.path), "--no-regress", check_rc=None))
    assert "no baseline commit" in msg and "--baseline FILE" in msg


def test_bad_baseline_file(cli, repo, tmp_path):
    repo.commit({"agent/tool.py": PLAIN})
    bad = tmp_path / "bad.json"
    bad.write_text('{"schema": "something/1"}')
    msg = _one_line(cli("gate", str(repo.path), "--baseline", str(bad), check_rc=None))
    assert msg == f"dids: error: baseline {bad}: not a `dids score --format json` report " \
                  "(schema dids.report/1)"


def test_waived_gap_passes(cli, repo):
    repo.commit({"agent/tool.py": PLAIN, ".dids.toml": 'min_levels = { "C4.B" = 2 }\n'})
    out = _gate(cli, repo, rc=1)
    assert "FAIL   C4 B is L0, under its minimum L2 (Code-execution isolation)" in out

    repo.commit({".dids.toml": 'min_levels = { "C4.B" = 2 }\n'
                 + WAIVER.format(expires="2999-12-31")})
    out = _gate(cli, repo, rc=0)
    assert out.startswith("dids gate: PASSED (1 waived)")
    assert "WAIVED C4 B is L0, under its minimum L2" in out
    assert 'waiver C4.B: accepted-risk by @alice until 2999-12-31 (.dids.toml:3): "The CI ' \
           'runner VM holds no credentials."' in out
    # the gap stays visible, marked as waived
    assert "  C4 B L0 [waived: accepted-risk, @alice, until 2999-12-31] — exec.spawn " in out
    data = json.loads(_gate(cli, repo, "--format", "json", rc=0))
    gap = next(g for g in data["gaps"] if (g["criterion"], g["dimension"]) == ("C4", "B"))
    assert gap["waived"] is True and gap["waivers"][0]["owner"] == "@alice"

    # dids score shows the waiver as the maintainers' claim and changes nothing
    card = cli("score", str(repo.path)).stdout
    assert "Maintainers' claim (waiver, applied by dids gate only): waive C4.B — accepted-risk" \
           in card
    report = json.loads(cli("score", str(repo.path), "--format", "json").stdout)
    assert report["criteria"][3]["levels"]["B"] == 0
    assert report["claims"]["applied"] is False
    assert report["claims"]["waivers"][0]["criterion"] == "C4"


def test_expired_waiver_fails(cli, repo):
    repo.commit({"agent/tool.py": PLAIN, ".dids.toml": 'min_levels = { "C4.B" = 2 }\n'
                 + WAIVER.format(expires="2001-02-03")})
    out = _gate(cli, repo, rc=1)
    assert "FAIL   waiver C4.B (accepted-risk, owner @alice, .dids.toml:3) expired on " \
           "2001-02-03" in out
    assert "FAIL   C4 B is L0, under its minimum L2" in out  # an expired waiver waives nothing
    assert "[waived" not in out


@pytest.mark.parametrize("name,text,expected", [
    (".dids.toml", "min_scor = 2\n",
     "dids: error: .dids.toml: min_scor: unknown key (allowed: min_score, min_criteria, "
     "min_levels, exclude, hints, waivers)"),
    (".dids.toml", 'min_levels = { "C4.B" = 2 }\n' + WAIVER.format(expires="2999-12-31")
     .replace("accepted-risk", "it-is-fine"),
     "dids: error: .dids.toml: waivers[0].reason: 'it-is-fine' is not one of accepted-risk, "
     "compensating-control, not-applicable, false-positive"),
    (".dids.toml", WAIVER.format(expires="2999-12-31").replace('owner = "@alice"\n', ""),
     "dids: error: .dids.toml: waivers[0].owner: required key is missing"),
    ("pyproject.toml", '[project]\nname = "x"\n\n[tool.dids]\nmin_score = "high"\n',
     "dids: error: pyproject.toml: tool.dids.min_score: input should be a valid number "
     "(got 'high')"),
    ("pyproject.toml", "[tool.dids]\nmin_criteria = { C11 = 0.5 }\n",
     "dids: error: pyproject.toml: tool.dids.min_criteria.C11: not a valid key here"),
    (".dids.toml", "min_score = [\n", "dids: error: .dids.toml: invalid TOML: "),
])
def test_malformed_config(cli, repo, name, text, expected):
    repo.commit({"agent/tool.py": PLAIN, name: text})
    msg = _one_line(cli("gate", str(repo.path), check_rc=None))
    assert msg.startswith(expected), msg
    # score never fails on the scanned repository's configuration; it reports it
    card = cli("score", str(repo.path)).stdout.replace("\\", "")  # Markdown escapes
    assert "Maintainers' claim not understood: " + expected.removeprefix("dids: error: ")[:40] \
        in card


def test_suppression_comment(cli, repo):
    commented = PLAIN.replace(
        "    return subprocess.run(",
        "    # dids: waive C4.B reason=compensating-control owner=@bob expires=2999-01-01 "
        "-- runs in a throwaway VM\n    return subprocess.run(")
    repo.commit({"agent/tool.py": commented, ".dids.toml": 'min_levels = { "C4.B" = 2 }\n'})
    out = _gate(cli, repo, rc=0)
    assert "WAIVED C4 B is L0, under its minimum L2" in out
    assert 'compensating-control by @bob until 2999-01-01 (agent/tool.py:6): "runs in a ' \
           'throwaway VM"' in out

    report = json.loads(cli("score", str(repo.path), "--format", "json").stdout)
    assert report["criteria"][3]["levels"]["B"] == 0  # a claim, not applied by score
    claim = report["claims"]["waivers"][0]
    assert (claim["origin"], claim["path"], claim["line"]) == ("comment", "agent/tool.py", 6)
    sarif = json.loads(cli("score", str(repo.path), "--format", "sarif").stdout)
    res = next(r for r in sarif["runs"][0]["results"]
               if (r["ruleId"], r["properties"]["dimension"]) == ("C4", "B"))
    assert res["suppressions"][0]["kind"] == "inSource"
    assert res["suppressions"][0]["status"] == "underReview"

    # a comment away from the gap's evidence waives nothing
    repo.commit({"agent/tool.py": "# dids: waive C4.B reason=accepted-risk owner=@bob "
                 "expires=2999-01-01 -- elsewhere\n" + PLAIN})
    out = _gate(cli, repo, rc=1)
    assert "FAIL   C4 B is L0, under its minimum L2" in out
    assert "Unused waiver C4.B (no matching check or gap)" in out


def test_malformed_suppression_comment(cli, repo):
    repo.commit({"agent/tool.py": PLAIN.replace(
        "    return", "    # dids: waive C4.B reason=because owner=@bob expires=2999-01-01 -- x\n"
        "    return")})
    msg = _one_line(cli("gate", str(repo.path), check_rc=None))
    assert msg == ("dids: error: agent/tool.py:6: suppression comment: reason: 'because' is not "
                   "one of accepted-risk, compensating-control, not-applicable, false-positive")
    cli("score", str(repo.path))  # score still works


def test_exclude_and_hints_apply_to_gate_only(cli, repo):
    # (a folder the score keeps: "legacy/" itself is off the scored path)
    repo.commit({"agent/tool.py": SANDBOXED, "extra/other_tool.py": PLAIN,
                 ".dids.toml": 'exclude = ["extra/**"]\n'})
    gate = json.loads(_gate(cli, repo, "--format", "json", rc=0))
    assert not any("extra/" in json.dumps(g["location"]) for g in gate["gaps"])
    scored = json.loads(cli("score", str(repo.path), "--format", "json").stdout)
    assert any(e["path"] == "extra/other_tool.py" for e in scored["criteria"][3]["evidence"])


def test_gate_sarif_marks_waivers_accepted(cli, repo, tmp_path):
    repo.commit({"agent/tool.py": PLAIN, ".dids.toml": WAIVER.format(expires="2999-12-31")})
    out = tmp_path / "gate.sarif"
    _gate(cli, repo, "--sarif", str(out), rc=0)
    results = json.loads(out.read_text())["runs"][0]["results"]
    res = next(r for r in results if (r["ruleId"], r["properties"]["dimension"]) == ("C4", "B"))
    assert res["suppressions"] == [{
        "kind": "external", "status": "accepted",
        "justification": "accepted-risk: The CI runner VM holds no credentials.",
        "properties": {"reason": "accepted-risk", "owner": "@alice", "expires": "2999-12-31",
                       "declaredAt": ".dids.toml:2"}}]


def test_baseline_matching_counts_multiplicities():
    def view(*lines):
        ev = [{"dimension": "S", "configuration": "default", "path": "a.py", "start_line": n,
               "end_line": n, "kind": "verified", "probe": "exec.spawn",
               "claim": "subprocess.run(...) in run with a shell"} for n in lines]
        return {"criteria": [{"id": "C4", "title": "t", "assessed": True,
                              "levels": {"S": 0, "C": 2, "D": 2, "B": 2},
                              "configurations": [{"name": "default", "opt_in": False,
                                                  "levels": {"S": 0, "C": 2, "D": 2, "B": 2},
                                                  "score": 0.3}],
                              "evidence": ev}]}

    old, moved, doubled = view(10), view(40), view(40, 41)
    assert gap_instances(moved) - gap_instances(old) == {}  # a move is not new
    new = gap_instances(doubled) - gap_instances(old)  # one old entry absorbs only one
    assert list(new.values()) == [1]
    added, removed = multiset_diff(old["criteria"][0]["evidence"],
                                   doubled["criteria"][0]["evidence"])
    assert [e["start_line"] for e in added] == [41] and removed == []
    assert normalize("found at a.py:12-14 on line 9") == "found at a.py on"


REGISTRY = ("def tool(requires_approval: bool = False):\n"
            "    def wrap(fn):\n"
            "        fn.requires_approval = requires_approval\n"
            "        return fn\n"
            "    return wrap\n")
GATED_TOOL = ("import subprocess\n\nfrom agent.registry import tool\n\n\n"
              "@tool(requires_approval=True)\n"
              "def run_shell(command: str):\n"
              "    return subprocess.run(command, shell=True)\n")


def test_regression_when_an_approval_check_is_removed(cli, repo, tmp_path):
    repo.commit({"agent/registry.py": REGISTRY, "agent/tools.py": GATED_TOOL})
    base = tmp_path / "base.json"
    cli("score", str(repo.path), "--format", "json", "-o", str(base))
    assert _gate(cli, repo, "--baseline", str(base), rc=0).startswith("dids gate: PASSED")

    repo.commit({"agent/tools.py": GATED_TOOL.replace("@tool(requires_approval=True)", "@tool()")},
                "stop asking before shell commands")
    out = _gate(cli, repo, "--baseline", str(base), rc=1)
    assert "FAIL   C2 C fell from L2 to L1" in out
    assert "): approval.registration `agent/tools.py:7` Tool run_shell is registered with " \
           "requires_approval=True." in out
    assert "removed (lines of baseline " in out


def test_waiver_comments_same_from_corpus_and_git_grep(repo):
    """Claims read from the packed corpus (after a score) equal those git grep finds (before
    any score): the same files are left out either way, and long comments are kept whole."""
    from dids.acquire import acquire
    from dids.engine import score_snapshot
    from dids.gate.claims import _corpus_hits, comment_hits

    long_why = "x" * 400
    repo.commit({
        "agent/tool.py": "import os\n# dids: waive C4.B reason=accepted-risk owner=@bob "
                         f"expires=2999-01-01 -- {long_why}\n",
        "agent/deploy.yaml": "a: 1\n  // dids: waive C8.S reason=accepted-risk\n",
        "agent/minified.py": "x = 1  # dids: waive C1.S\n" + "y = '" + "z" * 30000 + "'\n",
        "tests/test_tool.py": "# dids: waive C4.B reason=accepted-risk\n",
        "docs/guide.md": "# dids: waive C4.B\n",
    })
    snap = acquire(str(repo.path))
    assert _corpus_hits(snap) is None
    by_grep = comment_hits(snap, [])
    score_snapshot(snap)
    assert _corpus_hits(snap) is not None
    by_corpus = comment_hits(snap, [])
    assert by_grep == by_corpus
    assert [(p, n) for p, n, _ in by_corpus] == [("agent/deploy.yaml", 2), ("agent/tool.py", 2)]
    assert by_corpus[1][2].endswith(long_why)


# --- failures say how to fix them ----------------------------------------------------------

def test_min_level_failure_shows_the_next_level_text(cli, repo):
    repo.commit({"agent/tool.py": PLAIN, ".dids.toml": 'min_levels = { "C4.B" = 2 }\n'})
    out = _gate(cli, repo, rc=1)
    block = out.split("FAIL   C4 B is L0, under its minimum L2", 1)[1].split("\n\n", 1)[0]
    from dids.rubric import load_rubric

    c4 = load_rubric().criteria["C4"]
    assert f"to reach L1: {c4.rung('B', 0).next}" in block
    assert f"to reach L2: {c4.rung('B', 1).next}" in block
    assert f"what to change: {c4.improvements['B']}" in block


def test_score_shortfall_lists_the_steps_that_close_it(cli, repo):
    repo.commit({"agent/tool.py": PLAIN})
    score = json.loads(cli("score", str(repo.path), "--format", "json").stdout)["score"]
    out = _gate(cli, repo, "--min-score", f"{score + 0.1:.1f}", rc=1)
    block = out.split("is under the minimum", 1)[1].split("\n\n", 1)[0]
    assert "one-level steps would close the 0.10 shortfall (gains after caps):" in block
    import re

    steps = re.findall(r"C\d+ [SCDB] L\d→L\d \+(0\.\d{3})", block)
    assert len(steps) == 2 and sum(map(float, steps)) >= 0.1  # e.g. 2 × 0.075


def test_expired_waiver_says_renew_or_fix(cli, repo):
    repo.commit({"agent/tool.py": PLAIN, ".dids.toml": WAIVER.format(expires="2001-02-03")})
    out = _gate(cli, repo, rc=1)
    assert "renew or fix: set a later `expires` (and a current justification) in the waiver " \
           "at .dids.toml:2; or fix the gap: " in out


def test_gate_without_a_policy_says_so(cli, repo):
    repo.commit({"agent/tool.py": PLAIN})
    out = _gate(cli, repo, rc=0)
    assert "No minimums configured: nothing was checked." in out
    assert "All checks passed." not in out
    data = json.loads(_gate(cli, repo, "--format", "json", rc=0))
    assert data["minimums_configured"] is False and data["passed"] is True


def test_baseline_of_another_repository_is_refused(cli, repo, tmp_path):
    from conftest import RepoBuilder

    other = RepoBuilder(tmp_path / "other")
    other.commit({"agent/tool.py": SANDBOXED})
    foreign = tmp_path / "foreign.json"
    cli("score", str(other.path), "--format", "json", "-o", str(foreign))
    repo.commit({"agent/tool.py": PLAIN})
    msg = _one_line(cli("gate", str(repo.path), "--baseline", str(foreign), check_rc=None))
    assert f"baseline {foreign} is a report of {other.path}" in msg
    assert f"not of {repo.path}" in msg


def test_baseline_of_the_same_repository_without_its_commit(cli, repo, tmp_path):
    """CI checks out one commit: the baseline's commit is missing but its URL matches."""
    repo.commit({"agent/tool.py": PLAIN})
    base = json.loads(cli("score", str(repo.path), "--format", "json").stdout)
    base["repo"]["commit"] = "f" * 40  # not in this clone
    path = tmp_path / "base.json"
    path.write_text(json.dumps(base))
    assert _gate(cli, repo, "--baseline", str(path), rc=0).startswith("dids gate: PASSED")


@pytest.mark.parametrize("a,b,same", [
    ("git@github.com:o/r.git", "https://github.com/o/r", True),
    ("ssh://git@github.com/o/r", "https://github.com/o/r.git/", True),
    ("https://github.com/o/r", "https://github.com/o/other", False),
    ("/src/a/r", "/src/b/r", False),
])
def test_same_repository_url(a, b, same):
    from dids.gate.policy import same_repository_url

    assert same_repository_url(a, b) is same


def test_uncommitted_policy_is_noted(cli, repo):
    repo.commit({"agent/tool.py": PLAIN, ".dids.toml": "min_score = 9.5\n"})
    (repo.path / ".dids.toml").write_text("min_score = 0.1\n")
    proc = cli("gate", str(repo.path), check_rc=1)  # the committed 9.5 applies
    assert "dids: note: .dids.toml has uncommitted changes; the gate uses the policy at the " \
           "gated commit" in proc.stderr
