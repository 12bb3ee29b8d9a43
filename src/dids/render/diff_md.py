"""The Markdown re-audit (`dids diff --format md`): level moves with the evidence behind them."""

from __future__ import annotations

from ..acquire.source import github_slug
from ..diff import Change, DiffResult
from ..models import Evidence
from .markdown import citation
from .text import md


def _cite(e: Evidence, slug: str | None, commit: str) -> str:
    if not e.path:
        return f"searched {md(e.claim)} ({e.kind.value})"
    return f"{citation(e.path, e.start_line, e.end_line, slug, commit)} — {md(e.claim)} ({e.kind.value})"


def _scores(result: DiffResult, cid: str) -> tuple[float, float, str]:
    old = next(c for c in result.old.criteria if c.id == cid)
    new = next(c for c in result.new.criteria if c.id == cid)
    return old.score, new.score, new.title


def _change_lines(c: Change, result: DiffResult, slug: str | None) -> list[str]:
    arrow = "rises" if c.to_level > c.from_level else "falls"
    lines = [f"### {c.criterion} {c.dimension} L{c.from_level} → L{c.to_level} ({arrow})", ""]
    for e in c.added:
        lines.append(f"- **Added:** {_cite(e, slug, result.new.commit)}")
    for e in c.removed:
        lines.append(f"- **Removed:** {_cite(e, slug, result.old.commit)}")
    moved = [(o, n) for o, n in c.kept if (o.path, o.start_line) != (n.path, n.start_line)]
    if moved:
        lines.append("- **Unchanged (moved):** " + "; ".join(
            f"{citation(o.path or '', o.start_line, o.end_line, None, result.old.commit)} → "
            f"{citation(n.path or '', n.start_line, n.end_line, slug, result.new.commit)}"
            for o, n in moved))
    if not (c.added or c.removed):
        lines.append("- The cited evidence is the same on both sides; the level moved with "
                     "evidence cited under other dimensions.")
    lines.append("")
    return lines


def render_diff_markdown(result: DiffResult) -> str:
    old, new = result.old, result.new
    slug = github_slug(new.repo_url)
    delta = result.score_delta
    out = [f"# Defense-in-Depth Re-audit: {md(new.name)}", "",
           f"**Repo:** {md(new.repo_url)} · **From:** `{old.commit[:12]}` · "
           f"**To:** `{new.commit[:12]}`",
           f"**Score:** {old.score:.1f} → {new.score:.1f} ({delta:+.1f}) · "
           f"**Band:** {old.band} → {new.band}", ""]
    out += ["## Level changes", ""]
    if not result.changes:
        out += ["No criterion or dimension changed level between these commits.", ""]
    else:
        out += ["| # | Criterion | Dim | From | To | Score |", "|---|---|---|---|---|---|"]
        for c in result.changes:
            a, b, title = _scores(result, c.criterion)
            out.append(f"| {c.criterion} | {title} | {c.dimension} | L{c.from_level} | "
                       f"L{c.to_level} | {a:.2f} → {b:.2f} |")
        out.append("")
        out += ["## Evidence", ""]
        for c in result.changes:
            out += _change_lines(c, result, slug)
    if result.renames:
        out += ["## Renamed files (evidence followed, not a change)", ""]
        out += [f"- {md(a)} → {md(b)}" for a, b in result.renames]
        out.append("")
    out.append("Evidence that only moved lines or files is matched through git's diff and "
               "rename detection and is not reported as a change.")
    return "\n".join(out) + "\n"
