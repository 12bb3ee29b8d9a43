"""Pydantic models shared by every layer: evidence, findings, levels, results, the report."""

from __future__ import annotations

from enum import Enum
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, with_config
from typing_extensions import TypedDict  # pydantic needs this one before Python 3.12

DIMENSIONS = ("S", "C", "D", "B")
CRITERIA = tuple(f"C{i}" for i in range(1, 11))


class Kind(str, Enum):
    verified = "verified"  # a code construct the detector matched and checked
    inferred = "inferred"  # names, docs, indirect signals
    search = "search"  # a concrete (usually negative) search, command and hit count in the claim


class Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Location(Frozen):
    path: str
    start_line: int
    end_line: int

    def label(self) -> str:
        if self.start_line == self.end_line:
            return f"{self.path}:{self.start_line}"
        return f"{self.path}:{self.start_line}-{self.end_line}"


class Finding(Frozen):
    """One fact a probe established, with where it holds."""

    probe: str
    claim: str
    kind: Kind = Kind.verified
    location: Location | None = None  # None only for searches over the whole tree
    data: dict[str, str | int | bool | None] = Field(default_factory=dict)


class Evidence(Frozen):
    """A finding as it supports one level of one configuration."""

    dimension: Literal["S", "C", "D", "B"]
    configuration: str
    path: str | None
    start_line: int | None
    end_line: int | None
    kind: Kind
    claim: str
    probe: str

    @classmethod
    def of(cls, finding: Finding, dimension: str, configuration: str) -> "Evidence":
        loc = finding.location
        return cls(
            dimension=dimension,  # type: ignore[arg-type]
            configuration=configuration,
            path=loc.path if loc else None,
            start_line=loc.start_line if loc else None,
            end_line=loc.end_line if loc else None,
            kind=finding.kind,
            claim=finding.claim,
            probe=finding.probe,
        )


class Levels(Frozen):
    S: int = Field(ge=0, le=4)
    C: int = Field(ge=0, le=4)
    D: int = Field(ge=0, le=4)
    B: int = Field(ge=0, le=4)

    def get(self, dim: str) -> int:
        return getattr(self, dim)


class DimensionAssessment(Frozen):
    level: int = Field(ge=0, le=4)
    summary: str
    next_level: str
    evidence: tuple[Evidence, ...] = ()


class ConfigurationAssessment(Frozen):
    """An assessor's judgment of one configuration (default or an opt-in alternative)."""

    name: str
    label: str
    opt_in: bool
    dims: dict[str, DimensionAssessment]
    caps: tuple[str, ...] = ()  # criterion-specific caps that hold in this configuration

    def levels(self) -> Levels:
        return Levels(**{d: self.dims[d].level for d in DIMENSIONS})


class CriterionAssessment(Frozen):
    criterion: str
    assessed: bool
    summary: str
    configurations: tuple[ConfigurationAssessment, ...] = ()
    notes: tuple[str, ...] = ()


class ScoredConfiguration(Frozen):
    name: str
    label: str
    opt_in: bool
    levels: Levels
    raw: float
    cap: str | None
    score: float


class CriterionResult(Frozen):
    id: str
    title: str
    threats: tuple[str, ...]
    assessed: bool
    summary: str
    configurations: tuple[ScoredConfiguration, ...]
    counted: str  # "default" or "alt"
    counted_name: str
    levels: Levels | None
    raw: float
    cap: str | None
    cap_text: str | None
    score: float
    confidence: Literal["High", "Medium", "Low"]
    assessment: CriterionAssessment
    notes: tuple[str, ...] = ()


class Improvement(Frozen):
    criterion: str
    dimension: str
    from_level: int
    to_level: int
    delta: float
    caps_lifted: int
    text: str
    where: str | None
    playbook: str
    gain: float | None = None  # what the step adds to the criterion's score after caps


class Tool(Frozen):
    """A function or class the model can invoke."""

    name: str
    path: str
    line: int
    registration: str
    capabilities: tuple[str, ...]
    requires_approval: bool | None = None


@with_config(ConfigDict(extra="allow"))
class CriticalGap(TypedDict, total=False):
    """One "Critical gaps" line. A plain dict (renderers and the gate add keys), typed so that a
    cached report's evidence comes back as Evidence, not as dicts."""

    criterion: str
    dimension: str
    text: str
    tags: str
    evidence: list[Evidence]


class Report(BaseModel):
    model_config = ConfigDict(extra="forbid")

    schema_: str = Field("dids.report/1", alias="schema")
    repo_url: str
    commit: str
    reviewed: str  # the review date (--reviewed, default the day of the run)
    name: str
    what_it_is: str
    category: str
    scored_configuration: str
    surface: dict[str, str]
    surface_evidence: dict[str, tuple[Evidence, ...]] = Field(default_factory=dict)
    criteria: list[CriterionResult]
    score: float
    band: str
    summary: str
    critical_gaps: list[CriticalGap] = Field(default_factory=list)
    rule_of_two: dict = Field(default_factory=dict)
    improvements: list[Improvement] = Field(default_factory=list)
    reaudit_log: list[str] = Field(default_factory=list)
    limitations: list[str] = Field(default_factory=list)
    tools: list[Tool] = Field(default_factory=list)
    stats: dict[str, int | float] = Field(default_factory=dict)
    agent: dict = Field(default_factory=dict)  # the agent model as shown (agent_view.summarize)
    could_not_assess: list[str] = Field(default_factory=list)  # coverage.assess reasons
    commit_date: str = ""  # the scored commit's committer date (YYYY-MM-DD)
