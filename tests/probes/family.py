"""Index one synthetic repository once per module and read several probes from it.

The single-probe helper in helpers.py builds a repository per test; the family modules share one
live repository and one decoy repository per module so the whole suite stays fast.
"""

from __future__ import annotations

import pytest

from dids.acquire import acquire
from dids.index.repo import build_index
from dids.probes import run_probes


def index_findings(tmp_path_factory, files: dict[str, str]):
    """Findings of every probe on a one-commit repository holding FILES."""
    from conftest import RepoBuilder  # the shared builder of tests/conftest.py

    base = tmp_path_factory.getbasetemp()
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("DIDS_CACHE_DIR", str(base / "dids-cache"))
        repo = RepoBuilder(tmp_path_factory.mktemp("family") / "repo")
        repo.commit(files)
        return run_probes(build_index(acquire(str(repo.path))))


def line_of(src: str, needle: str) -> int:
    """1-based line of the only line of SRC containing NEEDLE."""
    hits = [i for i, t in enumerate(src.splitlines(), 1) if needle in t]
    assert len(hits) == 1, (needle, hits)
    return hits[0]


def located(found) -> list[tuple[str, int]]:
    return [(f.location.path, f.location.start_line) for f in found]


def family_fixtures(live_files, decoy_files, constant_files=None):
    """Module-scoped `live`, `decoys` and `constants` fixtures over three synthetic repos."""

    @pytest.fixture(scope="module")
    def live(tmp_path_factory):
        return index_findings(tmp_path_factory, live_files)

    @pytest.fixture(scope="module")
    def decoys(tmp_path_factory):
        return index_findings(tmp_path_factory, decoy_files)

    @pytest.fixture(scope="module")
    def constants(tmp_path_factory):
        return index_findings(tmp_path_factory, constant_files or {})

    return live, decoys, constants


def near_miss_tests(probe_ids, constants: bool = True):
    """The near-miss tests every probe family shares: nothing fires on prose, tests, docs,
    examples, dead code or (when given) unused string constants."""

    @pytest.mark.parametrize("probe_id", probe_ids)
    def test_no_finding_in_prose_tests_docs_examples_or_dead_code(decoys, probe_id):
        assert decoys[probe_id] == []

    @pytest.mark.parametrize("probe_id", probe_ids)
    def test_no_finding_in_unused_string_constants(constants, probe_id):
        assert constants[probe_id] == []

    if not constants:
        return test_no_finding_in_prose_tests_docs_examples_or_dead_code, None
    return (test_no_finding_in_prose_tests_docs_examples_or_dead_code,
            test_no_finding_in_unused_string_constants)
