"""C5 untrusted-input family: spotlighting/delimiting, taint that changes what may run, sources."""

from __future__ import annotations

import re

from ..index.repo import RepoIndex
from .base import finding, line_findings, probe

_SANDBOX_CTX = re.compile(r"seccomp|sandbox|jail|runtime is untrusted|untrusted code", re.I)


@probe("untrusted.spotlight", ("C5",), "Delimit and label untrusted content before the model sees it.")
def spotlight(index: RepoIndex):
    """Delimiters or labels wrapped around content in live code (not sandbox vocabulary)."""
    pat = [r"""["'][^"']*(<<<|\[\[?|-{3,}|={3,})\s*(BEGIN[ _-]+)?(UNTRUSTED|EXTERNAL[ _-]CONTENT|TOOL[ _-]OUTPUT)""",
           r"""["'][^"']*</?(untrusted|external|tool_output|tool_result|document)[_-]?\w*>""",
           r"""["'][^"']*(treat|consider)\b[^"']*\b(as (untrusted )?data|untrusted)[^"']*["']"""]
    for h in index.live_hits(pat, globs=("*.py",), ignore_case=True):
        if _SANDBOX_CTX.search(h.text):
            continue
        kind = "prompt" if h.pattern == 2 else "delimiter"
        yield finding("untrusted.spotlight", "Untrusted content is "
                      + ("described to the model as data by a prompt line." if kind == "prompt"
                         else "wrapped in explicit delimiters.") , h.path, h.line, how=kind)


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
