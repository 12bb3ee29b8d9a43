"""The card's identity line: the repository's name and what it is.

The name is the project's own (`[project].name`, Poetry's, package.json's), else the last part
of the repository's URL or path. That address is the one the report is cached under (the URL
scored, `--repo-url`, a network `origin`, or the work tree's own path), so the same commit gives
the same card whatever the local cache holds, and a local mirror's folder never names a card.

"What it is" is the project's description, else the README's first real sentence: HTML
headers, badges, headings, tables, code and lists are skipped. Everything here is read from the
commit's objects and is repository text (the renderers escape it).
"""

from __future__ import annotations

import html
import json
import re
import tomllib

NOT_FOUND = "Description not found in pyproject.toml, package.json or the README."
README_NAMES = ("README.md", "README.rst", "README.txt", "README", "readme.md", "Readme.md",
                "README.markdown")
MAX_README_BYTES = 256 << 10
MAX_WHAT = 300


def describe(index, url: str) -> tuple[str, str]:
    """(name, what it is) for the card header."""
    meta = _project_metadata(index)
    name = meta.get("name") or name_from_address(url)
    what = meta.get("description") or readme_sentence(*_readme(index)) or NOT_FOUND
    return name, what


def name_from_address(url: str) -> str:
    """`aider` for https://github.com/Aider-AI/aider.git, git@host:o/aider or /src/aider."""
    tail = url.rstrip("/").rsplit("/", 1)[-1].rsplit(":", 1)[-1]
    return re.sub(r"\.git$", "", tail) or "repository"


def _project_metadata(index) -> dict[str, str]:
    """name and description from pyproject.toml ([project], else [tool.poetry]) or package.json,
    the first non-empty value of each."""
    out: dict[str, str] = {}
    if "pyproject.toml" in index.files:
        try:
            data = tomllib.loads(index.text("pyproject.toml"))
        except (tomllib.TOMLDecodeError, ValueError):
            data = {}
        for table in (data.get("project"), (data.get("tool") or {}).get("poetry")):
            if isinstance(table, dict):
                for key in ("name", "description"):
                    value = table.get(key)
                    if isinstance(value, str) and value.strip() and key not in out:
                        out[key] = _one_line(value)
    if "package.json" in index.files and len(out) < 2:
        try:
            data = json.loads(index.text("package.json"))
        except ValueError:
            data = {}
        if isinstance(data, dict):
            for key in ("name", "description"):
                value = data.get(key)
                if isinstance(value, str) and value.strip() and key not in out:
                    out[key] = _one_line(value)
    return out


def _one_line(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= MAX_WHAT else text[:MAX_WHAT].rsplit(" ", 1)[0] + "…"


def _readme(index) -> tuple[str, str]:
    """(text, kind) of the top-level README, read from the commit's objects (docs are not in
    the index's corpus); ('', '') when there is none."""
    snapshot = index.snapshot
    entries = {e.path: e for e in snapshot.list_tree()}
    for name in README_NAMES:
        e = entries.get(name)
        if e is None or e.is_symlink or e.is_submodule or not 0 <= e.size <= MAX_README_BYTES:
            continue
        data = snapshot.read_blobs([e.sha]).get(e.sha)
        if data and b"\0" not in data[:8192]:
            kind = "rst" if name.endswith(".rst") else "md"
            return data.decode("utf-8", "replace"), kind
    return "", ""


# HTML that is a header or a picture, whole; any other tag is dropped and its text kept
_HTML_BLOCKS = re.compile(r"<!--.*?-->|<(h[1-6]|picture|svg|style|script|table)\b.*?</\1\s*>",
                          re.S | re.I)
_HTML_TAG = re.compile(r"</?[A-Za-z][^>]*>")
_MD_IMAGE = re.compile(r"!\[[^\]]*\]\([^)]*\)|!\[[^\]]*\]\[[^\]]*\]")
_MD_LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)|\[([^\]]*)\]\[[^\]]*\]")
_RST_SUBST = re.compile(r"\|[^|\s][^|]*\|_{0,2}")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"“(])")
_SKIP_LINE = re.compile(
    r"^\s*(#|>|\||[-*+]\s|\d+[.)]\s|[=\-~^`*#_]{3,}\s*$|\.\. |:\w+:|\[!|\[\^|\[[^\]]+\]:\s)")


def readme_sentence(text: str, kind: str = "md") -> str | None:
    """The README's first sentence of prose, or None."""
    if not text:
        return None
    text = _HTML_BLOCKS.sub("\n", text)
    text = _HTML_TAG.sub(" ", text)
    paragraph: list[str] = []
    fenced = False
    lines = text.splitlines() + [""]
    for i, raw in enumerate(lines):
        line = raw.strip()
        if line.startswith(("```", "~~~")):
            fenced = not fenced
            paragraph = []
            continue
        if fenced:
            continue
        underline = i + 1 < len(lines) and re.fullmatch(r"[=\-~^`*#]{3,}", lines[i + 1].strip())
        if line and not underline and not _SKIP_LINE.match(line) and \
                not (kind == "rst" and raw.startswith(("   ", "\t"))):
            paragraph.append(line)
            continue
        found = _prose(" ".join(paragraph), kind)
        if found:
            return found
        paragraph = []
    return None


def _prose(text: str, kind: str) -> str | None:
    text = _MD_IMAGE.sub(" ", text)
    if kind == "rst":
        text = _RST_SUBST.sub(" ", text)
        text = re.sub(r"`([^`<]+?)\s*(<[^>]*>)?`_{0,2}", r"\1", text)
    text = _MD_LINK.sub(lambda m: m.group(1) or m.group(2) or "", text)
    text = re.sub(r"(\*\*|__|[*_`])", "", text)
    text = " ".join(html.unescape(text).split())
    words = re.findall(r"[^\W\d_]{2,}", text)
    if len(words) < 4:
        return None
    return _one_line(_SENTENCE_END.split(text, 1)[0])
