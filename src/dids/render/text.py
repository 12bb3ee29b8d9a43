"""Make repository-controlled text safe to place in Markdown."""

from __future__ import annotations

import re

# bidi overrides/isolates and other invisible controls (Trojan-source)
_CONTROL = re.compile("[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]")


def clean(text: str) -> str:
    return _CONTROL.sub("", text)


def md(text: object) -> str:
    """Escape text for Markdown prose and table cells: no HTML, links, or table breaks."""
    s = clean(str(text)).replace("\r", " ").replace("\n", " ")
    s = s.replace("\\", "\\\\").replace("|", "\\|").replace("<", "&lt;").replace(">", "&gt;")
    s = s.replace("[", "\\[").replace("]", "\\]")
    return s


def code_span(text: str) -> str:
    s = clean(text).replace("\n", " ").replace("`", "'")
    return f"`{s}`"
