"""Synthetic repositories indexed once per test module, with their agent model and findings."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from dids.acquire import acquire
from dids.agent import build_model
from dids.index.repo import build_index
from dids.probes import run_probes


@dataclass
class Modelled:
    files: dict[str, str]
    index: object

    @property
    def model(self):
        return self.index.agent

    def line(self, path: str, needle: str) -> int:
        """1-based line of the only line of PATH containing NEEDLE."""
        hits = [i for i, t in enumerate(self.files[path].splitlines(), 1) if needle in t]
        assert len(hits) == 1, (path, needle, hits)
        return hits[0]

    def reach(self, path: str, needle: str) -> str:
        return self.model.reach.of(path, self.line(path, needle))

    def findings(self):
        if not hasattr(self, "_findings"):
            self._findings = run_probes(self.index)
        return self._findings

    def sink(self, path: str, needle: str):
        line = self.line(path, needle)
        got = [s for s in self.model.session.sinks if (s.path, s.line) == (path, line)]
        assert len(got) == 1, (path, line, self.model.session.sinks)
        return got[0]


def modelled(tmp_path_factory, files: dict[str, str]) -> Modelled:
    """FILES committed to a fresh git repository, indexed, with the agent model built (as
    engine.score_index does before the probes run)."""
    from conftest import RepoBuilder  # the shared builder of tests/conftest.py

    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("DIDS_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "dids-cache"))
        repo = RepoBuilder(tmp_path_factory.mktemp("agentrepo") / "repo")
        repo.commit(files)
        index = build_index(acquire(str(repo.path)))
        index.agent = build_model(index)
        m = Modelled(files, index)
        m.findings()
        return m


def at(findings) -> list[tuple[str, int]]:
    return [(f.location.path, f.location.start_line) for f in findings]


def session_tool_names(m: Modelled) -> list[str]:
    """Names of the tools the default session of M holds (criteria.c3_scoping.default_tools)."""
    from dids.criteria.base import Context
    from dids.criteria.c3_scoping import default_tools
    from dids.rubric import load_rubric

    ctx = Context(index=m.index, findings=m.findings(), rubric=load_rubric())
    return sorted(str(t.data["name"]) for t in default_tools(ctx))
