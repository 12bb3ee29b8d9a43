"""What dids could not assess, said instead of scored as if it were absent.

Levels rest on what the agent model finds in the languages it reads. When it finds nothing to
stand on (no parsed source at all, or no agent loop, tool or executor in the parsed sources, or
most of the product in a language dids does not assess, or a size bound that skipped most files),
an L0 is not a finding about the repository: it is dids not seeing it. The report says so on
stderr and in the card, and every level it still gives is Low confidence; with nothing parsed at
all, no criterion is assessed (Scorecard's "?").
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import PurePosixPath

# languages of source files dids does not parse (counted only to say what was left unread)
_OTHER_CODE = {".go": "Go", ".rs": "Rust", ".java": "Java", ".kt": "Kotlin", ".rb": "Ruby",
               ".cs": "C#", ".php": "PHP", ".swift": "Swift", ".scala": "Scala", ".ex": "Elixir",
               ".c": "C", ".cc": "C++", ".cpp": "C++", ".dart": "Dart", ".lua": "Lua"}
_NAMES = {"python": "Python", "typescript": "TypeScript/JavaScript",
          "javascript": "TypeScript/JavaScript"}
# the share of product code outside the assessed languages above which the levels rest on a part
_MAJORITY = 0.5
# skipped files (size/count bounds) as a share of the indexed files above which levels are partial
_BOUND_SHARE = 0.3


@dataclass
class Coverage:
    reasons: list[str] = field(default_factory=list)
    nothing: bool = False  # no parsed source in any assessed language: assess no criterion
    languages: dict[str, int] = field(default_factory=dict)  # source files per language

    @property
    def partial(self) -> bool:
        return bool(self.reasons)


def assessed_languages(model) -> set[str]:
    """The languages the agent model reads (Python; TypeScript/JavaScript when the model has
    been built over those facts too)."""
    langs = set(getattr(model, "languages", None) or {"python"})
    return {_NAMES.get(x, x) for x in langs}


def assess(ctx) -> Coverage:
    index, model = ctx.index, ctx.index.agent
    cov = Coverage()
    for rec in index.files.values():
        if rec.role != "source":
            continue
        name = _NAMES.get(rec.lang) or _OTHER_CODE.get(PurePosixPath(rec.path).suffix.lower())
        if name:
            cov.languages[name] = cov.languages.get(name, 0) + 1
    assessed = assessed_languages(model)
    mine = sum(n for lang, n in cov.languages.items() if lang in assessed)
    total = sum(cov.languages.values())
    parsed = sum(1 for p in index.py if index.role(p) == "source")
    if "TypeScript/JavaScript" in assessed:
        parsed += sum(1 for p in getattr(index, "ts", {}) or {} if index.role(p) == "source")
    read = " and ".join(sorted(assessed))
    bound_reason = ""
    bounded = sum(1 for _p, why in index.skipped if why.startswith(("over the ", "larger than ")))
    seen = len(index.files) + bounded
    if seen and bounded / seen > _BOUND_SHARE:
        bound_reason = (f"{bounded} of {seen} files were left unread by the size and count "
                        "bounds; raise --max-files, --max-total-bytes or --max-file-bytes for a "
                        "full audit.")
    if parsed == 0:
        cov.nothing = True
        rest = {k: v for k, v in cov.languages.items() if k not in assessed}
        others = _listing(rest) if rest else ""
        cov.reasons.append(f"No {read} source file was parsed"
                           + (f" (the repository's code is {others}, which dids does not assess)"
                              if others else " (none within the size and count bounds)" if bound_reason
                              else " (the repository holds no source code dids reads)")
                           + "; no criterion could be assessed.")
        cov.reasons += [bound_reason] if bound_reason else []
        return cov
    session = model.session if model is not None else None
    has_loop = bool(session and session.loops)
    has_tools = bool(ctx.findings["tools.inventory"])
    has_exec = bool(session and any(s.reach != "off-path" for s in session.sinks))
    # a frontend beside a Python agent is not the agent; a TypeScript agent with a Python side
    # folder is, when the Python holds no agent loop
    if not has_loop and total and (total - mine) / total > _MAJORITY:
        others = _listing({k: v for k, v in cov.languages.items() if k not in assessed})
        cov.reasons.append(f"Most of the product's source is {others}; dids assessed only its "
                           f"{mine} {read} file{'s' if mine != 1 else ''}, so the levels describe "
                           "that part.")
    if not (has_loop or has_tools or has_exec):
        cov.reasons.append(f"No agent loop, tool or executor was found in the parsed {read} "
                           "sources: the levels say what dids did not find, not what the agent "
                           "does.")
    cov.reasons += [bound_reason] if bound_reason else []
    return cov


def _listing(counts: dict[str, int]) -> str:
    parts = [f"{lang} ({n} file{'s' if n != 1 else ''})"
             for lang, n in sorted(counts.items(), key=lambda kv: -kv[1])]
    return ", ".join(parts) if parts else "in no language dids reads"
