"""`dids score --format sarif`: valid SARIF 2.1.0, one rule per criterion, one result per gap,
line-free fingerprints, run properties; JSON and SARIF byte-identical across runs."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

# OASIS SARIF 2.1.0 schema (rtm.5, the published 2.1.0 schema), as shipped in the npm package
# @microsoft/jest-sarif 1.0.0-beta.0 (MIT): lib/schemas/sarif-2.1.0-rtm.5.json
SCHEMA = json.loads((Path(__file__).parent / "data" / "sarif-2.1.0-rtm.5.json").read_text())
CRITERIA = [f"C{i}" for i in range(1, 11)]


def _validate(log: dict) -> None:
    jsonschema.Draft4Validator(SCHEMA).validate(log)


def test_schema_rejects_a_broken_log():
    with pytest.raises(jsonschema.ValidationError):
        _validate({"version": "2.1.0", "runs": [{"tool": {"driver": {}}}]})


def test_sample_agent_sarif_validates(cli, sample_repo):
    out = cli("score", str(sample_repo), "--format", "sarif").stdout
    log = json.loads(out)
    _validate(log)
    assert log["version"] == "2.1.0"
    run = log["runs"][0]
    assert [r["id"] for r in run["tool"]["driver"]["rules"]] == CRITERIA
    report = json.loads(cli("score", str(sample_repo), "--format", "json").stdout)

    # one result per gap: every dimension below L2 on each assessed criterion's counted levels
    expected = sorted((c["id"], d) for c in report["criteria"] if c["assessed"]
                      for d, lv in c["levels"].items() if lv < 2)
    got = sorted((r["ruleId"], r["properties"]["dimension"]) for r in run["results"])
    assert got == expected and got
    for r in run["results"]:
        assert CRITERIA[r["ruleIndex"]] == r["ruleId"]
        assert r["level"] == ("error" if r["properties"]["level"] == 0 else "warning")
        fp = r["partialFingerprints"]["didsGap/v1"]
        assert len(fp) == 64
        located = [e for e in r["properties"]["evidence"] if e["path"]]
        if located:
            loc = r["locations"][0]["physicalLocation"]
            assert loc["artifactLocation"]["uri"] == located[0]["path"]
            assert loc["region"]["startLine"] == located[0]["startLine"]
    c4 = next(r for r in run["results"] if (r["ruleId"], r["properties"]["dimension"]) ==
              ("C4", "D"))
    assert c4["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == \
        "docker-compose.yml"

    props = run["properties"]
    assert props["score"] == report["score"] and props["band"] == report["band"]
    assert list(props["criteria"]) == CRITERIA
    for c in report["criteria"]:
        assert props["criteria"][c["id"]]["levels"] == c["levels"]
        assert props["criteria"][c["id"]]["score"] == c["score"]
    assert run["versionControlProvenance"][0]["revisionId"] == report["repo"]["commit"]


def test_fingerprints_leave_line_numbers_out(cli, repo):
    code = ("import os\nimport subprocess\n\n\ndef run(cmd):\n"
            "    return subprocess.run(cmd, shell=True, env=os.environ.copy())\n")
    repo.commit({"agent/tool.py": code})
    before = json.loads(cli("score", str(repo.path), "--format", "sarif").stdout)
    repo.commit({"agent/tool.py": '"""Tools."""\n\n\n# moved down\n' + code})
    after = json.loads(cli("score", str(repo.path), "--format", "sarif").stdout)

    def prints(log):
        return {(r["ruleId"], r["properties"]["dimension"]): r["partialFingerprints"]
                for r in log["runs"][0]["results"]}

    def lines(log):
        return sorted(r["locations"][0]["physicalLocation"]["region"]["startLine"]
                      for r in log["runs"][0]["results"] if r.get("locations"))

    assert prints(before) == prints(after)
    assert lines(before) != lines(after)


def test_two_runs_are_byte_identical(cli, sample_repo, tmp_path, monkeypatch):
    outputs = []
    # the second run reads the result cache the first wrote; the third starts from nothing;
    # each has its own hash seed, so no output may depend on set or dict-of-set order
    for seed, cache in ((1, "a"), (2, "a"), (3, "b")):
        monkeypatch.setenv("DIDS_CACHE_DIR", str(tmp_path / cache))
        monkeypatch.setenv("PYTHONHASHSEED", str(seed))
        outputs.append((cli("score", str(sample_repo), "--format", "json").stdout,
                        cli("score", str(sample_repo), "--format", "sarif").stdout))
    assert outputs[0][0] == outputs[1][0] == outputs[2][0]
    assert outputs[0][1] == outputs[1][1] == outputs[2][1]
    data = json.loads(outputs[0][0])
    assert not any(k.endswith("_s") for k in data["stats"])  # no timings in the report


def test_gate_sarif_validates_with_baseline_state(cli, repo, tmp_path):
    repo.commit({"agent/tool.py": "import subprocess\n\n\ndef run(cmd):\n    return subprocess."
                 "run(['bwrap', '--unshare-net', '--', 'sh', '-c', cmd], env={'PATH': '/bin'})\n"})
    repo.commit({"agent/tool.py": "import os\nimport subprocess\n\n\ndef run(cmd):\n    return "
                 "subprocess.run(cmd, shell=True, env=os.environ.copy())\n"})
    out = tmp_path / "gate.sarif"
    cli("gate", str(repo.path), "--no-regress", "--sarif", str(out), check_rc=1)
    log = json.loads(out.read_text())
    _validate(log)
    states = {(r["ruleId"], r["properties"]["dimension"]): r["baselineState"]
              for r in log["runs"][0]["results"]}
    assert states[("C4", "S")] == "new"
