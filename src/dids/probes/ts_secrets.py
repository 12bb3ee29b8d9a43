"""Secrets in TypeScript/JavaScript: owner-only files (secrets.file_mode) and secret values
replaced by a pattern before text leaves (secrets.masking).

- owner-only: `chmod`/`chmodSync`/`fchmod` with 0o600 or 0o400 (or 384/256), and a file write
  or open whose `mode` option is one of those (`writeFileSync(p, data, {mode: 0o600})`);
- masking: a `.replace(/…token|api[_-]?key|secret|password|bearer|authorization…/, "…redacted…")`
  call, one finding per function: a regex sanitizer for credentials in messages.
"""

from __future__ import annotations

import re

from .base import finding
from .ts_probes import ts_probe

_OWNER_ONLY = re.compile(r"^(0o[46]00|0[46]00|384|256)$")
_CHMOD = ("chmod", "chmodSync", "fchmod", "fchmodSync", "lchmod", "lchmodSync")
_WRITES = ("writeFile", "writeFileSync", "appendFile", "appendFileSync", "open", "openSync",
           "createWriteStream", "outputFile", "outputFileSync", "writeJson", "writeJsonSync")
_FS = re.compile(r"^(fs|node:fs|fs/promises|node:fs/promises|fs-extra|graceful-fs)(\.promises)?\.")
_SECRET_RX = re.compile(r"token|api\[?_?-?\]?\??key|apikey|secret|passw|bearer|authorization|"
                        r"credential|private", re.I)
_REDACTED = re.compile(r"redact|\*\*\*|mask|hidden|removed|filtered|xxxx", re.I)


def _fs_call(c) -> bool:
    return bool(_FS.match(c.callee)) or "." not in c.callee


@ts_probe("secrets.file_mode")
def owner_only(index):
    """Files made owner-only by a chmod or a write with an owner-only mode."""
    for path in sorted(index.py):
        facts = index.py[path]
        for c in facts.calls:
            if c.short in _CHMOD and _fs_call(c):
                if any(_OWNER_ONLY.match(a.strip()) for a in c.args[1:2]):
                    yield finding("secrets.file_mode", f"{c.raw}(...) makes a file owner-only "
                                  f"({c.args[1].strip()}).", path, c.line)
            elif c.short in _WRITES and _fs_call(c):
                mode = (c.kw("mode") or "").strip()
                if _OWNER_ONLY.match(mode):
                    yield finding("secrets.file_mode", f"{c.raw}(...) writes a file owner-only "
                                  f"(mode {mode}).", path, c.line, c.end_line)


@ts_probe("secrets.masking")
def regex_redaction(index):
    """A replace of a credential pattern by a redaction marker (one per function)."""
    for path in sorted(index.py):
        facts = index.py[path]
        seen: set[str] = set()
        for c in sorted(facts.calls, key=lambda x: x.line):
            if c.short not in ("replace", "replaceAll") or len(c.args) < 2:
                continue
            pat, repl = c.args[0].strip(), c.args[1].strip()
            if not (pat.startswith("/") or pat.startswith("new RegExp")):
                continue
            if not (_SECRET_RX.search(pat) and _REDACTED.search(repl)):
                continue
            key = c.func or ""
            if key in seen:
                continue
            seen.add(key)
            yield finding("secrets.masking", f"{c.raw.split('(', 1)[0] if len(c.raw) > 60 else c.raw}"
                          f"(...) in {c.func or 'module scope'} replaces credential patterns "
                          f"({pat[:60]}) with {repl[:30]}.", path, c.line, c.end_line,
                          fn=c.short, caller=c.func or "")
