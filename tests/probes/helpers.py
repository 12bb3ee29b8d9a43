"""Index a synthetic repository and run one probe on it."""

from __future__ import annotations

from dids.acquire import acquire
from dids.index.repo import build_index
from dids.probes import run_probes


def probe_findings(repo, files: dict[str, str], probe_id: str, live: bool = True):
    """Run one probe over FILES. live=True adds an entry point importing every source module, as
    a real application would; near-miss tests about dead code pass live=False."""
    if live:
        mods = sorted(p[:-3].replace("/", ".") for p in files
                      if p.endswith(".py") and not p.startswith(("tests/", "docs/", "examples/")))
        if mods:
            files = {**files, "main.py": "".join(f"import {m}  # noqa\n" for m in mods)}
    repo.commit(files)
    index = build_index(acquire(str(repo.path)))
    return run_probes(index)[probe_id]
