"""The Markdown report card, rendered from the packaged `data/templates/card.md.j2`."""

from __future__ import annotations

import jinja2

from ..acquire.source import github_slug
from ..models import Evidence, Report
from ..rubric import load_rubric
from .text import clean, code_span, md, md_url, url_path


def _template_source(name: str) -> tuple[str, str, None]:
    """Jinja's loader over the packaged templates (importlib.resources: any install layout)."""
    from ..resources import data_dir, read_text

    try:
        return read_text("templates", name), str(data_dir("templates").joinpath(name)), None
    except FileNotFoundError:
        raise jinja2.TemplateNotFound(name) from None


def citation(path: str, start: int | None, end: int | None, slug: str | None, commit: str) -> str:
    label = clean(path) + (f":{start}" if start else "") + (
        f"-{end}" if end and start and end != start else "")
    if slug and start:
        anchor = f"#L{start}" + (f"-L{end}" if end and end != start else "")
        return f"[{md(label)}](https://github.com/{slug}/blob/{commit}/{url_path(path)}{anchor})"
    return code_span(label)


def render_markdown(report: Report) -> str:
    rubric = load_rubric()
    slug = github_slug(report.repo_url)
    env = jinja2.Environment(loader=jinja2.FunctionLoader(_template_source),
                             autoescape=False, keep_trailing_newline=True, trim_blocks=True,
                             lstrip_blocks=True,
                             undefined=jinja2.StrictUndefined)
    env.filters["md"] = md
    env.filters["md_url"] = md_url

    def cites(evidence: tuple[Evidence, ...]) -> str:
        located = [citation(e.path, e.start_line, e.end_line, slug, report.commit)
                   for e in evidence if e.path]
        searches = [f"searched {md(e.claim)}" for e in evidence if not e.path]
        return "; ".join(located + searches) or "no evidence"

    def kind_of(evidence: tuple[Evidence, ...]) -> str:
        kinds = {e.kind.value for e in evidence}
        if not kinds:
            return "no evidence"
        if kinds == {"search"}:
            return "search"
        return "inferred" if kinds == {"inferred"} else "verified"

    def cite_text(where: str) -> str:
        path, _, rng = where.rpartition(":")
        a, _, b = rng.partition("-")
        return citation(path, int(a), int(b) if b else None, slug, report.commit)

    def assessment_cfg(c, name):
        return next(x for x in c.assessment.configurations if x.name == name)

    surface_line = " · ".join(f"{label} {report.surface.get(key, 'not assessed')}"
                              for key, label in rubric.surface.items())
    r2 = report.rule_of_two
    if r2:
        rule_of_two = (f"[A] untrusted input: {md(r2['A'])} · [B] sensitive data/systems: "
                       f"{md(r2['B'])} · [C] state change / egress: {md(r2['C'])} · "
                       f"Same default session? {r2['same_session']}")
    else:
        rule_of_two = "Not assessed: the untrusted-input criterion (C5) has no detector yet."
    from .picture import mermaid, prose

    tpl = env.get_template("card.md.j2")
    return tpl.render(r=report, cites=cites, kind_of=kind_of, cite_text=cite_text,
                      assessment_cfg=assessment_cfg, surface_line=surface_line,
                      rule_of_two=rule_of_two, agent_picture=mermaid(report.agent),
                      agent_prose=prose(report.agent))
