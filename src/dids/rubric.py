"""The rubric as data: criteria, ladders, caps, bands and playbooks, read from the packaged
`src/dids/data/rubrics/` (see `resources`)."""

from __future__ import annotations

import hashlib
from functools import lru_cache
from importlib.resources.abc import Traversable
from pathlib import Path

import yaml

# the C-accelerated safe loader when libyaml is present; same constructors as safe_load
_SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
from pydantic import BaseModel, Field

from .models import CRITERIA, DIMENSIONS
from .resources import data_dir


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
    # a gap's seriousness for code scanning (SARIF security-severity): criteria whose failure
    # hands over the host or its secrets rank above audit and limits
    security_severity: float = Field(5.0, gt=0, le=10)
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


def rubric_dir() -> Traversable:
    """The packaged rubric directory, or the one DIDS_RUBRIC_DIR names."""
    return data_dir("rubrics")


def yaml_files(d: Traversable) -> list[Traversable]:
    """The *.yaml files of D sorted by name: what the rubric digest covers."""
    return sorted((f for f in d.iterdir() if f.is_file() and f.name.endswith(".yaml")),
                  key=lambda f: f.name)


def digest_of(d: Traversable) -> str:
    h = hashlib.sha256()
    for f in yaml_files(d):
        h.update(f.name.encode() + b"\0" + f.read_bytes())
    return h.hexdigest()[:16]


@lru_cache(maxsize=4)
def load_rubric(directory: str | None = None) -> Rubric:
    d: Traversable = Path(directory) if directory else rubric_dir()
    model = yaml.load(d.joinpath("model.yaml").read_text(encoding="utf-8"), Loader=_SAFE_LOADER)
    criteria = {}
    for cid in CRITERIA:
        data = yaml.load(d.joinpath(f"{cid.lower()}.yaml").read_text(encoding="utf-8"),
                         Loader=_SAFE_LOADER)
        crit = CriterionRubric(**data)
        for dim in DIMENSIONS:
            levels = [r.level for r in crit.ladders[dim]]
            if levels != [0, 1, 2, 3, 4]:
                raise ValueError(f"{cid} {dim} ladder must list levels 0..4, got {levels}")
        criteria[cid] = crit
    return Rubric(digest=digest_of(d), criteria=criteria, **model)
