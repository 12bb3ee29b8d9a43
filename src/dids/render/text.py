"""Make repository-controlled text safe to place in Markdown.

Paths, names, claims that quote code and URLs all come from the scanned repository. In the card
they must stay text: no HTML, no links or images, no autolinks, no entities, no table breaks, no
block structure (headings, lists, quotes) and no Trojan-source characters.
"""

from __future__ import annotations

import re

# C0/C1 controls (tab, newline and carriage return are handled by the callers), bidi
# embeddings/overrides/isolates/marks, zero-width characters, line/paragraph separators and BOM
_CONTROL = re.compile(
    "[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e"
    "\u2060-\u2069\ufeff\ufff9-\ufffb]"
)
_SURROGATE = re.compile("[\ud800-\udfff]")
_WS = re.compile(r"[\t\r\n]+")
_ENTITY = re.compile(r"&(?=#?[0-9A-Za-z]{1,32};)")  # "&#x202e;" would decode to a control
# what CommonMark/GFM would read as block structure at the start of a line
_BLOCK_START = re.compile(r"^(?:[#=+\-*_~>]|\d{1,9}[.)])")
# GFM extended autolinks: scheme://, www., and bare e-mail addresses
_SCHEME = re.compile(r"(?i)(?<=[a-z0-9])://")
_WWW = re.compile(r"(?i)\b(www)\.")
_EMAIL_AT = re.compile(r"(?<=[\w.+-])@(?=[\w-]+\.[\w-])")


_PLAIN_URL = re.compile(r"^(?:https?|ssh|file)://[A-Za-z0-9._~:/?#@!$&'()*+,;=%-]*$|"
                        r"^[A-Za-z0-9._-]+@[A-Za-z0-9.-]+:[A-Za-z0-9._~/-]*$")
_SPAN_UNSAFE = re.compile(r"[`<>&|\[\]\\]")


def clean(text: str) -> str:
    """TEXT without invisible/bidi control characters; lone surrogates become U+FFFD."""
    return _SURROGATE.sub("\ufffd", _CONTROL.sub("", text))


def md(text: object, *, autolink: bool = False) -> str:
    """Escape text for Markdown prose and table cells: no HTML, links, or table breaks.

    autolink=True keeps a URL auto-linkable (only for the repository URL the user gave)."""
    s = _WS.sub(" ", clean(str(text))).strip()
    s = s.replace("\\", "\\\\")
    s = _ENTITY.sub("&amp;", s).replace("<", "&lt;").replace(">", "&gt;")
    s = s.replace("|", "\\|").replace("[", "\\[").replace("]", "\\]").replace("`", "\\`")
    if not autolink:
        s = _SCHEME.sub(r":\/\/", s)
        s = _WWW.sub(r"\1\\.", s)
        s = _EMAIL_AT.sub(r"\\@", s)
    if _BLOCK_START.match(s):
        s = "\\" + s if not s[0].isdigit() else re.sub(r"^(\d+)([.)])", r"\1\\\2", s)
    return s


def md_url(text: object) -> str:
    """md() for the repository's address: a plain URL may stay auto-linkable; anything with
    characters outside a conservative URL alphabet is escaped like any other text."""
    s = clean(str(text))
    return md(s, autolink=bool(_PLAIN_URL.match(s)))


def code_span(text: str) -> str:
    """TEXT as an inline code span. Text with characters that mean something to Markdown or
    HTML (a hostile path) is written as escaped prose instead, so no raw `<`, `|` or link
    syntax reaches the card even inside a span (GFM splits table cells on `|` in spans too)."""
    s = _WS.sub(" ", clean(text)).strip()
    if not s or _SPAN_UNSAFE.search(s):
        return md(s) if s else "''"
    return f"`{s}`"


def url_path(path: str) -> str:
    """A repository path as a percent-encoded URL path (for permalinks)."""
    from urllib.parse import quote

    return quote(clean(path), safe="/-._~")
