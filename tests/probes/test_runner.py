"""The probe runner gives the same findings whether half the probes run in a forked child."""

from __future__ import annotations

import os
import sys

import pytest

from dids.acquire import acquire
from dids.index.repo import build_index
from dids.probes import PROBES, run_probes

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="fork split is Linux-only")


@pytest.fixture
def index(sample_repo):
    return build_index(acquire(str(sample_repo)))


def _dump(findings):
    return {pid: [f.model_dump() for f in found] for pid, found in findings.by_probe.items()}


def test_forked_split_equals_one_process(index):
    alone = _dump(run_probes(index, fork=False))
    split = _dump(run_probes(index, fork=True))
    assert split == alone
    assert any(alone.values())  # the sample agent has findings: the comparison means something


def test_child_failure_falls_back_to_this_process(index, monkeypatch):
    alone = _dump(run_probes(index, fork=False))
    parent = os.getpid()
    ids = sorted(PROBES)
    victim = next(pid for pid in ids[1::2] if alone[pid])  # run by the child, has findings
    spec = PROBES[victim]

    def fails_in_child(ix):
        if os.getpid() != parent:
            raise RuntimeError("child broke")
        return spec.func(ix)

    monkeypatch.setitem(PROBES, victim, spec.__class__(spec.id, spec.criteria, spec.remediation,
                                                       fails_in_child))
    assert _dump(run_probes(index, fork=True)) == alone


def test_typescript_units_split_like_python_ones(tmp_path_factory):
    """A Node package as the scored path: its TypeScript probe units are spread over both
    processes too, and the findings equal one process's."""
    from tests.agentmodel.repos import modelled
    from tests.ts.test_ts_terminal_approvals import FILES

    index = modelled(tmp_path_factory, FILES).index
    assert index.agent.ts is not None
    alone = _dump(run_probes(index, fork=False))
    split = _dump(run_probes(index, fork=True))
    assert split == alone
    assert any(f["location"]["path"].endswith(".ts") for found in alone.values() for f in found
               if f.get("location"))
