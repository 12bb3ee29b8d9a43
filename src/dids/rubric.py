"""The rubric as data: criteria, ladders, caps, bands and playbooks loaded from `rubrics/`."""

from __future__ import annotations

import hashlib
import os
import sys
from functools import lru_cache
from pathlib import Path

import yaml

# the C-accelerated safe loader when libyaml is present; same constructors as safe_load
_SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
from pydantic import BaseModel

from .models import CRITERIA, DIMENSIONS


class Rung(BaseModel):
    level: int
    means: str
    next: str


class CriterionRubric(BaseModel):
    id: str
    title: str
    threats: list[str]
    question: str
    playbook: int
    playbook_step: int | None = None
    ladders: dict[str, list[Rung]]
    improvements: dict[str, str]

    def rung(self, dim: str, level: int) -> Rung:
        return self.ladders[dim][level]


class Cap(BaseModel):
    ceiling: float
    when: str
    text: str


class Band(BaseModel):
    name: str
    min: float


class Dimension(BaseModel):
    name: str
    weight: int


class Playbook(BaseModel):
    title: str
    steps: dict[int, str]


class Rubric(BaseModel):
    version: int
    digest: str
    dimensions: dict[str, Dimension]
    caps: dict[str, Cap]
    bands: list[Band]
    playbooks: dict[int, Playbook]
    surface: dict[str, str]
    criteria: dict[str, CriterionRubric]

    def band(self, total: float) -> str:
        for b in self.bands:
            if total >= b.min:
                return b.name
        return self.bands[-1].name


def rubric_dir() -> Path:
    env = os.environ.get("DIDS_RUBRIC_DIR")
    if env:
        return Path(env)
    return data_dir("rubrics")


def data_dir(name: str) -> Path:
    """`rubrics` or `templates`: the source tree's copy, else the installed one."""
    # source checkout: <root>/src/dids/rubric.py -> <root>/<name>
    here = Path(__file__).resolve().parents[2] / name
    if here.is_dir():
        return here
    return Path(sys.prefix) / "share" / "dids" / name


@lru_cache(maxsize=4)
def load_rubric(directory: str | None = None) -> Rubric:
    d = Path(directory) if directory else rubric_dir()
    h = hashlib.sha256()
    files = sorted(d.glob("*.yaml"))
    for f in files:
        h.update(f.name.encode() + b"\0" + f.read_bytes())
    model = yaml.load((d / "model.yaml").read_text(), Loader=_SAFE_LOADER)
    criteria = {}
    for cid in CRITERIA:
        data = yaml.load((d / f"{cid.lower()}.yaml").read_text(), Loader=_SAFE_LOADER)
        crit = CriterionRubric(**data)
        for dim in DIMENSIONS:
            levels = [r.level for r in crit.ladders[dim]]
            if levels != [0, 1, 2, 3, 4]:
                raise ValueError(f"{cid} {dim} ladder must list levels 0..4, got {levels}")
        criteria[cid] = crit
    return Rubric(digest=h.hexdigest()[:16], criteria=criteria, **model)
