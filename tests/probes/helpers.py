"""Index a synthetic repository and run one probe on it."""

from __future__ import annotations

from dids.acquire import acquire
from dids.index.repo import build_index
from dids.probes import run_probes


def probe_findings(repo, files: dict[str, str], probe_id: str):
    repo.commit(files)
    index = build_index(acquire(str(repo.path)))
    return run_probes(index)[probe_id]
