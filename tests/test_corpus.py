"""The packed search corpus: hits map back to the right file and line, globs select files."""

from __future__ import annotations

import pytest

from dids.index import corpus as corpus_mod
from dids.index.corpus import _GlobFilter, build, load


@pytest.fixture
def packed(tmp_path, monkeypatch):
    monkeypatch.setattr(corpus_mod, "PACK_BYTES", 64)  # several packs per group
    items = [
        ("a.py", True, b"import os\nos.system('x')\n"),
        ("empty.py", True, b""),
        ("b.py", True, b"x = 1\ny = os.system\n"),  # ends with a newline
        ("c.py", True, b"print('no newline at the end') # os.system"),
        ("pkg/deep/d.py", True, b"\n\n\nos.system(cmd)\n"),
        ("node_modules/m/e.py", True, b"os.system('vendored')\n"),
        ("README.md", False, b"call os.system here\n"),
        ("conf/app.yaml", False, b"key: value\ncmd: os.system\n"),
    ]
    return build(tmp_path / "c", items), items


def _hits(c, pattern="os\\.system", **kw):
    return [(h.path, h.line) for h in c.search([pattern], **kw)]


def test_hits_map_to_file_and_line(packed):
    c, _ = packed
    assert len(c.packs) > 2
    assert _hits(c) == [("README.md", 1), ("a.py", 2), ("b.py", 2), ("c.py", 1),
                        ("conf/app.yaml", 2), ("pkg/deep/d.py", 4)]


def test_read_returns_exact_bytes(packed):
    c, items = packed
    for path, _, data in items:
        assert c.read(path) == data
    assert c.read("missing.py") is None


def test_globs(packed):
    c, _ = packed
    assert _hits(c, globs=("*.py",)) == [("a.py", 2), ("b.py", 2), ("c.py", 1), ("pkg/deep/d.py", 4)]
    assert _hits(c, globs=("*.yaml",)) == [("conf/app.yaml", 2)]
    assert _hits(c, globs=("/pkg/deep/d.py",)) == [("pkg/deep/d.py", 4)]
    assert _hits(c, globs=("*.py", "!**/deep/**")) == [("a.py", 2), ("b.py", 2), ("c.py", 1)]


def test_glob_filter_semantics():
    f = _GlobFilter(("*.py", "!**/tests/**"))
    assert f("x.py") and f("a/b/x.py")
    assert not f("a/tests/x.py") and not f("x.pyc") and not f("x.md")
    anchored = _GlobFilter(("/src/*.py",))
    assert anchored("src/a.py") and not anchored("lib/src/a.py") and not anchored("src/a/b.py")


def test_select_keeps_only_exact_matches(packed):
    c, _ = packed
    hits = c.search(["os"], globs=("*.py",), select=[r"\bos\.system\("])
    assert [(h.path, h.line, h.patterns) for h in hits] == [("a.py", 2, (0,)),
                                                           ("pkg/deep/d.py", 4, (0,))]


def test_load_round_trip_and_rejects_incomplete(packed, tmp_path):
    c, _ = packed
    again = load(c.root)
    assert again is not None and _hits(again) == _hits(c)
    (c.root / "manifest.json").write_text("{")
    assert load(c.root) is None
    assert load(tmp_path / "nowhere") is None


def test_tests_docs_and_examples_are_listed_never_read(repo):
    """Only source and configuration blobs are read and packed; the rest are listed by path."""
    from dids.acquire import acquire
    from dids.engine import score_snapshot
    from dids.index.repo import export_dir

    repo.commit({"agent/run.py": "import subprocess\nsubprocess.run(['ls'])\n",
                 "tests/test_run.py": "MARKER_IN_TESTS = 1\n",
                 "docs/guide.md": "MARKER_IN_DOCS\n",
                 "examples/demo.py": "MARKER_IN_EXAMPLES = 1\n"})
    (repo.path / "docs" / "img.png").write_bytes(b"\x89PNG\0\0binary")
    repo.commit({}, "image")
    snapshot = acquire(str(repo.path))
    report = score_snapshot(snapshot)
    blob = b"".join(p.read_bytes() for p in export_dir(snapshot).glob("*.txt"))
    assert b"subprocess.run(['ls'])" in blob
    assert b"MARKER_IN" not in blob
    assert report.stats["files"] == 5
    assert not any("img.png" in line for line in report.limitations)
