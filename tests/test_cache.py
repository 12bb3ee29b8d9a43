"""The result cache: models round-trip, hits skip indexing and probes, invalidation."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from dids import cache, engine
from dids.acquire import acquire
from dids.models import Report
from dids.render.json_out import render_json
from dids.render.markdown import render_markdown
from dids.rubric import load_rubric, rubric_dir


@pytest.fixture(autouse=True)
def own_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("DIDS_CACHE_DIR", str(tmp_path / "cache"))
    load_rubric.cache_clear()
    yield
    load_rubric.cache_clear()


@pytest.fixture
def counted(monkeypatch):
    """Count real index builds and probe runs."""
    calls = {"index": 0, "probes": 0}
    build, probes = engine.build_index, engine.run_probes

    def build_index(*a, **k):
        calls["index"] += 1
        return build(*a, **k)

    def run_probes(*a, **k):
        calls["probes"] += 1
        return probes(*a, **k)

    monkeypatch.setattr(engine, "build_index", build_index)
    monkeypatch.setattr(engine, "run_probes", run_probes)
    return calls


def test_report_round_trips(sample_repo):
    report = engine.score_target(str(sample_repo))
    data = json.loads(json.dumps(report.model_dump(mode="json", by_alias=True)))
    back = Report.model_validate(data)
    assert back == report
    assert render_json(back) == render_json(report)
    assert render_markdown(back) == render_markdown(report)


def test_hit_skips_index_and_probes(sample_repo, counted):
    first = engine.score_target(str(sample_repo), use_cache=True)
    assert counted == {"index": 1, "probes": 1}
    second = engine.score_target(str(sample_repo), use_cache=True)
    assert counted == {"index": 1, "probes": 1}
    assert second == first and render_json(second) == render_json(first)
    entries = list(cache.results_dir().rglob("*.json"))
    assert len(entries) == 1 and entries[0].name.startswith(first.commit)
    # --reviewed and --repo-url still apply; another URL is another key
    assert engine.score_target(str(sample_repo), use_cache=True,
                               reviewed="2030-01-02").reviewed == "2030-01-02"
    other = engine.score_target(str(sample_repo), use_cache=True,
                                repo_url="https://example.invalid/x")
    assert counted["index"] == 2 and other.repo_url == "https://example.invalid/x"


def test_no_cache_never_reads_or_writes(sample_repo, counted):
    engine.score_target(str(sample_repo))
    engine.score_target(str(sample_repo))
    assert counted["index"] == 2
    assert not cache.results_dir().exists()


def test_cli_no_cache_flag(cli, sample_repo, tmp_path):
    cli("score", str(sample_repo), "--no-cache", "--format", "json")
    assert not (tmp_path / "cache" / "results").exists()
    cli("score", str(sample_repo), "--format", "json")
    assert len(list((tmp_path / "cache" / "results").rglob("*.json"))) == 1


def test_rubric_change_invalidates(sample_repo, counted, tmp_path, monkeypatch):
    from importlib.resources import as_file

    rubrics = tmp_path / "rubrics"
    with as_file(rubric_dir()) as packaged:
        shutil.copytree(packaged, rubrics)
    monkeypatch.setenv("DIDS_RUBRIC_DIR", str(rubrics))
    load_rubric.cache_clear()
    engine.score_target(str(sample_repo), use_cache=True)
    engine.score_target(str(sample_repo), use_cache=True)
    assert counted["index"] == 1
    assert cache.rubric_digest() == load_rubric().digest

    c4 = rubrics / "c4.yaml"
    c4.write_text(c4.read_text() + "\n# a rubric edit\n")
    load_rubric.cache_clear()
    assert cache.rubric_digest() == load_rubric().digest
    engine.score_target(str(sample_repo), use_cache=True)
    assert counted["index"] == 2
    assert len(list(cache.results_dir().rglob("*.json"))) == 2


def test_probe_code_or_version_change_invalidates(sample_repo, counted, monkeypatch):
    engine.score_target(str(sample_repo), use_cache=True)
    monkeypatch.setattr(cache, "code_digest", lambda: "0" * 16)
    engine.score_target(str(sample_repo), use_cache=True)
    assert counted["index"] == 2
    monkeypatch.setattr(cache, "__version__", "99.0")
    engine.score_target(str(sample_repo), use_cache=True)
    assert counted["index"] == 3


def test_code_digest_follows_probes_and_criteria(tmp_path, monkeypatch):
    pkg = tmp_path / "dids"
    shutil.copytree(Path(cache.__file__).parent, pkg,
                    ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(cache, "_PKG", pkg)
    seen = []
    for rel in (None, "probes/secrets.py", "criteria/c4_isolation.py", "render/text.py"):
        if rel:
            (pkg / rel).write_text((pkg / rel).read_text() + "\n# changed\n")
        cache.code_digest.cache_clear()
        seen.append(cache.code_digest())
    base, probe, crit, render = seen
    assert len({base, probe, crit}) == 3
    assert render == crit  # renderers do not change results
    (pkg / "probes" / "secrets.py").write_text("# edited again\n")
    assert cache.code_digest() == render  # hashed once per process
    cache.code_digest.cache_clear()


def test_corrupt_entry_is_a_miss(sample_repo, counted):
    report = engine.score_target(str(sample_repo), use_cache=True)
    path = cache.entry_path(report.repo_url, report.commit)
    path.write_text("{not json")
    again = engine.score_target(str(sample_repo), use_cache=True)
    assert counted["index"] == 2 and render_json(again) == render_json(report)
    assert json.loads(path.read_text())["schema"] == cache.ENTRY_SCHEMA  # rewritten


def test_diff_reuses_both_sides(repo, counted):
    from dids.diff import LineMapper, diff_reports

    a = repo.commit({"agent/tool.py": "import subprocess\n\n\ndef run(cmd):\n"
                     "    return subprocess.run(cmd, shell=True)\n"})
    b = repo.commit({"README.md": "docs only\n"})
    snaps = [acquire(str(repo.path), r) for r in (a, b)]
    for s in snaps:
        engine.score_snapshot(s, use_cache=True)
    assert counted["index"] == 2
    old, new = (engine.score_snapshot(s, use_cache=True) for s in snaps)
    assert counted["index"] == 2
    result = diff_reports(old, new, LineMapper(snaps[1].git_dir, a, b))
    assert result.changes == [] and result.score_delta == 0


# --- the cache directory: unwritable roots, `dids cache info|clear` --------------------------

@pytest.mark.parametrize("kind", ["file", "under-a-file"])
def test_unwritable_cache_dir_falls_back_with_one_warning(cli, sample_repo, tmp_path,
                                                          monkeypatch, kind):
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("x")
    root = blocker if kind == "file" else blocker / "cache"
    monkeypatch.setenv("DIDS_CACHE_DIR", str(root))
    proc = cli("score", str(sample_repo), "--format", "json")
    assert json.loads(proc.stdout)["schema"] == "dids.report/1"
    lines = [ln for ln in proc.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("dids: warning: cannot use the cache "
                                                   f"directory {root}"), proc.stderr
    assert "DIDS_CACHE_DIR" in lines[0] and "internal error" not in proc.stderr
    # --no-cache asked for no persistent cache: nothing to warn about
    proc = cli("score", str(sample_repo), "--no-cache", "--format", "json")
    assert proc.stderr == ""
    gate = cli("gate", str(sample_repo), check_rc=0)
    assert "internal error" not in gate.stderr


def test_cache_info_and_clear(cli, sample_repo, tmp_path):
    root = tmp_path / "cache"
    info = cli("cache", "info").stdout
    assert f"Cache directory: {root} (from DIDS_CACHE_DIR" in info and "nothing" in info
    cli("score", str(sample_repo))
    info = cli("cache", "info").stdout
    assert re.search(r"results\s+1 scored reports", info), info
    assert re.search(r"corpus\s+1 packed search corpora", info), info
    (root / "keep.txt").write_text("not dids'")
    done = cli("cache", "clear", "--results")
    assert "removed" in done.stderr and "(results)" in done.stderr
    assert not (root / "results").exists() and (root / "corpus").exists()
    cli("cache", "clear")
    assert not (root / "corpus").exists()
    assert (root / "keep.txt").exists()  # only dids' own subdirectories go
