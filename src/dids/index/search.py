"""The ripgrep wrapper: one `rg --json` call per pattern set over the packed corpus."""

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

@dataclass(frozen=True)
class Hit:
    path: str
    line: int
    text: str
    pattern: int  # index of the first pattern in the set that matched
    patterns: tuple[int, ...] = ()  # every pattern of the set that matches the line


def rg_binary() -> str:
    # pip puts the ripgrep wheel's `rg` beside the `dids` script it installs in the same run:
    # the interpreter's bin (venv, pipx), the user scripts dir (--user) or DIR/bin (--target)
    import sysconfig

    places = [Path(sys.executable).parent, Path(sys.argv[0]).resolve().parent if sys.argv[0]
              else None, Path(sysconfig.get_path("scripts", f"{os.name}_user"))]
    for d in places:
        if d is not None and (d / "rg").is_file():
            return str(d / "rg")
    found = shutil.which("rg")
    if found:
        return found
    raise ToolMissingError(
        "ripgrep (rg) not found next to the Python interpreter or on PATH; "
        "install it with: pip install ripgrep==14.1.0"
    )


def rg_run(cwd: Path, files: list[str], patterns: list[str], *, ignore_case: bool = False,
           select: list[str] | None = None, timeout: float = 120):
    """One ripgrep over FILES (names under CWD) for every pattern at once. Yields (file, line,
    text, matched): matched are the indexes of the patterns (of SELECT when given; lines SELECT
    does not match are dropped) that match the line, as Python's re reads them."""
    if not patterns or not files:
        return
    # -a: packs are text (binary files were left out); --max-columns: no minified megaline
    cmd = [rg_binary(), "--json", "--no-config", "--no-ignore", "--no-follow", "-a",
           "--max-columns", "2000", "-n"]
    if ignore_case:
        cmd.append("-i")
    for p in patterns:
        cmd += ["-e", p]
    cmd += ["--", *files]
    budget.check()
    limit = budget.timeout_for(timeout)
    try:
        proc = subprocess.run(cmd, cwd=cwd, capture_output=True, timeout=limit,
                              env={"PATH": os.environ.get("PATH", "")})
    except subprocess.TimeoutExpired as exc:
        if budget.expired():
            raise budget.TimeLimitExceeded(budget.message()) from exc
        raise InputError(f"ripgrep timed out after {limit:.0f}s on one pattern set") from exc
    if proc.returncode not in (0, 1):
        raise RuntimeError(f"ripgrep failed: {proc.stderr.decode('utf-8', 'replace')[:200]}")
    flags = re.I if ignore_case else 0
    compiled = [re.compile(p, flags) for p in (select if select is not None else patterns)]
    for raw in proc.stdout.splitlines():
        if not raw.startswith(b'{"type":"match"'):
            continue
        data = json.loads(raw)["data"]
        name = _text_of(data.get("path") or {}, "backslashreplace")
        text = _text_of(data.get("lines") or {}, "replace")
        matched = tuple(i for i, c in enumerate(compiled) if c.search(text[:2000]))
        if not matched:
            if select is not None:
                continue
            matched = (0,)
        yield name, data["line_number"], text.rstrip("\n")[:300], matched


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
