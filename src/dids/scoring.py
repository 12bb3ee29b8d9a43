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


def _exact_score(levels: Levels, caps: tuple[str, ...], opt_in: bool, rubric: Rubric) -> float:
    """A configuration's score before the 2-decimal rounding (so that a gain is not rounding)."""
    levels = coherent(levels)
    raw = sum(rubric.dimensions[d].weight * levels.get(d) for d in DIMENSIONS) / 400
    ceilings = [rubric.caps[c].ceiling for c in caps] + ([rubric.caps["G1"].ceiling] if opt_in else [])
    return min([raw] + ceilings)


def step_gain(r: CriterionResult, cfg_name: str, dim: str, rubric: Rubric) -> float:
    """What one level more of DIM on configuration CFG_NAME adds to the criterion's counted
    score, after coherence and the caps that hold today (a cap the step might lift is not
    assumed lifted): 0.0 when the counted score does not move (an opt-in alternative counts,
    or a cap already binds)."""
    def score(c, levels=None):
        a = next(x for x in r.assessment.configurations if x.name == c.name)
        return _exact_score(levels or c.levels, a.caps, c.opt_in, rubric)

    before = max(score(c) for c in r.configurations)
    after = max(score(c, c.levels.model_copy(update={dim: min(4, c.levels.get(dim) + 1)}))
                if c.name == cfg_name else score(c) for c in r.configurations)
    return round(max(0.0, after - before), 3)


def improvements(results: list[CriterionResult], rubric: Rubric, top: int = 5) -> list[Improvement]:
    """Single-dimension one-level steps, ranked by delta, then by caps the step would lift,
    then by what the step adds after caps (a step that leaves the counted score where it is
    ranks below one that raises it), and, among steps still equal, one per criterion before a
    second of the same criterion: a top five that says different things."""
    cands: list[tuple[tuple, Improvement]] = []
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
            gain = step_gain(r, target_cfg.name, d, rubric)
            imp = Improvement(criterion=r.id, dimension=d, from_level=cur, to_level=cur + 1,
                              delta=round(delta, 3), caps_lifted=lifted, text=text, where=where,
                              playbook=f"Playbook {crit.playbook}{step}", gain=gain)
            cands.append(((-delta, -lifted, -gain, cur, int(r.id[1:]), "SCDB".index(d)), imp))
    cands.sort(key=lambda t: t[0])
    return _one_per_criterion_first(cands)[:top]


def _one_per_criterion_first(cands: list[tuple[tuple, Improvement]]) -> list[Improvement]:
    """Within each run of equally ranked steps (same delta, caps lifted and gain), steps of
    criteria not listed yet come before a criterion's second step."""
    out: list[Improvement] = []
    seen: set[str] = set()
    i = 0
    while i < len(cands):
        j = i
        while j < len(cands) and cands[j][0][:3] == cands[i][0][:3]:
            j += 1
        firsts, seconds = [], []
        for _, imp in cands[i:j]:
            (seconds if imp.criterion in seen else firsts).append(imp)
            seen.add(imp.criterion)
        out += firsts + seconds
        i = j
    return out
