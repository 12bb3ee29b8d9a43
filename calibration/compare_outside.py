#!/usr/bin/env python3
"""Score the repositories of calibration/outside-reviews at their reviewed commits and compare
the levels with those reviews (exact cells, per-criterion MAE and bias, key-citation recall).

usage: compare_outside.py --repos DIR [--dids PATH] [--only NAME,...] [--out DIR]

DIR holds one clone per repository, named as in index.json (`git clone --no-checkout` is
enough: dids reads the pinned commit from the object store). Nothing is fetched or built here.
The reviews are model-written, not expert reviews: read a disagreement as a pattern to check
against the development set's conventions, not as a target.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent / "outside-reviews"
DIMS = "SCDB"


def counted(e: dict) -> dict:
    if e.get("counted") == "alt" and e.get("alt"):
        return {d: e["alt"][d] for d in DIMS}
    return {d: e[d] for d in DIMS}


def recall(crit: dict, keys: list[str], window: int = 10) -> tuple[int, int, int]:
    ev = [(e["path"], e.get("start_line") or 0, e.get("end_line") or e.get("start_line") or 0)
          for e in crit.get("evidence", []) if e.get("path")]
    n = f = ln = 0
    for k in keys:
        m = re.match(r"`?([^:`]+):(\d+)(?:-(\d+))?", k.strip())
        if not m:
            continue
        n += 1
        p, a, b = m.group(1), int(m.group(2)), int(m.group(3) or m.group(2))
        same = [x for x in ev if x[0] == p]
        f += bool(same)
        ln += any(s - window <= b and a <= t + window for _, s, t in same)
    return n, f, ln


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repos", required=True, type=Path)
    ap.add_argument("--dids", default=".venv/bin/dids")
    ap.add_argument("--only", default="")
    ap.add_argument("--out", type=Path, default=None, help="keep the JSON reports here")
    a = ap.parse_args()
    index = json.loads((HERE / "index.json").read_text())
    only = set(filter(None, a.only.split(",")))
    agg: dict[str, list[float]] = {}
    exact = cells = 0
    for entry in index["repos"]:
        name = entry["name"]
        if only and name not in only:
            continue
        clone = a.repos / name
        if not clone.exists():
            print(f"{name}: no clone at {clone}, skipped")
            continue
        out = (a.out or Path("/tmp")) / f"{name}.json"
        p = subprocess.run([a.dids, "score", str(clone), "--commit", entry["commit"], "--format",
                            "json", "-o", str(out), "-q"], capture_output=True, text=True)
        if p.returncode not in (0, 1):
            print(f"{name}: dids exit {p.returncode}: {p.stderr.strip()[-200:]}")
            continue
        rep = json.loads(out.read_text())
        lv = json.loads((HERE / name / "levels.json").read_text())
        by = {c["id"]: c for c in rep["criteria"]}
        ex = n = k = f = ln = 0
        diffs = []
        for cid, e in lv["criteria"].items():
            want, have = counted(e), (by.get(cid, {}).get("levels") or {})
            for d in DIMS:
                g, w = have.get(d), want[d]
                n += 1
                row = agg.setdefault(cid, [0, 0, 0.0, 0.0])
                row[1] += 1
                if g == w:
                    ex += 1
                    row[0] += 1
                else:
                    diffs.append(f"{cid}.{d} {g}/{w}")
                if g is not None:
                    row[2] += abs(g - w)
                    row[3] += g - w
            kk, ff, ll = recall(by.get(cid, {}), lv.get("key_citations", {}).get(cid, []))
            k, f, ln = k + kk, f + ff, ln + ll
        exact, cells = exact + ex, cells + n
        print(f"{name:22} exact {ex}/{n}  total {rep['score']} vs {lv.get('score')}  "
              f"recall file {f}/{k} line {ln}/{k}")
        print("    differs (dids/review): " + " ".join(diffs))
    for cid, (e, c, err, bias) in agg.items():
        print(f"  {cid:4} exact {e}/{c}  MAE {err / c:.2f}  bias {bias / c:+.2f}")
    if cells:
        print(f"ALL exact {exact}/{cells} = {exact / cells:.0%}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
