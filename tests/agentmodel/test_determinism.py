"""The agent model is the same in every process: Python salts string hashes per process, so
nothing may depend on the order of a set of names. Scored twice under different hash seeds,
the call graph's edges and the reach distances are identical."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from conftest import RepoBuilder

NAMES = [f"Block{i}" for i in range(12)]

MODELS = "".join(f"class {n}:\n    def run(self):\n        return {i}\n\n\n"
                 for i, n in enumerate(NAMES))

# a registry that names every class once on one line: the order its edges are added in is
# the order the names are read in
REGISTRY = ("from pkg.models import " + ", ".join(NAMES) + "\n\n"
            "BLOCKS = [" + ", ".join(NAMES) + "]\n\n\n"
            "def main():\n    for b in BLOCKS:\n        b().run()\n")

DUMP = """
import json, sys
from dids.acquire import acquire
from dids.agent import build_model
from dids.index.repo import build_index
m = build_model(build_index(acquire(sys.argv[1])))
print(json.dumps({"edges": {k: v for k, v in sorted(m.graph.edges.items())},
                  "dist": dict(sorted(m.reach.dist.items()))}))
"""


def test_edges_and_distances_do_not_depend_on_the_hash_seed(tmp_path):
    repo = RepoBuilder(tmp_path / "repo")
    repo.commit({"pyproject.toml": '[project]\nname = "pkg"\n[project.scripts]\npkg = "pkg.reg:main"\n',
                 "pkg/__init__.py": "", "pkg/models.py": MODELS, "pkg/reg.py": REGISTRY})
    runs = []
    for seed in ("1", "2", "3"):
        env = dict(os.environ, PYTHONHASHSEED=seed, DIDS_CACHE_DIR=str(tmp_path / f"cache{seed}"))
        out = subprocess.run([sys.executable, "-c", DUMP, str(repo.path)], env=env, check=True,
                             capture_output=True, text=True).stdout
        runs.append(json.loads(out))
    refs = [t for t, _line, how in runs[0]["edges"]["pkg/reg.py::<module>"] if how == "ref"]
    assert len(refs) == len(NAMES)  # the registry's edges are there to be ordered
    assert runs[0] == runs[1] == runs[2]
