"""The scorer, exactly per the scoring-model contract: raw, caps, alternatives, totals, deltas."""

from __future__ import annotations

from .models import (
    DIMENSIONS,
    ConfigurationAssessment,
    CriterionAssessment,
    CriterionResult,
    Improvement,
    Kind,
    Levels,
    ScoredConfiguration,
)
from .rubric import Rubric


def raw_score(levels: Levels, rubric: Rubric) -> float:
    # integer numerator, one float division, then round(x, 2): see the contract
    num = sum(rubric.dimensions[d].weight * levels.get(d) for d in DIMENSIONS)
    return round(num / (100 * 4), 2)


def coherent(levels: Levels) -> Levels:
    """D ≤ S + 1: a strong default of a weak mechanism is still weak."""
    if levels.D > levels.S + 1:
        return levels.model_copy(update={"D": levels.S + 1})
    return levels


def score_configuration(cfg: ConfigurationAssessment, rubric: Rubric) -> ScoredConfiguration:
    levels = coherent(cfg.levels())
    raw = raw_score(levels, rubric)
    caps = list(cfg.caps)
    if cfg.opt_in and "G1" not in caps:
        caps.insert(0, "G1")
    cap = None
    score = raw
    if caps:
        # the binding cap is the lowest ceiling; ties keep the first listed (G1 for opt-ins)
        cap = min(caps, key=lambda c: rubric.caps[c].ceiling)
        score = min(raw, rubric.caps[cap].ceiling)
    return ScoredConfiguration(name=cfg.name, label=cfg.label, opt_in=cfg.opt_in, levels=levels,
                               raw=raw, cap=cap, score=round(score, 2))


def confidence(cfg: ConfigurationAssessment) -> str:
    worst = "High"
    for d in DIMENSIONS:
        ev = cfg.dims[d].evidence
        if not ev:
            return "Low"
        if all(e.kind == Kind.inferred for e in ev):
            worst = "Medium"
    return worst


def score_criterion(assessment: CriterionAssessment, rubric: Rubric) -> CriterionResult:
    crit = rubric.criteria[assessment.criterion]
    base = dict(id=crit.id, title=crit.title, threats=tuple(crit.threats),
                summary=assessment.summary, assessment=assessment, notes=assessment.notes)
    if not assessment.assessed or not assessment.configurations:
        return CriterionResult(**base, assessed=False, configurations=(), counted="default",
                               counted_name="default", levels=None, raw=0.0, cap=None,
                               cap_text=None, score=0.0, confidence="Low")
    scored = [score_configuration(c, rubric) for c in assessment.configurations]
    best = 0
    for i, s in enumerate(scored):
        if s.score > scored[best].score:  # strict: a tie keeps the default
            best = i
    counted = scored[best]
    cap_text = rubric.caps[counted.cap].text if counted.cap else None
    return CriterionResult(
        **base, assessed=True, configurations=tuple(scored),
        counted="alt" if counted.opt_in else "default", counted_name=counted.name,
        levels=counted.levels, raw=counted.raw, cap=counted.cap, cap_text=cap_text,
        score=counted.score, confidence=confidence(assessment.configurations[best]),
    )


def total_score(results: list[CriterionResult]) -> float:
    hundredths = sum(round(r.score * 100) for r in results)
    return round(hundredths / 100, 1)


# which dimension's step removes the condition behind a criterion cap
_CAP_LIFTERS = {"C2-POWERBYPASS": "DC", "C5-WORSTCASE": "B", "C1-SELFESC": "D", "C6-REPOCONFIG": "D"}


def improvements(results: list[CriterionResult], rubric: Rubric, top: int = 5) -> list[Improvement]:
    """Single-dimension one-level steps, ranked by delta then by caps the step would lift."""
    cands: list[tuple[float, int, int, Improvement]] = []
    for r in results:
        if not r.assessed or r.levels is None:
            continue
        crit = rubric.criteria[r.id]
        counted_cfg = next(c for c in r.configurations if c.name == r.counted_name)
        target_cfg = counted_cfg
        if counted_cfg.opt_in:
            # the alternative is what should become default: improve the default's weakest rung
            target_cfg = next(c for c in r.configurations if not c.opt_in)
        assess = next(c for c in r.assessment.configurations if c.name == target_cfg.name)
        for d in DIMENSIONS:
            cur = target_cfg.levels.get(d)
            if cur >= 4:
                continue
            delta = rubric.dimensions[d].weight / 100 * 1 / 4
            lifted = sum(1 for c in assess.caps if d in _CAP_LIFTERS.get(c, ""))
            ev = assess.dims[d].evidence
            where = None
            for e in ev:
                if e.path:
                    where = f"{e.path}:{e.start_line}" + (
                        f"-{e.end_line}" if e.end_line and e.end_line != e.start_line else "")
                    break
            step = f", step {crit.playbook_step}" if crit.playbook_step else ""
            text = f"{crit.improvements[d]} {assess.dims[d].next_level}".strip()
            imp = Improvement(criterion=r.id, dimension=d, from_level=cur, to_level=cur + 1,
                              delta=round(delta, 3), caps_lifted=lifted, text=text, where=where,
                              playbook=f"Playbook {crit.playbook}{step}")
            cands.append((-delta, -lifted, cur, imp))
    cands.sort(key=lambda t: (t[0], t[1], t[2], int(t[3].criterion[1:]), "SCDB".index(t[3].dimension)))
    return [c[3] for c in cands[:top]]
