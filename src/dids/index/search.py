"""The ripgrep wrapper: one `rg --json` call per pattern set over the exported tree."""

from __future__ import annotations

import base64
import json
import re
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from ..acquire import budget
from ..errors import InputError, ToolMissingError

# dids' own excludes; the scanned repo's .gitignore/.rgignore are ignored (--no-ignore) so the
# repository cannot hide files from its auditor.
_EXCLUDES = ("!**/node_modules/**", "!**/.git/**", "!**/*.min.js")


@dataclass(frozen=True)
class Hit:
    path: str
    line: int
    text: str
    pattern: int  # index of the first pattern in the set that matched
    patterns: tuple[int, ...] = ()  # every pattern of the set that matches the line


def rg_binary() -> str:
    here = Path(sys.executable).parent / "rg"
    if here.exists():
        return str(here)
    found = shutil.which("rg")
    if found:
        return found
    raise ToolMissingError(
        "ripgrep (rg) not found next to the Python interpreter or on PATH; "
        "install it with: pip install ripgrep==14.1.0"
    )


def rg_search(
    root: Path,
    patterns: list[str],
    *,
    globs: tuple[str, ...] = (),
    ignore_case: bool = False,
    timeout: float = 120,
) -> list[Hit]:
    """Run one ripgrep over `root` for every pattern at once; hits sorted by path and line."""
    if not patterns:
        return []
    cmd = [rg_binary(), "--json", "--no-config", "--no-ignore", "--hidden", "--no-follow",
           "--max-columns", "2000", "--max-filesize", "1M", "-n"]
    if ignore_case:
        cmd.append("-i")
    for g in _EXCLUDES + tuple(globs):
        cmd += ["-g", g]
    for p in patterns:
        cmd += ["-e", p]
    cmd += ["--", "."]
    budget.check()
    limit = budget.timeout_for(timeout)
    try:
        proc = subprocess.run(cmd, cwd=root, capture_output=True, timeout=limit,
                              env={"PATH": os.environ.get("PATH", "")})
    except subprocess.TimeoutExpired as exc:
        if budget.expired():
            raise budget.TimeLimitExceeded(budget.message()) from exc
        raise InputError(f"ripgrep timed out after {limit:.0f}s on one pattern set") from exc
    if proc.returncode not in (0, 1):
        raise RuntimeError(f"ripgrep failed: {proc.stderr.decode('utf-8', 'replace')[:200]}")
    compiled = [re.compile(p, re.I if ignore_case else 0) for p in patterns]
    hits = []
    for raw in proc.stdout.splitlines():
        msg = json.loads(raw)
        if msg.get("type") != "match":
            continue
        data = msg["data"]
        path = _text_of(data.get("path") or {}, "backslashreplace")
        text = _text_of(data.get("lines") or {}, "replace")
        if not path:
            continue
        path = path[2:] if path.startswith("./") else path
        matched = tuple(i for i, c in enumerate(compiled) if c.search(text[:2000])) or (0,)
        hits.append(Hit(path, data["line_number"], text.rstrip("\n")[:300], matched[0], matched))
    hits.sort(key=lambda h: (h.path, h.line, h.pattern))
    return hits


def _text_of(field: dict, errors: str) -> str:
    """ripgrep's JSON gives non-UTF-8 paths and lines as base64 `bytes` instead of `text`."""
    if "text" in field:
        return field["text"]
    try:
        return base64.b64decode(field.get("bytes", "")).decode("utf-8", errors)
    except ValueError:
        return ""


def command_text(patterns: list[str], scope: str = ".", ignore_case: bool = False) -> str:
    flags = "-n -i" if ignore_case else "-n"
    return f'rg {flags} -e ' + " -e ".join(json.dumps(p) for p in patterns) + f" {scope}"
