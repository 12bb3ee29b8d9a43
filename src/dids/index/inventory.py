"""Classify every path of the tree: language, role (source/test/docs/example), and skip reasons."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import PurePosixPath

from pydantic import BaseModel

LANGS = {
    ".py": "python", ".pyi": "python",
    ".ts": "typescript", ".tsx": "typescript", ".js": "javascript", ".jsx": "javascript",
    ".mjs": "javascript", ".cjs": "javascript",
    ".yaml": "yaml", ".yml": "yaml", ".json": "json", ".toml": "toml",
    ".md": "markdown", ".rst": "rst", ".txt": "text", ".cfg": "ini", ".ini": "ini",
    ".sh": "shell", ".go": "go", ".rs": "rust", ".j2": "template", ".jinja": "template",
}
_NAMED = {"Dockerfile": "docker", "Makefile": "make", ".env": "env"}

_VENDORED = re.compile(
    r"(^|/)(node_modules|vendor|vendored|third_party|site-packages|\.venv|venv|\.tox|dist|build|"
    r"__pycache__|\.git|\.mypy_cache|\.pytest_cache)/"
)
_TEST = re.compile(
    r"(^|/)(tests?|testing|__tests__|spec|e2e|benchmarks?|evals?|fixtures?)/|(^|/)[\w.-]*[-_]bench(mark)?s?/|(^|/)(test_[^/]*|[^/]*_test\.py|"
    r"conftest\.py|[^/]*\.(test|spec)\.[jt]sx?)$"
)
_DOCS = re.compile(r"(^|/)(docs?|documentation|site|website|blog)/|\.(md|mdx|rst|txt|ipynb)$")
_EXAMPLE = re.compile(r"(^|/)(examples?|samples?|cookbook|notebooks|demos?|tutorials?|templates/examples)/")
_MINIFIED = re.compile(r"\.min\.(js|css)$|\.bundle\.js$")
_LOCKFILE = re.compile(r"(^|/)(package-lock\.json|yarn\.lock|pnpm-lock\.yaml|uv\.lock|poetry\.lock|Cargo\.lock)$")


class Limits(BaseModel):
    """Bounds on what one run reads; every file over a bound is listed in the card's Limitations.
    (The run's total time is bounded separately: `--timeout`, see acquire/budget.py.)"""

    max_file_bytes: int = 1 << 20  # larger blobs are never read
    max_files: int = 50_000
    max_total_bytes: int = 512 << 20
    max_line_chars: int = 20_000  # a file with a longer line (minified, generated) is skipped
    max_path_bytes: int = 1024  # longer paths (or a name over 255 bytes) are not read


@dataclass(frozen=True)
class FileRecord:
    path: str
    sha: str
    size: int
    lang: str
    role: str  # source | test | docs | example | config

    @property
    def is_code(self) -> bool:
        return self.role == "source" and self.lang in ("python", "typescript", "javascript", "go", "rust")


def language(path: str) -> str:
    name = PurePosixPath(path).name
    if name in _NAMED or name.startswith(".env"):
        return _NAMED.get(name, "env")
    if name.startswith("Dockerfile"):
        return "docker"
    return LANGS.get(PurePosixPath(path).suffix.lower(), "other")


def role(path: str, lang: str) -> str:
    if _TEST.search(path):
        return "test"
    if _EXAMPLE.search(path):
        return "example"
    if _DOCS.search(path):
        return "docs"
    if lang in ("yaml", "json", "toml", "env", "docker", "ini"):
        return "config"
    return "source"


def vendored_dir(path: str) -> str | None:
    """The vendored or generated directory PATH lies under (`web/node_modules/`), if any."""
    m = _VENDORED.search("/" + path)
    return ("/" + path)[1 : m.end()] if m else None


def skip_reason(path: str, size: int, limits: Limits) -> str | None:
    raw = path.encode("utf-8", "surrogateescape")
    if len(raw) > limits.max_path_bytes or any(len(p) > 255 for p in raw.split(b"/")):
        return f"path longer than {limits.max_path_bytes} bytes or a name over 255 bytes"
    if _VENDORED.search("/" + path):
        return "vendored or generated directory"
    if _MINIFIED.search(path) or _LOCKFILE.search(path):
        return "minified or lock file"
    if size > limits.max_file_bytes:
        return f"larger than {limits.max_file_bytes} bytes"
    return None


def unreadable_reason(data: bytes, limits: Limits) -> str | None:
    """Why a blob's content is not read as text (binary, or a line over the bound), or None."""
    if b"\0" in data[:8192]:
        return "binary content"
    # no line can be longer than the file; most files skip the split
    if len(data) > limits.max_line_chars and \
            max(map(len, data.split(b"\n"))) > limits.max_line_chars:
        return f"a line longer than {limits.max_line_chars} characters"
    return None
