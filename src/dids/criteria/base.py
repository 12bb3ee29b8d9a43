"""Assessor registry and helpers that attach evidence and the rubric's next-level line."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterable

from ..index.repo import RepoIndex
from ..models import (
    CRITERIA,
    ConfigurationAssessment,
    CriterionAssessment,
    DimensionAssessment,
    Evidence,
    Finding,
)
from ..probes.base import Findings
from ..rubric import Rubric


@dataclass
class Context:
    index: RepoIndex
    findings: Findings
    rubric: Rubric


Assessor = Callable[[Context], CriterionAssessment]
ASSESSORS: dict[str, Assessor] = {}


def assessor(cid: str):
    def wrap(func: Assessor) -> Assessor:
        ASSESSORS[cid] = func
        return func

    return wrap


class ConfigBuilder:
    """Collects one configuration's four levels with their evidence."""

    def __init__(self, ctx: Context, criterion: str, name: str, label: str, opt_in: bool):
        self.ctx, self.criterion = ctx, criterion
        self.name, self.label, self.opt_in = name, label, opt_in
        self.dims: dict[str, DimensionAssessment] = {}
        self.caps: list[str] = []

    def set(self, dim: str, level: int, summary: str, evidence: Iterable[Finding],
            next_level: str | None = None) -> None:
        level = max(0, min(4, level))
        rung = self.ctx.rubric.criteria[self.criterion].rung(dim, level)
        ev = tuple(Evidence.of(f, dim, self.name) for f in _dedupe(evidence))[:6]
        self.dims[dim] = DimensionAssessment(level=level, summary=summary,
                                             next_level=next_level or rung.next, evidence=ev)

    def build(self) -> ConfigurationAssessment:
        missing = [d for d in "SCDB" if d not in self.dims]
        if missing:
            raise RuntimeError(f"{self.criterion}/{self.name}: no level for {missing}")
        return ConfigurationAssessment(name=self.name, label=self.label, opt_in=self.opt_in,
                                       dims=self.dims, caps=tuple(self.caps))


def _dedupe(findings: Iterable[Finding]) -> list[Finding]:
    seen, out = set(), []
    for f in findings:
        key = (f.location, f.claim)
        if key not in seen:
            seen.add(key)
            out.append(f)
    return out


def not_assessed(cid: str) -> CriterionAssessment:
    return CriterionAssessment(
        criterion=cid, assessed=False,
        summary="Not assessed: dids has no detector for this criterion yet, so no level is claimed.",
    )


def assess_all(ctx: Context) -> list[CriterionAssessment]:
    from . import (c1_identity, c2_approval, c3_scoping, c4_isolation, c5_untrusted,  # noqa: F401
                   c6_memory, c7_extensions, c8_secrets, c9_audit, c10_limits)

    out = []
    for cid in CRITERIA:
        fn = ASSESSORS.get(cid)
        out.append(fn(ctx) if fn else not_assessed(cid))
    return out
