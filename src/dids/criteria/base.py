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
        a = fn(ctx) if fn else not_assessed(cid)
        if a.configurations:
            from .context import augment

            a = augment(ctx, a)
        out.append(a.model_copy(update={"summary": narrative(a)}) if a.configurations else a)
    return out


def narrative(a: CriterionAssessment) -> str:
    """The criterion's paragraph: the default's judgment, the alternative if any, the located
    evidence it rests on (paths and claims from this repository), then the probe counts."""
    default = next((c for c in a.configurations if not c.opt_in), a.configurations[0])
    parts = [default.dims["S"].summary]
    for d in ("B", "D"):
        text = default.dims[d].summary
        if text not in parts:
            parts.append(text)
            break
    for alt in (c for c in a.configurations if c.opt_in):
        parts.append(f"With the {alt.label}: {alt.dims['S'].summary[:1].lower()}"
                     f"{alt.dims['S'].summary[1:]}")
    seen, cites = set(), []
    for cfg in a.configurations:
        for d in "SCDB":
            for e in cfg.dims[d].evidence:
                if e.path and (e.path, e.start_line) not in seen and len(cites) < 4:
                    seen.add((e.path, e.start_line))
                    cites.append(f"{e.claim.rstrip('.')} ({e.path}:{e.start_line})")
    if cites:
        parts.append("Evidence: " + "; ".join(cites) + ".")
    parts.append(a.summary)
    return " ".join(p.strip() for p in parts if p.strip())
