"""Build the index of one snapshot: inventory, exported text tree, Python facts, settings, search."""

from __future__ import annotations

import hashlib
import os
import re
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from ..acquire.source import Snapshot, cache_root
from .configs import Setting, compose_settings, env_file_settings
from .inventory import FileRecord, Limits, language, role, skip_reason
from .pyfacts import PyFacts, extract
from .search import Hit, rg_search

_PARALLEL_MIN_FILES = 400


@dataclass
class RepoIndex:
    snapshot: Snapshot
    root: Path  # exported regular files at the commit, for ripgrep
    files: dict[str, FileRecord]
    skipped: list[tuple[str, str]]
    links: list[tuple[str, str]]  # (path, target) of symlinks, reported never followed
    py: dict[str, PyFacts]
    settings: list[Setting] = field(default_factory=list)
    stats: dict[str, float] = field(default_factory=dict)
    _search_cache: dict[tuple, list[Hit]] = field(default_factory=dict)
    _texts: dict[str, str] = field(default_factory=dict)

    def text(self, path: str) -> str:
        if path not in self._texts:
            p = self.root / path
            try:
                self._texts[path] = p.read_bytes().decode("utf-8", "replace")
            except OSError:
                self._texts[path] = ""
        return self._texts[path]

    def line(self, path: str, n: int) -> str:
        lines = self.text(path).splitlines()
        return lines[n - 1] if 0 < n <= len(lines) else ""

    def role(self, path: str) -> str:
        rec = self.files.get(path)
        return rec.role if rec else "unknown"

    def search(self, patterns: list[str], *, globs: tuple[str, ...] = (),
               ignore_case: bool = False) -> list[Hit]:
        key = (tuple(patterns), globs, ignore_case)
        if key not in self._search_cache:
            self._search_cache[key] = rg_search(self.root, patterns, globs=globs,
                                                ignore_case=ignore_case)
        return self._search_cache[key]

    def live_hits(self, patterns: list[str], *, globs: tuple[str, ...] = (),
                  ignore_case: bool = False, code_only: bool = False) -> list[Hit]:
        """Hits in source files on code lines (not comments, docstrings, tests, docs, examples).

        code_only: the match must survive removing string literals and trailing comments, for
        patterns about code structure (comparisons, calls) rather than argv or config strings."""
        out = []
        compiled = [re.compile(p, re.I if ignore_case else 0) for p in patterns] if code_only else []
        for h in self.search(patterns, globs=globs, ignore_case=ignore_case):
            if code_only and not any(c.search(_strip_strings(h.text)) for c in compiled):
                continue
            rec = self.files.get(h.path)
            if rec is None or rec.role not in ("source", "config"):
                continue
            facts = self.py.get(h.path)
            if facts is not None and not facts.is_code_line(h.line):
                continue
            if rec.lang == "python" and facts is None:
                continue
            out.append(h)
        return out

    def source_py(self) -> list[PyFacts]:
        return [self.py[p] for p in sorted(self.py)]


_STRING = re.compile(r"""[rbfuRBFU]{0,2}("(?:\\.|[^"\\])*"|'(?:\\.|[^'\\])*')""")


def _strip_strings(line: str) -> str:
    """A code line with string literals emptied and a trailing comment removed (linear time)."""
    return _STRING.sub('""', line).split("#", 1)[0]


def _parse_one(item: tuple[str, bytes]) -> PyFacts:
    return extract(*item)


def _export_dir(snapshot: Snapshot) -> Path:
    key = hashlib.sha256(snapshot.url.encode()).hexdigest()[:16]
    return cache_root() / "trees" / key / snapshot.commit


def _safe_relpath(path: str) -> bool:
    parts = path.split("/")
    return not (path.startswith("/") or any(p in ("", ".", "..") for p in parts))


def build_index(snapshot: Snapshot, limits: Limits | None = None) -> RepoIndex:
    limits = limits or Limits()
    t0 = time.perf_counter()
    entries = snapshot.list_tree()
    files: dict[str, FileRecord] = {}
    skipped: list[tuple[str, str]] = []
    links: list[tuple[str, str]] = []
    wanted = []
    total = 0
    for e in entries:
        if e.is_submodule:
            skipped.append((e.path, "submodule (never fetched)"))
            continue
        if e.is_symlink:
            links.append((e.path, ""))
            continue
        if e.size < 0:
            skipped.append((e.path, "blob absent from the object store"))
            continue
        if not _safe_relpath(e.path):
            skipped.append((e.path, "unsafe path"))
            continue
        reason = skip_reason(e.path, e.size, limits)
        if reason is None and len(files) >= limits.max_files:
            reason = f"over the file-count limit ({limits.max_files})"
        if reason is None and total + e.size > limits.max_total_bytes:
            reason = f"over the total-bytes limit ({limits.max_total_bytes})"
        if reason:
            if not reason.startswith("vendored"):
                skipped.append((e.path, reason))
            continue
        lang = language(e.path)
        files[e.path] = FileRecord(e.path, e.sha, e.size, lang, role(e.path, lang))
        total += e.size
        wanted.append(e)

    link_shas = {e.sha: e.path for e in entries if e.is_symlink}
    blobs = snapshot.read_blobs([e.sha for e in wanted] + list(link_shas))
    links = [(p, blobs.get(s, b"").decode("utf-8", "replace")[:200]) for s, p in link_shas.items()]
    links.sort()

    root = _export_dir(snapshot)
    fresh = not (root / ".dids-complete").exists()
    if fresh:
        root.mkdir(parents=True, exist_ok=True)
    to_parse: list[tuple[str, bytes]] = []
    for e in wanted:
        data = blobs.get(e.sha, b"")
        rec = files[e.path]
        if b"\0" in data[:8192]:
            skipped.append((e.path, "binary content"))
            del files[e.path]
            continue
        if max((len(x) for x in data.split(b"\n")), default=0) > limits.max_line_chars:
            skipped.append((e.path, f"a line longer than {limits.max_line_chars} characters"))
            del files[e.path]
            continue
        if fresh:
            dest = root / os.fsdecode(os.fsencode(e.path))
            dest.parent.mkdir(parents=True, exist_ok=True)
            dest.write_bytes(data)
        if rec.lang == "python" and rec.role == "source":
            to_parse.append((e.path, data))
    if fresh:
        (root / ".dids-complete").write_text("ok")
    t1 = time.perf_counter()

    py: dict[str, PyFacts] = {}
    if len(to_parse) >= _PARALLEL_MIN_FILES and (os.cpu_count() or 1) > 1:
        with ProcessPoolExecutor(max_workers=os.cpu_count()) as pool:
            for facts in pool.map(_parse_one, to_parse, chunksize=32):
                py[facts.path] = facts
    else:
        for item in to_parse:
            py[item[0]] = _parse_one(item)
    t2 = time.perf_counter()

    index = RepoIndex(snapshot=snapshot, root=root, files=files, skipped=sorted(skipped),
                      links=links, py=py)
    index.settings = _settings(index, blobs, wanted)
    index.stats = {"files": len(files), "python_parsed": len(py), "skipped": len(skipped),
                   "read_s": round(t1 - t0, 3), "parse_s": round(t2 - t1, 3)}
    return index


def _settings(index: RepoIndex, blobs: dict[str, bytes], wanted) -> list[Setting]:
    from .settings import code_settings  # local: settings reads PyFacts

    out: list[Setting] = []
    for e in wanted:
        rec = index.files.get(e.path)
        if rec is None:
            continue
        name = e.path.rsplit("/", 1)[-1]
        text = None
        if rec.role not in ("config", "source"):
            continue  # compose/.env files under docs, examples or tests are not what ships
        if rec.lang == "yaml" and ("compose" in name):
            text = blobs[e.sha].decode("utf-8", "replace")
            out.extend(compose_settings(e.path, text))
        elif name.startswith(".env"):
            text = blobs[e.sha].decode("utf-8", "replace")
            out.extend(env_file_settings(e.path, text))
    out.extend(code_settings(index))
    return out
