"""The card's sentences made true of their evidence, between the assessors and the scorer.

Two kinds of slip survive in generated text:

* a negative search ("searched live source for isolation wrappers → 0 hits") cited while the
  same probe did find something (docker, in the opt-in backend the card shows right below).
  The search is attributed to a probe; when that probe has findings, "0 hits" is false. A
  dimension that cites other evidence drops the search; one that rests on it alone gets the
  true count and the first hit, and the words "none that raises this level";
* counts that disagree with their noun ("1 spawns pass", "in 1 files"): a count of one takes
  the singular noun and, right after it, the singular verb.

Levels never change here: only what the sentences and the negative searches say.
"""

from __future__ import annotations

import re

from .models import CriterionAssessment, DimensionAssessment, Evidence, Kind

_ZERO_HITS = re.compile(r"\s*→\s*0 hits\.?\s*$")


def true_to_evidence(assessments: list[CriterionAssessment], findings) -> list[CriterionAssessment]:
    """ASSESSMENTS with contradicted negative searches fixed and counts agreeing."""
    return [_fix_assessment(a, findings) for a in assessments]


def _fix_assessment(a: CriterionAssessment, findings) -> CriterionAssessment:
    configs = []
    for cfg in a.configurations:
        dims = {d: _fix_dimension(dim, findings) for d, dim in cfg.dims.items()}
        configs.append(cfg.model_copy(update={"dims": dims}))
    return a.model_copy(update={"summary": agree_counts(a.summary),
                                "notes": tuple(agree_counts(n) for n in a.notes),
                                "configurations": tuple(configs)})


def _fix_dimension(dim: DimensionAssessment, findings) -> DimensionAssessment:
    evidence = []
    for e in dim.evidence:
        found = _contradicting(e, findings)
        if not found:
            evidence.append(e)
        elif any(x.kind != Kind.search for x in dim.evidence):
            continue  # the located evidence beside it says what this level rests on
        else:
            evidence.append(e.model_copy(update={"claim": _true_count(e.claim, found)}))
    return dim.model_copy(update={"summary": agree_counts(dim.summary),
                                  "evidence": tuple(evidence)})


def _contradicting(e: Evidence, findings) -> list:
    """The located findings of the probe a "→ 0 hits" search is attributed to."""
    if e.kind != Kind.search or e.path is not None or not _ZERO_HITS.search(e.claim):
        return []
    return [f for f in findings[e.probe] if f.location is not None and f.kind != Kind.search]


def _true_count(claim: str, found: list) -> str:
    first = min(found, key=lambda f: (f.location.path, f.location.start_line)).location
    n = len(found)
    return (_ZERO_HITS.sub("", claim) + f" → {n} {'hit' if n == 1 else 'hits'} (first: "
            f"{first.label()}), none that raises this level.")


# --- count agreement -------------------------------------------------------------------------

_ONE = re.compile(r"(?<![\w.,/:#-])1 ")
_WORD = re.compile(r"[A-Za-z][\w/'-]*")
# words after "1" that end the noun phrase without being its noun
_STOP = {"of", "in", "on", "to", "for", "with", "by", "at", "from", "and", "or", "that", "which",
         "where", "than", "per", "is", "was", "has", "its", "this", "thus", "as", "out"}
# words ending in s that are not plural nouns
_NOT_PLURAL = {"does", "goes", "always", "sometimes", "less", "plus", "yes", "news", "series",
               "species", "whereas", "perhaps", "unless", "across", "towards", "various", "bus",
               "status", "alias", "canvas", "basis", "analysis", "axis", "chaos", "bias", "gas",
               "lens", "atlas", "corpus", "virus", "campus", "bonus", "focus", "consensus", "was",
               "has", "is", "its", "his", "this", "thus", "ms", "https", "os"}
_ADVERBS = {"still", "also", "never", "often", "always", "all", "only", "directly"}
_IRREGULAR_VERBS = {"have": "has", "are": "is", "were": "was", "do": "does", "go": "goes"}
_VERBS = {"pass", "inherit", "copy", "hand", "run", "reach", "set", "call", "use", "read", "write",
          "send", "load", "start", "spawn", "skip", "bypass", "lack", "carry", "hold", "touch",
          "get", "leak", "expose", "match", "apply", "need", "allow", "bind", "keep", "miss",
          "see", "receive", "take", "make", "point", "end", "fail", "cover", "execute", "open",
          "name"}


def _singular(noun: str) -> str:
    low = noun.lower()
    if low.endswith(("sses", "shes", "ches", "xes", "zes")):
        return noun[:-2]
    if low.endswith("ies") and len(noun) > 4:
        return noun[:-3] + ("Y" if noun.isupper() else "y")
    return noun[:-1]


def _third_person(verb: str) -> str | None:
    low = verb.lower()
    if low in _IRREGULAR_VERBS:
        return _IRREGULAR_VERBS[low]
    if low not in _VERBS:
        return None
    if low.endswith(("s", "sh", "ch", "x", "z", "o")):
        return verb + "es"
    if low.endswith("y") and low[-2:-1] not in "aeiou":
        return verb[:-1] + "ies"
    return verb + "s"


def _is_plural(word: str) -> bool:
    low = word.lower()
    return (len(word) > 3 and low.endswith("s") and not low.endswith(("ss", "us", "is"))
            and low not in _NOT_PLURAL and not word.isupper())


def agree_counts(text: str) -> str:
    """"1 spawns pass or inherit" → "1 spawn passes or inherits"; "in 1 files" → "in 1 file";
    "1 of them run" → "1 of them runs". Other counts and text are left as they are."""
    if "1 " not in text:
        return text
    out, pos = [], 0
    for m in _ONE.finditer(text):
        if m.start() < pos:
            continue
        for start, end, new in _edits_after_one(text, m.end()):
            out.append(text[pos:start])
            out.append(new)
            pos = end
    out.append(text[pos:])
    return "".join(out)


def _tokens(text: str, start: int, n: int) -> list[re.Match]:
    """The next N words from START, as long as single spaces separate them."""
    found, at = [], start
    for _ in range(n):
        m = _WORD.match(text, at)
        if m is None:
            break
        found.append(m)
        at = m.end()
        if not text.startswith(" ", at):
            break
        at += 1
    return found


def _edits_after_one(text: str, start: int) -> list[tuple[int, int, str]]:
    """(start, end, replacement) for the noun and verb after a "1 " ending at START."""
    words = _tokens(text, start, 7)
    if not words:
        return []
    if len(words) > 2 and words[0].group().lower() == "of" and words[1].group() == "them":
        noun, verb_at = None, 2  # "1 of them run" → "1 of them runs"
    else:
        noun = next((i for i, w in enumerate(words[:3]) if _is_plural(w.group())), None)
        if noun is None or any(w.group().lower() in _STOP for w in words[:noun]):
            return []
        verb_at = noun + 1
    edits = []
    if noun is not None:
        edits.append((words[noun].start(), words[noun].end(), _singular(words[noun].group())))
    rest = words[verb_at:]
    if rest and rest[0].group().lower() in ("that", "which", "who"):
        rest = rest[1:]
    if rest and rest[0].group().lower() in _ADVERBS:
        rest = rest[1:]
    verb = _third_person(rest[0].group()) if rest else None
    if verb:
        edits.append((rest[0].start(), rest[0].end(), verb))
        if len(rest) > 2 and rest[1].group() == "or":
            other = _third_person(rest[2].group())
            if other:
                edits.append((rest[2].start(), rest[2].end(), other))
    return edits
