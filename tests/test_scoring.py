"""The scorer against every row of both example tables (and the reviewed Tracecat table)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dids.models import (ConfigurationAssessment, CriterionAssessment, DimensionAssessment,
                         Evidence, Kind, Levels)
from dids.rubric import load_rubric
from dids.scoring import improvements, raw_score, score_criterion, total_score

# the example and reviewed score tables, kept as test data so the suite stands alone
REF = Path(__file__).resolve().parent / "data" / "reference"

# Default configurations where the table's counted row is an alternative (from the cards' details).
ALT_DEFAULTS = {
    ("tracecat", "C4"): ((2, 1, 1, 0), ()),
    ("opensre", "C2"): ((0, 0, 0, 0), ("C2-POWERBYPASS",)),
}
TABLE_CAPS = {"C2-POWERBYPASS", "C5-WORSTCASE", "C1-SELFESC", "C6-REPOCONFIG"}


def _cfg(name, levels, opt_in, caps=(), kind=Kind.verified):
    ev = Evidence(dimension="S", configuration=name, path="a.py", start_line=1, end_line=1,
                  kind=kind, claim="x", probe="p")
    dims = {d: DimensionAssessment(level=lv, summary="s", next_level="n",
                                   evidence=(ev.model_copy(update={"dimension": d}),))
            for d, lv in zip("SCDB", levels)}
    return ConfigurationAssessment(name=name, label=name, opt_in=opt_in, dims=dims, caps=caps)


def _assessments(table: str, levels_file: str):
    data = json.loads((REF / levels_file).read_text())
    out = []
    for cid, row in data["criteria"].items():
        lv = tuple(row[d] for d in "SCDB")
        kind = Kind.inferred if row["confidence"] == "Medium" else Kind.verified
        cap = (row["cap"],) if row["cap"] in TABLE_CAPS else ()
        if row["counted"] == "alt":
            dlv, dcaps = ALT_DEFAULTS[(table, cid)]
            cfgs = (_cfg("default", dlv, False, dcaps), _cfg("alt", lv, True, cap, kind))
        else:
            cfgs = (_cfg("default", lv, False, cap, kind),)
        out.append((row, CriterionAssessment(criterion=cid, assessed=True, summary="s",
                                             configurations=cfgs)))
    return data, out


@pytest.mark.parametrize("table,levels_file", [
    ("tracecat", "example-levels-tracecat.json"),
    ("tracecat", "reviewed-levels-tracecat-2026-08.json"),
    ("opensre", "example-levels-opensre.json"),
])
def test_every_row_and_total(table, levels_file):
    rubric = load_rubric()
    data, rows = _assessments(table, levels_file)
    results = []
    for row, assessment in rows:
        r = score_criterion(assessment, rubric)
        results.append(r)
        cid = assessment.criterion
        assert r.raw == row["raw"], cid
        assert r.cap == row["cap"], cid
        assert r.score == row["score"], cid
        assert r.counted == row["counted"], cid
        assert r.confidence == row["confidence"], cid
        assert r.levels.model_dump() == {d: row[d] for d in "SCDB"}, cid
    assert total_score(results) == data["score"]


def test_alternative_rows_show_both_configurations():
    rubric = load_rubric()
    _, rows = _assessments("opensre", "example-levels-opensre.json")
    c2 = score_criterion(dict((a.criterion, a) for _, a in rows)["C2"], rubric)
    default, alt = c2.configurations
    assert (default.raw, default.cap, default.score) == (0.0, "C2-POWERBYPASS", 0.0)
    assert (alt.raw, alt.cap, alt.score) == (0.23, "G1", 0.23)
    _, rows = _assessments("tracecat", "example-levels-tracecat.json")
    c4 = score_criterion(dict((a.criterion, a) for _, a in rows)["C4"], rubric)
    default, alt = c4.configurations
    assert (default.raw, default.cap, default.score) == (0.28, None, 0.28)
    assert (alt.raw, alt.cap, alt.score) == (0.6, "G1", 0.5)


@pytest.mark.parametrize("levels,expected", [
    ((2, 1, 1, 0), 0.28), ((3, 1, 0, 0), 0.3), ((2, 2, 2, 1), 0.45), ((1, 1, 1, 0), 0.2),
    ((2, 1, 0, 0), 0.23), ((1, 2, 2, 2), 0.42),
])
def test_raw_uses_integer_numerator(levels, expected):
    assert raw_score(Levels(**dict(zip("SCDB", levels))), load_rubric()) == expected


def test_default_is_capped_by_coherence_rule():
    rubric = load_rubric()
    a = CriterionAssessment(criterion="C3", assessed=True, summary="s",
                            configurations=(_cfg("default", (0, 0, 3, 0), False),))
    r = score_criterion(a, rubric)
    assert r.levels.D == 1  # D ≤ S + 1


def test_total_rounds_sum_of_hundredths():
    rubric = load_rubric()
    _, rows = _assessments("tracecat", "reviewed-levels-tracecat-2026-08.json")
    results = [score_criterion(a, rubric) for _, a in rows]
    assert sum(round(r.score * 100) for r in results) == 405
    assert total_score(results) == 4.0


def test_not_assessed_is_low_confidence_zero():
    rubric = load_rubric()
    r = score_criterion(CriterionAssessment(criterion="C9", assessed=False, summary="n"), rubric)
    assert (r.score, r.confidence, r.levels) == (0.0, "Low", None)


def test_improvements_ranked_by_delta_and_formatted():
    rubric = load_rubric()
    _, rows = _assessments("tracecat", "reviewed-levels-tracecat-2026-08.json")
    results = [score_criterion(a, rubric) for _, a in rows]
    imps = improvements(results, rubric)
    assert len(imps) == 5
    deltas = [i.delta for i in imps]
    assert deltas == sorted(deltas, reverse=True)
    assert imps[0].delta == 0.075 and imps[0].dimension in "SC"
    c4 = [i for i in improvements(results, rubric, top=40) if i.criterion == "C4"]
    # C4's counted row is the opt-in alternative: improvements target the default configuration
    assert {(i.dimension, i.from_level) for i in c4} == {("S", 2), ("C", 1), ("D", 1), ("B", 0)}
    assert all(i.playbook == "Playbook 3, step 1" for i in c4)
