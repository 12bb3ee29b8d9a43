"""C5 untrusted-input family: spotlighting/delimiting, taint that changes what may run, sources."""

from __future__ import annotations

import re

from ..index.repo import RepoIndex
from .base import finding, line_findings, probe

_WRAP = r"""f["'].*<([A-Za-z][\w-]*)[^<>]*>.*\{[^}]+\}.*</\1>"""
_WRAP_LOOSE = r"""f["'].*<[A-Za-z][\w-]*[^<>]*>.*\{[^}]+\}.*</[A-Za-z]"""
# tags that mark content as data (an HTML table cell or <details> is layout, not a boundary)
_DATA_TAG = re.compile(r"file|document|content|data|input|output|result|observation|context|"
                       r"untrusted|external|tool|attach|email|message|page|web|search|log|ticket|"
                       r"alert|source|snippet|quote", re.I)
# what a delimiter must wrap: content that came from outside (not the agent's own names)
_DATA_VALUE = re.compile(r"result|output|content|text|data|page|file|observation|response|"
                         r"\bdoc|body|log|message|html|read\(|payload|email|input", re.I)
_RULES = [r"(never|do not|don't|must not)\s+(obey|follow|execute|act on)\s+(any\s+)?(instructions?|commands?)"
          r"\s+(embedded|found|contained|included|inside|within|in)",
          r"\b(xpia|prompt[ -]injection|cross[- ]prompt)\b",
          r"\b(treat|consider)\b.{0,40}\b(as (untrusted )?data|untrusted)\b"]
_TEMPLATES = ("*.j2", "*.jinja", "*.jinja2", "*.prompt", "*.tmpl", "*.py")
_SANDBOX_CTX = re.compile(r"seccomp|sandbox|jail|runtime is untrusted|untrusted code", re.I)


@probe("untrusted.spotlight", ("C5",), "Delimit and label untrusted content before the model sees it.")
def spotlight(index: RepoIndex):
    """Delimiters or labels wrapped around content in live code (not sandbox vocabulary)."""
    pat = [r"""["'][^"']*(<<<|\[\[?|-{3,}|={3,})\s*(BEGIN[ _-]+)?(UNTRUSTED|EXTERNAL[ _-]CONTENT|TOOL[ _-]OUTPUT)""",
           r"""["'][^"']*</?(untrusted|external|tool_output|tool_result|document)[_-]?\w*>""",
           r"""["'][^"']*(treat|consider)\b[^"']*\b(as (untrusted )?data|untrusted)[^"']*["']"""]
    seen: set[tuple[str, int]] = set()  # one finding per line, the first pattern's
    for h in index.live_hits(pat, globs=("*.py",), ignore_case=True):
        if _SANDBOX_CTX.search(h.text):
            continue
        seen.add((h.path, h.line))
        kind = "prompt" if h.pattern == 2 else "delimiter"
        yield finding("untrusted.spotlight", "Untrusted content is "
                      + ("described to the model as data by a prompt line." if kind == "prompt"
                         else "wrapped in explicit delimiters.") , h.path, h.line, how=kind)
    # content wrapped between a matching open/close tag around an interpolated value
    for h in index.live_hits([_WRAP_LOOSE], globs=("*.py",)):
        m = re.search(_WRAP, h.text)  # ripgrep has no back-references: the tag pair here
        inner = " ".join(re.findall(r"\{([^}]+)\}", h.text))
        if m and _DATA_TAG.search(m.group(1)) and _DATA_VALUE.search(inner) and \
                not _SANDBOX_CTX.search(h.text) and (h.path, h.line) not in seen:
            seen.add((h.path, h.line))
            yield finding("untrusted.spotlight", f"Content is wrapped in <{m.group(1)}> tags "
                          "before the model sees it.", h.path, h.line, how="delimiter")
    # prompt rules in the templates and prompt files live code loads (Jinja, YAML, text)
    for h in index.live_hits(_RULES, globs=_TEMPLATES, ignore_case=True):
        if (h.path, h.line) in seen:
            continue
        seen.add((h.path, h.line))
        yield finding("untrusted.spotlight", "A prompt rule tells the model not to follow "
                      "instructions found in the content it reads.", h.path, h.line, how="prompt")


@probe("untrusted.taint", ("C5",), "Require approval for dangerous tools after untrusted content is read.")
def taint(index: RepoIndex):
    """Taint/provenance state that code reads when deciding what may run."""
    pat = r"\bif\b[^#\n]*\b(tainted|taint|untrusted_seen|read_untrusted|untrusted_read|saw_untrusted|untrusted_input|is_untrusted)\b"
    yield from line_findings(index, "untrusted.taint", [pat], "A decision here depends on "
                             "whether untrusted content was read.", code_only=True)


@probe("untrusted.source", ("C5",), "Know where untrusted content enters.")
def sources(index: RepoIndex):
    """Entry points of content other people write: webhooks, chat/e-mail readers, web fetches."""
    pat = [r"""@\w+\.(post|api_route|route)\(\s*["'][^"']*(webhook|hook|events|slack|alert)""",
           r"\b(conversations_history|conversations_replies|get_messages|fetch_emails|imap\w*\.fetch)\b"]
    yield from line_findings(index, "untrusted.source", pat,
                             "Content written by others enters here.", ignore_case=True)


_PROMPT_NAME = re.compile(r"(^|_)(prompt|instructions?|system_message|user_message|query)s?$", re.I)
# words of a placeholder's name that say it holds what others wrote (`alert_text`, `page.content`)
_OUTSIDE = frozenset("""result results output content text data page file observation response doc
document body log logs message messages html payload email input alert issue ticket event events
problem comment comments title diff transcript""".split())


def _outside(expr: str) -> str | None:
    """The name of a placeholder that holds outside content, or None (`{database_directive}`,
    `{", ".join(SOURCES)}` are the agent's own text)."""
    name = re.match(r"\s*([A-Za-z_][\w.]*)", expr)
    if name is None:
        return None
    words = re.split(r"[._]", name.group(1).lower())
    return name.group(1) if _OUTSIDE & set(words) else None


@probe("untrusted.prompt_paste", ("C5",), "Delimit and label untrusted content before the model sees it.")
def prompt_paste(index: RepoIndex):
    """Prompts built as one f-string that pastes outside content in (`prompt = f\"\"\"...
    {alert_text}...\"\"\"`) with no tag around it: what the model reads as instructions and as
    data is not told apart. A placeholder wrapped in a data tag is spotlighting (above)."""
    for facts in index.source_py():
        for a in facts.assigns:
            v = a.value or ""
            if not v.startswith(('f"""', "f'''")) or not _PROMPT_NAME.search(a.target.split(".")[-1]):
                continue
            # facts keep the first 400 characters of a value: the whole literal from the source
            v = "\n".join(index.line(facts.path, n)
                          for n in range(a.line, min(a.end_line, a.line + 200) + 1))
            inner = re.findall(r"(?<!\{)\{([^{}]+)\}(?!\})", v)
            pasted = [n for n in map(_outside, inner) if n]
            if not pasted or re.search(_WRAP, "f'" + " ".join(v.split()) + "'"):
                continue
            shown = ", ".join(list(dict.fromkeys(pasted))[:3])
            yield finding("untrusted.prompt_paste", f"{a.target} pastes {shown} into the "
                          "model's prompt as plain text (no delimiter marks it as data).",
                          facts.path, a.line, min(a.end_line, a.line + 40), func=a.scope)
