"""Sentences true of their evidence: no "→ 0 hits" beside a finding of the same probe, counts
that agree with their nouns, and improvements whose top five say different things."""

from __future__ import annotations

import json
import re

import pytest

from dids.sentences import agree_counts


@pytest.mark.parametrize("text,expected", [
    ("1 spawns that pass the environment on.", "1 spawn that passes the environment on."),
    ("1 spawns pass or inherit the parent's environment", "1 spawn passes or inherits the "
                                                          "parent's environment"),
    ("2 process spawns in 1 files; 1 of them run outside", "2 process spawns in 1 file; 1 of "
                                                           "them runs outside"),
    ("1 spawned processes inherit or copy it", "1 spawned process inherits or copies it"),
    ("1 process spawns still hand the full environment", "1 process spawn still hands the full "
                                                         "environment"),
    ("1 places where a cap is applied, 1 cap declarations", "1 place where a cap is applied, "
                                                            "1 cap declaration"),
    ("1 confirmation prompts, 1 MCP stdio launches", "1 confirmation prompt, 1 MCP stdio launch"),
    ("1 symbolic links were reported", "1 symbolic link was reported"),
    ("1 policies apply", "1 policy applies"),
    # other counts, level names and criterion ids stay as they are
    ("C1 scores, L1 needs, line 1 of tools, 0.1 files, 11 files, 2 spawns pass",
     "C1 scores, L1 needs, line 1 of tools, 0.1 files, 11 files, 2 spawns pass"),
    ("1 status, 1 access, 1 analysis", "1 status, 1 access, 1 analysis"),
])
def test_counts_agree(text, expected):
    assert agree_counts(text) == expected


def _contradictions(report: dict) -> list[str]:
    """Negative searches ("→ 0 hits") of a probe that the same criterion cites a hit of."""
    out = []
    for c in report["criteria"]:
        hit_probes = {e["probe"] for e in c["evidence"] if e["path"]}
        for e in c["evidence"]:
            if e["kind"] == "search" and re.search(r"→ 0 hits", e["claim"]) \
                    and e["probe"] in hit_probes:
                out.append(f"{c['id']} {e['dimension']} {e['configuration']}: {e['claim']}")
    return out


def test_sample_card_sentences_are_true(cli, sample_repo):
    report = json.loads(cli("score", str(sample_repo), "--format", "json").stdout)
    assert _contradictions(report) == []
    card = cli("score", str(sample_repo)).stdout
    assert not re.search(r"(?<![\w.])1 (spawns|files|processes|confirmation prompts|places)\b",
                         card)
    c4 = card.split("### C4 ", 1)[1].split("### C5 ", 1)[0]
    default_s = next(line for line in c4.splitlines() if "**S L0:**" in line)
    assert "isolation wrappers" not in default_s  # docker is named in the alternative below
    assert "Isolation wrapper docker is named in live code here" in c4
    c10 = card.split("### C10 ", 1)[1]
    b = next(line for line in c10.splitlines() if line.startswith("- **B L"))
    # the cancel search found a hit elsewhere: it is dropped, the located evidence stays
    assert "→ 0 hits" not in b and "agent/loop.py:11" in b


def test_top_improvements_are_different_steps(cli, sample_repo):
    report = json.loads(cli("score", str(sample_repo), "--format", "json").stdout)
    top = report["improvements"]
    assert len(top) == 5
    assert len({i["criterion"] for i in top}) == 5  # equal steps: one per criterion first
    # a step that leaves the counted score where it is (C4's opt-in alternative counts) does
    # not crowd out one that raises it
    assert all(i["gain"] > 0 for i in top)
    assert not any(i["criterion"] == "C4" and i["dimension"] == "S" for i in top)


def test_gain_after_caps_breaks_ties():
    from dids.rubric import load_rubric
    from dids.scoring import improvements, score_criterion
    from test_scoring import _cfg  # the table tests' configuration builder
    from dids.models import CriterionAssessment

    rubric = load_rubric()

    def crit(cid, default, alt=None):
        cfgs = (_cfg("default", default, False),) + ((_cfg("alt", alt, True),) if alt else ())
        return score_criterion(CriterionAssessment(criterion=cid, assessed=True, summary="s",
                                                   configurations=cfgs), rubric)

    # C4: the alternative (0.50 after G1) counts; a step on the default moves nothing
    results = [crit("C4", (0, 0, 0, 0), (3, 3, 3, 3)), crit("C9", (0, 0, 0, 0))]
    ranked = improvements(results, rubric, top=8)
    assert [(i.criterion, i.dimension) for i in ranked[:2]] == [("C9", "S"), ("C9", "C")]
    c4 = [i for i in ranked if i.criterion == "C4"]
    assert c4 and all(i.gain == 0.0 for i in c4) and ranked.index(c4[0]) >= 2
