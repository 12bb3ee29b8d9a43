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


# --- GitHub code scanning ingestion -------------------------------------------------------
# What github.com accepts on upload, beyond the schema (its SARIF support page and the SARIF
# validator's GitHub rules GH1001-GH1007): a result with no location makes GitHub reject the
# whole file ("expected at least one location").

def github_ingestion_problems(log: dict, files: set[str]) -> list[str]:
    problems = []
    for run in log["runs"]:
        driver = run["tool"]["driver"]
        rules = driver.get("rules", [])
        ids = [r["id"] for r in rules]
        if not driver.get("name"):
            problems.append("driver without a name")
        if not str(driver.get("informationUri", "")).startswith("https://"):
            problems.append("driver without informationUri")
        if len(set(ids)) != len(ids):
            problems.append("duplicate rule ids")
        for r in rules:
            sev = r.get("properties", {}).get("security-severity")
            if not isinstance(sev, str) or not 0 < float(sev) <= 10:
                problems.append(f"rule {r['id']}: security-severity {sev!r}")
            if not str(r.get("helpUri", "")).startswith("https://"):
                problems.append(f"rule {r['id']}: no helpUri")
            if not r.get("help", {}).get("markdown"):
                problems.append(f"rule {r['id']}: no help.markdown")
            if len(r.get("properties", {}).get("tags", [])) > 20:
                problems.append(f"rule {r['id']}: more than 20 tags")
        if len(run["results"]) > 25_000:
            problems.append("more than 25,000 results")
        for n, res in enumerate(run["results"]):
            where = f"result {n} ({res.get('ruleId')})"
            if res.get("ruleId") not in ids:
                problems.append(f"{where}: ruleId not among the rules")
            elif "ruleIndex" in res and ids[res["ruleIndex"]] != res["ruleId"]:
                problems.append(f"{where}: ruleIndex points at another rule")
            if not res.get("message", {}).get("text"):
                problems.append(f"{where}: no message text")  # GH1007
            locs = res.get("locations") or []
            if not locs:
                problems.append(f"{where}: no location")  # GH1001
                continue
            phys = locs[0].get("physicalLocation", {})
            uri = phys.get("artifactLocation", {}).get("uri")
            if not uri:
                problems.append(f"{where}: no artifactLocation.uri")  # GH1001
            elif "://" in uri or uri.startswith("/"):
                problems.append(f"{where}: uri {uri!r} is not relative")  # GH1005
            elif uri not in files:
                problems.append(f"{where}: uri {uri!r} is not a file of the repository")
            if not phys.get("region", {}).get("startLine", 0) >= 1:
                problems.append(f"{where}: no region.startLine")  # GH1003
            for rel in res.get("relatedLocations", []):
                if not rel.get("physicalLocation", {}).get("region", {}).get("startLine"):
                    problems.append(f"{where}: related location without a start line")
            if len(res.get("relatedLocations", [])) > 1000:
                problems.append(f"{where}: more than 1,000 related locations")
            fps = res.get("partialFingerprints") or {}
            if not fps or not all(isinstance(v, str) and v for v in fps.values()):
                problems.append(f"{where}: no partialFingerprints")
    return problems


def _files(path) -> set[str]:
    import subprocess

    out = subprocess.run(["git", "ls-tree", "-r", "--name-only", "HEAD"], cwd=path,
                         capture_output=True, text=True, check=True).stdout
    return set(out.split())


AGENT_SHAPES = {
    "readme-only": {"README.md": "# hi\n\nNothing here yet.\n"},
    "project-only": {"pyproject.toml": '[project]\nname = "bare"\n'},
    "typescript": {"package.json": '{"name": "ts-agent"}\n',
                   "src/agent.ts": "export const run = (cmd: string) => exec(cmd);\n"},
    "tools-no-audit": {
        "agent/tools.py": "import subprocess\n\n\ndef tool(fn):\n    return fn\n\n\n@tool\n"
                          "def run_shell(command: str) -> str:\n"
                          "    return subprocess.run(command, shell=True).stdout\n"},
}


@pytest.mark.parametrize("shape", ["sample", *AGENT_SHAPES])
def test_every_result_is_accepted_by_github(cli, sample_repo, repo, shape):
    path = sample_repo if shape == "sample" else repo.path
    if shape != "sample":
        repo.commit(AGENT_SHAPES[shape])
    log = json.loads(cli("score", str(path), "--format", "sarif").stdout)
    _validate(log)
    results = log["runs"][0]["results"]
    if shape in ("readme-only", "project-only", "typescript"):
        # no source dids assesses: no gaps are claimed, the reason is notified instead
        notes = log["runs"][0]["invocations"][0]["toolExecutionNotifications"]
        assert results == [] and notes[0]["level"] == "warning"
        assert notes[0]["message"]["text"].startswith("could not assess: No Python source")
        assert github_ingestion_problems(log, _files(path)) == []
        return
    assert results  # every shape has gaps to show
    assert github_ingestion_problems(log, _files(path)) == []
    fingerprints = [r["partialFingerprints"]["didsGap/v1"] for r in results]
    assert len(set(fingerprints)) == len(fingerprints)  # one alert per gap
    again = json.loads(cli("score", str(path), "--format", "sarif", "--no-cache").stdout)
    assert [r["partialFingerprints"] for r in again["runs"][0]["results"]] == \
        [r["partialFingerprints"] for r in results]


def test_repository_level_gaps_sit_where_a_fix_starts(cli, repo):
    repo.commit({"README.md": "# hi\n", "pyproject.toml": '[project]\nname = "x"\n',
                 "x/core.py": "VALUE = 1\n"})
    log = json.loads(cli("score", str(repo.path), "--format", "sarif").stdout)
    fallback = [r for r in log["runs"][0]["results"]
                if r["properties"].get("locatedAt") == "fallback"]
    assert fallback
    for r in fallback:
        loc = r["locations"][0]
        assert loc["physicalLocation"]["artifactLocation"]["uri"] == "pyproject.toml"
        assert loc["physicalLocation"]["region"]["startLine"] == 1
        assert "only searches" in loc["message"]["text"]


def test_rules_carry_severity_and_next_level_help(cli, sample_repo):
    from dids import HOMEPAGE, __version__

    log = json.loads(cli("score", str(sample_repo), "--format", "sarif").stdout)
    driver = log["runs"][0]["tool"]["driver"]
    assert driver["informationUri"] == HOMEPAGE
    c2 = driver["rules"][1]
    assert c2["helpUri"] == f"{HOMEPAGE}/blob/v{__version__}/src/dids/data/rubrics/c2.yaml"
    assert float(c2["properties"]["security-severity"]) >= 7.0  # approval gates: high
    assert "*Next:* Nothing asks a human; L1 requires at least one confirmation" in \
        c2["help"]["markdown"]
    assert float(driver["rules"][8]["properties"]["security-severity"]) < 7.0  # audit: medium


def test_gate_error_still_writes_sarif(cli, repo, tmp_path):
    repo.commit({"agent/tool.py": "import subprocess\n", ".dids.toml": "min_scor = 2\n"})
    out = tmp_path / "gate.sarif"
    proc = cli("gate", str(repo.path), "--sarif", str(out), check_rc=2)
    assert "min_scor: unknown key" in proc.stderr
    log = json.loads(out.read_text())
    _validate(log)
    inv = log["runs"][0]["invocations"][0]
    assert inv["executionSuccessful"] is False and inv["exitCode"] == 2
    assert "min_scor: unknown key" in inv["toolExecutionNotifications"][0]["message"]["text"]
    assert log["runs"][0]["results"] == []
