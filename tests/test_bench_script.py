"""scripts/bench.py: the synthetic repository is deterministic and the benchmark runs end to end."""

from __future__ import annotations

import json
import subprocess

import bench  # scripts/ is on sys.path (conftest)


def _head(repo):
    return subprocess.run(["git", "rev-parse", "HEAD"], cwd=repo, capture_output=True, text=True,
                          check=True).stdout.strip()


def test_synthetic_repo_is_deterministic_and_realistic(tmp_path):
    a = bench.make_synthetic(60, tmp_path / "a")
    b = bench.make_synthetic(60, tmp_path / "b")
    assert _head(a) == _head(b)  # same files, same dates, same commit id
    assert bench.make_synthetic(60, tmp_path / "a") == a  # reused, not rewritten
    files = subprocess.run(["git", "ls-files"], cwd=a, capture_output=True, text=True,
                           check=True).stdout.split()
    assert len(files) == 60
    texts = {p: (a / p).read_text() for p in files}
    assert any("subprocess.run(" in t and "@tool" in t for t in texts.values())
    assert any("BaseSettings" in t for t in texts.values())
    assert any("httpx" in t and "class " in t for t in texts.values())
    assert any(p.startswith("tests/") and p.rsplit("/", 1)[-1].startswith("test_") for p in files)
    assert any(p.startswith("docs/") and p.endswith(".md") for p in files)
    for p, t in texts.items():
        if p.endswith(".py"):
            compile(t, p, "exec")  # valid Python, so parse errors do not skew the baseline


def test_parse_once_baseline_counts_every_python_file(tmp_path):
    repo = bench.make_synthetic(30, tmp_path)
    seconds, count, size = bench.parse_once(repo)
    assert count == len(list(repo.rglob("*.py"))) - len(list((repo / ".git").rglob("*.py")))
    assert seconds > 0 and size > 0


def test_bench_runs_end_to_end_on_a_tiny_repo(tmp_path, capsys):
    out = tmp_path / "bench.json"
    rc = bench.main(["--files", "25", "--runs", "1", "--no-bandit", "--work", str(tmp_path),
                     "--json", str(out)])
    assert rc == 0
    (res,) = json.loads(out.read_text())
    assert res["files_indexed"] == 25 and res["python_parsed"] > 0
    assert res["cold_s"] > 0 and res["warm_s"] > 0 and res["parse_once_s"] > 0
    assert res["cold_maxrss_mb"] > 0 and res["bandit_s"] is None
    assert "cold/parse" in capsys.readouterr().out


def test_synthetic_typescript_repo_is_deterministic_and_valid(tmp_path):
    import tree_sitter as ts
    import tree_sitter_typescript as tsts

    a = bench.make_synthetic(80, tmp_path / "a", lang="typescript")
    b = bench.make_synthetic(80, tmp_path / "b", lang="typescript")
    assert _head(a) == _head(b) and a.name.startswith("synth-ts-")
    files = subprocess.run(["git", "ls-files"], cwd=a, capture_output=True, text=True,
                           check=True).stdout.split()
    assert len(files) == 80
    texts = {p: (a / p).read_text() for p in files}
    assert any("spawn(" in t and "showWarningMessage" in t for t in texts.values())
    assert any("StdioServerTransport" in t for t in texts.values())
    assert any(p.endswith(".test.ts") for p in files) and "package.json" in texts
    parsers = {".ts": ts.Parser(ts.Language(tsts.language_typescript())),
               ".tsx": ts.Parser(ts.Language(tsts.language_tsx()))}
    for p, t in texts.items():
        suffix = p[p.rfind("."):]
        if suffix in parsers:  # valid TypeScript, so parse errors do not skew the baseline
            assert not parsers[suffix].parse(t.encode()).root_node.has_error, p


def test_parse_once_baseline_counts_typescript_files(tmp_path):
    repo = bench.make_synthetic(40, tmp_path, lang="typescript")
    by_lang: dict = {}
    seconds, count, size = bench.parse_once(repo, by_lang)
    ts_files = [p for p in repo.rglob("*") if p.suffix in (".ts", ".tsx", ".js") and
                ".git" not in p.parts]
    assert count == len(ts_files) == by_lang["ts"][0] and "python" not in by_lang
    assert seconds > 0 and size == by_lang["ts"][1] > 0


def test_export_tree_writes_the_committed_files(tmp_path):
    repo = bench.make_synthetic(20, tmp_path / "src", lang="typescript")
    out = bench.export_tree(repo, tmp_path / "out")
    committed = subprocess.run(["git", "ls-files"], cwd=repo, capture_output=True, text=True,
                               check=True).stdout.split()
    assert sorted(str(p.relative_to(out)) for p in out.rglob("*") if p.is_file()) == sorted(committed)
    assert (out / "package.json").read_bytes() == (repo / "package.json").read_bytes()
