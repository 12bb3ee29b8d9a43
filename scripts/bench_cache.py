#!/usr/bin/env python3
"""Measure the result cache: first vs second `dids score` of the same commit (target ≥5× faster).

usage: bench_cache.py [TARGET] [--commit REV] [--format md|json] [--copies N] [--runs K]

Each run is the real CLI in a fresh process with a fresh DIDS_CACHE_DIR (a temporary directory):
  cold      first `dids score` (clone for URLs, export, index, probes, scoring; fills the cache)
  no-cache  `dids score --no-cache` again (the packed search corpus is reused; index + probes rerun)
  cached    second `dids score` (read back from the result cache: no index, no probes)
Without TARGET a synthetic repository is made from N copies of fixtures/sample-agent.
Prints the timings and the ratios; outputs of the cold and cached runs must be identical.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))

from make_fixture_repo import git  # noqa: E402


def synthetic_repo(dest: Path, copies: int) -> Path:
    src = ROOT / "fixtures" / "sample-agent"
    shutil.copytree(src, dest)
    for i in range(copies):
        shutil.copytree(src / "agent", dest / f"agent{i:03d}")
    git(dest, "init", "-q")
    git(dest, "add", "-A")
    git(dest, "commit", "-q", "-m", "bench")
    return dest


def run(args: list[str], env: dict[str, str]) -> tuple[float, str]:
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "dids.cli", *args], capture_output=True,
                          text=True, env=env, cwd=ROOT)
    elapsed = time.perf_counter() - t0
    if proc.returncode != 0:
        sys.exit(f"dids {' '.join(args)} failed ({proc.returncode}): {proc.stderr.strip()}")
    return elapsed, proc.stdout


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("target", nargs="?")
    ap.add_argument("--commit")
    ap.add_argument("--format", default="json", choices=("md", "json"))
    ap.add_argument("--copies", type=int, default=400)
    ap.add_argument("--runs", type=int, default=3, help="repeat the cached run K times (median)")
    opts = ap.parse_args()

    with tempfile.TemporaryDirectory(prefix="dids-bench-") as tmp:
        target = opts.target or str(synthetic_repo(Path(tmp) / "repo", opts.copies))
        env = {**os.environ, "DIDS_CACHE_DIR": str(Path(tmp) / "cache")}
        args = ["score", target, "--format", opts.format] + (
            ["--commit", opts.commit] if opts.commit else [])
        cold, out1 = run(args, env)
        nocache, _ = run(args + ["--no-cache"], env)
        cached = []
        for _ in range(max(1, opts.runs)):
            t, out2 = run(args, env)
            cached.append(t)
            if out2 != out1:
                sys.exit("cached output differs from the first run's")
        warm = statistics.median(cached)
        print(f"target:   {target if opts.target else f'synthetic ({opts.copies} copies of sample-agent)'}")
        print(f"command:  dids {' '.join(args[:1] + args[2:])}")
        print(f"cold      {cold:7.2f} s   (first score, fills the cache)")
        print(f"no-cache  {nocache:7.2f} s   (--no-cache, search corpus reused)")
        print(f"cached    {warm:7.2f} s   (median of {len(cached)}; no index, no probes)")
        print(f"speed-up  first/second = {cold / warm:.1f}x, no-cache/cached = {nocache / warm:.1f}x"
              f" (target >= 5x)")


if __name__ == "__main__":
    main()
