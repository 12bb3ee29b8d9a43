"""How to fix what the gate failed on, in the rubric's words.

A failed check names what failed; these lines say what would make it pass: the ladder's
next-level text for each level a dimension is short of, the one-level steps (with their gain
after caps) that would close a score shortfall, and, under an expired waiver, to renew it or
fix the gap it covered.
"""

from __future__ import annotations

from ..models import Report
from ..rubric import load_rubric
from ..scoring import improvements

MAX_STEPS = 5  # steps listed under one score shortfall


def level_steps(criterion: str, dim: str, have: int | None, need: int) -> list[str]:
    """"to reach L1: …" for every level from HAVE up to NEED, then what to change."""
    crit = load_rubric().criteria[criterion]
    start = have if have is not None else 0
    out = [f"to reach L{level + 1}: {crit.rung(dim, level).next}"
           for level in range(start, min(need, 4))]
    out.append(f"what to change: {crit.improvements[dim]}")
    return out


def closing_steps(report: Report, shortfall: float, criterion: str | None = None) -> list[str]:
    """The highest-ranked one-level steps whose gains after caps add up to SHORTFALL (at most
    MAX_STEPS of them); CRITERION limits them to one criterion. Gains are each step's own,
    from today's levels: two steps on one criterion may add a little less together."""
    rubric = load_rubric()
    ranked = [i for i in improvements(report.criteria, rubric, top=10 ** 6)
              if (criterion is None or i.criterion == criterion) and (i.gain or 0) > 0]
    if not ranked:
        return ["no one-level step raises the counted score (a cap binds, or an opt-in "
                "alternative counts): see the card's criterion details"]
    picked, total = [], 0.0
    for imp in ranked:
        if total >= shortfall - 1e-9 or len(picked) == MAX_STEPS:
            break
        picked.append(imp)
        total += imp.gain or 0.0
    closes = total >= shortfall - 1e-9
    head = (f"{len(picked)} one-level step{'s' if len(picked) != 1 else ''} would close the "
            f"{shortfall:.2f} shortfall (gains after caps):" if closes else
            f"the {len(picked)} largest one-level steps add +{total:.3f} of the {shortfall:.2f} "
            "needed (then the next levels; the card lists them all):")
    lines = [head]
    for imp in picked:
        where = f" ({imp.where})" if imp.where else ""
        lines.append(f"  {imp.criterion} {imp.dimension} L{imp.from_level}→L{imp.to_level} "
                     f"+{imp.gain:.3f}{where}: {imp.text}")
    return lines


def renew_or_fix(waiver) -> list[str]:
    """Under an expired waiver: renew it where it is declared, or fix the gap it covered."""
    where = waiver.where
    how = ("set a later `expires` (and a current justification) in the suppression comment at "
           if waiver.origin == "comment" else "set a later `expires` (and a current "
           "justification) in the waiver at ")
    crit = load_rubric().criteria.get(waiver.criterion)
    fix = f"; or fix the gap: {crit.improvements[waiver.dimension]}" if crit else ""
    return [f"renew or fix: {how}{where}{fix}"]
